"""Tests that need a Debian package: skipped outside CI, naming it; failing in CI (``CI=true``).

``.ci/run`` installs every package listed here and the README names them.
Use ``@pytest.mark.system("package")`` on a test, or call
:func:`require_system` where a fixture of a wider scope needs the package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

import pytest


def _chromium_found() -> bool:
    return bool(os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser"))


def _cjk_font_found() -> bool:
    if not shutil.which("fc-list"):
        return False
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False).stdout
    return bool(fonts.strip())


def _word_model_found() -> bool:
    from metrics_registry.encoding import word_ngrams

    return word_ngrams.active() is not None


# Debian package -> (is it usable here?, what it is for). `.ci/run` installs
# every one of them and the README names them.
SYSTEM_PACKAGES: dict[str, tuple[Callable[[], bool], str]] = {
    "chromium": (_chromium_found, "a real browser for the site tests (or set CHROMIUM=/path)"),
    "gettext": (lambda: shutil.which("msgfmt") is not None, "GNU msgfmt, the PO editors' own checks"),
    "libime-data-language-model": (
        _word_model_found,
        "fcitx5's Chinese word model, read by kenlm (pip install -e ./packages/zh-models -e '.[test]' "
        "compiles it;"
        " METRICS_REGISTRY_ZH_LM=off turns it off)",
    ),
    "fonts-noto-cjk": (_cjk_font_found, "a CJK font, so the browser draws Chinese, not boxes"),
}


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_system(package: str) -> None:
    """Return if ``package`` is usable; otherwise skip (or fail in CI) saying what to install."""
    found, purpose = SYSTEM_PACKAGES[package]
    if found():
        return
    message = f"needs {purpose}: apt-get install {package}"
    if in_ci():
        pytest.fail(f"{message} (CI must install it: .ci/run)")
    pytest.skip(message)

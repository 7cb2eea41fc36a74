"""Where the project's translation catalogs (``i18n/``) are, seen from the installed package.

The catalogs are not package data: they live in the project folder next to
the registry sources. Commands that show translated text look for them from
the current folder upwards (the way ``metrics-registry i18n`` does), then in
the source checkout the package was installed from (``pip install -e``).
When neither has them, there is nothing to translate with and every text is
reported as untranslated.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["find_i18n_root", "published_site_url"]

# mkdocs.yml holds Python tags (the slugify function) that a safe YAML reader refuses, and only
# this one top-level scalar is wanted: a line match is enough.
_SITE_URL = re.compile(r"^site_url:[ \t]*['\"]?(https?://[^\s'\"#]+)", re.M)


def find_i18n_root(start: Path | None = None) -> Path | None:
    """The project folder holding ``i18n/babel.cfg``, or ``None``."""
    here = (start or Path.cwd()).resolve()
    checkout = Path(__file__).resolve().parent.parent
    for folder in (here, *here.parents, checkout):
        if (folder / "i18n" / "babel.cfg").is_file():
            return folder
    return None


def published_site_url(start: Path | None = None) -> str:
    """The ``site_url`` of the nearest project's ``mkdocs.yml`` (where its site is published, or
    ``serve``'s address), from the current folder upwards; ``""`` when there is none."""
    here = (start or Path.cwd()).resolve()
    checkout = Path(__file__).resolve().parent.parent
    for folder in (here, *here.parents, checkout):
        config = folder / "mkdocs.yml"
        if config.is_file():
            try:
                found = _SITE_URL.search(config.read_text(encoding="utf-8", errors="replace")[:65536])
            except OSError:
                return ""
            return found.group(1) if found else ""
    return ""

"""Front-end assets the site serves itself: the project's own and KaTeX.

The styles and scripts of the generated pages (badges, the index filter, the
family index's sorting) are package data (:data:`STATIC`), because the
MkDocs plugin serves them in other projects' sites too; the rest of this
site's own (``docs/assets``: the language switcher, search) stays with its pages.

Nothing is loaded from a CDN (readers may be offline, and the site must make
no request to another host). KaTeX comes from the npm registry at install
time (``npm ci`` with the committed ``package-lock.json``) and is copied into
each language's build here; it is never committed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from metrics_registry.registry import RegistryError
from metrics_registry.site.search import install_vietnamese_folding

__all__ = ["STATIC", "AssetError", "copy_assets", "katex_dist"]

#: The generated pages' styles and scripts, laid out as below a site's ``assets/`` folder.
STATIC = Path(__file__).resolve().parent / "static"

#: Files of KaTeX's dist/ the pages do not need.
_KATEX_SKIP = ("*.mjs", "*.map", "README.md", "katex.js", "katex.css", "katex-swap*", "*.ttf", "*.woff")


class AssetError(RegistryError):
    """An asset the site needs is not installed; the message says how to install it."""


def katex_dist(root: Path) -> Path:
    """``node_modules/katex/dist`` of the project, checked against ``package.json``."""
    dist = root / "node_modules" / "katex" / "dist"
    manifest = root / "node_modules" / "katex" / "package.json"
    if not (dist / "katex.min.js").is_file() or not manifest.is_file():
        raise AssetError(
            f"KaTeX is not installed in {root / 'node_modules'}: run 'npm ci' in {root} "
            "(formulas are rendered with the KaTeX pinned in package-lock.json; Node.js and npm "
            "come from your system, e.g. 'apt-get install npm')"
        )
    wanted = json.loads((root / "package.json").read_text(encoding="utf-8"))["dependencies"]["katex"]
    installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    if installed != wanted:
        raise AssetError(
            f"node_modules has KaTeX {installed}, package.json pins {wanted}: run 'npm ci' in {root}"
        )
    return dist


def copy_assets(root: Path, docs: Path) -> None:
    """Copy ``docs/assets`` and :data:`STATIC` (the project's CSS and JS) and KaTeX into a language's
    ``docs``."""
    shutil.copytree(root / "docs" / "assets", docs / "assets", dirs_exist_ok=True)
    shutil.copytree(STATIC, docs / "assets", dirs_exist_ok=True)
    shutil.copytree(katex_dist(root), docs / "assets" / "katex", ignore=shutil.ignore_patterns(*_KATEX_SKIP))
    install_vietnamese_folding(docs)  # docs/assets overrides Material's lunr.vi with a wrapper of it

"""Translations of the registry and of the site's UI strings (Babel catalogs).

Layout (``<root>`` is the project folder holding ``i18n/``)::

    i18n/babel.cfg                       which files feed which extractor
    i18n/registry.pot, i18n/ui.pot       templates (English), one per domain
    i18n/<lang>/LC_MESSAGES/<domain>.po  catalogs, edited by translators
    i18n/glossary.yaml                   fixed terminology per language

Two domains: ``registry`` (every text field of every metric and family,
``msgctxt`` = ``<family>:<key>|<field path>``) and ``ui`` (headings and
notices from the templates and the site generator).
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "DOMAINS",
    "LANGUAGES",
    "I18nError",
    "catalog_path",
    "i18n_dir",
    "locale_of",
    "template_path",
]

DOMAINS = ("registry", "ui")

#: Site language code -> Babel locale written in the catalog header. The
#: folder and the site prefix use the short code; Chinese is Simplified, so
#: its catalogs say ``Language: zh_Hans`` (understood by Poedit and Weblate).
LANGUAGES: dict[str, str] = {"vi": "vi", "zh": "zh_Hans"}


class I18nError(Exception):
    """A translation command cannot proceed; the message says what to do.

    ``problem``, ``line`` and ``fix`` are set when the error is about one
    file's content, so that ``validate`` can report it as a finding.
    """

    def __init__(self, message: str, *, problem: str = "", line: int | None = None, fix: str = "") -> None:
        super().__init__(message)
        self.problem = problem or message
        self.line = line
        self.fix = fix


def i18n_dir(root: Path) -> Path:
    """The ``i18n`` folder of a project (``root`` may also be that folder)."""
    root = Path(root)
    return root if root.name == "i18n" and (root / "babel.cfg").exists() else root / "i18n"


def template_path(root: Path, domain: str) -> Path:
    return i18n_dir(root) / f"{domain}.pot"


def catalog_path(root: Path, lang: str, domain: str) -> Path:
    return i18n_dir(root) / lang / "LC_MESSAGES" / f"{domain}.po"


def languages(root: Path) -> list[str]:
    """Languages that have a catalog folder under ``i18n/``, sorted."""
    base = i18n_dir(root)
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if (p / "LC_MESSAGES").is_dir())


def locale_of(lang: str) -> str:
    """The Babel locale of a site language (``zh`` -> ``zh_Hans``)."""
    return LANGUAGES.get(lang, lang)

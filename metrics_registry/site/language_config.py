"""The MkDocs config of one language of the site, and its navigation.

Each language is built with a small generated config that ``INHERIT``-s the
project's ``mkdocs.yml`` (written as JSON, which is valid YAML and needs no YAML
writer) and adds what differs per language: the docs and site folders, the
theme's language and texts, the language switcher, the navigation with its
section titles translated, and the pages the hooks need not clean. Written by
:mod:`metrics_registry.site.language_build`, in the process that builds the
language.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from metrics_registry.links import family_markdown
from metrics_registry.registry import Registry
from metrics_registry.site import hooks
from metrics_registry.site.languages import DEFAULT_LANGUAGE, SITE_LANGUAGES
from metrics_registry.site.sanitize import clean_text
from metrics_registry.site.theme import theme_settings

__all__ = ["METRIC_PAGES", "mkdocs_config", "navigation", "published_url"]

#: The metric pages (``reference/<family>/<slug>.md``), as a gitignore pattern for MkDocs' ``not_in_nav``.
METRIC_PAGES = "/reference/*/*.md"


def navigation(registry: Registry, docs: Path, gettext: Callable[[str], str]) -> list[object]:
    """The navigation, with section titles in the page's language (page titles come from the pages).

    The titles come from a catalog and the theme writes them as HTML: plain text only.
    """

    def _(message: str) -> str:
        return clean_text(gettext(message))

    def pages(folder: str) -> list[str]:
        return sorted(p.relative_to(docs).as_posix() for p in (docs / folder).glob("*.md"))

    reference: list[object] = [family_markdown(family_id) for family_id in registry.families]
    reference += pages("notes")
    if (docs / "api.md").exists():
        reference.append("api.md")
    nav: list[object] = [
        {_("Home"): "index.md"},
        {_("Guides"): ["reading-a-run.md", "legacy-names.md", "metrics.md"]},
        {_("Reference"): reference},
    ]
    # the index, then one page per concept in the concept list's order (site/concept_pages.py)
    concepts = [f"concepts/{concept_id}.md" for concept_id in registry.concepts]
    concepts = [page for page in ("concepts/index.md", *concepts) if (docs / page).is_file()]
    if concepts:
        nav.append({_("Across frameworks"): concepts})
    if pages("tools"):
        nav.append({_("Tools"): pages("tools")})
    nav.append({_("Contributing"): pages("contributing")})
    return nav


def published_url(root: Path, configured: str | None) -> str:
    """Where the site is published (``site_url`` of ``mkdocs.yml`` unless given), ending in ``/``."""
    if configured is None:
        from mkdocs.config import load_config  # only read, to honour the repository's setting

        configured = load_config(str(root / "mkdocs.yml")).site_url or "http://127.0.0.1:8000/"
    return configured if configured.endswith("/") else configured + "/"


def mkdocs_config(
    root: Path,
    work: Path,
    *,
    docs: Path,
    output: Path,
    lang: str,
    codes: tuple[str, ...],
    base_url: str,
    nav: list[object],
    gettext: Callable[[str], str],
    trusted: frozenset[str] = frozenset(),
) -> dict[str, object]:
    """The MkDocs config of one language (JSON is valid YAML, and needs no YAML writer here)."""
    languages = [
        {
            "code": other.code,
            "name": other.name,
            "hreflang": other.hreflang,
            "url": f"{base_url}{other.code}/",
            "path": f"../{other.code}/",  # relative to this language's root, for the switcher
            "default": other.code == DEFAULT_LANGUAGE,
            "current": other.code == lang,
        }
        for other in SITE_LANGUAGES
        if other.code in codes
    ]
    texts = theme_settings(gettext)  # site name, footer, palette, permalinks... in this language
    return {
        **texts,
        "INHERIT": os.path.relpath(root / "mkdocs.yml", work),
        "docs_dir": os.path.relpath(docs, work),
        "site_dir": str(output / lang),
        "site_url": f"{base_url}{lang}/",
        "theme": {
            **texts["theme"],  # type: ignore[dict-item]
            "name": "material",
            "language": lang,
            "custom_dir": str(root / "docs" / "overrides"),
        },
        # extra.alternate turns Material's language switcher on; its entries are
        # replaced by the page-level links of docs/overrides/partials/alternate.html
        "extra": {
            **texts["extra"],  # type: ignore[dict-item]
            "alternate": [
                {"name": item["name"], "link": item["path"], "lang": item["code"]} for item in languages
            ],
            "site_languages": languages,
            # every other page carries untrusted text: the hook cleans it
            hooks.TRUSTED_PAGES_KEY: sorted(trusted),
        },
        **_api_templates(root),
        "hooks": [hooks.__file__],
        "nav": nav,
        # each metric's page: linked from its family's index, not listed in the navigation
        # (which every page repeats); see metrics_registry/links.py
        "not_in_nav": METRIC_PAGES,
    }


def _api_templates(root: Path) -> dict[str, object]:
    """The project's mkdocstrings templates (the API page's source code out of the search index)."""
    templates = root / "docs" / "mkdocstrings"
    if not templates.is_dir():  # a project without the API page's templates keeps mkdocstrings' own
        return {}
    return {"plugins": {"mkdocstrings": {"custom_templates": str(templates)}}}

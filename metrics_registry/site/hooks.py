"""MkDocs hooks of the site build: clean every page that carries untrusted text.

``metrics-registry build`` names this file under ``hooks:`` in each
language's generated config, with the hand-written pages (trusted) under
``extra.mr_trusted_pages``. Every other page -- the pages generated from the
registry, its catalogs and the extension notes -- goes through the policy of
:mod:`metrics_registry.site.sanitize` after Markdown made it HTML: its body,
its title (shown in ``<title>``, the header and the navigation) and its table
of contents. A page not listed as trusted is cleaned, so a new generated
page is safe by default.

Cleaning runs before the search plugin indexes the page (``on_page_context``),
so the search index holds the cleaned text too.

The same step notes what the page needs beyond the theme's own assets, in
``page.meta`` (:data:`PAGE_ASSETS`): KaTeX where a formula is, the family
index's script where its table is. ``docs/overrides/main.html`` loads only
those, so a page without a formula requests no KaTeX file.

Before that, while Markdown builds a page, a link or image whose URL the
policy refuses loses that URL (:func:`on_config` adds the step). MkDocs
would otherwise take ``&#106;avascript:...`` for a broken relative link and
fail the strict build over text the policy removes anyway; ``validate``
reports it (MR151) with the registry file's or catalog's line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from mkdocs.plugins import event_priority

from metrics_registry.site.sanitize import clean_html, clean_text, url_allowed
from metrics_registry.site.search import compact_index

__all__ = ["PAGE_ASSETS", "TRUSTED_PAGES_KEY", "on_config", "on_page_content", "on_post_build"]

#: ``extra`` key of the MkDocs config listing the trusted pages (paths below docs_dir, POSIX).
TRUSTED_PAGES_KEY = "mr_trusted_pages"
#: ``page.meta`` flags the theme override reads, and the class in a page's HTML that sets each:
#: formulas (pymdownx.arithmatex) need KaTeX; a family index (family.md.j2) needs its script.
PAGE_ASSETS = {"mr_formulas": "arithmatex", "mr_family_index": "mr-family-index"}
#: A class attribute holding each of those classes (a whole name among the attribute's names).
_HAS_CLASS = {
    key: re.compile(
        rf"""\bclass=(?:"[^"]*?(?<![^\s"]){re.escape(name)}(?![^\s"])|'[^']*?(?<![^\s']){re.escape(name)}(?![^\s']))"""
    )
    for key, name in PAGE_ASSETS.items()
}


class _RefuseUrls(Treeprocessor):
    """Turn a link or image with a refused URL into its text, before MkDocs checks links.

    A ``<span>`` rather than an ``<a>`` without ``href``: MkDocs' link step
    (``relpath``) requires every link to have one.
    """

    def run(self, root: etree.Element) -> None:
        for element in [*root.iter("a"), *root.iter("img")]:
            name = "href" if element.tag == "a" else "src"
            if url_allowed(element.get(name, "")):
                continue
            if element.tag == "img":
                element.text = element.get("alt", "")
            element.attrib.clear()
            element.tag = "span"


class _RefuseUrlsExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # Python-Markdown names it
        # after inline links (20) and attr_list (8), before MkDocs' link check ('relpath', 0)
        md.treeprocessors.register(_RefuseUrls(md), "mr_refuse_urls", 4)


def on_config(config: Any) -> Any:
    """Add the step that drops refused URLs to every page's Markdown."""
    config.markdown_extensions.append(_RefuseUrlsExtension())
    return config


def _clean_toc(items: Iterable[Any]) -> None:
    for item in items:
        item.title = clean_text(item.title)
        _clean_toc(item.children)


def _mark_assets(html: str, page: Any) -> None:
    """Set the :data:`PAGE_ASSETS` flags of the page from the classes its HTML uses."""
    for key, name in PAGE_ASSETS.items():
        # the plain substring test first: most pages lack one of the names altogether
        page.meta[key] = name in html and _HAS_CLASS[key].search(html) is not None


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """The page's HTML, cleaned unless the page is a trusted, hand-written one."""
    trusted = set(config.extra.get(TRUSTED_PAGES_KEY) or ())
    if page.file.src_uri not in trusted:
        if page.title is not None:
            page.meta["title"] = clean_text(str(page.title))
        _clean_toc(page.toc)
        # no blank text before the title, which Material's search would index as an empty section
        html = clean_html(html).lstrip()
    _mark_assets(html, page)
    return html


@event_priority(-100)  # after Material's search plugin has written its index
def on_post_build(config: Any) -> None:
    """Write the search index in fewer bytes (:func:`metrics_registry.site.search.compact_index`)."""
    compact_index(Path(config.site_dir))

"""A link and anchor check over the built site, every language at once.

MkDocs' own validation sees one language's Markdown at a time; this reads
the HTML as a browser gets it, so it also covers the theme's links, the
language switcher, the hreflang alternates and the root pages. External
links are not fetched (the site must work offline); links to the site's own
URL are checked as local files.

Not a link-checking tool: those crawl over HTTP and fetch external links,
and a static folder needs neither. The pages are read by lexbor, an HTML5
parser written in C, through selectolax: the three languages' 1,600 pages
(88 MB) take 0.7 s of CPU, where the standard library's ``html.parser``
took ~10 s and a regular expression over start tags (which this used to
be) 2.0 s, for the same ids and links on every page. Targets are looked up
in the set of the site's files, read once, instead of a ``stat`` per link.

The theme's navigation (Material's primary sidebar) is the same on every
page of a language, its links made relative by MkDocs' one rule; it holds
most of a page's links, and its size grows with the number of families, so
checking it on every page made the check grow with the square of the site.
It is checked on each language's home page (and on any page without one);
elsewhere only the page's own links are.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import SplitResult, unquote, urlsplit

__all__ = ["BrokenLink", "Page", "check_links", "scan_folder", "scan_page"]

#: The elements whose attribute is a link, as one CSS selector (lexbor returns them in document order).
_LINKS = "a[href], link[href], script[src], img[src], iframe[src]"
_IDS = "[id], a[name]"
#: Material's navigation sidebar: the same links on every page (see the module docstring).
_NAVIGATION = ".md-sidebar--primary"
#: Where Material's template opens that sidebar, and what it opens right after it (the table of
#: contents' sidebar, or the content when a page hides it): both come before the page's own text.
_NAVIGATION_START = b'<div class="md-sidebar md-sidebar--primary"'
_NAVIGATION_END = (b'<div class="md-sidebar md-sidebar--secondary"', b'<div class="md-content"')


@dataclass(frozen=True)
class BrokenLink:
    page: str  # relative to the site folder
    target: str
    problem: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target}: {self.problem}"


@dataclass
class Page:
    """The ids a page defines (``id``, and ``name`` of ``<a>``) and the URLs it links to."""

    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)


def scan_page(text: str | bytes, *, navigation: bool = True) -> Page:
    """The ids (``id``, and ``name`` of ``<a>``) and links of one HTML page, as a browser parses it;
    without ``navigation``, the theme's navigation sidebar is left out, its links and its ids (the
    same on every page of a language, read on its home page; no page links to them)."""
    from selectolax.lexbor import LexborHTMLParser

    cut = None if navigation else _without_navigation(text.encode("utf-8") if isinstance(text, str) else text)
    tree = LexborHTMLParser(text if cut is None else cut)
    page = Page()
    if not navigation and cut is None:  # the theme's markup not in place: prune the parsed tree
        for node in tree.css(_NAVIGATION):
            node.decompose()
    for node in tree.css(_IDS):
        for name in ("id", "name") if node.tag == "a" else ("id",):
            value = node.attributes.get(name)
            if value:
                page.ids.add(value)
    for node in tree.css(_LINKS):
        value = node.attributes.get("src" if node.tag in ("script", "img", "iframe") else "href")
        if value:
            page.links.append(value)
    return page


def _without_navigation(html: bytes) -> bytes | None:
    """The page without Material's navigation sidebar, cut out of the bytes before parsing; ``None``
    when the theme's markup is not found in its place (the parsed tree is then pruned instead).

    The sidebar is most of a page (47 of 63 kB on a registry of 70 families) and parsing it was most
    of the check's time; a string search is not an HTML parser, so the cut is made only between the
    theme's own opening tags, which precede anything a page's text could add.
    """
    start = html.find(_NAVIGATION_START)
    if start < 0:
        return None
    ends = [end for end in (html.find(marker, start) for marker in _NAVIGATION_END) if end > start]
    if not ends:
        return None
    return html[:start] + html[min(ends) :]


@lru_cache(maxsize=65536)
def _split(link: str) -> SplitResult:
    return urlsplit(link)  # the same theme links recur on every page


def scan_folder(site: Path, folder: str) -> dict[str, Page]:
    """The pages below ``site/folder``, scanned now (names relative to ``site``): a build scans
    a language as soon as MkDocs wrote it, while the other languages are still being built."""
    site = site.resolve()
    names = sorted(name for name in _files(site, folder) if name.endswith(".html"))
    return _scan_files(site, names)


def check_links(
    site: Path, base_url: str | None = None, scanned: Mapping[str, Page] | None = None
) -> list[BrokenLink]:
    """Every broken internal link or anchor in the HTML under ``site``.

    Pages are addressed as the site is served (``/`` = ``site``); absolute
    links starting with ``base_url`` count as internal. ``scanned`` are pages
    already read (:func:`scan_folder`) and not written since.
    """
    site = site.resolve()
    files = _files(site)
    folders = {posixpath.dirname(name) for name in files}
    folders |= {parent for folder in folders for parent in _parents(folder)}
    scanned = scanned or {}
    html_pages = sorted(name for name in files if name.endswith(".html"))
    pages = _scan_all(site, [name for name in html_pages if name not in scanned])
    pages.update((name, page) for name, page in scanned.items() if name in files)
    base = urlsplit(base_url) if base_url else None
    problems: list[BrokenLink] = []
    for name, page in pages.items():
        folder = "/" + posixpath.dirname(name)
        for link in page.links:
            parts = _split(link)
            if parts.scheme in ("mailto", "javascript", "data", "tel"):
                continue
            if parts.scheme or parts.netloc:
                if base is None or (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
                    continue  # external: not fetched
                url_path = parts.path or "/"
            elif not parts.path:  # "#anchor" or "?query": this page
                url_path = "/" + name
            else:
                url_path = parts.path if parts.path.startswith("/") else posixpath.join(folder, parts.path)
            target = _local_file(url_path, files, folders)
            if target is None:
                problems.append(BrokenLink(name, link, "no such file"))
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.endswith(".html"):
                target_page = pages.get(target)
                if target_page is None or fragment not in target_page.ids:
                    problems.append(BrokenLink(name, link, f"no anchor '#{fragment}'"))
    return problems


def _files(site: Path, below: str = "") -> set[str]:
    """Every file below ``site`` (or its folder ``below``), as a path relative to ``site`` with ``/``."""
    found: set[str] = set()
    for folder, _, names in os.walk(site / below):
        relative = Path(folder).relative_to(site).as_posix()
        found.update(names if relative == "." else (f"{relative}/{name}" for name in names))
    return found


def _scan_files(site: Path, names: list[str]) -> dict[str, Page]:
    return {name: scan_page((site / name).read_bytes(), navigation=_home(name)) for name in names}


def _home(name: str) -> bool:
    """Whether ``name`` is the site's or a language's home page, whose navigation is checked."""
    return name == "index.html" or (name.count("/") == 1 and name.endswith("/index.html"))


#: Pages below which one process scans them all (starting workers costs more than it saves).
_PARALLEL_FROM = 400


def _scan_all(site: Path, names: list[str]) -> dict[str, Page]:
    """Every page scanned, by one worker process per core for a large site (the regular
    expressions hold the GIL, so threads would not help)."""
    workers = min(os.cpu_count() or 1, len(names) // (_PARALLEL_FROM // 2) or 1)
    if workers < 2:
        return _scan_files(site, names)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [names[start::workers] for start in range(workers)]
    # fork where there is one: the workers need nothing imported again
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method)) as pool:
        scanned: dict[str, Page] = {}
        for part in pool.map(_scan_files, [site] * workers, chunks):
            scanned.update(part)
    return {name: scanned[name] for name in names}


def _parents(folder: str) -> list[str]:
    parents = []
    while folder:
        folder = posixpath.dirname(folder)
        parents.append(folder)
    return parents


def _local_file(url_path: str, files: set[str], folders: set[str]) -> str | None:
    """The site file a URL path (absolute, percent-encoded) is served from, or None."""
    path = posixpath.normpath(unquote(url_path)).lstrip("/")
    path = "" if path == "." else path
    if url_path.endswith("/") or path in folders:
        path = posixpath.join(path, "index.html") if path else "index.html"
    return path if path in files else None

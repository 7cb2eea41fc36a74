"""A link and anchor check over the built site, every language at once.

MkDocs' own validation sees one language's Markdown at a time; this reads
the HTML as a browser gets it, so it also covers the theme's links, the
language switcher, the hreflang alternates and the root pages. External
links are not fetched (the site must work offline); links to the site's own
URL are checked as local files.

Not a link-checking tool: those crawl over HTTP and fetch external links,
and a static folder needs neither. Not the standard library's
``html.parser`` either, which this used to be: it is pure Python and took
~6 ms a page (~10 s for the three languages' 1,600 pages, as long as a
third of MkDocs' own build). The pages are the output of MkDocs and its
theme, with the untrusted parts already serialized by nh3 (quoted
attributes), so start tags are found with one regular expression that
follows HTML's attribute syntax (quotes may hold ``>``), after dropping
what HTML does not read as tags: comments and the bodies of ``script`` and
``style`` elements. Targets are looked up in the set of the site's files,
read once, instead of a ``stat`` per link.
"""

from __future__ import annotations

import html
import os
import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import SplitResult, unquote, urlsplit

__all__ = ["BrokenLink", "check_links", "scan_page"]

_LINK_ATTRIBUTES = {"a": "href", "link": "href", "script": "src", "img": "src", "iframe": "src"}
#: What HTML does not parse as tags: comments, and the raw text of script and style elements
#: (the opening tag is kept: a script's ``src`` is a link).
_NOT_TAGS = re.compile(
    r"<(?:!--.*?-->|(script\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>).*?</script\s*>"
    r"|(style\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>).*?</style\s*>)",
    re.DOTALL | re.IGNORECASE,
)
_START_TAG = re.compile(r"<([a-zA-Z][a-zA-Z0-9-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")


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


def _attributes(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        value = next((group for group in match.groups()[1:] if group is not None), "")
        values.setdefault(match[1].lower(), html.unescape(value) if "&" in value else value)
    return values


def scan_page(text: str) -> Page:
    """The ids and links of one HTML page."""
    page = Page()
    text = _NOT_TAGS.sub(lambda m: "<" + (m[1] or m[2]) if m[1] or m[2] else "", text)
    for match in _START_TAG.finditer(text):
        tag, rest = match[1].lower(), match[2]
        if tag not in _LINK_ATTRIBUTES and "id" not in rest.lower():
            continue  # most tags: no link, no id
        values = _attributes(rest)
        for name in ("id", "name") if tag == "a" else ("id",):
            if values.get(name):
                page.ids.add(values[name])
        target = values.get(_LINK_ATTRIBUTES.get(tag, ""))
        if target:
            page.links.append(target)
    return page


@lru_cache(maxsize=65536)
def _split(link: str) -> SplitResult:
    return urlsplit(link)  # the same theme links recur on every page


def check_links(site: Path, base_url: str | None = None) -> list[BrokenLink]:
    """Every broken internal link or anchor in the HTML under ``site``.

    Pages are addressed as the site is served (``/`` = ``site``); absolute
    links starting with ``base_url`` count as internal.
    """
    site = site.resolve()
    files = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    folders = {posixpath.dirname(name) for name in files}
    folders |= {parent for folder in folders for parent in _parents(folder)}
    pages = _scan_all(site, sorted(name for name in files if name.endswith(".html")))
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


def _scan_files(site: Path, names: list[str]) -> dict[str, Page]:
    return {name: scan_page((site / name).read_text(encoding="utf-8", errors="replace")) for name in names}


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

"""A link and anchor check over the built site, every language at once.

MkDocs' own validation sees one language's Markdown at a time; this reads
the HTML as a browser gets it, so it also covers the theme's links, the
language switcher, the hreflang alternates and the root pages. External
links are not fetched (the site must work offline); links to the site's own
URL are checked as local files.

Written with the standard library's HTML parser rather than a link-checking
tool: those crawl over HTTP and fetch external links, and a static folder
needs neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

__all__ = ["BrokenLink", "check_links"]

_LINK_ATTRIBUTES = {"a": "href", "link": "href", "script": "src", "img": "src", "iframe": "src"}


@dataclass(frozen=True)
class BrokenLink:
    page: str  # relative to the site folder
    target: str
    problem: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target}: {self.problem}"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("id", "name") if tag == "a" else ("id",):
            if values.get(name):
                self.ids.add(values[name])  # type: ignore[arg-type]
        target = values.get(_LINK_ATTRIBUTES.get(tag, ""))
        if target:
            self.links.append(target)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _local_file(site: Path, url_path: str) -> Path:
    path = site / unquote(url_path).lstrip("/")
    if url_path.endswith("/") or path.is_dir():
        path = path / "index.html"
    return path


def check_links(site: Path, base_url: str | None = None) -> list[BrokenLink]:
    """Every broken internal link or anchor in the HTML under ``site``.

    Pages are addressed as the site is served (``/`` = ``site``); absolute
    links starting with ``base_url`` count as internal.
    """
    site = site.resolve()
    pages = {path: _parse(path) for path in sorted(site.rglob("*.html"))}
    problems: list[BrokenLink] = []
    base = urlsplit(base_url) if base_url else None
    for path, page in pages.items():
        here = "/" + path.relative_to(site).as_posix()
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme in ("mailto", "javascript", "data", "tel"):
                continue
            if parts.scheme or parts.netloc:
                if base is None or (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
                    continue  # external: not fetched
                url_path = parts.path
            else:
                url_path = urlsplit(urljoin(here, link)).path
            same_page = not parts.path and not parts.scheme  # "#anchor"
            target = path if same_page else _local_file(site, url_path)
            if not target.exists():
                problems.append(BrokenLink(here.lstrip("/"), link, "no such file"))
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                target_page = pages.get(target) or _parse(target)
                if fragment not in target_page.ids:
                    problems.append(BrokenLink(here.lstrip("/"), link, f"no anchor '#{fragment}'"))
    return problems

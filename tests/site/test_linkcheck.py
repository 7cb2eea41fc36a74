"""The link and anchor check over a built site, on small sites written by the tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry.site import linkcheck
from metrics_registry.site.linkcheck import check_links, scan_page


def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    site = tmp_path / "site"
    for name, body in pages.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<!doctype html><html><body>{body}</body></html>", encoding="utf-8")
    return site


def _problems(site: Path, base_url: str | None = None) -> set[tuple[str, str, str]]:
    return {(p.page, p.target, p.problem) for p in check_links(site, base_url)}


def test_working_links_of_every_kind(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "index.html": (
                '<a href="en/">home</a><a href="en/metric/#kl-div">kl</a><a href="#top" id="top">top</a>'
                '<link rel="stylesheet" href="assets/style.css"><script src="assets/app.js"></script>'
                "<a href='en/metric/index.html#old-name'>single quotes, an a name</a>"
                '<a href="en/a%20b/">percent-encoded</a><a href="../../en/">above the root</a>'
                '<a href="https://example.org/x#y">external</a><a href="mailto:a@b.c">mail</a>'
                '<a href="en/?q=1">a query</a><a href="http://site.test/en/metric/#kl-div">own URL</a>'
            ),
            "en/index.html": '<a href="../index.html#top">up</a><a href="./">here</a>',
            "en/metric/index.html": '<h2 id="kl-div">KL</h2><a name="old-name"></a><a href="../">up</a>',
            "en/a b/index.html": "",
            "assets/style.css": "",
            "assets/app.js": "",
        },
    )
    assert _problems(site, "http://site.test/") == set()


def test_missing_files_and_anchors_are_named(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "index.html": (
                '<a href="en/nope/">gone</a><a href="en/#missing">no anchor</a><a href="#self">self</a>'
                '<img src="img.png" alt=""><a href="http://site.test/en/gone/">own URL, gone</a>'
            ),
            "en/index.html": "<p>no ids</p>",
        },
    )
    assert _problems(site, "http://site.test/") == {
        ("index.html", "en/nope/", "no such file"),
        ("index.html", "en/#missing", "no anchor '#missing'"),
        ("index.html", "#self", "no anchor '#self'"),
        ("index.html", "img.png", "no such file"),
        ("index.html", "http://site.test/en/gone/", "no such file"),
    }


def test_only_what_html_reads_as_tags_counts() -> None:
    page = scan_page(
        '<!-- <a href="commented.html" id="c"> -->'
        '<script src="app.js">document.write(\'<a href="in-script.html">\')</script>'
        '<style>a[href="in-style.html"]{}</style>'
        '<a title="a > b" href="after-quoted-gt.html">x</a>'
        '<a href="q.html?a=1&amp;b=2">entity</a><A HREF="upper.html" ID="Upper">x</A>'
        '<div id="plain"></div><span class="x">no id</span>'
    )
    assert page.links == ["app.js", "after-quoted-gt.html", "q.html?a=1&b=2", "upper.html"]
    assert page.ids == {"Upper", "plain"}


def test_a_large_site_is_scanned_in_parallel_with_the_same_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = {
        f"p{i}/index.html": f'<h2 id="s{i}">x</h2><a href="../p{i + 1}/#s{i + 1}">next</a>'
        for i in range(600)
    }
    pages["p599/index.html"] = '<h2 id="s599">x</h2><a href="../p0/#gone">a broken anchor</a>'
    site = _site(tmp_path, pages)
    parallel = _problems(site)
    monkeypatch.setattr(linkcheck, "_PARALLEL_FROM", 10**9)
    assert _problems(site) == parallel == {("p599/index.html", "../p0/#gone", "no anchor '#gone'")}


def test_pages_scanned_while_the_build_goes_on_give_the_same_findings(tmp_path: Path) -> None:
    """A build reads each language once MkDocs wrote it; the check then reads only the rest."""
    site = _site(
        tmp_path,
        {
            "index.html": '<a href="en/#gone">root</a><a href="vi/#x">vi</a>',
            "en/index.html": '<h2 id="here">x</h2><a href="../vi/#x">to vi</a><a href="#nowhere">self</a>',
            "vi/index.html": '<h2 id="x">x</h2><a href="../en/#here">to en</a>',
            "vi/old/index.html": '<a href="../../missing/">written then removed</a>',
        },
    )
    early = {**linkcheck.scan_folder(site, "en"), **linkcheck.scan_folder(site, "vi")}
    assert sorted(early) == ["en/index.html", "vi/index.html", "vi/old/index.html"]
    (site / "vi" / "old" / "index.html").unlink()  # a scanned page that is gone is not checked
    expected = {
        ("index.html", "en/#gone", "no anchor '#gone'"),
        ("en/index.html", "#nowhere", "no anchor '#nowhere'"),
    }
    assert {(p.page, p.target, p.problem) for p in check_links(site, scanned=early)} == expected
    assert _problems(site) == expected


def test_the_navigation_is_checked_on_each_home_page_and_the_content_everywhere(tmp_path: Path) -> None:
    def page(navigation: str, content: str = "") -> str:
        sidebar = f'<div class="md-sidebar md-sidebar--primary"><nav>{navigation}</nav></div>'
        return f"{sidebar}<article>{content}</article>"

    site = _site(
        tmp_path,
        {
            "en/index.html": page('<a href="missing/">broken in the navigation</a>'),
            "en/metric/index.html": page(
                '<a href="../missing/">the same navigation</a><a href="#nav-id">nav anchor</a>',
                '<a href="../gone/">broken in the content</a><span id="nav-id"></span>',
            ),
        },
    )
    assert _problems(site) == {
        ("en/index.html", "missing/", "no such file"),
        ("en/metric/index.html", "../gone/", "no such file"),
    }
    assert len(scan_page((site / "en/metric/index.html").read_text(), navigation=False).links) == 1
    assert len(scan_page((site / "en/metric/index.html").read_text()).links) == 3


@pytest.mark.parametrize(
    "after",
    [
        '<div class="md-sidebar md-sidebar--secondary"><nav><a href="#toc">toc</a></nav></div>',
        "",  # a page that hides its table of contents: the content follows the navigation
    ],
)
def test_the_navigation_cut_out_before_parsing_reads_as_the_pruned_page(after: str) -> None:
    """Material's markup: the sidebar is cut from the bytes (fast path); the same ids and links as
    the parsed tree with the sidebar removed; a cut that would reach into the page is not made."""
    navigation = (
        '<div class="md-sidebar md-sidebar--primary" data-md-type="navigation">'
        '<nav><input id="__nav_2"><a href="../other/">other</a></nav></div>'
    )
    content = (
        '<div class="md-content"><article><h1 id="title">T</h1><a href="#title">here</a>'
        '<p>&lt;div class="md-content"&gt; as text</p></article></div>'
    )
    html = f'<!doctype html><html><body><div class="md-main">{navigation}{after}{content}</div></body></html>'
    assert linkcheck._without_navigation(html.encode()) is not None
    page = scan_page(html, navigation=False)
    assert "__nav_2" not in page.ids and "../other/" not in page.links
    assert {"title"} <= page.ids and "#title" in page.links
    assert ("#toc" in page.links) == bool(after)
    whole = scan_page(html)
    assert "../other/" in whole.links and "__nav_2" in whole.ids
    # the end of the sidebar missing: nothing is cut, the parsed tree is pruned as before
    unclosed = html.replace('<div class="md-content">', "<div>").replace(after, "")
    assert linkcheck._without_navigation(unclosed.encode()) is None
    assert "../other/" not in scan_page(unclosed, navigation=False).links

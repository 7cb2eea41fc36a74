"""A page per metric in a real browser (issue 19): an old ``reference/<family>/#<anchor>`` link opens
the metric's page, with or without JavaScript; a page without a formula requests no KaTeX file;
the family index sorts; the console stays clean, in every language.

The browser fixtures are in conftest.py; every test here shares one built site.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

LANGUAGES = ("en", "vi", "zh")
#: Material's search is ready (its worker loaded the index, its requests are done).
SEARCH_READY = """() => {
  const meta = document.querySelector(".md-search-result__meta");
  const config = JSON.parse(document.getElementById("__config").textContent);
  return meta !== null && meta.textContent.trim() === config.translations["search.result.placeholder"];
}"""


class _Watched:
    """A browser page with every console error or warning, page error and failed request recorded."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.problems: list[str] = []
        self.requests: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on(
            "console",
            lambda message: (
                self.problems.append(f"{page.url}: console {message.type}: {message.text}")
                if message.type in {"error", "warning"}
                else None
            ),
        )
        page.on("pageerror", lambda error: self.problems.append(f"{page.url}: {error}"))
        page.on("requestfailed", lambda request: self.problems.append(f"{request.url}: {request.failure}"))
        page.on(
            "response",
            lambda response: (
                self.problems.append(f"{response.url}: HTTP {response.status}")
                if response.status >= 400
                else None
            ),
        )

    def open(self, url: str) -> None:
        self.requests.clear()
        self.page.goto(url, wait_until="networkidle")
        self.page.wait_for_function(SEARCH_READY, timeout=30_000)


@pytest.fixture
def watched(browser: Browser, served: str) -> Iterator[_Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield _Watched(context.new_page())
    context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_old_anchor_link_opens_the_metric_page(watched: _Watched, served: str, lang: str) -> None:
    watched.open(f"{served}{lang}/reference/grpo/#clip_ratio-low_mean")
    watched.page.wait_for_url(f"{served}{lang}/reference/grpo/clip_ratio-low_mean/")
    assert watched.page.locator("h1#clip_ratio-low_mean").is_visible()
    assert watched.page.evaluate("document.documentElement.lang") == lang
    # what the browser had started fetching for the index (its parser looks ahead while the
    # <head> script moves on) is cancelled by the move, ERR_ABORTED; anything else is a problem
    assert [problem for problem in watched.problems if not problem.endswith("net::ERR_ABORTED")] == []
    aborted = [problem.rsplit(":", 2)[0] for problem in watched.problems]
    assert all("/reference/" not in url for url in aborted), aborted  # never the metric page
    watched.problems.clear()
    # an unknown hash leaves the reader on the index
    watched.open(f"{served}{lang}/reference/ppo/#no-such-metric")
    assert watched.page.url == f"{served}{lang}/reference/ppo/#no-such-metric"
    assert watched.page.locator(".mr-family-index table").is_visible()
    assert not watched.problems, watched.problems


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_javascript_an_old_anchor_lands_on_the_row_linking_to_the_page(
    browser: Browser, served: str, lang: str
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{served}{lang}/reference/grpo/#kl", wait_until="load")
    assert page.url == f"{served}{lang}/reference/grpo/#kl"  # nothing redirects
    link = page.locator("a#kl")
    assert link.get_attribute("href") == "kl/"
    top = link.evaluate("element => element.getBoundingClientRect().top")
    assert 0 <= top < 900  # scrolled to the row
    link.click()
    page.wait_for_url(f"{served}{lang}/reference/grpo/kl/")
    context.close()


def _first_metric_page(site: Path, lang: str, *, formula: bool) -> str:
    for path in sorted((site / lang / "reference").glob("*/*/index.html")):
        if ('class="arithmatex"' in path.read_text(encoding="utf-8")) == formula:
            return path.parent.relative_to(site).as_posix() + "/"
    raise AssertionError(f"no metric page {'with' if formula else 'without'} a formula in {lang}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_katex_is_requested_only_by_a_page_with_a_formula(
    watched: _Watched, site: Path, served: str, lang: str
) -> None:
    watched.open(f"{served}{_first_metric_page(site, lang, formula=False)}")
    assert watched.requests and not [url for url in watched.requests if "katex" in url.lower()]
    watched.open(f"{served}{lang}/reference/grpo/")  # the family index: no formula either
    assert not [url for url in watched.requests if "katex" in url.lower()]
    watched.open(f"{served}{_first_metric_page(site, lang, formula=True)}")
    loaded = {url.rsplit("/", 1)[1] for url in watched.requests if "/assets/katex/" in url}
    assert {"katex.min.css", "katex.min.js", "auto-render.min.js"} <= loaded
    formulas = watched.page.locator(".arithmatex")
    assert formulas.count() > 0
    assert watched.page.locator(".arithmatex .katex").count() == formulas.count()  # all rendered
    assert not watched.problems, watched.problems


def _column(page: Page, index: int) -> list[str]:
    return page.eval_on_selector_all(
        ".mr-family-index tbody tr", f"rows => rows.map(row => row.cells[{index}].textContent.trim())"
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_family_index_sorts_by_a_column(watched: _Watched, served: str, lang: str) -> None:
    page = watched.page
    watched.open(f"{served}{lang}/reference/grpo/")
    keys = _column(page, 0)
    assert len(keys) > 40
    collate = "(a, b) => a.localeCompare(b, document.documentElement.lang, {numeric: true})"
    ordered = page.evaluate(f"keys => keys.slice().sort({collate})", keys)
    assert keys == ordered  # by key at first
    unsorted = _column(page, 2)
    heading = page.locator(".mr-family-index thead th").nth(2)  # the category
    heading.locator("button").click()
    categories = _column(page, 2)
    assert categories == page.evaluate(f"values => values.slice().sort({collate})", categories)
    assert heading.get_attribute("aria-sort") == "ascending"
    assert len(set(categories)) > 3 and categories != unsorted
    heading.locator("button").click()
    assert _column(page, 2) == categories[::-1]  # ties hold the same text, so exactly reversed
    assert heading.get_attribute("aria-sort") == "descending"
    assert sorted(_column(page, 0)) == sorted(keys)  # every row kept
    assert not watched.problems, watched.problems


@pytest.mark.parametrize(("start", "target"), [("en", "vi"), ("vi", "zh"), ("zh", "en")])
def test_the_language_switcher_keeps_the_metric_page(
    watched: _Watched, served: str, start: str, target: str
) -> None:
    watched.open(f"{served}{start}/reference/ppo/objective-kl/")
    watched.page.locator(".md-header__option .md-select").hover()
    hreflang = {"en": "en", "vi": "vi", "zh": "zh-Hans"}[target]
    watched.page.locator(f'a.mr-language-link[hreflang="{hreflang}"]').click()
    watched.page.wait_for_url(f"{served}{target}/reference/ppo/objective-kl/")
    assert watched.page.locator("h1#objective-kl").is_visible()
    assert not watched.problems, watched.problems


#: Inline code elements in tables that the browser laid out on more than one line.
_CUT_KEYS = """selector => Array.from(document.querySelectorAll(selector))
  .filter(code => code.getClientRects().length > 1)
  .map(code => code.textContent)"""
#: Option names in tables: [words laid out on more than one line (cut mid-word), code elements
#: that wrapped at all]. A word is a run between spaces within one text node (``<wbr>`` separates
#: text nodes), so a wrap after ``.``/``_`` or at a space is fine and a cut inside a word is not.
_CUT_OPTIONS = """selector => {
  const codes = Array.from(document.querySelectorAll(selector)).filter(code => code.querySelector("wbr"));
  const cut = [];
  for (const code of codes) {
    for (const node of code.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE) continue;
      for (const word of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map(rect => Math.round(rect.top)));
        if (tops.size > 1) cut.push(word[0]);
      }
    }
  }
  const lines = code => new Set(Array.from(code.getClientRects()).map(rect => Math.round(rect.top))).size;
  const wrapped = codes.filter(code => lines(code) > 1);
  return [cut, wrapped.length];
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_keys_are_never_cut_in_two_across_frameworks(watched: _Watched, served: str, lang: str) -> None:
    page = watched.page
    watched.open(f"{served}{lang}/concepts/")
    assert page.locator(".mr-across td code").count() > 100
    assert page.evaluate(_CUT_KEYS, ".mr-across td code") == []
    quantity = page.locator(".mr-across tbody td").first
    left = quantity.bounding_box()
    wrap = page.locator(".mr-across .md-typeset__scrollwrap")
    assert wrap.evaluate("wrap => wrap.scrollWidth > wrap.clientWidth")  # the frameworks do not fit
    wrap.evaluate("wrap => { wrap.scrollLeft = wrap.scrollWidth; }")
    shown, box = quantity.bounding_box(), wrap.bounding_box()
    assert left and shown and box
    assert box["x"] <= shown["x"] <= left["x"]  # the quantity stays in view as the frameworks scroll
    watched.open(f"{served}{lang}/concepts/clip-fraction-low/")
    assert page.evaluate(_CUT_KEYS, ".mr-concept-keys td:nth-child(2) code") == []
    # long option names wrap after a dot or an underscore, never inside a word
    watched.open(f"{served}{lang}/concepts/gradient-variance/")
    cut, wrapped = page.evaluate(_CUT_OPTIONS, ".mr-concept-keys td code")
    assert cut == [] and wrapped > 0
    assert not watched.problems, watched.problems

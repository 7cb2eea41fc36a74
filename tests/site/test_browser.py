"""What a reader sees: the built site in a real headless Chromium (Debian's), driven by Playwright.

Chromium comes from the system (``apt-get install chromium``; ``.ci/run``
installs it when missing); Playwright's own browser downloads are never used.
Set ``CHROMIUM`` to use another binary. The browser fixtures are in conftest.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page


def _open(page: Page, url: str) -> None:
    page.goto(url, wait_until="networkidle")


@pytest.mark.parametrize(
    ("lang", "title"),
    [("en", "KL divergence"), ("vi", "Phân kỳ KL"), ("zh", "KL 散度")],
)
def test_metric_page_in_each_language(page: Page, served: str, lang: str, title: str) -> None:
    _open(page, f"{served}{lang}/reference/grpo/#kl")  # the old section's link opens the page
    page.wait_for_url(f"{served}{lang}/reference/grpo/kl/")
    section = page.locator("h1#kl")
    assert section.is_visible()
    assert page.evaluate("document.documentElement.lang") == lang
    text = page.locator("article").inner_text()
    assert title in text


def test_formulas_are_rendered_not_raw_tex(page: Page, served: str) -> None:
    for lang in ("en", "vi", "zh"):
        _open(page, f"{served}{lang}/reference/ppo/policy-clipfrac_avg/")
        formulas = page.locator(".arithmatex")
        assert formulas.count() > 5
        assert page.locator(".arithmatex .katex").count() == formulas.count()
        assert page.locator(".katex-error").count() == 0
        visible = page.locator("article").inner_text()
        assert "\\frac" not in visible and "\\sum" not in visible and "$$" not in visible


@pytest.mark.parametrize(("start", "target"), [("vi", "zh"), ("zh", "en"), ("en", "vi")])
def test_language_switcher_keeps_page_and_metric(page: Page, served: str, start: str, target: str) -> None:
    _open(page, f"{served}{start}/reference/grpo/#clip_ratio-low_mean")
    page.locator(".md-header__option .md-select").hover()
    hreflang = {"en": "en", "vi": "vi", "zh": "zh-Hans"}[target]
    page.locator(f'a.mr-language-link[hreflang="{hreflang}"]').click()
    page.wait_for_url(f"{served}{target}/reference/grpo/clip_ratio-low_mean/")
    assert page.evaluate("document.documentElement.lang") == target
    assert page.locator("h1#clip_ratio-low_mean").is_visible()


def _search(page: Page, served: str, lang: str, query: str) -> list[str]:
    _open(page, f"{served}{lang}/")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    box = page.locator("input.md-search__input")
    box.fill(query)
    box.press("End")  # Material searches on key events; fill() alone types no key
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    return page.eval_on_selector_all(
        ".md-search-result__item a", "links => links.map(link => link.getAttribute('href'))"
    )


def test_chinese_search_finds_entropy(page: Page, served: str) -> None:
    links = _search(page, served, "zh", "熵")
    assert any("#entropy" in link or "entropy" in link for link in links[:10]), links[:10]


def test_vietnamese_search_with_and_without_diacritics(page: Page, served: str) -> None:
    # folded and accented queries find the same first sections (issue 19); typed with its
    # diacritics a query also prefers its words as typed, so further down the orders may part
    # (test_browser_reading checks what comes first)
    def sections(query: str) -> list[str]:
        return [re.sub(r"\?h=[^#]*", "", link) for link in _search(page, served, "vi", query)[:3]]

    accented = sections("phân kỳ")
    assert accented, "no result"
    assert sections("phan ky") == accented


def test_no_request_leaves_the_local_server(page: Page, served: str) -> None:
    for path in ("en/", "vi/reference/ppo/#objective-kl", "zh/metrics/", "zh/api/", "vi/404.html"):
        _open(page, f"{served}{path}")
    requests = page.requests  # type: ignore[attr-defined]
    assert requests
    outside = [url for url in requests if not url.startswith(served)]
    assert not outside


def test_root_sends_the_reader_to_their_language(browser: Browser, served: str) -> None:
    for accept, lang in (("vi-VN,vi;q=0.9", "vi"), ("zh-CN,zh", "zh"), ("fr-FR,fr", "en")):
        context = browser.new_context(
            locale=accept.split(",")[0], extra_http_headers={"Accept-Language": accept}
        )
        page = context.new_page()
        page.goto(served, wait_until="networkidle")
        assert page.url == f"{served}{lang}/", accept
        context.close()


def test_metrics_index_filters_rows(page: Page, served: str) -> None:
    _open(page, f"{served}en/metrics/")
    rows = page.locator(".mr-index tbody tr")
    total = rows.count()
    page.locator(".mr-filter input[type=search]").fill("clip_ratio")
    visible = page.locator(".mr-index tbody tr:visible")
    assert 0 < visible.count() < total
    assert all("clip_ratio" in text for text in visible.all_inner_texts())
    page.locator(".mr-filter select[name=family]").select_option("legacy-ppo")
    assert page.locator(".mr-index tbody tr:visible").count() == 0
    page.locator(".mr-filter input[type=search]").fill("")
    assert page.locator(".mr-index tbody tr:visible").count() > 10
    assert page.locator(".mr-filter__count").inner_text() == str(
        page.locator(".mr-index tbody tr:visible").count()
    )


@pytest.mark.system("fonts-noto-cjk")
def test_screenshots_of_a_metric_in_each_language(page: Page, served: str, tmp_path: Path) -> None:
    """The screenshots a reviewer looks at (kept under the test's tmp folder)."""
    for lang in ("en", "vi", "zh"):
        _open(page, f"{served}{lang}/reference/grpo/entropy/")
        path = tmp_path / f"{lang}-entropy.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 20_000  # a blank page compresses to a few kB

"""Issue 19 in a real browser: a clean console on every page, search that finds Vietnamese
typed without diacritics, section anchors kept by the language switcher, and a dark scheme.

The browser fixtures are in conftest.py; every test here shares one built site.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

#: Material's search is ready (its worker loaded the index) once it shows its placeholder.
SEARCH_READY = """() => {
  const config = JSON.parse(document.getElementById("__config").textContent);
  const meta = document.querySelector(".md-search-result__meta");
  return meta !== null && meta.textContent.trim() === config.translations["search.result.placeholder"];
}"""


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text.replace("đ", "d").replace("Đ", "D"))
    return "".join(char for char in decomposed if not unicodedata.combining(char)).lower()


def _every_page(site: Path) -> list[str]:
    """Every page of every language, but of the pages made from one template only a few: per family
    the first and the last metric, and the first with a formula and without one; the first and
    the last concept page (each costs a second in the browser, and there are hundreds)."""
    paths = []
    for lang in ("en", "vi", "zh"):
        concepts = []
        for page in sorted((site / lang).rglob("index.html")):
            relative = page.parent.relative_to(site)
            if len(relative.parts) == 4 and relative.parts[1] == "reference":  # a metric's page
                continue
            if len(relative.parts) == 3 and relative.parts[1] == "concepts":  # a concept's page
                concepts.append(f"{relative.as_posix()}/")
                continue
            paths.append(f"{relative.as_posix()}/")
        paths += concepts[:1] + concepts[-1:]
        for family in sorted(p for p in (site / lang / "reference").iterdir() if p.is_dir()):
            metrics = sorted(p.parent for p in family.glob("*/index.html"))
            formula = [p for p in metrics if "arithmatex" in (p / "index.html").read_text(encoding="utf-8")]
            plain = [p for p in metrics if p not in formula]
            chosen = {metrics[0], metrics[-1], *formula[:1], *plain[:1]}
            paths += sorted(f"{p.relative_to(site).as_posix()}/" for p in chosen)
        paths.append(f"{lang}/404.html")
    return paths


def test_every_page_loads_without_a_console_error_or_a_failed_request(
    browser: Browser, site: Path, served: str
) -> None:
    """0 console errors and warnings, 0 failed requests, 0 error responses, in all three languages."""
    context = browser.new_context()
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(f"{page.url}: console {message.type}: {message.text}")
            if message.type in {"error", "warning"}
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"{page.url}: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"{request.url}: {request.failure}"))
    page.on(
        "response",
        lambda response: (
            problems.append(f"{response.url}: HTTP {response.status}") if response.status >= 400 else None
        ),
    )
    paths = _every_page(site)
    assert len(paths) > 45
    for path in paths:
        page.goto(f"{served}{path}", wait_until="networkidle")
        page.wait_for_function(SEARCH_READY, timeout=30_000)  # the search worker's requests are done
    context.close()
    assert not problems, "\n".join(problems[:20])


def _search(page: Page, served: str, lang: str, query: str) -> list[dict[str, object]]:
    """The results of a query: each link, its title and the words it highlights."""
    page.goto(f"{served}{lang}/", wait_until="networkidle")
    page.wait_for_function(SEARCH_READY, timeout=30_000)
    page.locator("label.md-search__icon, .md-search__input").first.click()
    box = page.locator("input.md-search__input")
    box.fill(query)
    box.press("End")  # Material searches on key events; fill() alone types no key
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    return page.eval_on_selector_all(
        ".md-search-result__link",
        """links => links.map(link => ({
            href: link.getAttribute("href"),
            text: link.textContent,
            marks: Array.from(link.querySelectorAll("mark")).map(mark => mark.textContent),
        }))""",
    )


def _section(href: str) -> str | None:
    """The anchor a search result opens: its #section, or the metric of a metric's page (its h1's id)."""
    if "#" in href:
        return href.split("#", 1)[1]
    path = href.split("?", 1)[0].rstrip("/").split("/")
    return path[-1] if len(path) >= 3 and path[-3] == "reference" else None


def _sections(results: list[dict[str, object]]) -> list[str]:
    return [section for result in results if (section := _section(str(result["href"]))) is not None]


# (language, query, what one of the first three sections found must name: with several frameworks'
# families, "熵" (entropy) finds verl's actor/entropy as well as TRL's entropy)
TOP_HITS = [
    ("en", "entropy", "entropy"),
    ("en", "kl divergence", "kl"),
    ("zh", "熵", "entropy"),
    ("zh", "KL 散度", "kl"),
    ("zh", "裁剪", "clip_ratio"),
    ("vi", "phân kỳ KL", "kl"),
    ("vi", "phan ky KL", "kl"),
    ("vi", "entropy", "entropy"),
]


@pytest.mark.parametrize(("lang", "query", "expected"), TOP_HITS)
def test_search_top_hits(page: Page, served: str, lang: str, query: str, expected: str) -> None:
    sections = _sections(_search(page, served, lang, query))
    assert any(expected in section for section in sections[:3]), sections[:10]


@pytest.mark.parametrize(
    ("accented", "folded", "topic"),
    [("độ dài", "do dai", ("len", "length")), ("phần thưởng", "phan thuong", ("reward",))],
)
def test_vietnamese_without_diacritics_ranks_and_highlights_like_with_them(
    page: Page, served: str, accented: str, folded: str, topic: tuple[str, ...]
) -> None:
    """ "do dai" finds what "độ dài" (length) finds, first the length metrics, and marks "độ dài"."""
    with_marks = _search(page, served, "vi", accented)
    without = _search(page, served, "vi", folded)
    assert without == with_marks  # the same results, in the same order, with the same highlights
    sections = [result for result in without if _section(str(result["href"])) is not None]
    first = str(_section(str(sections[0]["href"])))
    assert any(word in first for word in topic), _sections(without)[:10]
    for result in sections[:3]:  # every top hit holds the words, as written
        assert accented in str(result["text"]).lower(), result
    words = set(folded.split())
    marks = [str(mark) for result in without[:4] for mark in result["marks"]]  # type: ignore[union-attr]
    assert marks and all(_fold(mark).strip(".,:;") in words for mark in marks), marks
    assert any(mark != _fold(mark) for mark in marks)  # the page's own words, diacritics and all


def test_the_page_a_folded_search_opens_highlights_the_words(page: Page, served: str) -> None:
    results = _search(page, served, "vi", "do dai")
    first = next(str(result["href"]) for result in results if _section(str(result["href"])) is not None)
    page.goto(first if "//" in first else f"{served}vi/{first}", wait_until="networkidle")
    section = _section(first)
    marks = page.eval_on_selector_all(
        "article mark[data-md-highlight]", "marks => marks.map(mark => mark.textContent)"
    )
    assert marks and {_fold(mark) for mark in marks} <= {"do", "dai"}, marks
    assert {"độ", "dài"} <= {mark.lower() for mark in marks}, marks  # the words as written
    assert page.locator(f"[id='{section}']").is_visible()


@pytest.mark.parametrize(
    ("start", "target", "path"),
    [
        ("vi", "zh", "tools/check-run/#the-report"),
        ("zh", "en", "contributing/translating/#add-a-language"),
        ("en", "vi", "notes/multiturn-grpo/#usage"),
    ],
)
def test_language_switcher_keeps_the_section(
    page: Page, served: str, start: str, target: str, path: str
) -> None:
    """Headings have the English ids in every language, so #the-report exists in Chinese too."""
    page.goto(f"{served}{start}/{path}", wait_until="networkidle")
    page.locator(".md-header__option .md-select").hover()
    hreflang = {"en": "en", "vi": "vi", "zh": "zh-Hans"}[target]
    page.locator(f'a.mr-language-link[hreflang="{hreflang}"]').click()
    page.wait_for_url(f"{served}{target}/{path}")
    anchor = path.split("#", 1)[1]
    heading = page.locator(f"[id='{anchor}']")
    assert heading.is_visible()
    top = heading.evaluate("element => element.getBoundingClientRect().top")
    assert 0 <= top < 300  # scrolled to the section, not left at the top of the page


def _luminance(css: str) -> float:
    red, green, blue = (int(part) / 255 for part in css[css.index("(") + 1 : css.index(")")].split(",")[:3])

    def linear(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


@pytest.mark.parametrize(
    ("system", "scheme", "other"), [("dark", "slate", "default"), ("light", "default", "slate")]
)
def test_color_scheme_follows_the_system_and_toggles(
    browser: Browser, served: str, system: str, scheme: str, other: str
) -> None:
    context = browser.new_context(color_scheme=system)  # type: ignore[arg-type]
    page = context.new_page()
    page.goto(f"{served}zh/reference/ppo/objective-kl/", wait_until="networkidle")
    assert page.evaluate("document.body.dataset.mdColorScheme") == scheme
    colors = page.evaluate(
        """() => [getComputedStyle(document.querySelector(".arithmatex .katex")).color,
                  getComputedStyle(document.body).backgroundColor]"""
    )
    text, background = sorted((_luminance(colors[0]), _luminance(colors[1])), reverse=True)
    assert (text + 0.05) / (background + 0.05) > 7  # formulas readable: WCAG AAA contrast
    page.locator("form[data-md-component=palette] label:visible").click()
    page.wait_for_function(f"document.body.dataset.mdColorScheme === '{other}'")
    context.close()

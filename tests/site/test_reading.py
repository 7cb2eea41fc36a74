"""What a reader of the built site sees in every language (issue 19): no English interface in
Vietnamese or Chinese, the same section ids everywhere, the notes and the API page readable."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from metrics_registry.site.theme import theme_settings

LANGUAGES = ("en", "vi", "zh")
_TAGS = re.compile(r"<[^>]+>")


def _pages(site: Path, lang: str) -> list[Path]:
    return sorted((site / lang).rglob("*.html"))


def _article(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    return text[text.find("<article") : text.find("</article>")]


def _text(fragment: str) -> str:
    return html.unescape(_TAGS.sub("", fragment))


def _theme_strings() -> list[str]:
    """Every English string the theme shows, as theme_settings makes them."""
    english = theme_settings(lambda message: message)
    strings = [
        str(english["site_name"]),
        "Made with",
        english["markdown_extensions"]["toc"]["permalink_title"],  # type: ignore[index]
        *(scheme["toggle"]["name"] for scheme in english["theme"]["palette"]),  # type: ignore[index]
        *english["extra"]["theme_text"].values(),  # type: ignore[union-attr]
    ]
    return [*strings, "404 - Not found"]  # Material's own heading


def _interface(page: Path) -> str:
    """A page without the text of its article (which may quote the interface), attributes kept."""
    text = page.read_text(encoding="utf-8")
    start, end = text.find("<article"), text.find("</article>")
    if start == -1:
        return text
    return text[:start] + re.sub(r">[^<]*<", "><", text[start:end]) + text[end:]


@pytest.mark.parametrize("lang", ["vi", "zh"])
def test_no_english_interface_in_other_languages(site: Path, lang: str) -> None:
    english = _theme_strings()
    for page in _pages(site, lang):
        text = _interface(page)
        found = [string for string in english if string in text]
        assert not found, f"{page.relative_to(site)}: {found}"
    not_found = (site / lang / "404.html").read_text(encoding="utf-8")
    assert {"vi": "Không tìm thấy trang", "zh": "页面未找到"}[lang] in not_found
    assert "Not found" not in not_found and "not found" not in not_found


def test_english_pages_show_the_english_interface(site: Path) -> None:
    page = (site / "en" / "reference" / "grpo" / "index.html").read_text(encoding="utf-8")
    assert 'title="Permanent link"' in page and "Made with" in page and "Switch to dark mode" in page
    assert "<h1>404 – Page not found</h1>" in (site / "en" / "404.html").read_text(encoding="utf-8")


def test_every_page_has_the_same_section_ids_in_every_language(site: Path) -> None:
    """So the language switcher, which carries the #anchor, lands on the same section."""
    for page in (site / "en").rglob("index.html"):
        relative = page.relative_to(site / "en")
        ids = {
            lang: re.findall(r'<h[1-6] id="([^"]+)"', _article(site / lang / relative)) for lang in LANGUAGES
        }
        assert ids["en"], relative
        assert ids["en"] == ids["vi"] == ids["zh"], relative
        assert all(anchor.isascii() for anchor in ids["en"]), relative


def test_chinese_navigation_has_no_space_next_to_full_width_punctuation(site: Path) -> None:
    titles = set()
    for page in _pages(site, "zh"):
        for title in re.findall(
            r'<span class="md-ellipsis">(.*?)</span>', page.read_text(encoding="utf-8"), re.S
        ):
            titles.add(" ".join(_text(title).split()))
    assert "旧版 PPO（TRL v0.7）指标" in titles
    assert not [title for title in titles if re.search(r"[（）：，。、] | [（）：，。、]", title)]


@pytest.mark.parametrize(
    ("lang", "title"),
    [
        ("en", "Multi-turn GRPO (email-search agent): source notes"),
        ("vi", "GRPO nhiều lượt (agent tìm kiếm email): ghi chú gốc"),
        ("zh", "多轮 GRPO（邮件搜索智能体）：原始说明"),
    ],
)
def test_notes_page_has_its_title_and_its_lists(site: Path, lang: str, title: str) -> None:
    page = site / lang / "notes" / "multiturn-grpo" / "index.html"
    text = page.read_text(encoding="utf-8")
    article = _article(page)
    assert "title:" not in _text(article)  # the front matter is not printed
    assert f"<title>{html.escape(title, quote=False)} - " in text
    assert re.search(
        rf'<span class="md-ellipsis">\s*{re.escape(html.escape(title, quote=False))}\s*</span>', text
    )
    assert "Multiturn grpo" not in text  # MkDocs' fallback when the title is lost
    assert article.count("<ul>") >= 12  # the lists that ran into prose, and the nested file lists
    # the changed files' sub-lists sit inside their item, not after it as items of the numbered list
    assert re.search(
        r"<code>grpo/trainer\.py</code></strong>:</p>\s*<ul>\s*<li>[^\n]*turn_advantages", article
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_api_page_renders_its_docstrings(site: Path, lang: str) -> None:
    article = _article(site / lang / "api" / "index.html")
    prose = _text("\n".join(re.findall(r"<p>(.*?)</p>", article, re.S)))
    for raw in (".. math::", ":math:", "Args:", ":func:", "``"):
        assert raw not in prose, raw
    assert article.count('class="arithmatex"') > 100
    assert article.count('<span class="doc-section-title">') > 30  # the "Args:" sections, as tables
    notice = {"en": None, "vi": "Bằng tiếng Anh", "zh": "英文内容"}[lang]
    if notice:
        assert f'<p class="admonition-title">{notice}</p>' in article
    else:
        assert '<div class="admonition info">' not in article.split("<h2", 1)[0]

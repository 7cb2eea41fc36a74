"""The site's HTML policy: it keeps every page the project generates whole, and removes every payload."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import markdown
import nh3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mkdocs.config import load_config
from ruamel.yaml import YAML

from metrics_registry import Registry
from metrics_registry.i18n.fields import family_texts, metric_texts
from metrics_registry.site.generate import generate_pages
from metrics_registry.site.sanitize import (
    _CLEANER,
    _kept_by_policy,
    clean_html,
    clean_text,
    markdown_text,
    url_allowed,
)

ROOT = Path(__file__).resolve().parents[2]
XSS = ROOT / "tests" / "fixtures" / "hostile" / "xss"
DANGEROUS = ("javascript:", "data:", "vbscript:")


class _Elements(HTMLParser):
    """Every element with its attributes, normalised where the serialisation differs harmlessly."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        normal = [
            (name, (value or "").replace(" ", "").rstrip(";") if name == "style" else value or "")
            for name, value in attrs
        ]
        self.found[(tag, tuple(sorted(normal)))] += 1


def _elements(html: str) -> Counter[tuple[str, tuple[tuple[str, str], ...]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.found


def _as_parsed(html: str) -> str:
    """``html`` as a browser's parser builds it (html5ever, through a cleaner that keeps all it has).

    Markdown writes some invalid nesting (a code block inside a list's
    ``<p>``) that any HTML5 parser splits; comparing parsed trees leaves
    only what the policy itself removes.
    """
    seen = _elements(html)
    attributes: dict[str, set[str]] = {}
    for tag, pairs in seen:
        attributes.setdefault(tag, set()).update(name for name, _ in pairs)
    schemes = {"http", "https", "mailto", "ftp", "tel", "file", "data", "javascript", "vbscript"}
    return nh3.clean(html, tags=set(attributes), attributes=attributes, url_schemes=schemes, link_rel=None)


def _markdown() -> markdown.Markdown:
    """Python-Markdown with the site's extensions and their settings (mkdocs.yml)."""
    config = load_config(str(ROOT / "mkdocs.yml"))
    return markdown.Markdown(
        extensions=config["markdown_extensions"], extension_configs=config["mdx_configs"]
    )


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_cleaning_the_projects_pages_removes_nothing(registry: Registry, tmp_path: Path, lang: str) -> None:
    """Every tag and attribute the templates and extensions write is in the policy."""
    written = generate_pages(registry, ROOT, tmp_path, lang=lang)
    cleaned = [path for path in written if path.relative_to(tmp_path).as_posix() not in written.trusted]
    assert len(cleaned) >= 8  # family pages, index, guides, notes
    md = _markdown()
    for path in cleaned:
        source = path.read_text(encoding="utf-8").split("\n---\n", 1)[-1]  # without the front matter
        html = md.reset().convert(source)
        before, after = _elements(_as_parsed(html)), _elements(clean_html(html))
        assert before == after, f"{path.name}: {before - after}"


def _corpus_texts() -> list[str]:
    data = YAML(typ="safe").load((XSS / "corpus.yaml").read_text(encoding="utf-8"))
    texts = [field.text for field in family_texts(data["family"])]
    texts += [field.text for metric in data["metrics"] for field in metric_texts(metric)]
    return texts


def test_no_payload_of_the_corpus_survives_cleaning() -> None:
    md = _markdown()
    texts = _corpus_texts()
    assert len(texts) > 15
    for text in texts:
        raw = _elements(md.reset().convert(text))
        cleaned = _elements(clean_html(md.reset().convert(text)))
        for tag, attributes in cleaned:
            assert tag not in {"script", "iframe", "object", "embed", "svg", "math", "style", "meta", "body"}
            for name, value in attributes:
                assert not name.startswith("on"), (text, tag, name)
                assert not value.replace(" ", "").lower().startswith(DANGEROUS), (text, tag, name, value)
        assert sum(cleaned.values()) <= sum(raw.values())


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " \tjavascript:alert(1)",
        "java\tscript:alert(1)",
        "&#106;avascript:alert(1)",
        "&#x6A;avascript&#x3A;alert(1)",
        "&#0000106&#0000097vascript:alert(1)",
        "jav&#x09;ascript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "vbscript:msgbox(1)",
    ],
)
def test_dangerous_urls_are_refused_in_any_spelling(url: str) -> None:
    assert not url_allowed(url)
    assert "href" not in clean_html(f'<a href="{url}">x</a>')


@pytest.mark.parametrize("url", ["https://x.org/a?b=c&d=e", "mailto:a@b.org", "../reference/grpo/#kl", "#kl"])
def test_site_urls_are_kept(url: str) -> None:
    assert url_allowed(url)


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(blacklist_characters=":&", blacklist_categories=("Cs",)), max_size=30))
def test_a_url_without_a_colon_or_an_entity_is_kept_as_the_policy_keeps_it(url: str) -> None:
    # url_allowed answers these without nh3: they cannot spell a scheme
    assert url_allowed(url) and _kept_by_policy(url)


def test_plain_texts_show_markup_as_text_and_run_nothing() -> None:
    assert clean_text('<svg onload="alert(1)">KL</svg> & <b>more</b>') == "KL &amp; more"
    assert "&lt;" in clean_text("a < b")
    text = markdown_text("Giúp dịch [x](javascript:alert(1)) `code` {: onclick=x }\nnext")
    html = _markdown().convert(text)
    assert "<a" not in html and "<code>" not in html and "onclick=" not in html.replace("onclick=x", "")
    assert "\n" not in text


def _dom(html: str) -> str:
    """The document a browser builds from ``html`` (lexbor, an HTML5 parser), serialised."""
    from selectolax.lexbor import LexborHTMLParser

    body = LexborHTMLParser(html).body
    return body.html if body is not None else ""


#: Pieces an HTML text is made of here: code elements as Pygments writes them, and what could
#: make a set-aside code element land in an attribute, a removed element or a comment.
_PIECES = st.sampled_from(
    [
        "<code>",
        "</code>",
        '<span class="n">',
        '<span class="s2">',
        "</span>",
        "<pre>",
        "</pre>",
        '<a title="',
        '<a href="javascript:alert(1)" title=\'',
        '"',
        "'",
        ">",
        "<",
        ' onclick="alert(1)" ',
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<svg>",
        "</svg>",
        "<!--",
        "-->",
        "<textarea>",
        "</textarea>",
        "<p>",
        "</p>",
        "x",
        "&quot;",
        "&gt;",
        "&amp;",
        "&lt;script&gt;",
        'def f(a="b"):',
        "\n",
        '<span class="x" onmouseover="alert(1)">',
        '<img src=x onerror="alert(1)">',
    ]
)


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(
        _PIECES | st.lists(_PIECES, max_size=6).map(lambda inner: "<code>" + "".join(inner) + "</code>"),
        max_size=12,
    ).map("".join)
)
def test_setting_code_aside_builds_the_page_nh3_alone_would(html: str) -> None:
    """clean_html hands the code elements of Pygments past nh3: a browser builds the same page."""
    assert _dom(clean_html(html)) == _dom(_CLEANER.clean(html))


def test_a_code_element_inside_an_attribute_or_removed_markup_is_not_set_aside() -> None:
    for html in (
        '<a title="<code>">" onclick="alert(1)</code>">x</a>',
        '<a title=\'<code><span class="n">x</span></code>\' href="javascript:alert(1)">y</a>',
        '<script><code>alert(1)</code></script><code><span class="k">def</span></code>',
        '<svg onload="alert(1)"><code><span class="n">x</span></code></svg>',
        "<!-- <code>x</code> --><code>y</code>",
        '<code><img src=x onerror="alert(1)"></code>',
        '<code><span class="n" onclick="alert(1)">a</span></code>',
        "<code><script>alert(1)</script></code>",
    ):
        cleaned = clean_html(html)
        for tag, attributes in _elements(cleaned):  # what is left of a payload is text, shown
            assert tag not in {"script", "svg"}, (html, tag)
            assert all(not name.startswith("on") and "javascript" not in value for name, value in attributes)
        assert _dom(cleaned) == _dom(_CLEANER.clean(html)), html


def test_code_blocks_are_kept_as_pygments_wrote_them() -> None:
    block = '<div class="highlight"><pre><span></span><code><span class="s2">"a" &lt;b&gt;</span></code>'
    block += "</pre></div>"
    assert clean_html(block) == block  # set aside, so not rewritten: "a" as Pygments writes it

"""Raw HTML (MR150) and dangerous URLs (MR151) in registry texts: what is reported, and where."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry.api import validate
from metrics_registry.markup import dangerous_scheme, find_unsafe_markup

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("<script>alert(1)</script>", {"MR150"}),
        ("an <img/src=#/onerror=alert(1)> image", {"MR150"}),
        ("<svg onload=alert(1)>", {"MR150"}),
        ("<!-- a comment -->", {"MR150"}),
        ("text { onclick=alert(1) }", {"MR150"}),
        ("[x](javascript:alert(1))", {"MR151"}),
        ("[x]( JAVASCRIPT:alert(1))", {"MR151"}),
        ("[x](<javascript:alert(1)>)", {"MR150", "MR151"}),  # a browser reads <javascript:...> as a tag
        ("[x][1]\n\n[1]: data:text/html,x", {"MR151"}),
        ("![x](vbscript:msgbox(1))", {"MR151"}),
        ("<javascript:alert(1)>", {"MR150", "MR151"}),
        ('<a href="&#106;avascript:alert(1)">x</a>', {"MR150", "MR151"}),
        ("$\\href{javascript:alert(1)}{x}$", {"MR151"}),
        ("the longest response (issue\n#7817).", {"MR152"}),  # Python-Markdown: a heading
        ("#4711 之后的旧版", {"MR152"}),
        ("   ## Section", {"MR152"}),
    ],
)
def test_markup_is_reported(text: str, rules: set[str]) -> None:
    assert {problem.rule for problem in find_unsafe_markup(text)} == rules


@pytest.mark.parametrize(
    "text",
    [
        "a < b and c > d, x<y",
        "`<script>alert(1)</script>` and `[x](javascript:alert(1))` are code",
        "```html\n<script>alert(1)</script>\n```",
        "<https://example.org> and <maintainers@example.org>",
        "&lt;b&gt; is escaped",
        "$\\{x_i\\}_{i=1}^n$ and $\\sum_{t} x_t$",
        "[TRL](https://github.com/huggingface/trl), [kl](#kl), [page](../ppo.md#kl)",
        "a javascript: URL mentioned in prose, and data: too",
        "issue #7817, and `#include` and\n    #indented code",
        "```python\n# a comment in code\n```",
    ],
)
def test_lookalikes_are_not_reported(text: str) -> None:
    assert find_unsafe_markup(text) == []


def test_a_value_shown_inside_a_code_span_can_close_it() -> None:
    """``trainer`` is shown as `trainer`: its own backticks end that span, and HTML follows."""
    text = "X` <img src=# onerror=alert(1)> `"
    assert find_unsafe_markup(text) == []
    assert [p.rule for p in find_unsafe_markup(text, in_code_span=True)] == ["MR150"]


@pytest.mark.parametrize(
    "url",
    [
        "javascript:x",
        " \x01JavaScript:x",
        "java\tscript:x",
        "java&#x09;script:x",
        "&#106avascript:x",
        "&#x6A;avascript&#x3A;x",
        "&#0000106;avascript:x",
        "DATA:text/html,x",
        "vbscript:x",
    ],
)
def test_dangerous_schemes_in_any_spelling(url: str) -> None:
    assert dangerous_scheme(url) is not None


@pytest.mark.parametrize("url", ["https://x.org/javascript:", "page.md#data:", "mailto:a@b.org", "#kl"])
def test_harmless_urls(url: str) -> None:
    assert dangerous_scheme(url) is None


def test_every_occurrence_is_reported_on_its_own_line() -> None:
    """The details of xss/script hold one dangerous URL a line (lines 28 to 37), several spelled alike."""
    _, findings = validate([FIXTURES / "hostile" / "xss" / "corpus.yaml"], builtin=False)
    lines = [f.line for f in findings if f.rule == "MR151" and (f.key, f.field) == ("xss/script", "details")]
    assert lines == list(range(28, 38))


def test_example_data_is_not_reported_but_its_description_is(tmp_path: Path) -> None:
    """Worked-example inputs are shown in code blocks: '<b>' there is data."""
    source = (FIXTURES / "hostile" / "xss" / "clean.yaml").read_text(encoding="utf-8")
    example = (
        "    examples:\n"
        "      - description: An <b>example</b>.\n"
        '        inputs: {text: "<b>bold</b>", url: "javascript:x"}\n'
        '        expected: "<b>"\n'
    )
    path = tmp_path / "examples.yaml"
    path.write_text(source.replace("    healthy:\n", example + "    healthy:\n"), encoding="utf-8")
    _, findings = validate([path], builtin=False)
    markup = [(f.field, f.line) for f in findings if f.rule in ("MR150", "MR151")]
    assert markup == [("examples[0].description", 40), ("examples[0].description", 40)]  # <b>, </b>

"""Where a text holds code and table cells: the places a page quotes mojibake on purpose."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from metrics_registry.encoding.markup import Layout, containing, layout, markup_for


def code_of(text: str, markup: str = "markdown") -> list[str]:
    return [text[start:end] for start, end in layout(text, markup).code]


def cells_of(text: str) -> list[str]:
    return [text[start:end] for start, end in layout(text, "markdown").cells]


@pytest.mark.parametrize(
    ("name", "markup"),
    [
        ("page.md", "markdown"),
        ("docs/PAGE.MD", "markdown"),
        ("notes.markdown", "markdown"),
        ("ui.po", "text"),
        ("registry.yaml", "text"),
        ("log.txt", "text"),
        ("-", "auto"),
        ("README", "auto"),
    ],
)
def test_markup_by_file_name(name: str, markup: str) -> None:
    assert markup_for(name) == markup


def test_code_spans_of_any_length() -> None:
    text = "Say `Ã©` or ``a ` tick`` but not ``this`.\n"
    assert code_of(text) == ["`Ã©`", "``a ` tick``"]


def test_a_code_span_may_cross_a_line_break_in_a_paragraph() -> None:
    text = "A span `that runs\nover two lines` ends here.\n"
    assert code_of(text) == ["`that runs\nover two lines`"]


def test_escaped_backticks_html_and_autolinks_open_no_span() -> None:
    text = "\\`Ã© is text.\n\n<a title='`'>link</a> and <https://x.org/`a> too; `real`\n"
    assert code_of(text) == ["`real`"]
    # a backtick before the tag opens a span that the tag's backtick closes (CommonMark)
    assert code_of("`Ã© <a title='`'>\n") == ["`Ã© <a title='`"]


def test_fenced_tilde_and_indented_blocks() -> None:
    text = "# T\n\n```text\nÃ©\n```\n\n~~~\nâ€™\n~~~\n\nProse.\n\n    indented Ã¼\n\nEnd.\n"
    assert code_of(text) == ["```text\nÃ©\n```", "~~~\nâ€™\n~~~", "    indented Ã¼"]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    text = "Intro.\n\n```\nÃ© and the rest\n"
    assert code_of(text) == ["```\nÃ© and the rest"]


def test_code_in_lists_and_quotes() -> None:
    text = "- item `Ã©`\n  more\n\n> quoted `â€™`\n"
    assert code_of(text) == ["`Ã©`", "`â€™`"]


def test_table_cells_without_borders_and_their_code() -> None:
    text = "| you see | it was |\n| --- | --- |\n| Ã© | é |\n| `a \\| b` | pipe |\n"
    assert cells_of(text) == ["you see", "it was", "Ã©", "é", "`a \\| b`", "pipe"]
    assert code_of(text) == ["`a \\| b`"]


def test_windows_line_breaks_keep_offsets_right() -> None:
    text = "# T\r\n\r\n```\r\nÃ©\r\n```\r\n\r\nSay `Ã¼`.\r\n"
    assert code_of(text) == ["```\r\nÃ©\r\n```", "`Ã¼`"]


def test_plain_text_has_only_code_spans_on_one_line() -> None:
    text = "Heading\n=======\n\n    not code: Ã©\n```\nnot a block\n```\n`Ã¼` and `open\nclose`\n"
    assert code_of(text, "text") == ["`Ã¼`"]
    assert layout(text, "text").cells == ()


def test_auto_reads_markdown_by_its_signs() -> None:
    fenced = "Intro\n\n```\nÃ©\n```\n"
    assert code_of(fenced, "auto") == ["```\nÃ©\n```"]
    plain = "Intro\n\n    Ã© indented\n"
    assert code_of(plain, "auto") == []
    table = "| a | b |\n| --- | --- |\n| Ã© | é |\n"
    assert [table[s:e] for s, e in layout(table, "auto").cells] == ["a", "b", "Ã©", "é"]


def test_containing_finds_the_span_that_holds_a_range() -> None:
    spans = ((0, 4), (10, 20))
    assert containing(spans, 11, 15) == (10, 20)
    assert containing(spans, 10, 20) == (10, 20)
    assert containing(spans, 3, 11) is None
    assert containing(spans, 5, 6) is None
    assert containing((), 0, 1) is None
    where = Layout(code=spans, cells=((30, 35),))
    assert where.in_code(1, 3) and not where.in_code(4, 5)
    assert where.cell(31, 33) == (30, 35) and where.cell(1, 2) is None


_PIECES = [
    *"`\\<>ab |\n-#*:é",
    "```",
    "~~~",
    "    ",
    "<a href='`'>",
    "<http://x`y>",
    "\n\n",
    "| a | b |\n| - | - |\n",
    "- ",
    "1. ",
    "\r\n",
]
_PARSER = MarkdownIt("commonmark").enable("table")


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_code_spans_are_the_ones_markdown_it_reads(text: str) -> None:
    """The spans found by hand (markdown-it gives no inline positions) are exactly markdown-it's code
    spans: as many, each opening and closing with a backtick."""
    expected = 0
    blocks = 0
    for token in _PARSER.parse(text):
        if token.type == "inline":
            expected += sum(child.type == "code_inline" for child in token.children or ())
        blocks += token.type in ("fence", "code_block")
    code = layout(text, "markdown").code
    assert len(code) == expected + blocks, (text, code)
    spans = [(s, e) for s, e in code if text[s] == "`" and text[e - 1] == "`"]
    assert len(spans) >= expected, (text, code)

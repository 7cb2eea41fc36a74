"""Where a document shows text literally: its code, and the cells of its tables.

A page that explains mojibake quotes it in code spans and code blocks, or
alone in a table cell; :mod:`.quotation` uses these places to tell a quoted
example from damage. Markdown files (by their name, or for a text with no
name, by a fence, a heading or a table rule) are parsed with markdown-it-py:
fenced and indented code blocks, paragraphs, headings and table rows, by
line. Other text (catalogs, YAML, plain text) has only code spans, each on
one line: its indented lines are not code.

markdown-it-py says on which lines a block lies but not where an inline
token starts, so the code spans of each block are found again in its lines
by the CommonMark rule (:func:`_code_spans`) and kept only where markdown-it
found the same span.
"""

from __future__ import annotations

import bisect
import itertools
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # markdown-it is imported when first needed: clean text never needs it
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["Layout", "Markup", "Span", "containing", "fence_after", "layout", "markup_for"]

Markup = Literal["auto", "markdown", "text"]

_MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdx"})
# What makes a nameless text Markdown: a code fence, an ATX heading or a table's rule line.
_MARKDOWN_SIGNS = re.compile(r"^ {0,3}(?:`{3,}|~{3,}|#{1,6}[ \t]|\|?[ \t]*:?-{3,}:?[ \t]*\|)", re.M)
_LINE_BREAK = re.compile(r"\r\n?|\n")  # markdown-it counts lines this way
_TICKS = re.compile(r"`+")
_OPENERS = re.compile(r"`+|<")
_CELL_BORDER = re.compile(r"(?<!\\)\|")
_LOOSE = re.compile(r"[\s`>]")
_OPENING = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_CLOSING = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
# The lines that may start or end a block: blank lines and fence lines.
_BLOCK_EDGE = re.compile(r"^(?:[ \t\r]*$| {0,3}(?:`{3,}|~{3,}))", re.M)

Span = tuple[int, int]


@dataclass(frozen=True)
class Layout:
    """The code ranges and table cells of a text, as sorted ``(start, end)`` offsets."""

    code: tuple[Span, ...] = ()
    cells: tuple[Span, ...] = ()

    def in_code(self, start: int, end: int) -> bool:
        """Whether ``start:end`` lies inside a code span or block."""
        return containing(self.code, start, end) is not None

    def cell(self, start: int, end: int) -> Span | None:
        """The table cell (its content, without the borders) that holds ``start:end``, if any."""
        return containing(self.cells, start, end)


def markup_for(name: str) -> Markup:
    """How to read a file called ``name``: Markdown by its suffix, or ``auto`` for stdin (``-``)."""
    if name == "-" or not PurePath(name).suffix:
        return "auto"
    return "markdown" if PurePath(name).suffix.lower() in _MARKDOWN_SUFFIXES else "text"


def layout(text: str, markup: Markup = "auto", near: Sequence[Span] | None = None) -> Layout:
    """Where ``text`` holds code and table cells (``auto``: Markdown if it looks like Markdown).

    With ``near``, the code spans and cells are found only on the lines those spans touch (the
    fenced and indented blocks everywhere): a long document is parsed inline only where asked.
    """
    if markup == "auto":
        markup = "markdown" if _MARKDOWN_SIGNS.search(text) else "text"
    lines = _lines(text)
    wanted = None if near is None else _touched(lines, near)
    if markup == "text":
        chosen = lines if wanted is None else [lines[number] for number in sorted(wanted)]
        code = [span for start, end in chosen for span in _code_spans(text, start, end)]
        return Layout(tuple(code))
    if wanted is None:
        return _markdown_layout(text, lines, None, (0, len(lines)))
    code: list[Span] = []
    cells: list[Span] = []
    for region in _regions(text, lines, wanted):
        part = _markdown_layout(text, lines, wanted, region)
        code.extend(part.code)
        cells.extend(part.cells)
    return Layout(tuple(sorted(code)), tuple(sorted(cells)))


def fence_after(line: str, fence: str | None) -> str | None:
    """The fenced code block open after ``line`` (its backticks or tildes), given the one open before.

    CommonMark's rule, by hand (markdown-it-py parses whole documents): up to three spaces, then
    three or more backticks (with no backtick after them) or tildes; closed by a line of at least
    as many of the same character and nothing else.
    """
    if fence is None:
        opening = _OPENING.match(line)
        if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            return None
        return opening.group(1)
    closing = _CLOSING.fullmatch(line)
    if closing is not None and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
        return None
    return fence


def _regions(text: str, lines: list[Span], wanted: set[int]) -> list[Span]:
    """The ranges of lines ``[first, last)`` that hold the ``wanted`` lines, each bounded by blank
    lines outside fenced code: Markdown blocks never straddle such a line (but for HTML blocks
    such as ``<pre>``, whose blank lines a region may cut: their text is then read as paragraphs),
    so a region parses as it does inside the whole text, and the rest is never parsed."""
    boundaries: list[int] = []  # the blank lines outside fences
    fence: str | None = None
    for match in _BLOCK_EDGE.finditer(text):
        number = bisect.bisect_right(lines, (match.start(), sys.maxsize)) - 1
        line = text[lines[number][0] : lines[number][1]]
        if fence is None and not line.strip():
            boundaries.append(number)
        fence = fence_after(line, fence)
    regions: list[Span] = []
    for number in sorted(wanted):
        index = bisect.bisect_right(boundaries, number)
        first = boundaries[index - 1] + 1 if index else 0
        last = boundaries[index] if index < len(boundaries) else len(lines)
        if regions and first <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(last, regions[-1][1]))
        elif first < last:
            regions.append((first, last))
    return regions


def _touched(lines: list[Span], spans: Sequence[Span]) -> set[int]:
    """The numbers of the lines that ``spans`` touch."""
    starts = [start for start, _ in lines]
    touched: set[int] = set()
    for start, end in spans:
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, max(start, end - 1)) - 1
        touched.update(range(max(first, 0), last + 1))
    return touched


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


@cache
def _block_parser() -> MarkdownIt:
    """Blocks only: inline content is parsed later, for the blocks that are asked about."""
    return _parser().__class__("commonmark").enable("table").disable("inline")


def _markdown_layout(text: str, lines: list[Span], wanted: set[int] | None, region: Span) -> Layout:
    """The layout of the lines ``region`` (``[first, last)``) of ``text``, parsed on their own."""
    offset, last_line = region
    tokens = _block_parser().parse(text[lines[offset][0] : lines[last_line - 1][1]])
    for token in tokens:
        if token.map:
            token.map = [token.map[0] + offset, token.map[1] + offset]
    code: list[Span] = []
    cells: list[Span] = []

    def asked(first: int, last: int) -> bool:
        return wanted is None or any(number in wanted for number in range(first, last))

    found: dict[tuple[int, int], list[str]] = {}  # each inline block's code spans, as markdown-it read them
    for token in tokens:
        if token.type == "inline" and token.map and asked(*token.map):
            found.setdefault((token.map[0], token.map[1]), []).extend(_inline_code(token))
    in_table = False
    for token in tokens:
        if token.type in ("table_open", "table_close"):
            in_table = token.type == "table_open"
        if not token.map:
            continue
        first, last = token.map
        if token.type in ("fence", "code_block"):
            code.append((lines[first][0], lines[min(last, len(lines)) - 1][1]))
        elif not asked(first, last):
            continue
        elif token.type == "tr_open":
            start, end = lines[first]
            row = _cells(text, start, end)
            cells.extend(row)
            spans = [s for cell in row for s in _code_spans(text, *cell)]
            code.extend(_agreeing(text, spans, found.get((first, last), [])))
        elif token.type == "inline" and not in_table:
            spans = _code_spans(text, lines[first][0], lines[min(last, len(lines)) - 1][1])
            code.extend(_agreeing(text, spans, found.get((first, last), [])))
    return Layout(tuple(sorted(code)), tuple(sorted(cells)))


def _inline_code(token: Token) -> list[str]:
    """The code spans markdown-it reads in an inline token (parsed here: the blocks came without)."""
    parsed = _parser().parseInline(token.content)
    children = parsed[0].children if parsed else None
    return [child.content for child in children or () if child.type == "code_inline"]


def _lines(text: str) -> list[Span]:
    """Each line's ``(start, end)``, its line break left out."""
    spans, start = [], 0
    for match in _LINE_BREAK.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def _cells(text: str, start: int, end: int) -> list[Span]:
    """The cells of a table row, each without its surrounding spaces (GFM: ``\\|`` is not a border)."""
    borders = [start - 1, *(m.start() for m in _CELL_BORDER.finditer(text, start, end)), end]
    cells = []
    for left, right in itertools.pairwise(borders):
        content = text[left + 1 : right]
        stripped = content.strip()
        if stripped:
            offset = left + 1 + content.index(stripped)
            cells.append((offset, offset + len(stripped)))
    return cells


def _code_spans(text: str, start: int, end: int) -> list[Span]:
    """The code spans of ``text[start:end]`` by the CommonMark rule: a run of n backticks opens a
    span that the next run of exactly n closes; a backslash before the first backtick makes it
    literal, and so do an HTML tag or an autolink that starts first. Written by hand because
    markdown-it-py gives no positions for inline tokens."""
    runs: dict[int, list[int]] = {}  # where the runs of each length start: one scan, then lookups
    for match in _TICKS.finditer(text, start, end):
        runs.setdefault(len(match.group()), []).append(match.start())
    spans: list[Span] = []
    position = start
    while (opening := _OPENERS.search(text, position, end)) is not None:
        left, right = opening.span()
        escaped = _escaped(text, start, left)
        position = right
        if opening.group() == "<":
            if not escaped:
                position = _tag_end(text, left, end) or right
            continue
        left += escaped  # an escaped backtick is text; the rest of the run may still open a span
        later = runs.get(right - left, []) if left < right else []
        index = bisect.bisect_left(later, right)
        if index < len(later):
            position = later[index] + right - left
            spans.append((left, position))
    return spans


def _escaped(text: str, start: int, at: int) -> bool:
    """Whether an odd number of backslashes stands before ``text[at]`` (not before ``start``)."""
    before = at
    while before > start and text[before - 1] == "\\":
        before -= 1
    return bool((at - before) % 2)


def _tag_end(text: str, left: int, end: int) -> int | None:
    """Where the HTML tag or autolink that opens at ``text[left]`` ends, if one does."""
    from markdown_it.common.html_re import HTML_TAG_RE
    from markdown_it.rules_inline.autolink import AUTOLINK_RE, EMAIL_RE

    tag = HTML_TAG_RE.match(text, left, end)
    if tag is not None:
        return tag.end()
    close = text.find(">", left + 1, end)
    inner = text[left + 1 : close]
    if close > 0 and "<" not in inner and (AUTOLINK_RE.search(inner) or EMAIL_RE.search(inner)):
        return close + 1
    return None


def _agreeing(text: str, spans: list[Span], parsed: list[str]) -> list[Span]:
    """The spans whose content markdown-it also read as code, in order. The two disagree only where
    raw HTML or an autolink holds a backtick, and there markdown-it is right."""
    if [_loose(text[s:e]) for s, e in spans] == [_loose(content) for content in parsed]:
        return spans
    kept, wanted = [], [_loose(content) for content in parsed]
    for s, e in spans:
        content = _loose(text[s:e])
        if content in wanted:
            kept.append((s, e))
            del wanted[: wanted.index(content) + 1]
    return kept


def _loose(content: str) -> str:
    """Content without spaces or backticks: line breaks, container prefixes (``>``) and padding,
    which CommonMark drops or turns into spaces, do not count."""
    return _LOOSE.sub("", content.replace("\\|", "|"))


def containing(spans: Sequence[Span], start: int, end: int) -> Span | None:
    """The span of the sorted, disjoint ``spans`` that holds ``start:end``, if one does."""
    index = bisect.bisect_right(spans, (start, sys.maxsize)) - 1
    if index >= 0 and spans[index][0] <= start and end <= spans[index][1]:
        return spans[index]
    return None

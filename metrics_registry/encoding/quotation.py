"""Mojibake quoted on purpose, told from damage: what the repair leaves alone.

A page that explains mojibake shows it (```Ã©``` for ``é``); a page that was
damaged holds it. The difference is in how each came about. **Damage comes
from transport**: a file, or a piece of one pasted elsewhere, went through a
one-byte code page, and that turns *every* non-ASCII character it carried
into mojibake; none comes out clean. **A quotation comes from a writer**,
who puts the damaged form where clean text is written, and marks it. So a
damaged span (a finding) is a quotation, left as it is and not reported, when:

1. **Its line holds clean text**: a non-ASCII character outside every
   finding (``é`` in ``"Ã©" is é``, 训练日志 next to its mojibake). A line
   that went through a code page has none left: the repair's benchmark
   texts and the project's damaged seed, damaged by every kind of damage,
   have not one. This holds in any document, damaged or not.
2. **It is marked as an example** (in Markdown code: a code span, a fenced
   or indented block; between quotation marks; alone in a table cell) **and
   the document is otherwise clean**: it holds clean text somewhere, and
   every finding is marked or beside clean text (rule 1).

Everything else is damage and is repaired, including marked spans in a
document that has unmarked damage elsewhere: the project's seed was damaged
whole, code blocks included, and its code must be repaired with its prose.

What this cannot tell apart, and what it does then:

- A document whose only non-ASCII text is the quoted damage (an English
  page saying ```Ã©``` and nothing else non-ASCII) has no clean text to
  judge by: it is repaired. Writing the clean form next to the example
  (```Ã©``` for ``é``) makes it a quotation.
- A bare damaged word in a sentence with no other non-ASCII text (``you
  will see Ã© in such pages``) is damage, and since the document then has
  unmarked damage, its marked examples are repaired too. Put examples in
  code or quotation marks.
- Damage pasted into a clean page *inside* code, quotes or a table cell,
  with nothing else damaged, is taken for a quotation and left as it is.
"""

from __future__ import annotations

import bisect
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from metrics_registry.encoding.markup import Layout, Markup, Span, containing, layout

__all__ = ["quotations"]

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Quoted stretches of one line: typographic pairs, guillemets, CJK corner brackets, ASCII
# double quotes, and ASCII single quotes that are not apostrophes (no letter outside them).
_QUOTED = re.compile(
    r"“[^“”\n]*”|„[^„“”\n]*[“”]|‘[^‘’\n]*’|‚[^‚‘’\n]*[‘’]|«[^«»\n]*»|»[^«»\n]*«|‹[^‹›\n]*›"
    r"|「[^「」\n]*」|『[^『』\n]*』|\"[^\"\n]*\"|(?<!\w)'[^'\n]*'(?!\w)"
)
# Not evidence of clean text: what a damaged line may hold besides its mojibake (spaces,
# controls, format characters such as a soft hyphen or a BOM, and U+FFFD, a decoder's mark).
_INVISIBLE = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"})


class _Spanned(Protocol):
    """A stretch of the text: a :class:`.findings.Finding`, or a stretch that may be mojibake."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


def quotations(
    text: str,
    findings: Sequence[_Spanned],
    markup: Markup = "auto",
    *,
    evidence: Callable[[str], bool] | None = None,
) -> list[bool]:
    """For each of ``findings`` (spans in ``text``), whether it is a quotation (see the module).

    ``markup`` says how to find the code of ``text`` (:func:`.markup.layout`); it is parsed only
    when a finding has no clean text beside it. ``evidence``, when given, says which visible
    non-ASCII characters count as clean text (by default any outside ``findings``).
    """
    covered = _merged((f.start, f.end) for f in findings)
    newlines = [m.start() for m in re.finditer("\n", text)]

    # Only the lines that hold a finding are scanned for clean text beside it (a long clean
    # document is not walked character by character), then the rest only until some is found.
    finding_lines = {bisect.bisect_left(newlines, f.start) for f in findings}
    clean_lines = set()
    for number in finding_lines:
        if _holds_clean(text, *_line_span(newlines, number, len(text)), covered, evidence):
            clean_lines.add(number)
    beside_clean = [bisect.bisect_left(newlines, f.start) in clean_lines for f in findings]
    if all(beside_clean):
        return beside_clean
    if not clean_lines and not _holds_clean(text, 0, len(text), covered, evidence):
        return beside_clean  # no clean text anywhere: nothing is a quotation
    alone = [(f.start, f.end) for f, beside in zip(findings, beside_clean, strict=True) if not beside]
    where = layout(text, markup, near=alone)
    # quotation marks pair within a line: only the lines of those findings are scanned
    quoted_lines = sorted({bisect.bisect_left(newlines, start) for start, _ in alone})
    quoted = [
        match.span()
        for number in quoted_lines
        for match in _QUOTED.finditer(
            text,
            newlines[number - 1] + 1 if number else 0,
            newlines[number] if number < len(newlines) else len(text),
        )
    ]
    otherwise_clean = all(
        beside or _marked(text, (f.start, f.end), covered, where, quoted)
        for f, beside in zip(findings, beside_clean, strict=True)
    )
    return [otherwise_clean or beside for beside in beside_clean]


def _holds_clean(
    text: str, start: int, end: int, covered: list[Span], evidence: Callable[[str], bool] | None
) -> bool:
    """Whether ``text[start:end]`` holds clean text: a visible non-ASCII character outside the
    sorted, disjoint ``covered`` spans that ``evidence`` (if given) accepts.

    Only the gaps between the covered spans are searched: a damaged line is
    mostly covered, and its characters need not be looked at one by one.
    """
    index = max(0, bisect.bisect_right(covered, (start, sys.maxsize)) - 1)
    position = start
    while position < end:
        if index < len(covered) and covered[index][0] <= position:
            position = max(position, covered[index][1])
            index += 1
            continue
        gap_end = min(end, covered[index][0]) if index < len(covered) else end
        for match in _NON_ASCII.finditer(text, position, gap_end):
            char = match.group()
            if (evidence is None or evidence(char)) and _visible(char):
                return True
        position = gap_end
    return False


def _line_span(newlines: list[int], number: int, length: int) -> tuple[int, int]:
    """Where line ``number`` (from 0) starts and ends, its line break left out."""
    return (newlines[number - 1] + 1 if number else 0, newlines[number] if number < len(newlines) else length)


def _visible(char: str) -> bool:
    return char != "\ufffd" and unicodedata.category(char) not in _INVISIBLE


def _merged(spans: Iterable[Span]) -> list[Span]:
    """``spans`` sorted, overlapping ones joined."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _marked(text: str, span: Span, covered: list[Span], layout: Layout, quoted: list[Span]) -> bool:
    """In code, inside quotation marks, or alone (with punctuation) in a table cell."""
    start, end = span
    if layout.in_code(start, end):
        return True
    around = containing(quoted, start, end)
    if around is not None and around[0] < start and end < around[1]:
        return True
    cell = layout.cell(start, end)
    if cell is None:
        return False
    first = bisect.bisect_left(covered, (cell[0], 0))
    rest = list(text[cell[0] : cell[1]])
    for other_start, other_end in covered[first:]:
        if other_start >= cell[1]:
            break
        rest[other_start - cell[0] : other_end - cell[0]] = " " * (other_end - other_start)
    return not any(ch.isalnum() for ch in rest)

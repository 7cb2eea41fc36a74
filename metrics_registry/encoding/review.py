"""The doubts of a repair: each character put back with too little confidence, and its alternatives.

A translator cannot read every character that lost bytes (a quarter of a
Chinese text); :func:`doubts` lists the ones to check, those whose
confidence is under a threshold, with their places in the repaired text.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from metrics_registry.encoding.findings import Alternative
from metrics_registry.encoding.repair import Repaired

__all__ = ["DEFAULT_THRESHOLD", "Doubt", "doubts", "review_html", "review_markdown"]

#: Characters put back with a confidence under this are listed (see benchmarks/lossy.py).
DEFAULT_THRESHOLD = 0.9


@dataclass(frozen=True)
class Doubt:
    """A repaired character to check: where it is in the repaired text (``offset``, and ``line`` and
    ``column`` from 1), what was chosen, how sure, and what else it could be."""

    offset: int
    line: int
    column: int
    char: str
    confidence: float
    damaged: str
    alternatives: tuple[Alternative, ...]


def doubts(result: Repaired, threshold: float = DEFAULT_THRESHOLD) -> list[Doubt]:
    """The characters of ``result`` put back with a confidence under ``threshold``, in text order."""
    starts = [0, *(match.end() for match in re.finditer("\n", result.text))]
    out = []
    for finding in result.findings:
        for spot in finding.spots:
            if spot.chosen is None or spot.at < 0 or spot.confidence >= threshold:
                continue
            number = bisect.bisect_right(starts, spot.at) - 1
            alternatives = tuple(a for a in spot.alternatives if a.char != spot.chosen)
            out.append(
                Doubt(
                    spot.at,
                    number + 1,
                    spot.at - starts[number] + 1,
                    spot.chosen,
                    spot.confidence,
                    spot.damaged,
                    alternatives,
                )
            )
    out.sort(key=lambda d: d.offset)
    return out


def _alternatives(doubt: Doubt) -> str:
    return ", ".join(f"{a.char} {a.probability:.2f}" for a in doubt.alternatives[:4]) or "none"


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&])")


def _md(text: str) -> str:
    """``text`` as literal Markdown: every character Markdown could read as syntax escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


#: Characters of context shown on either side of a doubtful character in the Markdown review.
CONTEXT = 12


def review_markdown(files: list[tuple[str, Repaired, list[Doubt]]], threshold: float) -> str:
    """A Markdown review: for each file, each doubtful character in its context (the character in
    bold between ⟦ ⟧), with its confidence and alternatives. All text is escaped: a file cannot
    add markup, links or HTML to the review."""
    out = [
        "# Characters to check after the encoding repair",
        "",
        f"Each character below was put back with a confidence under {threshold:.2f}; "
        "line:column are in the repaired text.",
        "",
    ]
    for path, result, found in files:
        out += [f"## {_md(path)}", ""]
        if not found:
            out += ["Nothing to check.", ""]
            continue
        for doubt in found:
            text = result.text
            before = text[max(0, doubt.offset - CONTEXT) : doubt.offset]
            after = text[doubt.offset + len(doubt.char) : doubt.offset + len(doubt.char) + CONTEXT]
            context = f"{_md(before)}**⟦{_md(doubt.char)}⟧**{_md(after)}"
            out.append(
                f"- {doubt.line}:{doubt.column}: {context} (confidence {doubt.confidence:.2f}; "
                f"or: {_md(_alternatives(doubt))})"
            )
        out.append("")
    return "\n".join(out)


def review_html(files: list[tuple[str, Repaired, list[Doubt]]], threshold: float) -> str:
    """An HTML review: each file's repaired text with its doubtful characters highlighted (the
    alternatives in the tooltip and in a list below). Every piece of the files' text goes through
    ``markupsafe.escape``: nothing in a file can become markup or script."""
    from markupsafe import Markup, escape

    parts = [
        Markup(
            '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Encoding repair review</title>'
            "<style>body{font-family:sans-serif;max-width:60em;margin:auto}pre{white-space:pre-wrap}"
            "mark{background:#ffd54f}</style></head><body>\n<h1>Characters to check after the encoding "
            "repair</h1>\n"
        ),
        Markup("<p>Highlighted: put back with a confidence under {:.2f}.</p>\n").format(threshold),
    ]
    for path, result, found in files:
        parts.append(Markup("<h2>{}</h2>\n<pre>").format(path))
        position = 0
        for doubt in found:
            parts.append(escape(result.text[position : doubt.offset]))
            title = (
                f"{doubt.line}:{doubt.column} confidence {doubt.confidence:.2f}; or: {_alternatives(doubt)}"
            )
            parts.append(Markup('<mark title="{}">{}</mark>').format(title, doubt.char))
            position = doubt.offset + len(doubt.char)
        parts.append(escape(result.text[position:]))
        parts.append(Markup("</pre>\n<ul>\n"))
        for doubt in found:
            parts.append(
                Markup("<li>{}:{}: <mark>{}</mark> (confidence {:.2f}; or: {})</li>\n").format(
                    doubt.line, doubt.column, doubt.char, doubt.confidence, _alternatives(doubt)
                )
            )
        parts.append(Markup("</ul>\n"))
    parts.append(Markup("</body></html>\n"))
    return "".join(str(part) for part in parts)

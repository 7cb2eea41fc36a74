"""The edits of a repair pass: applied to a text, and positions carried between the passes.

A repair runs several passes (ftfy's, then lost bytes, round after round);
a finding must name its place in the input, and a doubtful character its
place in the output, so each position is carried through the edits of the
passes before or after it (:class:`Shift`).
"""

from __future__ import annotations

import bisect
import dataclasses

from metrics_registry.encoding.findings import Edit, Finding

__all__ = ["Shift", "apply_edits", "carried", "finding_for", "merge_edits"]


def apply_edits(text: str, edits: list[Edit]) -> str:
    out, position = [], 0
    for edit in edits:
        out.append(text[position : edit.start])
        out.append(edit.replacement)
        position = edit.end
    out.append(text[position:])
    return "".join(out)


def merge_edits(edits: list[Edit]) -> list[Edit]:
    """Join the pieces difflib splits one fixed fragment into (they touch or nearly do)."""
    merged: list[Edit] = []
    for edit in edits:
        if merged and edit.start - merged[-1].end <= 0:
            last = merged.pop()
            merged.append(last._replace(end=edit.end, replacement=last.replacement + edit.replacement))
        else:
            merged.append(edit)
    return merged


class Shift:
    """Maps positions of a pass's output back to its input (the pass made ``edits``, in order)."""

    def __init__(self, edits: list[Edit]) -> None:
        self.edits = edits
        self.starts: list[int] = []  # where each replacement starts in the output
        self.ends: list[int] = []
        self.deltas: list[int] = []  # output offset minus input offset before each edit
        delta = 0
        for edit in edits:
            self.starts.append(edit.start + delta)
            self.ends.append(edit.start + delta + len(edit.replacement))
            self.deltas.append(delta)
            delta += len(edit.replacement) - (edit.end - edit.start)
        self.total = delta
        self.inputs = [edit.start for edit in edits]

    def forward(self, position: int) -> int:
        """Where ``position`` of the input is in the output (inside a replaced span: its start)."""
        index = bisect.bisect_right(self.inputs, position) - 1
        if index < 0:
            return position
        edit = self.edits[index]
        if position < edit.end:
            return self.starts[index]
        return position + self.deltas[index] + len(edit.replacement) - (edit.end - edit.start)

    def back(self, position: int, *, is_end: bool) -> int:
        """Where ``position`` of the output was in the input (a position inside a replacement goes to
        the start of what it replaced, or to its end for the end of a span)."""
        if is_end:
            index = bisect.bisect_left(self.ends, position)
            if index == len(self.edits):
                return position - self.total
            if position <= self.starts[index]:
                return position - self.deltas[index]
            return self.edits[index].end
        index = bisect.bisect_right(self.ends, position)
        if index == len(self.edits):
            return position - self.total
        if position < self.starts[index]:
            return position - self.deltas[index]
        return self.edits[index].start


def carried(edit: Edit, later: list[Shift]) -> Edit:
    """``edit`` with its spots' places in the output carried through the ``later`` passes."""
    if not later or not edit.spots:
        return edit
    spots = []
    for spot in edit.spots:
        at = spot.at
        if at >= 0:
            for shift in later:
                at = shift.forward(at)
        spots.append(dataclasses.replace(spot, at=at))
    return edit._replace(spots=tuple(spots))


def finding_for(text: str, newlines: list[int], earlier: list[Shift], edit: Edit) -> Finding:
    """A finding for ``edit``, with its span carried back through the ``earlier`` passes to the input
    (whose line breaks are at ``newlines``)."""
    start, end = edit.start, edit.end
    for shift in reversed(earlier):
        start, end = shift.back(start, is_end=False), shift.back(end, is_end=True)
    before = bisect.bisect_left(newlines, start)
    line = before + 1
    column = start - (newlines[before - 1] + 1 if before else 0) + 1
    return Finding(
        start,
        end,
        line,
        column,
        edit.kind,
        text[start:end],
        edit.replacement,
        edit.confidence,
        edit.codepage,
        edit.spots,
    )

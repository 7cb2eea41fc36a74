"""A damaged document as pieces: its clean text, and a slot for each unit that lost bytes.

:mod:`.lossy` cuts the document into pieces (:func:`pieces`), chooses a
reading for every slot, and turns the pieces back into text and edits
(:func:`edits`): each slot with its reading, its confidence and the
alternatives (:class:`.findings.Spot`). A slot whose reading ate the space
after it (a no-break space read as a space) takes that space out of the
text after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from metrics_registry.encoding import calibration, candidates
from metrics_registry.encoding.candidates import Candidate
from metrics_registry.encoding.detection import Detection, Stretch
from metrics_registry.encoding.findings import Alternative, Edit, Kind, Spot
from metrics_registry.encoding.utf8 import Unit, UnitKind

__all__ = ["Slot", "edits", "lines", "pieces", "render", "spot"]

_UNKNOWN = "\ufffd"


@dataclass
class Slot:
    unit: Unit
    start: int  # in the text
    original: str
    options: list[Candidate]
    choice: int | None = None
    probabilities: list[float] = field(default_factory=list)
    #: The reading the decoder chose and the length (cells) and class of the token that holds it on
    #: its best path (see :meth:`place`).
    decoded: int | None = None
    token: tuple[int, str | None] | None = None

    def place(self) -> str:
        """The kind of place of the reading chosen (:func:`.calibration.kind`)."""
        char = self.options[self.choice].char if self.choice is not None else ""
        return calibration.kind(char, self.token, self.choice != self.decoded)

    def text(self) -> str:
        if self.choice is None:
            return _UNKNOWN
        return self.options[self.choice].char

    def eats_space(self) -> bool:
        return self.choice is not None and self.options[self.choice].nbsp

    def characters(self) -> list[str]:
        """Each reading's character, in the order of :attr:`options`."""
        return [option.char for option in self.options]

    def kept(self) -> bool:
        """The reading chosen is the text as it was: it was not mojibake after all."""
        return self.choice is not None and self.options[self.choice].keep


def pieces(text: str, detection: Detection) -> list[str | Slot]:
    pieces: list[str | Slot] = []
    position = 0
    for sub in detection.subs:
        pieces.append(text[position : sub.start])
        for unit in sub.units:
            start = sub.base + unit.start
            if unit.kind is UnitKind.COMPLETE:
                pieces.append(unit.decode())
            else:
                original = text[start : sub.base + unit.end]
                options = candidates.candidates(unit, detection.droppable, detection.undefined)
                if not sub.definite and len(original) == 1 and not unit.holes:
                    # A lone lead byte may be a letter in its own right ("café"): keeping it is a reading.
                    options = [Candidate(original, 0, nbsp=False, keep=True), *options]
                pieces.append(Slot(unit, start, original, options))
        position = sub.end
    pieces.append(text[position:])
    return pieces


def render(pieces: list[str | Slot]) -> str:
    out = []
    skip_space = False
    for piece in pieces:
        if isinstance(piece, Slot):
            out.append(piece.text())
            skip_space = piece.eats_space()
            continue
        out.append(piece[1:] if skip_space and piece.startswith(" ") else piece)
        skip_space = False
    return "".join(out)


def lines(pieces: list[str | Slot]) -> list[list[str | Slot]]:
    """The pieces cut into lines of cells: one character, or one slot, each."""
    lines: list[list[str | Slot]] = [[]]
    for piece in pieces:
        if isinstance(piece, Slot):
            lines[-1].append(piece)
            continue
        for ch in piece:
            if ch == "\n":
                lines.append([])
            else:
                lines[-1].append(ch)
    return lines


def edits(text: str, pieces: list[str | Slot], detection: Detection) -> tuple[str, list[Edit]]:
    out: list[str] = []
    edits: list[Edit] = []
    queue = iter(pieces)
    eat = False
    label = detection.page.label

    def between() -> str:
        nonlocal eat
        piece = next(queue)
        assert isinstance(piece, str)
        if eat and piece.startswith(" "):
            piece = piece[1:]
        eat = False
        return piece

    length = 0  # of the output so far
    for sub in detection.subs:
        out.append(between())
        length += len(out[-1])
        replacement: list[str] = []
        spots: list[Spot] = []
        slots: list[Slot] = []
        end = sub.end
        written = 0  # characters of the replacement so far
        for _ in sub.units:
            piece = next(queue)
            if isinstance(piece, str):
                replacement.append(piece)
                written += len(piece)
                continue
            spots.append(spot(piece, length + written))
            slots.append(piece)
            replacement.append(piece.original if piece.choice is None else piece.options[piece.choice].char)
            written += len(replacement[-1])
            if piece.eats_space():  # only the last unit of a stretch can be followed by a space
                end += 1
                eat = True
        new = "".join(replacement)
        length += len(new)
        if new == text[sub.start : end] and all(p.kept() for p in slots):
            out.append(new)  # every reading kept the text: it was not mojibake
            continue
        unrepaired = any(s.chosen is None for s in spots)
        kind = _kind(sub, spots)
        confidence = min((s.confidence for s in spots if s.chosen is not None), default=1.0)
        if unrepaired and new == text[sub.start : end]:
            confidence = 0.0
        edits.append(Edit(sub.start, end, new, kind, confidence, label, tuple(spots)))
        out.append(new)
    out.append(between())
    return "".join(out), edits


def _kind(sub: Stretch, spots: list[Spot]) -> Kind:
    if any(s.chosen is None for s in spots):
        return Kind.UNREPAIRED
    if spots:
        return Kind.LOST_BYTES
    if any(u.nbsp_restored for u in sub.units):
        return Kind.NBSP
    return Kind.MOJIBAKE


def spot(slot: Slot, at: int) -> Spot:
    """The spot of ``slot``, whose reading stands at ``at`` in the output."""
    ranked = sorted(range(len(slot.options)), key=lambda i: -(slot.probabilities or [0.0] * 999)[i])
    alternatives = tuple(
        Alternative(slot.options[i].char, round(slot.probabilities[i], 4) if slot.probabilities else 0.0)
        for i in ranked[:6]
    )
    chosen = slot.options[slot.choice].char if slot.choice is not None else None
    confidence = 0.0
    if slot.choice is not None and slot.probabilities:
        confidence = calibration.confidence(slot.probabilities[slot.choice], slot.place())
    end = slot.start + len(slot.original) + (1 if slot.eats_space() else 0)
    return Spot(
        slot.start,
        end,
        slot.original,
        chosen,
        round(confidence, 4),
        alternatives,
        at if chosen is not None else -1,
    )

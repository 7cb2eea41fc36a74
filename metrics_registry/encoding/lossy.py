"""Putting back the bytes a code page dropped.

The steps, for a whole document at a time:

1. Find the mojibake and the code page that made it (:mod:`.detection`).
2. Decode the complete units; for each unit short of bytes, list the
   characters it could have been (:mod:`.candidates`). A lone lead byte
   that may be a letter in its own right ("Ã" in "nÃ y", which was "này"
   with its no-break space turned into a space) also keeps itself as a
   reading.
3. Choose the readings of each line together (:mod:`.decoder`), with the
   language model and what the rest of the document holds intact; then,
   when a model of Chinese word sequences is installed, choose again among
   the doubtful readings of the line (:mod:`.rescoring`), with a weight set
   by how well that model fits the document's undamaged Chinese. Lines
   with doubtful slots are then decoded again, with what the document read
   where it was sure as a prior (:mod:`.recurrence`).
4. Leave a unit as it is when no reading is a plausible character (the
   finding then says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from metrics_registry.encoding import calibration, candidates, domain, readings, word_ngrams
from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding.candidates import Candidate
from metrics_registry.encoding.decoder import Cell, Option, decode
from metrics_registry.encoding.detection import Detection, Stretch, detect, word_around
from metrics_registry.encoding.domain import DomainModel
from metrics_registry.encoding.findings import Alternative, Edit, Kind, Spot
from metrics_registry.encoding.recurrence import RecurrencePrior
from metrics_registry.encoding.rescoring import document_weight, rescore
from metrics_registry.encoding.utf8 import Unit, UnitKind
from metrics_registry.encoding.word_ngrams import ChineseWordModel

__all__ = ["Detection", "detect", "repair_lost_bytes"]

_UNKNOWN = "\ufffd"


@dataclass
class _Slot:
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


def _pieces(text: str, detection: Detection) -> list[str | _Slot]:
    pieces: list[str | _Slot] = []
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
                pieces.append(_Slot(unit, start, original, options))
        position = sub.end
    pieces.append(text[position:])
    return pieces


def _render(pieces: list[str | _Slot]) -> str:
    out = []
    skip_space = False
    for piece in pieces:
        if isinstance(piece, _Slot):
            out.append(piece.text())
            skip_space = piece.eats_space()
            continue
        out.append(piece[1:] if skip_space and piece.startswith(" ") else piece)
        skip_space = False
    return "".join(out)


def _lines(pieces: list[str | _Slot]) -> list[list[str | _Slot]]:
    """The pieces cut into lines of cells: one character, or one slot, each."""
    lines: list[list[str | _Slot]] = [[]]
    for piece in pieces:
        if isinstance(piece, _Slot):
            lines[-1].append(piece)
            continue
        for ch in piece:
            if ch == "\n":
                lines.append([])
            else:
                lines[-1].append(ch)
    return lines


def _decode_line(
    line: list[str | _Slot],
    doc: lm.DocumentContext,
    nbsp_cost: float,
    model: ChineseWordModel | None,
    domain_model: DomainModel | None,
    *,
    weight: float | None = None,
    prior: RecurrencePrior | None = None,
    needed: set[int] | None = None,
    keep_cost: float = 0.0,
) -> None:
    """Choose the readings of the line's slots together (:func:`.decoder.decode`), then, with a
    model of word sequences, again among the doubtful ones (:func:`.rescoring.rescore`, with
    ``weight``; a weight of 0 leaves the first pass's choice). ``prior`` adds what the rest of the
    document read where it was sure (:mod:`.recurrence`) to each reading's prior; with ``needed``
    (cells of the line), only those slots are chosen again, the others keeping their reading.
    ``keep_cost`` is what reading a lone lead byte as the letter it shows costs
    (:func:`.candidates.keep_cost`).
    """
    cells: list[Cell] = []
    for index, cell in enumerate(line):
        if isinstance(cell, str):
            cells.append(cell)
            continue
        if needed is not None and index not in needed:
            cells.append(_pinned(cell, nbsp_cost))
            continue
        bonus = prior.bonus(cell) if prior is not None else None
        cells.append(
            tuple(
                Option(
                    c.char,
                    c.cost(nbsp_cost) + (bonus[i] if bonus else 0.0) - (keep_cost if c.keep else 0.0),
                    1 if c.nbsp else 0,
                )
                for i, c in enumerate(cell.options)
            )
        )
    decoded = decode(cells, doc, needed)
    chosen = decoded.choice.keys() if needed is None else needed
    for index in chosen:
        cell = line[index]
        if isinstance(cell, _Slot) and cell.options:
            cell.choice = decoded.choice[index]
            cell.probabilities = decoded.probabilities[index]
            cell.decoded = cell.choice
            cell.token = decoded.tokens.get(index)
    if model is not None and weight != 0:
        for start, end in _han_windows(line):
            # The slots just chosen; others (not chosen again) keep their reading as context.
            group = [
                c
                for i, c in enumerate(line[start:end], start)
                if isinstance(c, _Slot) and c.options and i in chosen
            ]
            if group:
                rescore(group, lambda s=start, e=end: _render_line(line[s:e])[0], model, domain_model, weight)
    rendered, where = _render_line(line)
    for index, cell in enumerate(line):
        if isinstance(cell, _Slot) and cell.choice is not None and not cell.kept():
            at = where[index]
            if not _acceptable(cell, word_around(rendered, at, at + 1), doc):
                cell.choice = None


def _pinned(slot: _Slot, nbsp_cost: float) -> Cell:
    """``slot`` as a cell that holds its chosen reading only (none: nothing fits)."""
    if slot.choice is None:
        return ()
    option = slot.options[slot.choice]
    return (Option(option.char, option.cost(nbsp_cost), 1 if option.nbsp else 0),)


#: Cells of context, at most, on either side of a doubtful slot in the second pass.
_REACH = 24


def _han_windows(line: list[str | _Slot]) -> list[tuple[int, int]]:
    """The stretches of ``line`` the second pass scores, each around slots that bear on each other.

    The word model scores runs of Chinese characters only, so a slot's
    readings change nothing beyond the run it stands in: a window reaches to
    the fixed characters that end the run (at most :data:`_REACH` cells
    away), and windows that meet are one.
    """

    def breaks(cell: str | _Slot) -> bool:
        return isinstance(cell, str) and not lm.is_han(cell)

    windows: list[tuple[int, int]] = []
    n = len(line)
    for index, cell in enumerate(line):
        if not isinstance(cell, _Slot) or not cell.options:
            continue
        start = index
        while start > 0 and index - start < _REACH and not breaks(line[start - 1]):
            start -= 1
        end = index + 1
        while end < n and end - index < _REACH and not breaks(line[end]):
            end += 1
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
        else:
            windows.append((start, end))
    return windows


def _undamaged_han(lines: list[list[str | _Slot]]) -> list[str]:
    """The runs of Chinese characters of ``lines`` between damaged characters (slots) and others:
    the document's own text that the second pass's weight is measured on."""
    runs: list[str] = []
    for line in lines:
        run: list[str] = []
        for cell in line:
            if isinstance(cell, str) and lm.is_han(cell):
                run.append(cell)
            elif run:
                runs.append("".join(run))
                run = []
        if run:
            runs.append("".join(run))
    return runs


def _render_line(line: list[str | _Slot]) -> tuple[str, list[int]]:
    """The line as its slots now read, and where each cell starts in it."""
    rendered: list[str] = []
    where: list[int] = []
    length = 0
    eat = False
    for cell in line:
        where.append(length)
        if isinstance(cell, _Slot):
            piece = cell.text()
            eat = cell.eats_space()
        elif not (eat and cell == " "):
            piece = cell
            eat = False
        else:
            piece = ""
            eat = False
        rendered.append(piece)
        length += len(piece)
    return "".join(rendered), where


def _acceptable(slot: _Slot, rendered_word: str, doc: lm.DocumentContext) -> bool:
    option = slot.options[slot.choice] if slot.choice is not None else None
    if option is None:
        return False
    kind = lm.char_class(option.char)
    if kind in ("junk", "other"):
        return False
    if kind == "latin":
        return lm.word_known(rendered_word) or doc.words.get(rendered_word.lower(), 0) > 0
    return True


def repair_lost_bytes(
    text: str, first: Detection | None = None, *, pristine: bool = False
) -> tuple[str, list[Edit]]:
    """Decode the mojibake of ``text``, putting back lost bytes; return the text and the edits made.

    ``first`` is what :func:`detect` found in the document before any repair:
    its code page stands even where the certain mojibake is gone, its plain
    spaces are plain spaces if it kept no-break spaces, and the bytes it
    showed were kept are not put back. ``pristine`` says that ``text`` is that
    document, unchanged, so ``first`` holds its mojibake already.
    """
    if pristine and first is not None:
        detection: Detection | None = first
    else:
        detection = detect(text, first.page if first is not None else None)
    if first is not None:
        if detection is None:
            return text, []
        detection = replace(
            detection,
            droppable=(detection.droppable | first.droppable) - first.kept,
            kept=detection.kept | first.kept,
            nbsp_survived=detection.nbsp_survived or first.nbsp_survived,
            undefined=detection.undefined | first.undefined,
        )
    if detection is None:
        return text, []
    pieces = _pieces(text, detection)
    doc = lm.DocumentContext.from_text(_render(pieces))
    model = word_ngrams.active() if doc.chinese or doc.traditional or doc.simplified else None
    if (doc.chinese or doc.traditional or doc.simplified) and lm.use_model_words(
        model, model.new_words if model is not None else dict
    ):
        readings.FITTING.clear()
    domain_model = domain.active() if model is not None else None
    every_line = _lines(pieces)
    weight = None if model is None else document_weight(_undamaged_han(every_line), model, domain_model)
    lines = [line for line in every_line if any(isinstance(c, _Slot) and c.options for c in line)]
    keep_cost = candidates.keep_cost(doc)
    for line in lines:
        _decode_line(line, doc, detection.nbsp_cost, model, domain_model, weight=weight, keep_cost=keep_cost)
    # Again, the lines with doubtful slots, with what the document read where it was sure.
    prior = RecurrencePrior(c for line in lines for c in line if isinstance(c, _Slot) and c.options)
    for line in lines:
        needed = {i for i, c in enumerate(line) if isinstance(c, _Slot) and c.options and prior.helps(c)}
        if needed:
            _decode_line(
                line,
                doc,
                detection.nbsp_cost,
                model,
                domain_model,
                weight=weight,
                prior=prior,
                needed=needed,
                keep_cost=keep_cost,
            )
    return _edits(text, pieces, detection)


def _edits(text: str, pieces: list[str | _Slot], detection: Detection) -> tuple[str, list[Edit]]:
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
        slots: list[_Slot] = []
        end = sub.end
        written = 0  # characters of the replacement so far
        for _ in sub.units:
            piece = next(queue)
            if isinstance(piece, str):
                replacement.append(piece)
                written += len(piece)
                continue
            spots.append(_spot(piece, length + written))
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


def _spot(slot: _Slot, at: int) -> Spot:
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

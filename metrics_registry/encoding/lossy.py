"""Putting back the bytes a code page dropped.

The steps, for a whole document at a time:

1. Find the mojibake and the code page that made it (:mod:`.detection`).
2. Decode the complete units; for each unit short of bytes, list the
   characters it could have been (:mod:`.candidates`), in a slot of the
   document's pieces (:mod:`.slots`). A lone lead byte
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

from dataclasses import replace

from metrics_registry.encoding import candidates, domain, readings, slots, word_ngrams
from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding.decoder import Cell, Option, decode
from metrics_registry.encoding.detection import Detection, detect, word_around
from metrics_registry.encoding.domain import DomainModel
from metrics_registry.encoding.findings import Edit
from metrics_registry.encoding.recurrence import RecurrencePrior
from metrics_registry.encoding.rescoring import document_weight, rescore
from metrics_registry.encoding.slots import Slot
from metrics_registry.encoding.word_ngrams import ChineseWordModel

__all__ = ["Detection", "detect", "repair_lost_bytes"]


def _decode_line(
    line: list[str | Slot],
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
        if isinstance(cell, Slot) and cell.options:
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
                if isinstance(c, Slot) and c.options and i in chosen
            ]
            if group:
                rescore(group, lambda s=start, e=end: _render_line(line[s:e])[0], model, domain_model, weight)
    rendered, where = _render_line(line)
    for index, cell in enumerate(line):
        if isinstance(cell, Slot) and cell.choice is not None and not cell.kept():
            at = where[index]
            if not _acceptable(cell, word_around(rendered, at, at + 1), doc):
                cell.choice = None


def _pinned(slot: Slot, nbsp_cost: float) -> Cell:
    """``slot`` as a cell that holds its chosen reading only (none: nothing fits)."""
    if slot.choice is None:
        return ()
    option = slot.options[slot.choice]
    return (Option(option.char, option.cost(nbsp_cost), 1 if option.nbsp else 0),)


#: Cells of context, at most, on either side of a doubtful slot in the second pass.
_REACH = 24


def _han_windows(line: list[str | Slot]) -> list[tuple[int, int]]:
    """The stretches of ``line`` the second pass scores, each around slots that bear on each other.

    The word model scores runs of Chinese characters only, so a slot's
    readings change nothing beyond the run it stands in: a window reaches to
    the fixed characters that end the run (at most :data:`_REACH` cells
    away), and windows that meet are one.
    """

    def breaks(cell: str | Slot) -> bool:
        return isinstance(cell, str) and not lm.is_han(cell)

    windows: list[tuple[int, int]] = []
    n = len(line)
    for index, cell in enumerate(line):
        if not isinstance(cell, Slot) or not cell.options:
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


def _undamaged_han(lines: list[list[str | Slot]]) -> list[str]:
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


def _render_line(line: list[str | Slot]) -> tuple[str, list[int]]:
    """The line as its slots now read, and where each cell starts in it."""
    rendered: list[str] = []
    where: list[int] = []
    length = 0
    eat = False
    for cell in line:
        where.append(length)
        if isinstance(cell, Slot):
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


def _acceptable(slot: Slot, rendered_word: str, doc: lm.DocumentContext) -> bool:
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
    pieces = slots.pieces(text, detection)
    doc = lm.DocumentContext.from_text(slots.render(pieces))
    model = word_ngrams.active() if doc.chinese or doc.traditional or doc.simplified else None
    if (doc.chinese or doc.traditional or doc.simplified) and lm.use_model_words(
        model, model.new_words if model is not None else dict
    ):
        readings.FITTING.clear()
    domain_model = domain.active() if model is not None else None
    every_line = slots.lines(pieces)
    weight = None if model is None else document_weight(_undamaged_han(every_line), model, domain_model)
    lines = [line for line in every_line if any(isinstance(c, Slot) and c.options for c in line)]
    keep_cost = candidates.keep_cost(doc)
    for line in lines:
        _decode_line(line, doc, detection.nbsp_cost, model, domain_model, weight=weight, keep_cost=keep_cost)
    # Again, the lines with doubtful slots, with what the document read where it was sure.
    prior = RecurrencePrior(c for line in lines for c in line if isinstance(c, Slot) and c.options)
    for line in lines:
        needed = {i for i, c in enumerate(line) if isinstance(c, Slot) and c.options and prior.helps(c)}
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
    return slots.edits(text, pieces, detection)

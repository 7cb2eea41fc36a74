"""Putting back the bytes a code page dropped.

The steps, for a whole document at a time:

1. Find the runs of characters that map to bytes in a code page and read
   those bytes as UTF-8 units (:mod:`.utf8`). A run that holds a whole
   multi-byte character, or a lead byte with some of its continuation bytes,
   is mojibake; a lone accented letter inside a known word ("café", "tên")
   is not.
2. Pick the code page that explains the most mojibake (:func:`detect`).
3. Decode the complete units; for each unit short of bytes, list the
   characters it could have been (:mod:`.candidates`) and choose, together
   with its neighbours, the reading the language model likes best, in the
   window of text around it and in the light of the rest of the document.
4. Leave a unit as it is when no reading is a plausible character (the
   finding then says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import product

from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding.candidates import Candidate, candidates
from metrics_registry.encoding.codepages import CODEPAGES, Codepage
from metrics_registry.encoding.findings import Alternative, Edit, Kind, Spot
from metrics_registry.encoding.utf8 import Unit, UnitKind, parse_units

__all__ = ["Detection", "detect", "repair_lost_bytes"]

_UNKNOWN = "\ufffd"
_CONTEXT = 6
_MAX_JOINT = 4096
_WORD_ENDINGS = ("”", "’", "…")
_CLEAN_SYMBOLS = frozenset("×°±·—–…“”‘’•€£¥©®™§¶½¼¾²³¹µ«»¡¿\u00a0")


@dataclass
class _Sub:
    """A stretch of one run that reads as UTF-8 units: mojibake, or an accented word that is fine."""

    start: int
    end: int
    units: list[Unit]
    base: int

    @property
    def definite(self) -> bool:
        """Holds a whole multi-byte character or a lead byte with continuation bytes."""
        return any(u.kind is UnitKind.COMPLETE or len(u.body) > 1 for u in self.units)

    @property
    def evidence(self) -> int:
        return sum(1 for u in self.units if u.kind is UnitKind.COMPLETE or len(u.body) > 1)


@dataclass(frozen=True)
class Detection:
    """The code page that damaged a text, the bytes it may have lost, and the mojibake found."""

    page: Codepage
    droppable: frozenset[int]
    subs: tuple[_Sub, ...]
    evidence: int
    nbsp_survived: bool = False
    lossy: bool = False  # some character lost bytes that no no-break space explains

    @property
    def nbsp_cost(self) -> float:
        """How unlikely it is that a space was a no-break space (very, when the text kept its NBSPs)."""
        return 9.0 if self.nbsp_survived else 2.5


def _word_around(text: str, start: int, end: int) -> str:
    while start > 0 and text[start - 1].isalpha() and not lm.is_han(text[start - 1]):
        start -= 1
    while end < len(text) and text[end].isalpha() and not lm.is_han(text[end]):
        end += 1
    return text[start:end]


def _foreign_neighbour(text: str, start: int, end: int) -> bool:
    """Touches a character that is neither ASCII nor Latin (Chinese, emoji...): mojibake's company."""
    for index in (start - 1, end):
        if 0 <= index < len(text):
            ch = text[index]
            if ch >= "\x80" and not lm.is_latin_letter(ch) and ch not in _CLEAN_SYMBOLS:
                return True
    return False


def _plausible(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` reads fine as it is: a known word, or a common symbol."""
    if _foreign_neighbour(text, start, end):
        return False
    chunk = text[start:end]
    if all(ch in _CLEAN_SYMBOLS for ch in chunk) and len(chunk) <= 2:
        return True
    if all(ch.isalpha() for ch in chunk):
        return lm.word_known(_word_around(text, start, end))
    letters = len(chunk) - len(chunk.lstrip("".join(ch for ch in chunk if ch.isalpha())))
    if letters and chunk[letters:] in _WORD_ENDINGS and not text[end : end + 1].isalpha():
        # "bé”", "café…": a known word followed by a closing quote or an ellipsis.
        return lm.word_known(_word_around(text, start, start + letters))
    return False


def _subs(text: str, page: Codepage) -> tuple[list[_Sub], int]:
    """The mojibake-looking stretches of ``text`` under ``page``, and how many bytes are not UTF-8."""
    found: list[_Sub] = []
    bad = 0
    for match in page.cluster_re.finditer(text):
        base, end = match.span()
        space_after = text[end : end + 1] == " "
        units = parse_units(page.encode(match.group()), space_after=space_after)
        current: list[Unit] = []
        if any(u.kind in (UnitKind.COMPLETE, UnitKind.SHORT) for u in units):
            bad += sum(1 for u in units if u.kind in (UnitKind.STRAY, UnitKind.INVALID))
        for unit in [*units, None]:
            if unit is not None and unit.kind in (UnitKind.COMPLETE, UnitKind.SHORT):
                current.append(unit)
                continue
            if current:
                sub = _Sub(base + current[0].start, base + current[-1].end, current, base)
                if not _plausible(text, sub.start, sub.end):
                    found.append(sub)
                current = []
    return found, bad


def detect(text: str) -> Detection | None:
    """The code page whose mojibake best explains ``text``; ``None`` when there is no mojibake."""
    scored = []
    for page in CODEPAGES:
        subs, bad = _subs(text, page)
        evidence = sum(sub.evidence for sub in subs if sub.definite)
        scored.append((evidence - bad, evidence, page, subs))
    best_score, evidence, page, subs = max(scored, key=lambda item: (item[0], item[1]))
    if evidence == 0 or best_score <= 0:
        return None
    chunks = [text[s.start : s.end] for s in subs if s.definite]
    droppable = set(page.droppable)
    for score, _, other, _ in scored:
        if (
            score == best_score
            and other is not page
            and "latin" not in other.name + page.name
            and all(ch in other.to_byte and other.to_byte[ch] == page.to_byte[ch] for c in chunks for ch in c)
        ):
            droppable |= other.droppable
    survived = any("\u00a0" in chunk for chunk in chunks)
    lossy = any(u.kind is UnitKind.SHORT and not u.optional_nbsp for sub in subs for u in sub.units)
    return Detection(page, frozenset(droppable), tuple(subs), evidence, survived, lossy)


@dataclass
class _Slot:
    unit: Unit
    start: int  # in the text
    original: str
    options: list[Candidate]
    choice: int | None = None
    space_follows: bool = False
    probabilities: list[float] = field(default_factory=list)

    def text(self) -> str:
        if self.choice is None:
            return _UNKNOWN
        return self.options[self.choice].char

    def eats_space(self) -> bool:
        return self.choice is not None and self.options[self.choice].nbsp


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
                slot = _Slot(unit, start, original, candidates(unit, detection.droppable))
                pieces.append(slot)
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


def _context(pieces: list[str | _Slot], index: int, step: int) -> str:
    """Up to a few characters (whole words for Latin) on one side of ``pieces[index]``, within the line."""
    parts: list[str] = []
    size = 0
    i = index + step
    eat = step == 1 and isinstance(pieces[index], _Slot) and pieces[index].eats_space()
    while 0 <= i < len(pieces) and size < 40:
        piece = pieces[i]
        chunk = piece.text() if isinstance(piece, _Slot) else piece
        if eat and chunk.startswith(" "):
            chunk = chunk[1:]
        eat = isinstance(piece, _Slot) and piece.eats_space()
        if step == 1:
            cut = chunk.find("\n")
            chunk = chunk if cut < 0 else chunk[:cut]
            stop = cut >= 0
        else:
            cut = chunk.rfind("\n")
            chunk = chunk if cut < 0 else chunk[cut + 1 :]
            stop = cut >= 0
        parts.append(chunk)
        size += len(chunk)
        if stop or (size >= _CONTEXT and not _ends_in_word(parts, step)):
            break
        i += step
    joined = "".join(parts) if step == 1 else "".join(reversed(parts))
    if step == 1:
        return _trim_right(joined)
    return _trim_left(joined)


def _ends_in_word(parts: list[str], step: int) -> bool:
    text = parts[-1]
    if not text:
        return True
    edge = text[-1] if step == 1 else text[0]
    return lm.is_latin_letter(edge)


def _trim_right(text: str) -> str:
    end = min(len(text), _CONTEXT)
    while end < len(text) and lm.is_latin_letter(text[end]) and lm.is_latin_letter(text[end - 1]):
        end += 1
    return text[:end]


def _trim_left(text: str) -> str:
    start = max(0, len(text) - _CONTEXT)
    while start > 0 and lm.is_latin_letter(text[start - 1]) and lm.is_latin_letter(text[start]):
        start -= 1
    return text[start:]


@lru_cache(maxsize=200_000)
def _window_logp(window: str, chinese: bool) -> float:
    return lm.window_logp(window, chinese=chinese)


class _Solver:
    def __init__(self, pieces: list[str | _Slot], doc: lm.DocumentContext, nbsp_cost: float) -> None:
        self.pieces = pieces
        self.doc = doc
        self.nbsp_cost = nbsp_cost
        self.slot_index = [i for i, p in enumerate(pieces) if isinstance(p, _Slot)]

    def clumps(self) -> list[list[int]]:
        """Groups of slots close enough that their readings depend on each other."""
        groups: list[list[int]] = []
        for index in self.slot_index:
            if not self.pieces[index].options:  # type: ignore[union-attr]
                continue
            if groups:
                gap = self.pieces[groups[-1][-1] + 1 : index]
                between = "".join(p if isinstance(p, str) else "x" for p in gap)
                if len(between) <= 3 and "\n" not in between:
                    groups[-1].append(index)
                    continue
            groups.append([index])
        return groups

    def score(self, clump: list[int]) -> float:
        first, last = clump[0], clump[-1]
        left = _context(self.pieces, first, -1)
        right = _context(self.pieces, last, 1)
        middle: list[str] = []
        positions: list[int] = []
        offset = len(left)
        eat = False
        for i in range(first, last + 1):
            piece = self.pieces[i]
            if isinstance(piece, _Slot):
                positions.append(offset + sum(len(m) for m in middle))
                middle.append(piece.text())
                eat = piece.eats_space()
            else:
                middle.append(piece[1:] if eat and piece.startswith(" ") else piece)
                eat = False
        window = left + "".join(middle) + right
        total = _window_logp(window, self.doc.chinese)
        for i, position in zip(clump, positions, strict=True):
            slot = self.pieces[i]
            assert isinstance(slot, _Slot)
            if slot.choice is None:
                continue
            option = slot.options[slot.choice]
            total += option.cost(self.nbsp_cost) + self.doc.bonus(window, position)
            total += lm.bracket_bonus(option.char, self._line_before(i), self._line_after(i))
        return total

    def _line_before(self, index: int) -> str:
        text = "".join(
            p.text() if isinstance(p, _Slot) else p for p in self.pieces[max(0, index - 40) : index]
        )
        return text[text.rfind("\n") + 1 :]

    def _line_after(self, index: int) -> str:
        text = "".join(p.text() if isinstance(p, _Slot) else p for p in self.pieces[index + 1 : index + 41])
        cut = text.find("\n")
        return text if cut < 0 else text[:cut]

    def _slots(self, clump: list[int]) -> list[_Slot]:
        return [self.pieces[i] for i in clump]  # type: ignore[misc]

    def solve(self, clump: list[int]) -> None:
        slots = self._slots(clump)
        sizes = [len(s.options) for s in slots]
        if math.prod(sizes) <= _MAX_JOINT:
            best: tuple[float, tuple[int, ...]] | None = None
            for combo in product(*(range(n) for n in sizes)):
                for slot, choice in zip(slots, combo, strict=True):
                    slot.choice = choice
                value = self.score(clump)
                if best is None or value > best[0]:
                    best = (value, combo)
            assert best is not None
            for slot, choice in zip(slots, best[1], strict=True):
                slot.choice = choice
        else:
            for slot in slots:
                slot.choice = None
            for _ in range(3):
                for slot in slots:
                    self._best_for(clump, slot)
        for slot in slots:
            self._best_for(clump, slot, record=True)

    def _best_for(self, clump: list[int], slot: _Slot, *, record: bool = False) -> None:
        values = []
        for choice in range(len(slot.options)):
            slot.choice = choice
            values.append(self.score(clump))
        top = max(values)
        slot.choice = values.index(top)
        if record:
            weights = [math.exp(v - top) for v in values]
            total = sum(weights)
            slot.probabilities = [w / total for w in weights]


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


def repair_lost_bytes(text: str, *, nbsp_survived: bool = False) -> tuple[str, list[Edit]]:
    """Decode the mojibake of ``text``, putting back lost bytes; return the text and the edits made.

    ``nbsp_survived`` tells that the document, before any repair, kept no-break
    spaces inside its mojibake, so that its plain spaces are plain spaces.
    """
    detection = detect(text)
    if detection is None:
        return text, []
    if nbsp_survived and not detection.nbsp_survived:
        detection = replace(detection, nbsp_survived=True)
    pieces = _pieces(text, detection)
    doc = lm.DocumentContext.from_text(_render(pieces))
    solver = _Solver(pieces, doc, detection.nbsp_cost)
    for clump in solver.clumps():
        solver.solve(clump)
    for index in solver.slot_index:
        slot = pieces[index]
        assert isinstance(slot, _Slot)
        if slot.choice is not None:
            word = _word_at(pieces, index)
            if not _acceptable(slot, word, doc):
                slot.choice = None
    return _edits(text, pieces, detection)


def _word_at(pieces: list[str | _Slot], index: int) -> str:
    left = _context(pieces, index, -1)
    right = _context(pieces, index, 1)
    slot = pieces[index]
    assert isinstance(slot, _Slot)
    window = left + slot.text() + right
    return _word_around(window, len(left), len(left) + 1)


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

    for sub in detection.subs:
        out.append(between())
        replacement: list[str] = []
        spots: list[Spot] = []
        end = sub.end
        for _ in sub.units:
            piece = next(queue)
            if isinstance(piece, str):
                replacement.append(piece)
                continue
            spots.append(_spot(piece))
            if piece.choice is None:
                replacement.append(piece.original)
            else:
                replacement.append(piece.options[piece.choice].char)
                if piece.eats_space():  # only the last unit of a stretch can be followed by a space
                    end += 1
                    eat = True
        new = "".join(replacement)
        unrepaired = any(s.chosen is None for s in spots)
        if unrepaired:
            kind = Kind.UNREPAIRED
        elif spots:
            kind = Kind.LOST_BYTES
        elif any(u.nbsp_restored for u in sub.units):
            kind = Kind.NBSP
        else:
            kind = Kind.MOJIBAKE
        confidence = min((s.confidence for s in spots if s.chosen is not None), default=1.0)
        if unrepaired and new == text[sub.start : end]:
            confidence = 0.0
        edits.append(Edit(sub.start, end, new, kind, confidence, label, tuple(spots)))
        out.append(new)
    out.append(between())
    return "".join(out), edits


def _spot(slot: _Slot) -> Spot:
    ranked = sorted(range(len(slot.options)), key=lambda i: -(slot.probabilities or [0.0] * 999)[i])
    alternatives = tuple(
        Alternative(slot.options[i].char, round(slot.probabilities[i], 4) if slot.probabilities else 0.0)
        for i in ranked[:6]
    )
    chosen = slot.options[slot.choice].char if slot.choice is not None else None
    confidence = slot.probabilities[slot.choice] if slot.choice is not None and slot.probabilities else 0.0
    end = slot.start + len(slot.original) + (1 if slot.eats_space() else 0)
    return Spot(slot.start, end, slot.original, chosen, round(confidence, 4), alternatives)

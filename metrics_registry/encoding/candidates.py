"""Every character a unit short of bytes could have been.

A unit keeps its lead byte and the continuation bytes that survived, in
order. The lost ones were among the code page's droppable bytes and sat
anywhere after the lead, so we try each placement and each value, keep what
decodes to a real character, and let the language model choose.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

from metrics_registry.encoding.language_model import DocumentContext, is_junk, is_latin_letter
from metrics_registry.encoding.utf8 import Unit

__all__ = ["KEEP_COST", "Candidate", "candidates", "keep_cost"]

#: Units that lost more bytes than this are left alone: too many readings fit.
MAX_MISSING = 2
_NBSP = 0xA0


@dataclass(frozen=True)
class Candidate:
    """One reading of a damaged unit: the character, how many bytes it puts back, and how."""

    char: str
    inserted: int
    nbsp: bool  # the plain space after the unit was its last byte, 0xA0
    keep: bool = False  # the damaged text as it is: it may not have been damaged at all

    def cost(self, nbsp_cost: float) -> float:
        """Prior log-odds of the damage this reading assumes (every change is a little unlikely)."""
        return -2.0 * self.inserted - (nbsp_cost if self.nbsp else 0.0)


def _fill(body: bytes, total: int, values: frozenset[int], missing: int) -> set[bytes]:
    results: set[bytes] = set()
    present = body[1:]
    for slots in combinations(range(1, total), missing):
        for fill in product(sorted(values), repeat=missing):
            out = bytearray(body[:1])
            given, extra = iter(present), iter(fill)
            for index in range(1, total):
                out.append(next(extra) if index in slots else next(given))
            results.add(bytes(out))
    return results


def _char(data: bytes) -> str | None:
    try:
        char = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if len(char) != 1 or is_junk(char) else char


def candidates(
    unit: Unit, droppable: frozenset[int], undefined: frozenset[int] = frozenset()
) -> list[Candidate]:
    """The readings of a short unit, best prior first; empty when it lost too much.

    A hole (U+FFFD in the text, see :attr:`.utf8.Unit.holes`) is one of the
    ``undefined`` bytes of the code page, or more than one when the unit is
    still short: the place of that loss is known, and costs nothing.
    """
    if unit.holes:
        return list(_with_holes(unit.body, unit.holes, unit.missing, undefined or droppable))
    return list(_candidates(unit.body, unit.missing, unit.optional_nbsp, droppable))


@lru_cache(maxsize=20_000)
def _with_holes(
    body: bytes, holes: tuple[int, ...], missing: int, undefined: frozenset[int]
) -> tuple[Candidate, ...]:
    """The readings of a unit with holes: every hole filled with one undefined byte, and the bytes
    still missing (at most :data:`MAX_MISSING`) added next to a hole, undefined bytes too."""
    if missing > MAX_MISSING:
        return ()
    found: dict[str, Candidate] = {}
    values = sorted(undefined)
    for extra in product(holes, repeat=missing):
        # Each hole stands for 1 byte, plus the extra ones given to it.
        widths = {hole: 1 + extra.count(hole) for hole in holes}
        for fill in product(values, repeat=len(holes) + missing):
            out = bytearray()
            given = iter(fill)
            for index, byte in enumerate(body):
                if index in widths:
                    out.extend(next(given) for _ in range(widths[index]))
                else:
                    out.append(byte)
            char = _char(bytes(out))
            if char is not None and char not in found:
                found[char] = Candidate(char, missing, nbsp=False)
    return tuple(sorted(found.values(), key=lambda c: (-c.cost(2.5), c.char)))


@lru_cache(maxsize=20_000)
def _candidates(
    body: bytes, missing: int, optional_nbsp: bool, droppable: frozenset[int]
) -> tuple[Candidate, ...]:
    """:func:`candidates`, remembered: the same damaged characters come back all through a document."""
    total = len(body) + missing
    found: dict[str, Candidate] = {}
    hypotheses = [(body, missing, False)]
    if optional_nbsp:
        hypotheses.append((body + bytes([_NBSP]), missing - 1, True))
    for known, lost, nbsp in hypotheses:
        if lost > MAX_MISSING:
            continue
        for data in _fill(known, total, droppable, lost) if lost else {known}:
            char = _char(data)
            if char is None:
                continue
            candidate = Candidate(char, lost, nbsp)
            if char not in found or candidate.cost(2.5) > found[char].cost(2.5):
                found[char] = candidate
    return tuple(sorted(found.values(), key=lambda c: (-c.cost(2.5), c.char)))


#: What reading a lone lead byte as the letter it shows costs (nats) in a document that shows no
#: accented Latin letter intact: there, "é" between Chinese mojibake ("非" = E9 9D 9E with both
#: continuation bytes dropped) is the lead byte of a Chinese character, not a Vietnamese word, and
#: a letter kept on a damaged line also makes every finding of that line look quoted (rule 1 of
#: :mod:`.quotation`), so that the whole line was left as mojibake.
KEEP_COST = 3.0


def keep_cost(doc: DocumentContext) -> float:
    """:data:`KEEP_COST` unless the document's intact text holds an accented Latin letter."""
    return 0.0 if any(is_latin_letter(ch) for ch in doc.chars) else KEEP_COST

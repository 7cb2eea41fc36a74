"""Every character a unit short of bytes could have been.

A unit keeps its lead byte and the continuation bytes that survived, in
order. The lost ones were among the code page's droppable bytes and sat
anywhere after the lead, so we try each placement and each value, keep what
decodes to a real character, and let the language model choose.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product

from metrics_registry.encoding.language_model import is_junk
from metrics_registry.encoding.utf8 import Unit

__all__ = ["Candidate", "candidates"]

#: Units that lost more bytes than this are left alone: too many readings fit.
MAX_MISSING = 2
_NBSP = 0xA0


@dataclass(frozen=True)
class Candidate:
    """One reading of a damaged unit: the character, how many bytes it puts back, and how."""

    char: str
    inserted: int
    nbsp: bool  # the plain space after the unit was its last byte, 0xA0

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


def candidates(unit: Unit, droppable: frozenset[int]) -> list[Candidate]:
    """The readings of a short unit, best prior first; empty when it lost too much."""
    total = len(unit.body) + unit.missing
    found: dict[str, Candidate] = {}
    hypotheses = [(unit.body, unit.missing, False)]
    if unit.optional_nbsp:
        hypotheses.append((unit.body + bytes([_NBSP]), unit.missing - 1, True))
    for body, missing, nbsp in hypotheses:
        if missing > MAX_MISSING:
            continue
        for data in _fill(body, total, droppable, missing) if missing else {body}:
            char = _char(data)
            if char is None:
                continue
            candidate = Candidate(char, missing, nbsp)
            if char not in found or candidate.cost(2.5) > found[char].cost(2.5):
                found[char] = candidate
    return sorted(found.values(), key=lambda c: (-c.cost(2.5), c.char))

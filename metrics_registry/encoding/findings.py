"""What a repair found and did, as data a person or a tool can check.

A lossless fix is certain once the code page is known; a spot where a byte
was lost is a choice, so it carries the readings that were weighed and how
likely each looked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

__all__ = ["Alternative", "Edit", "Finding", "Kind", "Spot"]


class Kind(StrEnum):
    """The kinds of damage."""

    MOJIBAKE = "mojibake"  # UTF-8 read with a one-byte code page, nothing lost
    LOST_BYTES = "lost-bytes"  # the same, and bytes the code page cannot hold were dropped
    NBSP = "nbsp-as-space"  # a no-break space inside mojibake turned into a plain space
    DOUBLE = "double-encoding"  # mojibake of mojibake
    C1 = "c1-controls"  # Windows-1252 read as Latin-1: C1 control characters for punctuation
    UNREPAIRED = "unrepaired"  # damage seen, but no reading was plausible enough to write


@dataclass(frozen=True)
class Alternative:
    """A reading of a damaged spot and its probability among the readings weighed."""

    char: str
    probability: float


@dataclass(frozen=True)
class Spot:
    """One character that lost bytes: where, what is left of it, what it became, what else it could be."""

    start: int
    end: int
    damaged: str
    chosen: str | None
    confidence: float
    alternatives: tuple[Alternative, ...]
    at: int = -1  # where the chosen character stands in the repaired text (-1: not written)


class Edit(NamedTuple):
    """A replacement made in one pass, with offsets in that pass's input."""

    start: int
    end: int
    replacement: str
    kind: Kind
    confidence: float
    codepage: str | None
    spots: tuple[Spot, ...] = ()


@dataclass(frozen=True)
class Finding:
    """Damage found in a text: its span in the input (``start:end``, 1-based ``line``/``column``).

    ``original`` is the damaged text and ``replacement`` what :func:`repair`
    writes there; ``confidence`` is 1.0 for lossless fixes and the
    probability of the chosen reading (the least sure one) where bytes were
    lost; ``spots`` details each such character.
    """

    start: int
    end: int
    line: int
    column: int
    kind: Kind
    original: str
    replacement: str
    confidence: float
    codepage: str | None = None
    spots: tuple[Spot, ...] = field(default=())

    def describe(self) -> str:
        """One line for a terminal: ``line:column: kind 'damaged' -> 'fixed' (details)``."""
        where = f"{self.line}:{self.column}"
        original = _short(self.original)
        if self.kind is Kind.UNREPAIRED:
            what = f"{original} left as is: no reading is plausible"
        else:
            what = f"{original} -> {_short(self.replacement)}"
        details = [self.codepage] if self.codepage else []
        if self.spots:
            details.append(f"confidence {self.confidence:.2f}")
            options = [
                f"{s.damaged!r}: " + " ".join(f"{a.char}={a.probability:.2f}" for a in s.alternatives[:4])
                for s in self.spots
                if s.confidence < 0.9
            ]
            details.extend(options[:3])
        suffix = f" ({'; '.join(details)})" if details else ""
        return f"{where}: {self.kind.value} {what}{suffix}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind.value
        return data


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")

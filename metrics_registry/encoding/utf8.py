"""Reading the bytes behind a run of mojibake as UTF-8 characters, some of them short of bytes.

Only continuation bytes (0x80-0xBF) can be lost in transit: every lead byte
has a character in the code pages we handle. So a character that lost bytes
still starts where it started, and its lead byte says how many bytes it
should have: the damage is always visible, and always located to one
character. What stays unknown is which bytes were lost and where inside the
character, which :mod:`.lossy` enumerates.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import NamedTuple

__all__ = ["Unit", "UnitKind", "parse_units"]

_SPACE = 0x20
_NBSP = 0xA0


class UnitKind(Enum):
    ASCII = "ascii"
    COMPLETE = "complete"  # a whole UTF-8 character of two bytes or more
    SHORT = "short"  # a lead byte followed by too few continuation bytes
    STRAY = "stray"  # a continuation byte with no lead: not UTF-8 mojibake
    INVALID = "invalid"  # a byte that starts no UTF-8 character (0xC0, 0xC1, 0xF5-0xFF)


def _needed(lead: int) -> int | None:
    if 0xC2 <= lead <= 0xDF:
        return 1
    if 0xE0 <= lead <= 0xEF:
        return 2
    if 0xF0 <= lead <= 0xF4:
        return 3
    return None


#: A lead byte followed by as many continuation bytes as it calls for.
_WHOLE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


def _is_cont(byte: int) -> bool:
    return 0x80 <= byte <= 0xBF


class Unit(NamedTuple):
    """One character's worth of bytes, at ``start:end`` of the run (one byte per text character).

    ``body`` is the lead byte and the continuation bytes present, with a
    space already turned back into 0xA0 where it sits between continuation
    bytes (``nbsp_restored``). ``missing`` counts the bytes lost.
    ``optional_nbsp`` says that the plain space right after the unit may be
    its lost last byte 0xA0.

    A named tuple rather than a frozen dataclass: a document has one per
    character of mojibake, and a tuple is made several times faster.
    """

    kind: UnitKind
    start: int
    end: int
    body: bytes
    missing: int = 0
    nbsp_restored: bool = False
    optional_nbsp: bool = False
    #: Places in ``body`` where the text had U+FFFD: a byte (or more) lost there, value unknown.
    holes: tuple[int, ...] = ()

    def decode(self) -> str:
        """The character of a complete unit."""
        return self.body.decode("utf-8")


def parse_units(data: bytes, *, space_after: bool = False, holes: frozenset[int] = frozenset()) -> list[Unit]:
    """Split ``data`` (the bytes of a run) into units.

    ``space_after`` tells that the run is followed by a plain space, which
    may complete a unit left short at the end. ``holes`` are the indexes of
    ``data`` where a byte was lost and marked (U+FFFD in the text): a unit
    that holds one is short, whatever its length.
    """
    units: list[Unit] = []
    i, n = 0, len(data)
    while i < n:
        byte = data[i]
        if byte < 0x80:
            units.append(Unit(UnitKind.ASCII, i, i + 1, data[i : i + 1]))
            i += 1
            continue
        whole = _WHOLE.match(data, i)
        if whole is not None and (not holes or holes.isdisjoint(range(i + 1, whole.end()))):
            # The usual case, taken at once: a lead byte and all its continuation bytes, none a hole.
            j = whole.end()
            body = data[i:j]
            units.append(Unit(UnitKind.COMPLETE if _valid(body) else UnitKind.INVALID, i, j, body))
            i = j
            continue
        need = _needed(byte)
        if need is None:
            kind = UnitKind.STRAY if _is_cont(byte) else UnitKind.INVALID
            units.append(Unit(kind, i, i + 1, data[i : i + 1]))
            i += 1
            continue
        units.append(_unit_from(data, i, need, space_after, holes))
        i = units[-1].end
    return units


def _valid(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _unit_from(data: bytes, i: int, need: int, space_after: bool, holes: frozenset[int]) -> Unit:
    """The unit of the lead byte ``data[i]``, which calls for ``need`` continuation bytes, when they
    are not all there in a row: a space may stand for 0xA0, bytes may be lost or holes."""
    n = len(data)
    body = bytearray([data[i]])
    j = i + 1
    restored = False
    in_body: list[int] = []
    while len(body) <= need and j < n:
        if _is_cont(data[j]):
            if j in holes:
                in_body.append(len(body))
            body.append(data[j])
            j += 1
        elif data[j] == _SPACE and not restored and j + 1 < n and _is_cont(data[j + 1]):
            # A space followed by continuation bytes cannot be a space: it was 0xA0.
            body.append(_NBSP)
            restored = True
            j += 1
        else:
            break
    missing = need + 1 - len(body)
    if in_body:
        return Unit(UnitKind.SHORT, i, j, bytes(body), missing, restored, False, tuple(in_body))
    if missing == 0:
        unit = Unit(UnitKind.COMPLETE, i, j, bytes(body), nbsp_restored=restored)
        return unit if _valid(unit.body) else Unit(UnitKind.INVALID, i, j, bytes(body))
    followed_by_space = (j == n and space_after) or (j < n and data[j] == _SPACE)
    optional = followed_by_space and not restored
    return Unit(UnitKind.SHORT, i, j, bytes(body), missing, restored, optional)

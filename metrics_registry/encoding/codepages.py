"""The single-byte code pages that turn UTF-8 into mojibake, and which one did it.

Mojibake is UTF-8 read with a one-byte code page: every byte became one
character. To undo it we map the characters back to bytes through the same
code page, so we must know it. The bytes a code page leaves undefined
(Windows-1254 has no 0x81, 0x8D, 0x8E, 0x8F, 0x90, 0x9D, 0x9E) cannot survive
the trip and are usually dropped, as is the invisible soft hyphen 0xAD and,
for Latin-1, the C1 controls; those are the bytes :mod:`.lossy` puts back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

__all__ = ["CODEPAGES", "LOST", "SUSPECT_RE", "Codepage", "codepage"]

_SOFT_HYPHEN = "\u00ad"
#: What a decoder writes for a byte it cannot read (``errors="replace"``): one or more bytes lost there.
LOST = "\ufffd"


@dataclass(frozen=True)
class Codepage:
    """One code page, as the tables a repair needs.

    ``to_char`` is the character each byte of the upper half (0x80-0xFF)
    becomes, the C1 control of the same number for a byte the code page
    leaves undefined (what lenient decoders such as ftfy's "sloppy" codecs
    and browsers write). ``to_byte`` reads characters back: those of
    ``to_char``, and every C1 control as its own byte, since no text holds
    C1 controls but mojibake (a file read partly as Latin-1 keeps them).
    ASCII maps to itself in every code page here. ``droppable`` holds the
    bytes that a round trip through this code page tends to lose.
    """

    name: str
    label: str
    to_byte: dict[str, int]
    droppable: frozenset[int]
    to_char: dict[int, str]
    #: The bytes it leaves undefined: a decoder with ``errors="replace"`` writes U+FFFD for them.
    undefined: frozenset[int] = frozenset()

    @property
    def high_chars(self) -> str:
        return "".join(self.to_byte)

    def encode(self, text: str) -> bytes:
        """Bytes of ``text`` (ASCII or upper-half characters of this code page)."""
        return bytes(ord(ch) if ch < "\x80" else self.to_byte[ch] for ch in text)

    def encode_with_holes(self, text: str) -> tuple[bytes, frozenset[int]]:
        """Like :meth:`encode`, where ``text`` may also hold U+FFFD, the mark a decoder leaves for a
        byte it could not read: such a byte is a hole, written as the continuation byte 0x80, and
        its index is returned too (the byte it was is unknown)."""
        if LOST not in text:
            return self.encode(text), frozenset()
        holes = frozenset(index for index, ch in enumerate(text) if ch == LOST)
        return self.encode(text.replace(LOST, "\x80")), holes

    def sloppy_encode(self, text: str) -> bytes | None:
        """Like :meth:`encode`, but ``None`` when a character has no byte in this code page."""
        out = bytearray()
        for ch in text:
            if ch < "\x80":
                out.append(ord(ch))
            elif ch in self.to_byte:
                out.append(self.to_byte[ch])
            else:
                return None
        return bytes(out)

    @property
    def pair_re(self) -> re.Pattern[str]:
        """A lead byte and a continuation byte of UTF-8, maybe with a space (a lost NBSP) between."""
        return _pair_re(self.name)

    @property
    def cluster_re(self) -> re.Pattern[str]:
        """Runs of upper-half characters, with single spaces inside (a space may be a lost NBSP)."""
        return _cluster_re(self.name)


def _build(name: str, label: str) -> Codepage:
    to_char: dict[int, str] = {}
    droppable: set[int] = set()
    undefined: set[int] = set()
    for byte in range(0x80, 0x100):
        try:
            char = bytes([byte]).decode(name)
        except UnicodeDecodeError:
            char = chr(byte)
            undefined.add(byte)
        if char == _SOFT_HYPHEN or "\x80" <= char <= "\x9f":
            droppable.add(byte)
        to_char[byte] = char
    to_byte = {chr(byte): byte for byte in range(0x80, 0xA0)}
    to_byte.update((char, byte) for byte, char in to_char.items())
    return Codepage(name, label, to_byte, frozenset(droppable), to_char, frozenset(undefined))


#: The code pages tried, most common first (the order breaks ties).
CODEPAGES: tuple[Codepage, ...] = tuple(
    _build(name, label)
    for name, label in (
        ("cp1252", "Windows-1252"),
        ("cp1254", "Windows-1254"),
        ("latin-1", "Latin-1"),
        ("cp1250", "Windows-1250"),
        ("cp1251", "Windows-1251"),
        ("cp1253", "Windows-1253"),
        ("cp1257", "Windows-1257"),
        ("iso8859-2", "ISO-8859-2"),
    )
)


def codepage(name: str) -> Codepage:
    """The code page called ``name`` (a Python codec name such as ``cp1254``)."""
    for page in CODEPAGES:
        if page.name == name:
            return page
    raise KeyError(name)


@cache
def _cluster_re(name: str) -> re.Pattern[str]:
    chars = re.escape(codepage(name).high_chars) + LOST
    return re.compile(f"(?:[{chars}]|(?<=[{chars}]) (?=[{chars}]))+")


@cache
def _pair_re(name: str) -> re.Pattern[str]:
    page = codepage(name)
    leads = {char for char, byte in page.to_byte.items() if 0xC2 <= byte <= 0xF4}
    conts = {char for char, byte in page.to_byte.items() if 0x80 <= byte <= 0xBF}
    return re.compile(f"[{_class(leads)}] ?[{_class(conts)}]")


def _class(chars: set[str]) -> str:
    return "".join(re.escape(ch) for ch in sorted(chars))


def _suspect_re() -> re.Pattern[str]:
    """Two characters that read as a UTF-8 lead byte and a continuation byte in some code page.

    Any UTF-8 character of two bytes or more that went through a code page
    leaves such a pair behind, even when a byte was lost, so text without one
    (and without C1 controls) has no repairable mojibake and skips all work.
    """
    leads: set[str] = set()
    conts: set[str] = set()
    for page in CODEPAGES:
        for char, byte in page.to_byte.items():
            if 0xC2 <= byte <= 0xF4:
                leads.add(char)
            elif 0x80 <= byte <= 0xBF:
                conts.add(char)
    return re.compile(f"[{_class(leads)}] ?[{_class(conts)}{LOST}]|[\x80-\x9f]")


#: Finds the first sign of mojibake; ``None`` means the text is certainly clean.
SUSPECT_RE: re.Pattern[str] = _suspect_re()

"""A large file repaired piece by piece: memory that stays flat however long the file is.

:func:`.repair.repair_with_findings` judges a whole document at once (which
code page damaged it, whether its mojibake is quoted on purpose, which
words it uses). That is right for a page and costs memory in proportion
to the text, many times over. A file larger than :data:`STREAM_BYTES` is
read line by line and cut into pieces of about :data:`PIECE_CHARS`
characters, each ending at a blank line outside a fenced code block (so a
piece is a run of whole Markdown blocks: a code block, a table or a
paragraph is never cut), and each piece is judged as a document of its own.
Smaller files, every page of this project among them, are judged whole as
before. A piece that finds no blank line to end at (a huge fenced block,
one endless paragraph) is cut at a line end once it is eight times too long.

Fences are tracked line by line with :func:`.markup.fence_after`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from metrics_registry.encoding.findings import Finding
from metrics_registry.encoding.markup import Markup, fence_after
from metrics_registry.encoding.repair import Repaired, repair_with_findings

__all__ = ["PIECE_CHARS", "STREAM_BYTES", "Piece", "UndecodableError", "lines_of", "pieces", "repair_pieces"]

#: Files larger than this are repaired piece by piece.
STREAM_BYTES = 4 << 20
#: The size a piece grows to before it ends at the next blank line.
PIECE_CHARS = 1 << 20


class UndecodableError(ValueError):
    """The file is not UTF-8 at ``offset`` (a byte offset in the file)."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"not UTF-8 text (byte {offset}); decode it as UTF-8 first, then repair")
        self.offset = offset


@dataclass(frozen=True)
class Piece:
    """A piece of the file, repaired: its text, the result, and where it starts in the file."""

    text: str
    result: Repaired
    #: Lines before the piece (its first line is line ``line_offset + 1`` of the file).
    line_offset: int
    #: Characters before the piece.
    char_offset: int

    def findings(self) -> list[Finding]:
        """The piece's findings, placed in the whole file."""
        return [
            dataclasses.replace(
                finding,
                start=finding.start + self.char_offset,
                end=finding.end + self.char_offset,
                line=finding.line + self.line_offset,
            )
            for finding in self.result.findings
        ]


def lines_of(handle: BinaryIO) -> Iterator[str]:
    """The lines of a UTF-8 file, line breaks kept. No UTF-8 character holds a newline byte, so each
    line decodes on its own; a line that does not decode raises :class:`UndecodableError`."""
    offset = 0
    for raw in handle:
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UndecodableError(offset + error.start) from None
        offset += len(raw)


def pieces(lines: Iterable[str], size: int = PIECE_CHARS) -> Iterator[str]:
    """The text of ``lines`` in pieces of whole blocks, each about ``size`` characters or more."""
    buffer: list[str] = []
    length = 0
    fence: str | None = None
    for line in lines:
        buffer.append(line)
        length += len(line)
        fence = fence_after(line.rstrip("\r\n"), fence)
        if length >= size and ((fence is None and not line.strip()) or length >= 8 * size):
            yield "".join(buffer)
            buffer, length = [], 0
    if buffer:
        yield "".join(buffer)


def repair_pieces(lines: Iterable[str], markup: Markup = "auto", size: int = PIECE_CHARS) -> Iterator[Piece]:
    """Each piece of ``lines`` repaired as a document of its own, with its place in the file."""
    line_offset = char_offset = 0
    for text in pieces(lines, size):
        yield Piece(text, repair_with_findings(text, markup=markup), line_offset, char_offset)
        line_offset += text.count("\n")
        char_offset += len(text)

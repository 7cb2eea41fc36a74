"""A cell's readings, as the lattice reads them, and which of them extend a Chinese word.

Split from :mod:`.lattice`, which lays the words: what a character is (Chinese,
a Latin letter, its Simplified form) and which readings of a cell make a
dictionary word, or the start of one, with the text before them. Neither
depends on the document, so the answers are kept for the process.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from metrics_registry.encoding import language_model as lm

__all__ = ["FITTING", "MAX_FITTING", "Reading", "fitting", "fixed_reading", "reading", "traits"]


class Reading(NamedTuple):
    """One reading of a cell, with what the lattice asks of its character."""

    char: str
    option: int  # -1 for a fixed character
    score: float  # the reading's prior and the document's support for it (0 for a fixed character)
    step: int  # cells to the next one: 1, or 2 when it swallows a space
    han: bool
    letter: bool
    simple: str  # the Simplified form of a Chinese character, which the dictionaries know


def reading(char: str, option: int, score: float, step: int) -> Reading:
    return Reading(char, option, score, step, *traits(char))


@lru_cache(maxsize=100_000)
def traits(char: str) -> tuple[bool, bool, str]:
    """Whether ``char`` is Chinese, whether a Latin letter, and its Simplified form."""
    han = lm.is_han(char)
    return han, lm.is_latin_letter(char), lm.simplify(char) if han else char


@lru_cache(maxsize=4096)
def fixed_reading(char: str) -> list[Reading]:
    """The one reading of a fixed character (shared: the same characters come back all the time)."""
    return [reading(char, -1, 0.0, 1)]


#: :func:`fitting`'s answers, by the Simplified text so far and the characters of a cell's readings:
#: they depend on nothing else (not on the document), so they are kept for the process.
FITTING: dict[tuple[str, str], list[tuple[int, tuple[float, str] | None, bool]]] = {}
MAX_FITTING = 200_000


def fitting(
    simple: str, readings: list[Reading], entries: dict[str, tuple[tuple[float, str] | None, bool]]
) -> list[tuple[int, tuple[float, str] | None, bool]]:
    """The readings that extend a Chinese word whose Simplified text so far is ``simple`` (by their
    index in ``readings``), with what the dictionaries say of the longer text
    (:func:`.language_model.han_entries`): those that make a word or the start of one, or that
    start a word (any Chinese character does).

    The same text meets the same damaged character again and again, in a document and in the next
    one: the lattice keeps the answer (:data:`FITTING`) rather than trying each reading every time.
    """
    out = []
    for index, candidate in enumerate(readings):
        if candidate.han:
            known, is_prefix = entries[simple + candidate.simple]
            if known is not None or is_prefix or not simple:
                out.append((index, known, is_prefix))
    return out

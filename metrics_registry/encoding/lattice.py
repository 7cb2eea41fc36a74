"""The word lattice the decoder searches: the tokens that may start at each cell of a line.

Cells are fixed characters and *slots*, the characters that lost bytes with
the readings they could have (:class:`Option`). From each cell the lattice
lays Chinese words (any dictionary word whose characters fit the cells it
covers), characters of names (:mod:`.names`), Latin words (whole runs of
letters) and single other characters,
each scored by :mod:`.language_model` and the document's own text
(:class:`.language_model.DocumentContext`). :mod:`.decoder` finds the best
path through them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding import names, symbols
from metrics_registry.encoding.readings import (
    FITTING,
    MAX_FITTING,
    Reading,
    fitting,
    fixed_reading,
    reading,
    traits,
)

__all__ = ["Cell", "Lattice", "Option", "State", "Token", "fixed_reading", "traits"]

#: Readings of a Latin word tried from one start (a word with several damaged letters).
_MAX_LATIN_PATHS = 256
_UNKNOWN = "\ufffd"
#: Added to a Chinese character read from a slot that makes no longer word with its neighbours.
SINGLE_SLOT = -1.5


class Option(NamedTuple):
    """One reading of a slot."""

    char: str
    prior: float  # log-odds of the damage this reading assumes
    skip: int = 0  # following cells it swallows: a space that was its last byte, 0xA0


#: A fixed character, or a slot's readings (an empty tuple: nothing fits, left unknown).
Cell = str | tuple[Option, ...]


#: Makes a named tuple from a tuple of its fields, without the generated ``__new__`` (tokens are many).
_new = tuple.__new__

#: A path's state: the class of its last token, its last character, whether a slot gave that.
State = tuple[str | None, str, bool]


class Token(NamedTuple):
    """A word or character laid over ``start:end`` of the cells, with the readings it takes."""

    start: int
    end: int  # the cell after it
    tag: str | None  # class for the bigram; None for white space, which lets the previous one through
    score: float
    first: str
    last: str
    first_slot: bool
    last_slot: bool
    choices: tuple[tuple[int, int], ...]  # (cell, option) of every slot it covers
    #: The state of a path after it: ``(tag, last, last_slot)``, made once rather than at every
    #: edge; None for white space, after which the state depends on the one before.
    state: State | None


#: Key of :attr:`.DocumentContext.memo` where a document's slot readings are kept: the same
#: damaged characters come back all through a document, with the same options and scores.
_MEMO = "lattice.readings"

#: A word :meth:`Lattice._han` is extending: next cell, text, Simplified text, choices, score so far,
#: whether its first, last and last but one characters are slots (all the n-gram bonuses look at).
_Partial = tuple[int, str, str, tuple[tuple[int, int], ...], float, bool, bool, bool]

#: Key of :attr:`.DocumentContext.memo` for :meth:`Lattice._slot_words` (by ``id`` of readings kept in _MEMO).
_SLOT_WORDS = "lattice.slot_words"


class Lattice:
    """The tokens of one stretch of a line, made on demand cell by cell (:meth:`tokens`)."""

    def __init__(self, cells: list[Cell], doc: lm.DocumentContext) -> None:
        self.cells = cells
        self.doc = doc
        self.fixed = "".join(c if isinstance(c, str) else _UNKNOWN for c in cells)
        self.readings: list[list[Reading]] = []
        # What names a cell's readings in :data:`FITTING`: their characters, in order (each reading
        # is one character), which is all :func:`.readings.fitting` looks at.
        self._names: list[str] = []
        known: dict[tuple[Option, ...], tuple[list[Reading], str]] = doc.memo.setdefault(_MEMO, {})
        for cell in cells:
            if isinstance(cell, str):
                self.readings.append(fixed_reading(cell))
                self._names.append(cell)
                continue
            if not cell:
                self.readings.append(fixed_reading(_UNKNOWN))
                self._names.append(_UNKNOWN)
                continue
            found = known.get(cell)
            if found is None:
                found = known[cell] = self._slot_readings(cell)
            self.readings.append(found[0])
            self._names.append(found[1])
        self.fixed_letter = [isinstance(c, str) and fixed_reading(c)[0].letter for c in cells]
        self._cache: dict[int, tuple[list[Token], list[Token], list[Token]]] = {}
        self._overflows = bool(cells) and any(reading.step > 1 for reading in self.readings[-1])

    def _slot_readings(self, cell: tuple[Option, ...]) -> tuple[list[Reading], str]:
        """A slot's readings, with the document's support for each, and their characters."""
        bonus = self.doc.char_bonus
        readings = [reading(o.char, i, o.prior + bonus(o.char), 1 + o.skip) for i, o in enumerate(cell)]
        return readings, "".join(o.char for o in cell)

    def tokens(self, start: int) -> tuple[list[Token], list[Token], list[Token]]:
        """The tokens that start at cell ``start``: those that may follow a letter, all of those that
        may follow anything but a name (no Latin word right after a letter: words are whole), and the
        characters that carry a name on (:data:`.names.NEXT`), which follow a name's characters only.
        None ends beyond the last cell."""
        found = self._cache.get(start)
        if found is None:
            if isinstance(self.cells[start], str):  # one reading: one kind of token at most
                han, letter = self.readings[start][0][4:6]
                nexts: list[Token] = []
                if han:
                    others = self._han(start)
                    firsts, nexts = self._name_chars(start)
                    others += firsts
                else:
                    others = [] if letter else self._other(start)
                latin = self._latin(start) if letter else []
            else:
                firsts, nexts = self._name_chars(start)
                others = self._han(start)
                others += firsts
                others += self._other(start)
                latin = self._latin(start)
            if self._overflows:  # a reading of the last cell swallows a space beyond the cells
                n = len(self.cells)
                others = [token for token in others if token.end <= n]
                latin = [token for token in latin if token.end <= n]
                nexts = [token for token in nexts if token.end <= n]
            found = self._cache[start] = (others, others + latin if latin else others, nexts)
        return found

    def text(self, token: Token) -> str:
        """What ``token`` reads, for a person looking at a decoding."""
        chosen = dict(token.choices)
        out = []
        index = token.start
        while index < token.end:
            cell = self.cells[index]
            if isinstance(cell, str) or not cell:
                out.append(cell or _UNKNOWN)
                index += 1
            else:
                option = cell[chosen[index]]
                out.append(option.char)
                index += 1 + option.skip
        return "".join(out)

    def _han(self, start: int) -> list[Token]:
        """Chinese words from ``start``: extend while some dictionary word has the prefix."""
        out: list[Token] = []
        n = len(self.cells)
        entries, variant_cost, readings, names = lm.han_entries(), lm.variant_cost, self.readings, self._names
        memo = FITTING
        ngram_bonus, ngrams = self.doc.ngram_bonus, self.doc.ngrams
        stack: list[_Partial] = (
            self._from_slot(start, out)  # a slot's one-character words come ready-made
            if readings[start][0].option >= 0
            else [(start, "", "", (), 0.0, False, False, False)]
        )
        while stack:
            index, text, simple, choices, score, first_slot, last_slot, before_slot = stack.pop()
            if index >= n:
                continue
            key = (simple, names[index])
            fits = memo.get(key)
            cell = readings[index]
            if fits is None:
                if len(memo) >= MAX_FITTING:
                    memo.clear()
                fits = memo[key] = fitting(simple, cell, entries)
            for which, known, is_prefix in fits:
                char, option, reading_score, step, _, _, reading_simple = cell[which]
                new_text = text + char
                new_simple = simple + reading_simple
                length = len(new_text)
                is_slot = option >= 0
                new_score = score + reading_score
                # The document's support for the bigram and trigram that end here, if a slot is in them.
                if length >= 2 and (is_slot or last_slot):
                    if new_text[-2:] in ngrams:
                        new_score += ngram_bonus(new_text[-2:])
                    if length >= 3 and new_text[-3:] in ngrams:
                        new_score += ngram_bonus(new_text[-3:])
                elif length >= 3 and before_slot and new_text[-3:] in ngrams:
                    new_score += ngram_bonus(new_text[-3:])
                new_choices = (*choices, (index, option)) if is_slot else choices
                starts_slot = first_slot if length > 1 else is_slot
                if known is not None or length == 1:
                    logp, tag = known if known is not None else (lm.UNKNOWN_HAN, "n")
                    if new_text != new_simple:
                        logp -= variant_cost(new_text, new_simple)
                    if is_slot and length == 1:
                        logp += SINGLE_SLOT
                    out.append(
                        _new(
                            Token,
                            (
                                start,
                                index + step,
                                tag,
                                logp + new_score,
                                new_text[0],
                                char,
                                starts_slot,
                                is_slot,
                                new_choices,
                                (tag, char, is_slot),
                            ),
                        )
                    )
                if is_prefix:
                    following = index + step
                    stack.append(
                        (
                            following,
                            new_text,
                            new_simple,
                            new_choices,
                            new_score,
                            starts_slot,
                            is_slot,
                            last_slot,
                        )
                    )
        return out

    def _from_slot(self, start: int, out: list[Token]) -> list[_Partial]:
        """The Chinese words of one character that start at the slot ``start`` (added to ``out``), and
        the partial words that go on from them, for :meth:`_han` to extend."""
        stack: list[_Partial] = []
        for char, option, step, simple, reading_score, tag, score, is_prefix in self._slot_words(
            self.readings[start]
        ):
            choices = ((start, option),)
            out.append(
                _new(
                    Token,
                    (start, start + step, tag, score, char, char, True, True, choices, (tag, char, True)),
                )
            )
            if is_prefix:
                stack.append((start + step, char, simple, choices, reading_score, True, True, False))
        return stack

    def _slot_words(
        self, readings: list[Reading]
    ) -> list[tuple[str, int, int, str, float, str, float, bool]]:
        """A slot's Chinese readings as :meth:`_han`'s search makes them words of one character: each
        one's character, option, step, Simplified form, score, word class and word score, and whether
        longer words start with it. Made once per set of readings in a document (they come back)."""
        known_words: dict[int, list[tuple[str, int, int, str, float, str, float, bool]]]
        known_words = self.doc.memo.setdefault(_SLOT_WORDS, {})
        found = known_words.get(id(readings))
        if found is None:
            found = known_words[id(readings)] = []
            for which, known, is_prefix in fitting("", readings, lm.han_entries()):
                char, option, reading_score, step, _, _, reading_simple = readings[which]
                logp, tag = known if known is not None else (lm.UNKNOWN_HAN, "n")
                if char != reading_simple:
                    logp -= lm.variant_cost(char, reading_simple)
                score = logp + SINGLE_SLOT + reading_score
                found.append((char, option, step, reading_simple, reading_score, tag, score, is_prefix))
        return found

    def _name_chars(self, start: int) -> tuple[list[Token], list[Token]]:
        """Each Chinese reading of cell ``start`` that names use, as the first character of a name and
        as one that carries a name on (:mod:`.names`): the decoder scores a run of them with the name
        model."""
        firsts: list[Token] = []
        nexts: list[Token] = []
        for char, option, reading_score, step, han, _, simple in self.readings[start]:
            if not han or not names.usable(simple):
                continue
            is_slot = option >= 0
            score = names.COST + reading_score
            if char != simple:
                score -= lm.variant_cost(char, simple)
            choices = ((start, option),) if is_slot else ()
            end = start + step
            for tag, out in ((names.FIRST, firsts), (names.NEXT, nexts)):
                state = (tag, char, is_slot)
                out.append(
                    _new(Token, (start, end, tag, score, char, char, is_slot, is_slot, choices, state))
                )
        return firsts, nexts

    def _latin(self, start: int) -> list[Token]:
        """Latin words from ``start``, ended only where the next cell may hold something else."""
        out: list[Token] = []
        n = len(self.cells)
        readings, fixed_letter = self.readings, self.fixed_letter
        word_bonus, word_logp = self.doc.word_bonus, lm.latin_word_logp
        # (next cell, text, choices, score so far, first character from a slot, last one from a slot)
        paths: list[tuple[int, str, tuple[tuple[int, int], ...], float, bool, bool]] = [
            (start, "", (), 0.0, False, False)
        ]
        while paths:
            grown = []
            for index, text, choices, score, first_slot, _ in paths:
                if index >= n:
                    continue
                for char, option, reading_score, step, _, letter, _ in readings[index]:
                    if not letter:
                        continue
                    following = index + step
                    is_slot = option >= 0
                    grown.append(
                        (
                            following,
                            text + char,
                            (*choices, (index, option)) if is_slot else choices,
                            score + reading_score,
                            first_slot or (not text and is_slot),
                            is_slot,
                        )
                    )
            if len(grown) > _MAX_LATIN_PATHS:
                grown.sort(key=lambda path: -path[3])
                grown = grown[:_MAX_LATIN_PATHS]
            for index, text, choices, score, first_slot, last_slot in grown:
                if index < n and fixed_letter[index]:
                    continue  # the word goes on: it cannot end here
                bonus = word_bonus(text) if choices else 0.0
                last = text[-1]
                total = word_logp(text) + score + bonus
                state = ("eng", last, last_slot)
                out.append(
                    _new(
                        Token,
                        (start, index, "eng", total, text[0], last, first_slot, last_slot, choices, state),
                    )
                )
            paths = grown
        return out

    def _other(self, start: int) -> list[Token]:
        out = []
        chinese = self.doc.chinese
        for char, option, reading_score, step, han, letter, _ in self.readings[start]:
            if han or letter:
                continue
            following = start + step
            is_slot = option >= 0
            if not is_slot:  # a fixed character: the same token wherever it stands
                tag, score, state = _fixed_other(char, chinese)
                out.append(_new(Token, (start, following, tag, score, char, char, False, False, (), state)))
                continue
            score = symbols.char_logp(char, chinese=chinese)
            if is_slot:
                score += reading_score + self._brackets(start, char)
            choices = ((start, option),) if is_slot else ()
            tag = _tag(char)
            state = None if tag is None else (tag, char, is_slot)
            out.append(Token(start, following, tag, score, char, char, is_slot, is_slot, choices, state))
        return out

    def _brackets(self, index: int, char: str) -> float:
        return symbols.bracket_bonus(char, self.fixed[:index], self.fixed[index + 1 :])


@lru_cache(maxsize=4096)
def _fixed_other(char: str, chinese: bool) -> tuple[str | None, float, State | None]:
    """The class, score and following state of a fixed character that is neither Chinese nor a letter."""
    tag = _tag(char)
    return tag, symbols.char_logp(char, chinese=chinese), None if tag is None else (tag, char, False)


def _tag(char: str) -> str | None:
    if char.isspace():
        return None
    if char.isdigit():
        return "m"
    return "x"

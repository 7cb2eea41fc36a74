"""Choosing the readings of a line's damaged characters together: Viterbi search over a word lattice.

A line is a row of *cells*: fixed characters, and *slots* (characters that
lost bytes) with the readings they could have. Tokens are laid over the
cells: Chinese words (any dictionary word whose characters fit the cells it
covers, so a slot gets the readings that make words with its neighbours),
characters of names (a run of them scored by the name model of
:mod:`.names`, for the transliterated names no dictionary holds), Latin
words (whole runs of letters) and single other characters. The best
line is the best path of tokens, scored by :mod:`.language_model`: each
word's log-probability, the class bigram between neighbouring tokens, the
document's own characters and n-grams, and each reading's prior. A slot's
readings are thereby chosen jointly with every other slot of the line, the
way jieba segments a sentence, in time linear in the line's length.

Written by hand because jieba, like every segmenter we know of, takes fixed
text: none lays a lattice over cells that hold alternatives.
"""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass, field

from metrics_registry.encoding import collector, names
from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding.chinese_tables import NUMERALS
from metrics_registry.encoding.lattice import Cell, Lattice, Option, State, Token, traits

__all__ = ["Cell", "Decoded", "Option", "decode"]

#: States kept per cell (each is the class and last character of the tokens so far).
BEAM = 6


@dataclass
class Decoded:
    """For every slot cell: the chosen option (``None`` if no path), and each option's probability."""

    choice: dict[int, int | None]
    probabilities: dict[int, list[float]]
    score: float = -math.inf  # of the best path
    #: The best path's tokens, each with the lattice it was laid on and its gain (:attr:`path` reads them).
    steps: list[tuple[Lattice, Token, float]] = field(default_factory=list, repr=False)
    #: For every slot cell on the best path: the cells and the class of the token that holds it (a
    #: word of several characters, a character alone, a name's), which says how its reading is supported.
    tokens: dict[int, tuple[int, str | None]] = field(default_factory=dict)

    @property
    def path(self) -> list[tuple[str, str | None, float]]:
        """The best path's tokens: text, class, gain (made on demand: the repair never reads them)."""
        return [(lattice.text(token), token.tag, gain) for lattice, token, gain in self.steps]


def decode(cells: list[Cell], doc: lm.DocumentContext, needed: Container[int] | None = None) -> Decoded:
    """The best reading of every slot in ``cells`` (one line), and how sure each choice is.

    Only the stretches of the line around its slots are searched, each with
    :data:`WINDOW` cells of context on either side (widened to whole Latin
    words): words further away hardly sway a reading, and a long line with a
    few damaged characters costs no more than short ones. With ``needed``,
    only the stretches around those cells are (slots beyond them are left
    out of the result).
    """
    result = Decoded({}, {}, 0.0, [])
    with collector.paused():  # the search makes no reference cycles (see there)
        for start, end in _windows(cells, needed):
            part = _decode(cells[start:end], doc)
            result.choice.update((start + i, c) for i, c in part.choice.items())
            result.probabilities.update((start + i, p) for i, p in part.probabilities.items())
            result.score += part.score
            result.steps += part.steps
            result.tokens.update((start + i, t) for i, t in part.tokens.items())
    return result


#: Cells of context searched on either side of a line's slots.
WINDOW = 5


def _windows(cells: list[Cell], needed: Container[int] | None = None) -> list[tuple[int, int]]:
    n = len(cells)
    slot = [not isinstance(c, str) for c in cells]

    def letter(index: int) -> bool:  # asked of the few cells at the ends of a window only
        cell = cells[index]
        return isinstance(cell, str) and traits(cell)[1]

    windows: list[tuple[int, int]] = []
    for index in (i for i in range(n) if slot[i] and (needed is None or i in needed)):
        start, end = max(0, index - WINDOW), min(n, index + 1 + WINDOW)
        while start > 0 and letter(start - 1) and (letter(start) or slot[start]):
            start -= 1
        while end < n and letter(end) and (letter(end - 1) or slot[end - 1]):
            end += 1
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
        else:
            windows.append((start, end))
    return windows


def _decode(cells: list[Cell], doc: lm.DocumentContext) -> Decoded:
    lattice = Lattice(cells, doc)
    n = len(cells)
    scores, back, edges = _forward(lattice, doc)
    slots = [i for i, c in enumerate(cells) if not isinstance(c, str) and c]
    choice: dict[int, int | None] = dict.fromkeys(slots)
    probabilities: dict[int, list[float]] = {i: [0.0] * len(cells[i]) for i in slots}
    if not scores[n]:
        return Decoded(choice, probabilities)
    state = max(scores[n], key=scores[n].__getitem__)
    best_score = scores[n][state]
    position = n
    steps: list[tuple[Lattice, Token, float]] = []
    tokens: dict[int, tuple[int, str | None]] = {}
    while position > 0:
        previous, token = back[position][state]
        gain = scores[position][state] - scores[token.start][previous]
        steps.append((lattice, token, gain))
        for cell, option in token.choices:
            choice[cell] = option
            tokens[cell] = (token.end - token.start, token.tag)
        position, state = token.start, previous
    steps.reverse()
    _marginals(scores, edges, slots, cells, probabilities)
    return Decoded(choice, probabilities, best_score, steps, tokens)


#: An edge of the search: the state it leaves, the token's start, end and slot choices, the gain of
#: taking it, and the state it reaches (the token's fields are copied: the backward pass reads them).
_Edge = tuple[State, int, int, tuple[tuple[int, int], ...], float, State]


class _Row(dict[str | None, float]):
    """:func:`.language_model.transition` from one class to each class, worked out when first asked."""

    def __init__(self, previous: str | None) -> None:
        super().__init__()
        self.previous = previous

    def __missing__(self, tag: str | None) -> float:
        gain = self[tag] = lm.transition(self.previous, tag)
        return gain


#: The rows by :data:`.language_model.CLASS_WEIGHT` (a tuning run may change it), then previous class:
#: the same few dozen classes meet in every line, so the gains are kept for the process.
_ROWS: dict[float, dict[str | None, _Row]] = {}


def _forward(
    lattice: Lattice, doc: lm.DocumentContext
) -> tuple[list[dict[State, float]], list[dict[State, tuple[State, Token]]], list[_Edge]]:
    """The Viterbi pass: each state's best score, where it came from, and every edge taken."""
    n = len(lattice.cells)
    scores: list[dict[State, float]] = [{} for _ in range(n + 1)]
    back: list[dict[State, tuple[State, Token]]] = [{} for _ in range(n + 1)]
    edges: list[_Edge] = []
    add_edge = edges.append
    scores[0][(None, "\n", False)] = 0.0
    rows = _ROWS.setdefault(lm.CLASS_WEIGHT, {})
    ngram_bonus, ngrams, unseen = doc.ngram_bonus, doc.ngrams, -math.inf
    name_tags, name_edge, name_first, name_next = names.TAGS, names.edge, names.FIRST, names.NEXT
    after_numeral = lm.after_numeral()
    for index in range(n):
        frontier = scores[index]
        if not frontier:
            continue
        if len(frontier) > BEAM:
            frontier = scores[index] = _prune(frontier)
        after_letter, anything, name_goes_on = lattice.tokens(index)
        for state, value in frontier.items():
            tag, last, last_slot = state
            last_han, last_letter, last_simple = traits(last)
            row = rows.get(tag)
            if row is None:
                row = rows[tag] = _Row(tag)
            in_name = tag in name_tags
            if tag == name_first:  # a name's first character: the name goes on
                following = name_goes_on
            elif tag == name_next:
                following = anything + name_goes_on
            else:
                following = after_letter if last_letter else anything
            for token in following:  # none ends beyond the cells
                start, end, token_tag, score, first, token_last, first_slot, _, choices, target = token
                gain = row[token_tag] + score
                if in_name or token_tag in name_tags:
                    name_gain = name_edge(tag, last_simple, token_tag, traits(first)[2])
                    if name_gain is None:
                        continue
                    gain += name_gain
                # After a number (digits, or Chinese numerals, not 一个): its measure word or unit.
                if tag == "m" and first_slot and (not last_han or last in NUMERALS):
                    gain += after_numeral.get(traits(first)[2], 0.0)
                # The document's support for the bigram across the two tokens, when a slot is in it.
                if (last_slot or first_slot) and last_han and last + first in ngrams:
                    gain += ngram_bonus(last + first)
                if target is None:  # white space: the class before it carries on (a name ends)
                    target = (None if in_name else tag, token_last, False)
                add_edge((state, start, end, choices, gain, target))
                total = value + gain
                reached = scores[end]
                if total > reached.get(target, unseen):
                    reached[target] = total
                    back[end][target] = (state, token)
    return scores, back, edges


def _prune(frontier: dict[State, float]) -> dict[State, float]:
    """The best :data:`BEAM` states of a cell, and as many inside names: a name's states score well
    before the name model has weighed its end (:mod:`.names`), and would crowd the others out."""
    ranked = sorted(frontier.items(), key=lambda item: -item[1])
    inside = [item for item in ranked if item[0][0] in names.TAGS][:BEAM]
    return dict([item for item in ranked if item[0][0] not in names.TAGS][:BEAM] + inside)


def _marginals(
    scores: list[dict[State, float]],
    edges: list[_Edge],
    slots: list[int],
    cells: list[Cell],
    probabilities: dict[int, list[float]],
) -> None:
    """Each reading's probability, from the best path through it (a backward pass over the edges)."""
    n = len(scores) - 1
    after: list[dict[State, float]] = [{} for _ in range(n + 1)]
    after[n] = dict.fromkeys(scores[n], 0.0)
    best: dict[tuple[int, int], float] = {}
    unseen = -math.inf
    for state, start, end, choices, gain, target in reversed(edges):  # made in order of their start
        rest = after[end].get(target)
        if rest is None:
            continue
        through = gain + rest
        before = after[start]
        if through > before.get(state, unseen):
            before[state] = through
        if choices:
            total = scores[start][state] + through
            for choice in choices:
                if total > best.get(choice, unseen):
                    best[choice] = total
    for cell in slots:
        values = [best.get((cell, option), -math.inf) for option in range(len(cells[cell]))]
        top = max(values)
        if top == -math.inf:
            continue
        weights = [math.exp(v - top) for v in values]
        total = sum(weights)
        probabilities[cell] = [w / total for w in weights]

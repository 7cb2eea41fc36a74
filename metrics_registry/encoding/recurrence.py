"""The document's own repairs as a prior: a damaged Chinese character mostly reads one way throughout.

A document repeats itself. Where Windows-1254 dropped a byte, the same
damaged character comes back again and again (语, E8 AF AD, always loses
its AD), and where its neighbours make a known word ("英语", "葡萄牙语")
the first pass reads it with certainty; after a transliterated name
("克罗语"), no word helps, and the word frequencies prefer 话. What the
document said where it was clear is the best guess where it is not: the
readings chosen with confidence, counted per set of readings (the same
damaged character has the same ones), give each reading of the doubtful
slots a prior, and their lines are decoded again with it.

This is a cache language model (Kuhn and De Mori) of the damaged
characters, like the one :class:`.language_model.DocumentContext` keeps of
the intact ones, in two passes because the counts come from the first one.
The first pass already knows how common each character is in general, so
a reading gains by how much *more* common this document makes it: the
document's share of the reading among the set, smoothed towards its share
in general (character counts of jieba's dictionary), over that general
share. A document that uses 不 as often as any text does gives 不 nothing
over 与; a list of language names makes 语 far likelier than 话.

Only Chinese readings count, and only they gain: a character is a
morpheme that comes back with its name or term, while which letter or
punctuation mark a damaged one was depends on its own word or clause (the
document says 、 far more often than 」, which says nothing about one
quotation). Each slot's own reading is left out of its prior, so that a
confident slot never props itself up.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

from metrics_registry.encoding import chinese_tables
from metrics_registry.encoding import language_model as lm

__all__ = ["CONFIDENT", "SMOOTHING", "WEIGHT", "RecurrencePrior"]

#: A reading at least this likely after the first pass counts as what the document says.
CONFIDENT = 0.9
#: Weight of the prior (per nat) against the first pass's scores.
WEIGHT = 1.0
#: How many confident readings the general shares weigh as (Dirichlet smoothing): one confident 语
#: among the readings of E8 AF makes 语 1.9 nats likelier than 话 against the general odds, thirty 5.1.
SMOOTHING = 1.0
#: log share of a character jieba's dictionary never uses (below its rarest ones).
_UNSEEN_CHAR = -20.0


class Slot(Protocol):
    """What the prior needs of a slot: its readings' characters, its choice and their probabilities."""

    choice: int | None
    probabilities: list[float]

    def characters(self) -> Sequence[str]: ...


def _key(slot: Slot) -> tuple[str, ...]:
    return tuple(slot.characters())


def _confident(slot: Slot) -> int | None:
    """The Chinese reading the slot chose with confidence, if it did."""
    choice = slot.choice
    if choice is None or not slot.probabilities or slot.probabilities[choice] < CONFIDENT:
        return None
    return choice if lm.is_han(slot.characters()[choice]) else None


def _general_shares(characters: Sequence[str]) -> list[float]:
    """Each Chinese reading's share among the set's Chinese readings in general (0 for the others)."""
    logp = chinese_tables.tables().char_logp
    weights = [
        math.exp(logp.get(lm.simplify(ch), _UNSEEN_CHAR)) if lm.is_han(ch) else 0.0 for ch in characters
    ]
    total = sum(weights)
    return [w / total for w in weights]


class RecurrencePrior:
    """Counts of the Chinese readings chosen with confidence, per set of readings, in one document."""

    def __init__(self, slots: Iterable[Slot]) -> None:
        self.counts: dict[tuple[str, ...], Counter[int]] = {}
        self._shares: dict[tuple[str, ...], list[float]] = {}
        for slot in slots:
            choice = _confident(slot)
            if choice is not None:
                self.counts.setdefault(_key(slot), Counter())[choice] += 1

    def bonus(self, slot: Slot) -> list[float] | None:
        """What each of ``slot``'s readings gains from the other slots of the document (0 for readings
        that are not Chinese); ``None`` when no other slot says anything."""
        key = _key(slot)
        found = self.counts.get(key)
        if not found:
            return None
        own = _confident(slot)
        # Asked again once the slot was chosen anew, its own count may be another reading's: max().
        counts = [max(found.get(option, 0) - (option == own), 0) for option in range(len(key))]
        total = sum(counts)
        if not total:
            return None
        shares = self._shares.get(key)
        if shares is None:
            shares = self._shares[key] = _general_shares(key)
        norm = math.log(total + SMOOTHING)
        return [
            WEIGHT * (math.log(count + SMOOTHING * share) - norm - math.log(share)) if share else 0.0
            for count, share in zip(counts, shares, strict=True)
        ]

    def helps(self, slot: Slot) -> bool:
        """Whether the prior could change ``slot``'s reading: with it, the slot's current probabilities
        no longer make its choice a confident one (a rough test, blind to the neighbours' readings;
        the slot is then chosen again)."""
        if slot.choice is None or not slot.probabilities:
            return False
        bonus = self.bonus(slot)
        if bonus is None:
            return False
        weighted = [p * math.exp(b) for p, b in zip(slot.probabilities, bonus, strict=True)]
        return weighted[slot.choice] < CONFIDENT * sum(weighted)

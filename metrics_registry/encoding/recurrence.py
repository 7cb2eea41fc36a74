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

A few confident readings say little, though: the common characters are
common in every text, and short prose full of 不 (不同, 不会, read with
certainty) would push a doubtful 中 or 与 of the same set to 不. The
document speaks only where one of its counts is significantly higher than
the general shares predict: a one-sided binomial test on the confident
readings of the set (:data:`SIGNIFICANCE`). Two confident 不 of two, when
不 is half of the set in general, happen in one text in four, and give no
prior; four 语 of six, a twentieth of the set in general, do (p ≈ 0.0001).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Protocol

from metrics_registry.encoding import chinese_tables
from metrics_registry.encoding import language_model as lm

__all__ = ["CONFIDENT", "SIGNIFICANCE", "SMOOTHING", "WEIGHT", "RecurrencePrior"]

#: A reading at least this likely after the first pass counts as what the document says.
CONFIDENT = 0.9
#: Weight of the prior (per nat) against the first pass's scores.
WEIGHT = 1.0
#: How many confident readings the general shares weigh as (Dirichlet smoothing): one confident 语
#: among the readings of E8 AF makes 语 1.9 nats likelier than 话 against the general odds, thirty 5.1.
SMOOTHING = 1.0
#: The document's counts make a prior only where one reading's count is this unlikely (or less) under
#: the general shares (one-sided binomial test). 0.05 still let two confident readings of a rare
#: character in a paragraph overturn a common one (后 read as 偏) in the documentation fixtures.
SIGNIFICANCE = 0.01
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


@lru_cache(maxsize=65_536)
def upper_tail(count: int, total: int, share: float) -> float:
    """P(X ≥ ``count``) for X ~ Binomial(``total``, ``share``): how often text that used the readings
    as text does in general would read this one as often, or more, among ``total``."""
    if count <= 0:
        return 1.0
    if share >= 1.0:
        return 1.0 if count <= total else 0.0
    if share <= 0.0:
        return 0.0
    log_share, log_rest = math.log(share), math.log1p(-share)
    log_terms = [
        math.lgamma(total + 1)
        - math.lgamma(k + 1)
        - math.lgamma(total - k + 1)
        + k * log_share
        + (total - k) * log_rest
        for k in range(count, total + 1)
    ]
    top = max(log_terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in log_terms))


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
        that are not Chinese); ``None`` when no other slot says anything, or nothing the general
        shares would not predict (:data:`SIGNIFICANCE`)."""
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
        if not any(
            count and share and upper_tail(count, total, share) <= SIGNIFICANCE
            for count, share in zip(counts, shares, strict=True)
        ):
            return None  # as the general shares predict: the document says nothing new
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

"""The second pass: rescoring a line's likeliest readings with a model of word sequences.

The first pass (:mod:`.decoder`) scores words one by one, with a class
bigram between them; it leaves each slot a probability per reading. Where a
line still has doubtful slots, the likeliest combinations of their readings
(best first, from those probabilities) are scored again as whole lines by
a word trigram model (:mod:`.word_ngrams`), and the best total wins: the
n-best rescoring speech recognisers do with a second, larger language model.
The word model's weight depends on how well it predicts the document's own
undamaged Chinese (:func:`document_weight`): on text it fits poorly, such as
lists of transliterated names, it mostly trades right readings for wrong ones.

Written by hand: it is a few lines of best-first enumeration over the first
pass's own probabilities, which no library holds.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from typing import Protocol

from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding.domain import DomainModel
from metrics_registry.encoding.word_ngrams import ChineseWordModel

__all__ = ["document_weight", "rescore"]

#: Weight of the word trigram model against the first pass's log-probabilities (tuned on the test
#: texts, checked on the held-out ones: 0.4 to 0.6 give the same results).
MODEL_WEIGHT = 0.5
#: The same when it is mixed with the field's own model (:mod:`.domain`): better on documentation,
#: it has more say (tuned with :data:`.domain.WEIGHT`, see there).
DOMAIN_MODEL_WEIGHT = 3.0
#: A reading stays in the running when the first pass gives it at least this probability.
MIN_PROBABILITY = 1e-4
#: Readings kept per slot, and combinations scored per line.
MAX_READINGS = 6
MAX_COMBINATIONS = 256

#: How well the model fits a document's own undamaged Chinese (mean natural log-probability per
#: character, with the field's model mixed in, of the runs between damaged characters) sets its
#: weight: none at or below FIT_FLOOR, all of it at or above FIT_FULL, in proportion between.
#: Measured on 20-paragraph documents damaged as Windows-1254 with bytes dropped: the CLDR name
#: lists of benchmarks/lossy.py fit at -7.0 to -8.1 (where the second pass turns right readings
#: into wrong ones: "语" after transliterated names the model cuts into unknown pieces), the
#: documentation fixtures (clean/ and heldout/ zh-hans, zh-hant, the seed document) at -5.2 to
#: -5.9. The ramp sits in the gap, so that neither kind is near its ends. With the general model
#: alone the gap is narrower (-6.9 to -8.0 and -6.0 to -6.2) and the ramp would cut into the
#: documentation, so without the field's model the weight stays as it is.
FIT_FLOOR = -6.7
FIT_FULL = -6.1
#: Fewer undamaged characters than this say too little: the weight stays as it is.
MIN_FIT_CHARACTERS = 50


def document_weight(runs: Sequence[str], model: ChineseWordModel, domain: DomainModel | None = None) -> float:
    """The weight of the second pass for a document whose undamaged Chinese runs are ``runs``.

    A model that predicts a document's intact text poorly (lists of names and
    places rather than prose) mostly misleads the choice among its damaged
    characters, so its weight drops with its fit (:data:`FIT_FLOOR`,
    :data:`FIT_FULL`). Too little text to tell, or no ``domain`` (the fit was
    calibrated with it), keeps the usual weight.
    """
    weight = _usual_weight(domain)
    characters = sum(len(run) for run in runs)
    if domain is None or characters < MIN_FIT_CHARACTERS:
        return weight
    fit = sum(model.score(run, domain) for run in runs) / characters
    return weight * min(1.0, max(0.0, (fit - FIT_FLOOR) / (FIT_FULL - FIT_FLOOR)))


def _usual_weight(domain: DomainModel | None) -> float:
    return MODEL_WEIGHT if domain is None else DOMAIN_MODEL_WEIGHT


class Slot(Protocol):
    """What rescoring needs of a slot: its readings' characters, choice and probabilities."""

    choice: int | None
    probabilities: list[float]

    def characters(self) -> Sequence[str]: ...


def rescore(
    slots: Sequence[Slot],
    render: Callable[[], str],
    model: ChineseWordModel,
    domain: DomainModel | None = None,
    weight: float | None = None,
) -> None:
    """Choose again among the doubtful slots' readings; ``render`` gives the line as now chosen;
    ``domain``, when given, is mixed into ``model`` (:mod:`.domain`); ``weight`` is the model's
    (:func:`document_weight`; by default :data:`MODEL_WEIGHT` or :data:`DOMAIN_MODEL_WEIGHT`).

    Sets each doubtful slot's ``choice`` and ``probabilities`` (from the best
    combination holding each reading); the other slots stay as they are.
    """
    doubtful: list[tuple[Slot, list[tuple[float, int]]]] = []
    for slot in slots:
        if slot.choice is None:
            continue
        characters = slot.characters()
        readings = sorted(
            ((math.log(p), option) for option, p in enumerate(slot.probabilities) if p >= MIN_PROBABILITY),
            reverse=True,
        )[:MAX_READINGS]
        if len(readings) > 1 and any(lm.is_han(characters[option]) for _, option in readings):
            doubtful.append((slot, readings))
    if not doubtful:
        return
    if weight is None:
        weight = _usual_weight(domain)
    best_with: dict[tuple[int, int], float] = {}
    best: tuple[float, tuple[int, ...]] | None = None
    first = tuple(0 for _ in doubtful)
    queue = [(-sum(readings[0][0] for _, readings in doubtful), first)]
    seen = {first}
    for _ in range(MAX_COMBINATIONS):
        if not queue:
            break
        negative, picks = heapq.heappop(queue)
        for (slot, readings), pick in zip(doubtful, picks, strict=True):
            slot.choice = readings[pick][1]
        total = -negative + weight * model.score(render(), domain)
        if best is None or total > best[0]:
            best = (total, picks)
        for index, pick in enumerate(picks):
            key = (index, pick)
            best_with[key] = max(best_with.get(key, -math.inf), total)
            readings = doubtful[index][1]
            if pick + 1 < len(readings):
                following = (*picks[:index], pick + 1, *picks[index + 1 :])
                if following not in seen:
                    seen.add(following)
                    step = readings[pick][0] - readings[pick + 1][0]
                    heapq.heappush(queue, (negative + step, following))
    assert best is not None
    for index, ((slot, readings), pick) in enumerate(zip(doubtful, best[1], strict=True)):
        slot.choice = readings[pick][1]
        totals = [best_with.get((index, p), -math.inf) for p in range(len(readings))]
        top = max(totals)
        weights = [math.exp(t - top) for t in totals]
        norm = sum(weights)
        probabilities = [0.0] * len(slot.probabilities)
        for (_, option), share in zip(readings, weights, strict=True):
            probabilities[option] = share / norm
        slot.probabilities = probabilities

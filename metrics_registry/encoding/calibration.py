"""How sure a repaired character is: the decoder's probability, corrected where held-out text shows
it is not what it says.

The decoder's probability of a reading (:mod:`.decoder`, then
:mod:`.rescoring`) says how much better it scores than the others under
the models, not how often the models are wrong, and that depends on the
kind of place the reading stands in (:func:`kind`). Measured on damaged
text that no part of the repair was built or tuned on (Chinese manual
pages, both scripts, bytes dropped and replaced: ``benchmarks/calibrate_lossy.py``):

- a reading inside a dictionary word of three characters or more is almost
  always right (0.35% wrong), and still 91% right where its probability is
  only between 0.5 and 0.9: such a reading is sure (:data:`WORD3_FLOOR`);
- a reading the second pass chose against the first pass's best path is
  wrong far more often than its probability says (17% of those it gave a
  probability near 1): its confidence is the logistic calibration (Platt
  scaling) fitted on those readings (:data:`RESCORED`);
- elsewhere the probability stands. A calibration of every kind would also
  lower single characters, names and two-character words across the board,
  and list far more right readings as doubtful than it catches wrong ones.
"""

from __future__ import annotations

import math

from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding import names

__all__ = ["KINDS", "confidence", "kind", "logit"]

#: Kinds of place a reading stands in: on the first pass's best path, in a word of three characters
#: or more, of two, as a name's character, a Chinese character alone, or no Chinese character; or
#: chosen by the second pass against that path.
KINDS = ("word3", "word2", "name", "single", "other", "rescored")

#: The confidence, at least, of a reading in a word of three characters or more whose probability
#: is at least :data:`WORD3_MINIMUM`: the share of such readings that were right on held-out text.
WORD3_FLOOR = 0.91
WORD3_MINIMUM = 0.5
#: Intercept and slope on the log-odds of the probability, for a reading the second pass chose against
#: the first pass's best path (fitted on held-out text, see the module's doc).
RESCORED = (-0.397, 0.258)
#: Probabilities are clipped to this distance from 0 and 1 before taking their log-odds.
_EPSILON = 1e-6


def logit(p: float) -> float:
    """The log-odds of ``p``, clipped (a probability of 1 is only as sure as the models)."""
    p = min(1.0 - _EPSILON, max(_EPSILON, p))
    return math.log(p / (1.0 - p))


def kind(char: str, token: tuple[int, str | None] | None, rescored: bool) -> str:
    """The kind of place (:data:`KINDS`) of reading ``char``, held on the best path by ``token``
    (its length in cells and its class), or chosen against that path (``rescored``)."""
    if not lm.is_han(char):
        return "other"
    if rescored:
        return "rescored"
    if token is None:
        return "other"
    length, tag = token
    if tag in names.TAGS:
        return "name"
    return "word3" if length >= 3 else "word2" if length == 2 else "single"


def confidence(probability: float, place: str) -> float:
    """The chance that a reading chosen with ``probability`` in a place of kind ``place`` is right."""
    if place == "word3" and probability >= WORD3_MINIMUM:
        return max(probability, WORD3_FLOOR)
    if place == "rescored":
        intercept, slope = RESCORED
        return 1.0 / (1.0 + math.exp(-(intercept + slope * logit(probability))))
    return probability

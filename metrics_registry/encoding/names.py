"""A character model of names: which characters follow which in place names and foreign names.

Transliterated names ("克利珀顿岛", "萨丁语", "新克鲁扎多") are mostly not
in any dictionary: the lattice reads them one character at a time, and a
single character's frequency as a word says nothing of its use in names
(着 is far more common than 珀, but not after 利 in a name). jieba's
dictionary tags about 34,000 words as place names (``ns``), transliterated
names (``nrt``) and other proper nouns (``nz``); the character bigrams of
those words, counted once per word, make a small model of how names are
spelled, with name start and end as characters of their own.

The decoder lays a *name character* token (class :data:`TAG`) over every
Chinese reading; a run of them scores as a name under this model
(:func:`edge` between neighbours), at :data:`COST` per character, so a
string of characters is read as a name where that beats reading it as words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache, lru_cache
from itertools import pairwise

from metrics_registry.encoding import chinese_tables

__all__ = ["COST", "FIRST", "NEXT", "edge", "logp", "usable"]

#: The classes of name-character tokens: a name's first character, and each one after it (no class
#: of jieba's: the class bigram leaves them alone).
FIRST = "name<"
NEXT = "name"
TAGS = frozenset({FIRST, NEXT})
#: Added per character read as part of a name: names are rarer than words.
COST = -1.0
#: Weight of the name model's log-probabilities.
WEIGHT = 1.0
#: jieba's classes whose words make the model: place names, transliterated names, other proper nouns.
CLASSES = frozenset({"ns", "nrt", "nz"})
#: A character is read as part of a name only if at least this many names use it.
MIN_NAMES = 3
#: Additive weight of the unigram in a bigram's estimate (interpolation with the name characters' shares).
_BACKOFF = 5.0
_START, _END = "^", "$"
_HAN_WORD = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@cache
def _counts() -> tuple[Counter[str], Counter[str], Counter[str], float]:
    """Bigram counts, counts as the first of a bigram, counts as the second, and their total."""
    word_tag = chinese_tables.tables().word_tag
    pairs: Counter[str] = Counter()
    first: Counter[str] = Counter()
    second: Counter[str] = Counter()
    for word, tag in word_tag.items():
        if tag not in CLASSES or len(word) < 2 or not _HAN_WORD.fullmatch(word):
            continue
        padded = _START + word + _END
        for a, b in pairwise(padded):
            pairs[a + b] += 1
            first[a] += 1
            second[b] += 1
    return pairs, first, second, float(sum(second.values()))


def usable(char: str) -> bool:
    """Whether names use the (Simplified) character often enough to read it as part of one."""
    return _counts()[2].get(char, 0) >= MIN_NAMES


@lru_cache(maxsize=200_000)
def logp(previous: str, char: str) -> float:
    """log P(``char`` | ``previous``) in a name; ``^`` and ``$`` are its start and end (Simplified
    characters: the dictionary's)."""
    pairs, first, second, total = _counts()
    unigram = (second.get(char, 0) + 0.5) / (total + 0.5 * 30_000)
    return math.log(
        (pairs.get(previous + char, 0) + _BACKOFF * unigram) / (first.get(previous, 0) + _BACKOFF)
    )


def edge(previous_tag: str | None, previous: str, tag: str | None, char: str) -> float | None:
    """What the name model adds between two tokens (``previous`` and ``char`` Simplified): the bigram
    inside a name, a name's start, its end; ``None`` where the classes cannot meet (a name goes on
    after its first character, and only a name's first character starts one)."""
    if tag == NEXT:
        return WEIGHT * logp(previous, char) if previous_tag in TAGS else None
    if previous_tag == FIRST:
        return None
    ended = logp(previous, _END) if previous_tag == NEXT else 0.0
    if tag == FIRST:
        return WEIGHT * (ended + logp(_START, char))
    return WEIGHT * ended

"""Tables derived from jieba and wordfreq for the Chinese language model, built once per install.

:mod:`.language_model` needs, besides jieba's word frequencies, each word's
part-of-speech class, a class bigram and the prefixes of the words only
wordfreq knows. Deriving them means importing ``jieba.posseg`` (which parses
jieba's dictionary a second time) and walking wordfreq's Chinese list: about
a second on every repair that meets Chinese damage. They depend only on the
installed jieba and wordfreq, so they are kept in the user's cache
(:mod:`metrics_registry.cache`: private folder, atomic writes, keyed by the
content of the data files and this package's code) and read back in a
fraction of that time.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import NamedTuple

__all__ = ["ChineseTables", "jieba_dictionary", "tables"]

_HAN_WORD = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+")
#: The data files the tables are derived from: a new jieba or wordfreq gives a new cache key.
_SOURCES = (
    ("jieba", "dict.txt"),
    ("jieba", "posseg/prob_trans.py"),
    ("wordfreq", "data/large_zh.msgpack.gz"),
)


class ChineseTables(NamedTuple):
    """What :mod:`.language_model` reads besides jieba's frequencies."""

    #: Each word's part-of-speech class in jieba's dictionary.
    word_tag: dict[str, str]
    #: log P(tag | previous tag) between neighbouring words.
    transitions: dict[str, dict[str, float]]
    #: log P(tag), the transitions' own marginal.
    prior: dict[str, float]
    #: Prefixes of the Chinese words wordfreq knows and jieba does not.
    prefixes: frozenset[str]
    #: Natural log of each Chinese character's share of the characters in jieba's dictionary, every
    #: word counted as often as its frequency says (语 is common, though rarely a word alone).
    char_logp: dict[str, float]


@cache
def jieba_dictionary() -> tuple[dict[str, int], float]:
    """jieba's words with their counts, and the log of the total count (jieba keeps its own cache)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.dt.check_initialized()
    return jieba.dt.FREQ, math.log(jieba.dt.total)


@cache
def tables() -> ChineseTables:
    """The tables, from the cache when an earlier run built them with the same data."""
    from metrics_registry.cache import cache_key, memo

    return memo(cache_key(_source_files(), 64 << 20, purpose="chinese-tables"), _build)


def _source_files() -> list[Path]:
    files = []
    for package, name in _SOURCES:
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            return []  # the import below fails with its own message
        files.append(Path(spec.origin).parent / name)
    return files


def _build() -> ChineseTables:
    import wordfreq

    freq = jieba_dictionary()[0]
    word_tag, transitions, prior = _tags(freq)
    prefixes: set[str] = set()
    for word in wordfreq.get_frequency_dict("zh", wordlist="large"):
        if len(word) > 1 and word not in freq and _HAN_WORD.fullmatch(word):
            prefixes.update(word[:end] for end in range(1, len(word)))
    return ChineseTables(word_tag, transitions, prior, frozenset(prefixes), _char_logp(freq))


def _char_logp(freq: dict[str, int]) -> dict[str, float]:
    counts: Counter[str] = Counter()
    for word, count in freq.items():
        if count and _HAN_WORD.fullmatch(word):
            for ch in word:
                counts[ch] += count
    log_total = math.log(sum(counts.values()))
    return {ch: math.log(count) - log_total for ch, count in counts.items()}


def _tags(freq: dict[str, int]) -> tuple[dict[str, str], dict[str, dict[str, float]], dict[str, float]]:
    """jieba's part-of-speech data: each word's tag, P(tag | previous tag) between words, P(tag).

    The transitions come from the hidden Markov model of ``jieba.posseg``
    (trained on a tagged corpus), summed from the end of one word to the
    start of the next: a class bigram model that knows, say, that the
    particle 的 follows a noun or a locative like 中 but hardly ever the
    adverb 不.
    """
    import jieba.posseg
    from jieba.posseg import prob_start, prob_trans

    word_tag: dict[str, str] = dict(jieba.posseg.dt.word_tag_tab)  # read from jieba's dictionary on import
    mass: Counter[str] = Counter()
    for word, tag in word_tag.items():
        mass[tag] += freq.get(word, 0)
    # Tags the model never saw in training ("zg", which jieba's dictionary gives thousands of
    # single characters, 每 among them) have meaningless transitions: they stay out.
    trained = {tag for (_, tag), logp in prob_start.P.items() if logp > -1e10}
    grouped: dict[str, dict[str, list[float]]] = {}
    for (position, tag), row in prob_trans.P.items():
        if position not in "ES" or tag not in trained:
            continue
        target = grouped.setdefault(tag, {})
        for (next_position, next_tag), logp in row.items():
            if next_position in "BS" and next_tag in trained:
                target.setdefault(next_tag, []).append(logp)
    transitions: dict[str, dict[str, float]] = {}
    for tag, row in grouped.items():
        if not row:
            continue
        summed = {next_tag: _logsumexp(values) for next_tag, values in row.items()}
        norm = _logsumexp(list(summed.values()))
        transitions[tag] = {next_tag: value - norm for next_tag, value in summed.items()}
    # P(tag): the transitions' own marginal, with the dictionary's tag mass as the weights of the
    # previous tags, so that P(tag | previous) / P(tag) is 1 on average.
    weight = {tag: mass.get(tag, 0) + 1 for tag in transitions}
    total = sum(weight.values())
    marginal: Counter[str] = Counter()
    for tag, row in transitions.items():
        for next_tag, logp in row.items():
            marginal[next_tag] += weight[tag] / total * math.exp(logp)
    prior = {tag: math.log(value) for tag, value in marginal.items() if value > 0}
    return word_tag, transitions, prior


def _logsumexp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))

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
import subprocess
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "NUMERALS",
    "ChineseTables",
    "jieba_dictionary",
    "script_of",
    "script_sets",
    "source_files",
    "tables",
]

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
    #: Words of Taiwan and Hong Kong usage (:func:`_regional_words`), in Simplified characters.
    regional: frozenset[str]
    #: How much likelier than elsewhere each character is right after a number (:func:`_after_numeral`).
    after_numeral: dict[str, float]


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

    return memo(cache_key(source_files(), 64 << 20, purpose="chinese-tables"), _build)


def source_files() -> list[Path]:
    """The installed data files the tables are derived from (empty if jieba or wordfreq is missing)."""
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
    regional = _regional_words()
    for word in [*wordfreq.get_frequency_dict("zh", wordlist="large"), *regional]:
        if len(word) > 1 and word not in freq and _HAN_WORD.fullmatch(word):
            prefixes.update(word[:end] for end in range(1, len(word)))
    char_logp = _char_logp(freq)
    return ChineseTables(
        word_tag,
        transitions,
        prior,
        frozenset(prefixes),
        char_logp,
        regional,
        _after_numeral(freq, word_tag, char_logp),
    )


#: OpenCC's tables of the phrases Taiwan and Hong Kong write otherwise than the mainland, both ways.
_REGIONAL_TABLES = ("TWPhrases", "TWPhrasesRev", "HKPhrases", "HKPhrasesRev")


def _regional_words() -> frozenset[str]:
    """The Simplified forms of the words in OpenCC's Taiwan and Hong Kong phrase tables.

    jieba's and wordfreq's lists are mainland Chinese: 萬那杜, 帛琉 or 聖克里斯多福
    (Vanuatu, Palau, Saint Kitts: 瓦努阿图, 帕劳, 圣基茨 on the mainland) are in neither,
    and a Traditional text full of them read them one character at a time. OpenCC's wheel ships its
    tables compiled (``.ocd2``) with the tool that writes them out as text; without it, none.
    """
    import opencc
    from wordfreq.chinese import SIMPLIFIED_MAP

    root = Path(opencc.__file__).parent / "clib"
    tool = root / "bin" / "opencc_dict"
    words: set[str] = set()
    with tempfile.TemporaryDirectory() as folder:
        for name in _REGIONAL_TABLES:
            table, text = root / "share" / "opencc" / f"{name}.ocd2", Path(folder) / f"{name}.txt"
            if not tool.is_file() or not table.is_file():
                continue
            command = [str(tool), "-i", str(table), "-f", "ocd2", "-o", str(text), "-t", "text"]
            if subprocess.run(command, capture_output=True, check=False).returncode or not text.is_file():
                continue
            for line in text.read_text(encoding="utf-8").splitlines():
                words.update(w for w in line.split() if len(w) > 1 and _HAN_WORD.fullmatch(w))
    return frozenset(word.translate(SIMPLIFIED_MAP) for word in words)


def _char_logp(freq: dict[str, int]) -> dict[str, float]:
    counts: Counter[str] = Counter()
    for word, count in freq.items():
        if count and _HAN_WORD.fullmatch(word):
            for ch in word:
                counts[ch] += count
    log_total = math.log(sum(counts.values()))
    return {ch: math.log(count) - log_total for ch, count in counts.items()}


#: Chinese numerals that start jieba's numeral-and-measure words (三个, 十几岁, 两页).
NUMERALS = frozenset("一二三四五六七八九十两百千万几零〇半数")


def _after_numeral(
    freq: dict[str, int], word_tag: dict[str, str], char_logp: dict[str, float]
) -> dict[str, float]:
    """The characters that follow numbers: log P(char | after a numeral) / P(char), where above 1.

    jieba's dictionary holds numbers with their measure words and units as
    words of class ``m`` (一个, 三年, 两页, 十几岁), counted as they occur; the
    character after the numerals, over its share of all text, says how much
    a number calls for it. An Arabic number in a line calls for the same
    (16位, 3 页), which the class bigram cannot say: 位, 页 and 镑 are not
    measure words there, and 低 or 游 won after a number on word frequency
    alone. Only the characters a number favours are kept: what follows a
    number in running text (的, 和, 中: "返回 0 的") is not in these words.
    """
    after: Counter[str] = Counter()
    for word, tag in word_tag.items():
        count = freq.get(word, 0)
        if tag != "m" or len(word) < 2 or word[0] not in NUMERALS or not count:
            continue
        index = 0
        while index < len(word) and word[index] in NUMERALS:
            index += 1
        if index < len(word):
            after[word[index]] += count
    total = sum(after.values())
    lifts = {ch: math.log(n / total) - char_logp[ch] for ch, n in after.items() if ch in char_logp}
    return {ch: lift for ch, lift in lifts.items() if lift > 0}


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


@cache
def script_sets() -> tuple[frozenset[str], frozenset[str]]:
    """Chinese characters written only in Traditional texts, and only in Simplified ones.

    Read off the national character sets that Python's codecs carry: Big5
    (Taiwan, Hong Kong) holds Traditional characters, GB 2312 (mainland)
    Simplified ones; a character in one and not the other belongs to that
    script only (來 and 来, 與 and 与), one in both (出, 后, 同) to either.
    wordfreq's Traditional-to-Simplified table would not do: it also maps
    rare variants onto common characters of both scripts (迴 to 回).
    """
    traditional: set[str] = set()
    simplified: set[str] = set()
    for code in range(0x4E00, 0xA000):
        ch = chr(code)
        big5, gb = _encodable(ch, "big5"), _encodable(ch, "gb2312")
        if big5 and not gb:
            traditional.add(ch)
        elif gb and not big5:
            simplified.add(ch)
    return frozenset(traditional), frozenset(simplified)


def _encodable(ch: str, encoding: str) -> bool:
    try:
        ch.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def script_of(ch: str) -> str | None:
    """``traditional`` or ``simplified`` for a character written in one script only, else ``None``."""
    traditional, simplified = script_sets()
    if ch in traditional:
        return "traditional"
    if ch in simplified:
        return "simplified"
    return None

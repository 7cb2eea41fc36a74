"""How likely a reading is: the judge between the characters a lost byte could have been.

Every score is an estimate of a log-probability, so candidates from
different scripts compare on one scale. :mod:`.decoder` lays these scores
over a line as a word lattice:

- Chinese words come from jieba's dictionary (about 350,000 words with
  their frequencies and part-of-speech classes), wordfreq's Chinese list
  (recent web text) and OpenCC's Taiwan and Hong Kong phrases, Traditional
  characters looked up through wordfreq's Traditional-to-Simplified table
  (:func:`han_word`, :func:`han_prefix`).
- Between neighbouring words, a class bigram from the hidden Markov model of
  ``jieba.posseg`` (:func:`transition`).
- Latin words (Vietnamese syllables, English and French words) come from
  wordfreq's frequency lists.
- Emoji use wordfreq's counts too (they come from social media), in Chinese
  and English; punctuation and symbols have a small hand-made table.
- The document itself weighs in through :class:`DocumentContext`: a word,
  character or Chinese n-gram that appears intact elsewhere in the file is
  more likely, and so is the script (Simplified or Traditional) it is written in.

The dictionaries load once per process (about three seconds; :func:`load`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from metrics_registry.encoding import chinese_tables
from metrics_registry.encoding.chinese_tables import script_of
from metrics_registry.encoding.symbols import PUNCTUATION, char_logp, is_emoji

__all__ = [
    "DocumentContext",
    "after_numeral",
    "char_class",
    "char_logp",
    "han_entries",
    "han_prefix",
    "han_word",
    "is_han",
    "is_junk",
    "is_latin_letter",
    "latin_word_logp",
    "load",
    "script_of",
    "simplify",
    "transition",
    "use_model_words",
    "variant_cost",
]

#: Log-probability of a word none of the lists knows.
OOV_WORD = -21.0
#: Of a Chinese character jieba's dictionary lacks.
UNKNOWN_HAN = -19.0
#: Of a word of Taiwan or Hong Kong usage that the mainland lists lack (OpenCC's phrase tables, see
#: :func:`.chinese_tables._regional_words`): as rare as a word jieba counts 20 times.
REGIONAL_WORD = -15.0


def is_han(ch: str) -> bool:
    """A Chinese character (CJK unified ideographs, extensions, compatibility)."""
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x3134F
        or 0xF900 <= code <= 0xFAFF
    )


def is_latin_letter(ch: str) -> bool:
    """A letter of the Latin script, with its diacritics (Vietnamese included)."""
    code = ord(ch)
    if code < 0x80:
        return ch.isalpha()
    return (0xC0 <= code <= 0x24F and code not in (0xD7, 0xF7)) or 0x1E00 <= code <= 0x1EFF


def is_junk(ch: str) -> bool:
    """A character no text contains: unassigned, private use, surrogate, control, noncharacter."""
    category = unicodedata.category(ch)
    return category in ("Cn", "Co", "Cs", "Cc") or (ord(ch) & 0xFFFE) == 0xFFFE


def char_class(ch: str) -> str:
    """``han``, ``latin``, ``emoji``, ``punct`` (known punctuation or symbol), ``other`` or ``junk``."""
    if is_junk(ch):
        return "junk"
    if is_han(ch):
        return "han"
    if is_latin_letter(ch):
        return "latin"
    if is_emoji(ch):
        return "emoji"
    if ch in PUNCTUATION or _english().get(ch):
        return "punct"
    return "other"


@cache
def _simplifier() -> dict[int, str]:
    from wordfreq.chinese import SIMPLIFIED_MAP

    return SIMPLIFIED_MAP


@cache
def _vietnamese() -> dict[str, float]:
    import wordfreq

    return wordfreq.get_frequency_dict("vi", wordlist="small")


@cache
def _english() -> dict[str, float]:
    import wordfreq

    return wordfreq.get_frequency_dict("en", wordlist="large")


@cache
def _chinese_wordfreq() -> dict[str, float]:
    import wordfreq

    return wordfreq.get_frequency_dict("zh", wordlist="large")


def load() -> None:
    """Load every dictionary now (the first repair would do it anyway)."""
    chinese_tables.jieba_dictionary()
    chinese_tables.tables()
    chinese_tables.script_sets()
    _chinese_wordfreq()
    _simplifier()
    _vietnamese()
    _english()
    _converters()


#: Weight of the class bigram against the word frequencies.
CLASS_WEIGHT = 0.75


@lru_cache(maxsize=200_000)
def han_word(word: str) -> tuple[float, str] | None:
    """Log-probability and class of a Chinese word written in Simplified characters, if it is one.

    The probability is the larger of jieba's (a balanced corpus) and
    wordfreq's (recent web text and subtitles, where "上限" or "批次" are far
    more common); the class is jieba's, or ``n`` for words only wordfreq knows.
    """
    freq, log_total = chinese_tables.jieba_dictionary()
    count = freq.get(word, 0)
    modern = _chinese_wordfreq().get(word, 0.0)
    if not count and not modern:
        if word in chinese_tables.tables().regional:
            return REGIONAL_WORD, "nz"
        model = _model_words.words.get(word)
        return None if model is None else (model, "n")
    logp = max(math.log(count) - log_total if count else -math.inf, math.log(modern) if modern else -math.inf)
    return logp, chinese_tables.tables().word_tag.get(word, "n")


def han_prefix(text: str) -> bool:
    """Whether some dictionary word starts with ``text`` (Simplified characters); the lattice stops
    extending a word as soon as none does."""
    return (
        text in chinese_tables.jieba_dictionary()[0]
        or text in chinese_tables.tables().prefixes
        or text in _model_words.prefixes
    )


#: The words of the word sequence model (:mod:`.word_ngrams`) in use that no list above holds, with
#: their log-probabilities, and their prefixes; the first item says whose they are.
@dataclass
class _ModelWords:
    owner: object = None
    words: dict[str, float] = field(default_factory=dict)
    prefixes: frozenset[str] = frozenset()


_model_words = _ModelWords()


def use_model_words(owner: object, words: Callable[[], dict[str, float]]) -> bool:
    """Read the words of ``owner`` (a word sequence model, or ``None``: none) as dictionary words
    too; ``words`` gives them (Simplified, with natural log-probabilities) when ``owner`` is new.

    jieba's and wordfreq's lists lack words the model was trained on, most of them technical
    ("套接字", socket, was read "套接受", a word jieba knows followed by one it does not): the first
    pass never offered the second such a word, however much likelier the model found it.
    Returns whether the words changed (what callers remember of the old ones is then stale).
    """
    if _model_words.owner is owner:
        return False
    known = words() if owner is not None else {}
    _model_words.owner, _model_words.words = owner, known
    _model_words.prefixes = frozenset(word[:end] for word in known for end in range(1, len(word)))
    # What was looked up with the old words is stale.
    han_word.cache_clear()
    han_entries().clear()
    return True


class _HanEntries(dict[str, tuple[tuple[float, str] | None, bool]]):
    """:func:`han_word` and :func:`han_prefix` of a Simplified text at once, remembered.

    The decoder asks both of every string it extends a word with, the same
    strings over and over: one dictionary lookup is cheaper than two calls.
    """

    def __missing__(self, text: str) -> tuple[tuple[float, str] | None, bool]:
        if len(self) >= _MAX_HAN_ENTRIES:
            self.clear()
        jieba_words = chinese_tables.jieba_dictionary()[0]
        # Most texts asked about are neither words nor prefixes: two set lookups tell, and
        # han_word() would say None anyway for a text that neither list holds.
        listed = (
            text in jieba_words
            or text in _chinese_wordfreq()
            or text in chinese_tables.tables().regional
            or text in _model_words.words
        )
        known = han_word(text) if listed else None
        prefix = (
            text in jieba_words or text in chinese_tables.tables().prefixes or text in _model_words.prefixes
        )
        entry = self[text] = (known, prefix)
        return entry


_MAX_HAN_ENTRIES = 200_000


@cache
def han_entries() -> dict[str, tuple[tuple[float, str] | None, bool]]:
    """Simplified texts to ``(han_word(text), han_prefix(text))``, for the decoder's inner loop."""
    return _HanEntries()


def transition(previous: str | None, tag: str | None) -> float:
    """log P(tag | previous) / P(tag): how much the previous token's class favours this one.

    0 when either class is unknown to the model (Latin words: "eng").
    """
    if previous is None or tag is None or not CLASS_WEIGHT:
        return 0.0
    transitions, prior = chinese_tables.tables().transitions, chinese_tables.tables().prior
    row = transitions.get(previous)
    if row is None or tag not in row or tag not in prior:
        return 0.0
    return CLASS_WEIGHT * (row[tag] - prior[tag])


def after_numeral() -> dict[str, float]:
    """Simplified characters that follow numbers, with how much likelier a number makes them
    (log-ratio, above 0): measure words and units (:func:`.chinese_tables._after_numeral`)."""
    return chinese_tables.tables().after_numeral


def simplify(ch: str) -> str:
    """The Simplified form of a Chinese character (itself when it has no other)."""
    return _simplifier().get(ord(ch), ch)


#: Cost (nats) of a word spelled with a variant character where Traditional texts use another form.
VARIANT_COST = 3.0


@lru_cache(maxsize=100_000)
def variant_cost(word: str, simple: str) -> float:
    """What it costs that ``word`` (with ``simple``, its Simplified form) is spelled with a variant.

    The word frequencies are looked up by the Simplified form, and wordfreq's
    table folds variants into it: "上陞" would score as "上升", though
    Traditional texts write 上升 too. OpenCC's phrase tables give the
    standard Traditional spellings of the Simplified word (Taiwan, Hong Kong
    and OpenCC's own): a word that is none of them costs :data:`VARIANT_COST`.
    """
    if word == simple:
        return 0.0
    return 0.0 if word in _traditional_spellings(simple) else VARIANT_COST


def _traditional_spellings(simple: str) -> set[str]:
    return {converter.convert(simple) for converter in _converters()}


@cache
def _converters() -> tuple[Any, ...]:
    import opencc

    return tuple(opencc.OpenCC(config) for config in ("s2t", "s2tw", "s2hk"))


def word_known(word: str) -> bool:
    """Whether a Latin word is in the Vietnamese or English list (one accented letter: Vietnamese only)."""
    lower = word.lower()
    if len(lower) == 1 and lower >= "\x80":
        return bool(_vietnamese().get(lower))
    return bool(_vietnamese().get(lower) or _english().get(lower))


@lru_cache(maxsize=100_000)
def latin_word_logp(word: str) -> float:
    lower = word.lower()
    frequency = max(_vietnamese().get(lower, 0.0), _english().get(lower, 0.0))
    score = math.log(frequency) if frequency else OOV_WORD
    if word not in (lower, word.upper(), word[:1].upper() + word[1:].lower()):
        score -= 8.0  # mixed case inside a word
    return score


#: Runs of Chinese characters (:func:`is_han`) and of Latin letters (:func:`is_latin_letter`): what
#: :meth:`DocumentContext.from_text` counts, found by the regular-expression engine rather than a
#: test per character.
_HAN_RUN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0003134f\uf900-\ufaff]+")
_LATIN_RUN = re.compile("[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff]+")


@dataclass
class DocumentContext:
    """What the intact parts of the document say: its characters, Chinese n-grams, Latin words, script.

    A cache model: what a document has said once it tends to say again, so a
    reading that appears intact elsewhere in the file gains (the weights are
    rough log-odds, tuned on the test texts and checked on held-out ones).
    """

    chars: Counter[str] = field(default_factory=Counter)
    ngrams: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)
    emoji: tuple[int, ...] = ()
    chinese: bool = True
    traditional: int = 0
    simplified: int = 0
    #: What other modules derive from this context and remember for the rest of the document, by
    #: a key of their own (the decoder's readings of a damaged character); no part of its value.
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_text(cls, text: str) -> DocumentContext:
        """Count what ``text`` holds; U+FFFD marks the unknown characters, which count as nothing."""
        context = cls()
        context.chars.update({ch: n for ch, n in Counter(text).items() if ch >= "\x80" and ch != "\ufffd"})
        han = 0
        for run in _HAN_RUN.findall(text):
            han += len(run)
            for n in (2, 3):
                context.ngrams.update(run[i : i + n] for i in range(len(run) - n + 1))
        context.words.update(word.lower() for word in _LATIN_RUN.findall(text))
        latin = sum(context.words.values())
        context.chinese = han >= latin
        context.emoji = tuple(sorted(ord(ch) for ch in context.chars if is_emoji(ch)))
        traditional, simplified = chinese_tables.script_sets()
        context.traditional = sum(n for ch, n in context.chars.items() if ch in traditional)
        context.simplified = sum(n for ch, n in context.chars.items() if ch in simplified)
        return context

    def char_bonus(self, ch: str) -> float:
        """Support for a reading from the document: the character seen intact, its script, emoji nearby."""
        score = 0.5 * math.log1p(self.chars.get(ch, 0))
        if is_han(ch):
            score += self.script_cost(ch)
        elif is_emoji(ch):
            score += 1.0 * math.log1p(self.chars.get(ch, 0))
            if any(abs(ord(ch) - code) < 64 for code in self.emoji):
                score += 1.0
        elif not is_latin_letter(ch):
            score += 1.0 * math.log1p(self.chars.get(ch, 0))
        return score

    def ngram_bonus(self, gram: str) -> float:
        """Support for a Chinese bigram or trigram that holds a reading: seen intact in the document."""
        return NGRAM_WEIGHT * math.log1p(self.ngrams.get(gram, 0))

    def word_bonus(self, word: str) -> float:
        """Support for a Latin word that holds a reading."""
        return 1.5 * math.log1p(self.words.get(word.lower(), 0))

    def script_cost(self, ch: str) -> float:
        """How unlikely a character of one script is in this document (Simplified or Traditional).

        The odds come from the script-specific characters the document shows
        intact, with a half-count prior each: a Traditional form in a clearly
        Simplified text costs several nats, either costs a little in a text that
        shows neither.
        """
        script = script_of(ch)
        if script is None:
            return 0.0
        same = self.traditional if script == "traditional" else self.simplified
        total = self.traditional + self.simplified
        return SCRIPT_WEIGHT * math.log((same + 0.5) / (total + 1.0))


#: Weight of the document's own Chinese n-grams.
NGRAM_WEIGHT = 1.5
#: Weight of the script (Simplified or Traditional) the document is written in.
SCRIPT_WEIGHT = 2.0

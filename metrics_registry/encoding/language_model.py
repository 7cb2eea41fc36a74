"""How likely a short stretch of text is: the judge between the characters a lost byte could have been.

Every score is an estimate of a log-probability, so candidates from
different scripts compare on one scale:

- Chinese runs are segmented into words with jieba's dictionary (about
  350,000 words with their frequencies; Traditional characters are looked up
  through wordfreq's Traditional-to-Simplified table), the way jieba itself
  picks a segmentation: the most probable path through the word lattice.
- Latin words (Vietnamese syllables, English and French words) come from
  wordfreq's frequency lists.
- Emoji use wordfreq's counts too (they come from social media), in Chinese
  and English; punctuation and symbols have a small hand-made table.
- The document itself weighs in through :class:`DocumentContext`: a word or
  character that appears intact elsewhere in the file is much more likely.

The dictionaries load once per process (about a second for jieba's).
"""

from __future__ import annotations

import logging
import math
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache

__all__ = [
    "DocumentContext",
    "char_class",
    "is_han",
    "is_junk",
    "is_latin_letter",
    "window_logp",
]

#: Log-probability of a word none of the lists knows.
OOV_WORD = -21.0
#: Of a Chinese character jieba's dictionary lacks.
UNKNOWN_HAN = -19.0

# Rough frequencies of punctuation in Chinese and Vietnamese/English prose
# (log-probability per character); the pairs' balance is scored separately.
_PUNCTUATION: dict[str, float] = {
    "，": -3.0,
    "。": -3.4,
    "、": -4.6,
    "：": -5.0,
    "（": -5.5,
    "）": -5.5,
    "“": -5.5,
    "”": -5.5,
    "！": -6.0,
    "？": -6.0,
    "；": -6.5,
    "《": -6.2,
    "》": -6.2,
    "「": -6.8,
    "」": -6.8,
    "【": -7.0,
    "】": -7.0,
    "‘": -7.0,
    "’": -6.5,
    "…": -7.0,
    "—": -7.0,
    "–": -7.5,
    "·": -8.0,
    "•": -7.5,
    "『": -8.5,
    "』": -8.5,
    "～": -8.5,
    "〈": -9.5,
    "〉": -9.5,
    "→": -8.0,
    "←": -9.0,
    "↑": -9.0,
    "↓": -9.0,
    "⇒": -10.0,
    "≥": -9.5,
    "≤": -9.5,
    "≠": -10.5,
    "≈": -10.0,
    "×": -9.0,
    "±": -10.0,
    "°": -9.5,
    "✓": -9.0,
    "✔": -9.5,
    "✗": -10.0,
    "✘": -10.5,
    "❌": -9.0,
    "✅": -9.0,
    "⚠": -9.5,
    "⭐": -9.5,
    "★": -9.5,
    "☆": -10.5,
    "※": -11.0,
    "‰": -11.0,
    "€": -10.0,
}

_OPENERS = {"“": "”", "‘": "’", "「": "」", "『": "』", "【": "】", "《": "》", "（": "）", "〈": "〉"}
_CLOSERS = {close: open_ for open_, close in _OPENERS.items()}


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


def _is_emoji(ch: str) -> bool:
    code = ord(ch)
    return unicodedata.category(ch) == "So" and (
        0x1F000 <= code <= 0x1FAFF or 0x2600 <= code <= 0x27BF or 0x2B00 <= code <= 0x2BFF
    )


def char_class(ch: str) -> str:
    """``han``, ``latin``, ``emoji``, ``punct`` (known punctuation or symbol), ``other`` or ``junk``."""
    if is_junk(ch):
        return "junk"
    if is_han(ch):
        return "han"
    if is_latin_letter(ch):
        return "latin"
    if _is_emoji(ch):
        return "emoji"
    if ch in _PUNCTUATION or _english().get(ch):
        return "punct"
    return "other"


@cache
def _jieba() -> tuple[dict[str, int], float]:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.dt.check_initialized()
    return jieba.dt.FREQ, math.log(jieba.dt.total)


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
    _jieba()
    _tags()
    _chinese_wordfreq()
    _simplifier()
    _vietnamese()
    _english()


@cache
def _tags() -> tuple[dict[str, str], dict[str, dict[str, float]], dict[str, float]]:
    """jieba's part-of-speech data: each word's tag, P(tag | previous tag) between words, P(tag).

    The transitions come from the hidden Markov model of ``jieba.posseg``
    (trained on a tagged corpus), summed from the end of one word to the
    start of the next: a class bigram model that knows, say, that the
    particle 的 follows a noun or a locative like 中 but hardly ever the
    adverb 不.
    """
    import jieba
    from jieba.posseg import prob_trans

    word_tag: dict[str, str] = {}
    mass: Counter[str] = Counter()
    with jieba.get_dict_file() as handle:
        for raw in handle:
            parts = raw.decode("utf-8").split()
            if len(parts) == 3:
                word_tag[parts[0]] = parts[2]
                mass[parts[2]] += int(parts[1])
    total = sum(mass.values())
    prior = {tag: math.log(count / total) for tag, count in mass.items()}
    grouped: dict[str, dict[str, list[float]]] = {}
    for (position, tag), row in prob_trans.P.items():
        if position not in "ES":
            continue
        target = grouped.setdefault(tag, {})
        for (next_position, next_tag), logp in row.items():
            if next_position in "BS":
                target.setdefault(next_tag, []).append(logp)
    transitions: dict[str, dict[str, float]] = {}
    for tag, row in grouped.items():
        if not row:
            continue
        summed = {next_tag: _logsumexp(values) for next_tag, values in row.items()}
        norm = _logsumexp(list(summed.values()))
        transitions[tag] = {next_tag: value - norm for next_tag, value in summed.items()}
    return word_tag, transitions, prior


def _logsumexp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


#: Weight of the class bigram against the word frequencies.
CLASS_WEIGHT = 1.0


def _transition(previous: str | None, tag: str) -> float:
    """log P(tag | previous) / P(tag): how much the previous word's class favours this one."""
    if previous is None or not CLASS_WEIGHT:
        return 0.0
    _, transitions, prior = _tags()
    return CLASS_WEIGHT * (transitions.get(previous, {}).get(tag, -14.0) - prior.get(tag, -14.0))


@lru_cache(maxsize=100_000)
def han_logp(run: str, before: str | None = None, after: str | None = None) -> float:
    """Log-probability of a run of Chinese characters, over its most probable segmentation.

    Words are scored by their frequency (jieba's dictionary, or wordfreq's
    Chinese list when it knows the word better) and by the class bigram of
    :func:`_tags`; ``before`` and ``after`` are the classes of the tokens
    around the run (``x`` for punctuation, ``eng`` for a Latin word).
    """
    freq, log_total = _jieba()
    word_tag = _tags()[0]
    modern = _chinese_wordfreq()
    simple = run.translate(_simplifier())
    n = len(simple)
    states: list[dict[str | None, float]] = [{} for _ in range(n + 1)]
    states[0][before] = 0.0
    for i in range(n):
        if not states[i]:
            continue
        options: list[tuple[int, str, float]] = []
        j = i + 1
        while j <= n:
            word = simple[i:j]
            count = freq.get(word)
            extra = modern.get(word, 0.0) if j - i <= 4 else 0.0
            if count is None and not extra:
                if j - i >= 4:
                    break
                j += 1
                continue
            probability = max((count or 0) / math.exp(log_total), extra)
            if probability:
                options.append((j, word_tag.get(word, "n"), math.log(probability)))
            elif j == i + 1:
                options.append((j, "n", UNKNOWN_HAN))
            j += 1
        if not options or options[0][0] != i + 1:
            options.insert(0, (i + 1, "n", UNKNOWN_HAN))
        for previous, value in states[i].items():
            for end, tag, logp in options:
                score = value + logp + _transition(previous, tag)
                if score > states[end].get(tag, -math.inf):
                    states[end][tag] = score
    return max(value + (_transition(tag, after) if after else 0.0) for tag, value in states[n].items())


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


def emoji_logp(ch: str, *, chinese: bool) -> float:
    frequency = 0.5 * _english().get(ch, 0.0)
    if chinese:
        frequency += _chinese_wordfreq().get(ch, 0.0)
    return math.log(frequency + 3e-9)


def char_logp(ch: str, *, chinese: bool = True) -> float:
    """Log-probability of one character that is neither Chinese nor a Latin letter."""
    if ch < "\x80":
        return 0.0
    if ch in _PUNCTUATION:
        return _PUNCTUATION[ch]
    if _is_emoji(ch):
        return emoji_logp(ch, chinese=chinese)
    english = _english().get(ch)
    if english:
        return max(math.log(english), -18.0)
    category = unicodedata.category(ch)
    if category.startswith(("P", "S")):
        return -19.0
    if category.startswith("Z"):
        return -22.0
    return -24.0  # letters of other scripts, format characters


def _runs(text: str) -> Iterable[tuple[str, str]]:
    """Split text into ``han`` runs, ``latin`` words and single ``char`` tokens."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if is_han(ch):
            j = i + 1
            while j < n and is_han(text[j]):
                j += 1
            yield "han", text[i:j]
        elif is_latin_letter(ch):
            j = i + 1
            while j < n and is_latin_letter(text[j]):
                j += 1
            yield "latin", text[i:j]
        else:
            j = i + 1
            yield "char", ch
        i = j


def _token_tag(kind: str, token: str) -> str | None:
    if kind == "latin":
        return "eng"
    if token.isdigit():
        return "m"
    if token.isspace():
        return None
    return "x"


def window_logp(text: str, *, chinese: bool = True) -> float:
    """Log-probability of a short window of text, token by token."""
    tokens = list(_runs(text))
    total = 0.0
    for index, (kind, token) in enumerate(tokens):
        if kind == "han":
            before = _token_tag(*tokens[index - 1]) if index > 0 else None
            after = _token_tag(*tokens[index + 1]) if index + 1 < len(tokens) else None
            total += han_logp(token, before, after)
        elif kind == "latin":
            total += latin_word_logp(token)
        else:
            total += char_logp(token, chinese=chinese)
    return total


def bracket_bonus(ch: str, before: str, after: str) -> float:
    """Closing marks want an open one before them on the line, opening marks a closing one after."""
    if ch in _CLOSERS:
        opener = _CLOSERS[ch]
        return 3.0 if before.count(opener) > before.count(ch) else -3.0
    if ch in _OPENERS:
        closer = _OPENERS[ch]
        return 2.0 if after.count(closer) > after.count(ch) else -1.0
    return 0.0


@dataclass
class DocumentContext:
    """What the intact parts of the document say: its characters, Chinese n-grams, Latin words."""

    chars: Counter[str] = field(default_factory=Counter)
    ngrams: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)
    emoji: tuple[int, ...] = ()
    chinese: bool = True

    @classmethod
    def from_text(cls, text: str) -> DocumentContext:
        """Count what ``text`` holds; U+FFFD marks the unknown characters, which count as nothing."""
        context = cls()
        context.chars.update(ch for ch in text if ch >= "\x80" and ch != "\ufffd")
        han = 0
        for kind, token in _runs(text):
            if kind == "han":
                han += len(token)
                for n in (2, 3):
                    context.ngrams.update(token[i : i + n] for i in range(len(token) - n + 1))
            elif kind == "latin":
                context.words[token.lower()] += 1
        latin = sum(context.words.values())
        context.chinese = han >= latin
        context.emoji = tuple(sorted(ord(ch) for ch in context.chars if _is_emoji(ch)))
        return context

    def bonus(self, window: str, position: int) -> float:
        """How much the document supports the character at ``position`` of ``window``."""
        ch = window[position]
        score = 0.5 * math.log1p(self.chars.get(ch, 0))
        if is_han(ch):
            for n in (2, 3):
                for start in range(position - n + 1, position + 1):
                    gram = window[max(start, 0) : start + n]
                    if start >= 0 and len(gram) == n and all(is_han(c) for c in gram):
                        score += 1.5 * math.log1p(self.ngrams.get(gram, 0))
        elif is_latin_letter(ch):
            start = position
            while start > 0 and is_latin_letter(window[start - 1]):
                start -= 1
            end = position + 1
            while end < len(window) and is_latin_letter(window[end]):
                end += 1
            score += 1.5 * math.log1p(self.words.get(window[start:end].lower(), 0))
        elif _is_emoji(ch):
            score += 1.0 * math.log1p(self.chars.get(ch, 0))
            if any(abs(ord(ch) - code) < 64 for code in self.emoji):
                score += 1.0
        else:
            score += 1.0 * math.log1p(self.chars.get(ch, 0))
        return score

"""How likely a character is that is neither Chinese nor a Latin letter: punctuation, symbols, emoji.

Punctuation and the symbols of technical writing have a small hand-made
table of rough frequencies (no word list counts them in documentation);
emoji use wordfreq's counts (social media, in English and Chinese), with a
prior for the emoji documentation uses (:data:`DOCUMENT_EMOJI`), since what
people post most (🔝) is not what manuals show (🔍). Pairs are scored as
pairs: a closing mark wants its opening one, a regional indicator (half a
flag) wants the other half.
"""

from __future__ import annotations

import math
import unicodedata
from functools import cache

__all__ = ["DOCUMENT_EMOJI", "PUNCTUATION", "bracket_bonus", "char_logp", "emoji_logp", "is_emoji"]

# Rough frequencies of punctuation in Chinese and Vietnamese/English prose
# (log-probability per character); the pairs' balance is scored separately.
PUNCTUATION: dict[str, float] = {
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

OPENERS = {"“": "”", "‘": "’", "「": "」", "『": "』", "【": "】", "《": "》", "（": "）", "〈": "〉"}
CLOSERS = {close: open_ for open_, close in OPENERS.items()}


#: Emoji that documentation, changelogs and logs use to mark sections and states (those of this
#: project's pages and source document, and the usual status marks), with their rough
#: log-probability per character in such text.
DOCUMENT_EMOJI: dict[str, float] = {
    "✅": -8.5,
    "❌": -9.0,
    "⚠": -9.0,
    "📊": -10.0,
    "📈": -10.5,
    "📉": -11.0,
    "📍": -11.0,
    "📌": -11.0,
    "🔍": -10.0,
    "📝": -10.5,
    "💾": -11.0,
    "💡": -10.5,
    "🚀": -10.5,
    "🔧": -11.0,
    "🐛": -11.0,
    "🎉": -11.0,
    "👉": -11.0,
    "⏱": -11.5,
    "🔥": -11.0,
    "📦": -11.5,
    "🔗": -11.5,
    "🔒": -11.5,
}
#: The regional indicators, 🇦 to 🇿: two of them make a flag.
_REGIONAL = range(0x1F1E6, 0x1F200)


def is_emoji(ch: str) -> bool:
    """A pictographic symbol (emoji, dingbat, pictograph)."""
    code = ord(ch)
    return unicodedata.category(ch) == "So" and (
        0x1F000 <= code <= 0x1FAFF or 0x2600 <= code <= 0x27BF or 0x2B00 <= code <= 0x2BFF
    )


@cache
def _english() -> dict[str, float]:
    import wordfreq

    return wordfreq.get_frequency_dict("en", wordlist="large")


@cache
def _chinese() -> dict[str, float]:
    import wordfreq

    return wordfreq.get_frequency_dict("zh", wordlist="large")


def emoji_logp(ch: str, *, chinese: bool) -> float:
    """Log-probability of an emoji: the better of the documentation prior and wordfreq's counts."""
    frequency = 0.5 * _english().get(ch, 0.0)
    if chinese:
        frequency += _chinese().get(ch, 0.0)
    return max(math.log(frequency + 3e-9), DOCUMENT_EMOJI.get(ch, -math.inf))


def char_logp(ch: str, *, chinese: bool = True) -> float:
    """Log-probability of one character that is neither Chinese nor a Latin letter."""
    if ch < "\x80":
        return 0.0
    if ch in PUNCTUATION:
        return PUNCTUATION[ch]
    if is_emoji(ch):
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


def bracket_bonus(ch: str, before: str, after: str) -> float:
    """Closing marks want an open one before them on the line, opening marks a closing one after;
    a regional indicator wants another next to it (a flag is two of them)."""
    if ord(ch) in _REGIONAL:
        beside = before[-1:] + after[:1]
        return 8.0 if any(ord(other) in _REGIONAL for other in beside) else -6.0
    if ch in CLOSERS:
        opener = CLOSERS[ch]
        return 3.0 if before.count(opener) > before.count(ch) else -3.0
    if ch in OPENERS:
        closer = OPENERS[ch]
        return 2.0 if after.count(closer) > after.count(ch) else -1.0
    return 0.0

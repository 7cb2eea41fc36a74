"""A corpus for the lossy-repair benchmark, built at run time from CLDR data through Babel.

None of the repair's models saw this text: jieba's and wordfreq's word
lists, fcitx5's word trigram model and the field's counts were built from
other sources, and no test of this project reads it. The paragraphs are
sentences made of CLDR's own pieces (locale display names, territory,
language, script and currency names, time zone names, formatted dates,
intervals, units, amounts and lists) joined with each locale's list
patterns and punctuation, so the characters, words and symbols are those of
real localised text. A seed makes the corpus the same on every run.

Languages: ``zh-Hans`` (zh_Hans_CN), ``zh-Hant`` (zh_Hant_TW), ``vi``,
``mixed`` (Chinese lines with the English names beside the Chinese ones) and
``en+symbols`` (English with currency signs, units, flags, typographic
marks and the emoji documentation and commit messages use: gitmoji's set).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from functools import cache

from babel import Locale, dates, lists, numbers, units
from babel.localedata import locale_identifiers

__all__ = ["LANGUAGES", "paragraphs"]

LANGUAGES = ("zh-Hans", "zh-Hant", "vi", "mixed", "en+symbols")
_LOCALE = {"zh-Hans": "zh_Hans_CN", "zh-Hant": "zh_Hant_TW", "vi": "vi", "mixed": "zh_Hans_CN"}
#: gitmoji (the emoji guide for commit messages), the emoji technical writing uses most.
GITMOJI = (
    "🎨⚡🔥🐛🚑✨📝🚀💄🎉✅🔒🔐🔖🚨🚧💚⬇⬆📌👷📈♻➕➖🔧🔨🌐✏💩⏪🔀📦👽🚚📄💥🍱♿💡🍻💬🗃🔊🔇👥🚸🏗📱🤡🥚🙈📸"
    "⚗🔍🏷🌱🚩🥅💫🗑🛂🩹🧐⚰🧪👔🩺🧱🧑💸🧵🦺✈"
)
_SYMBOLS = (
    "→",
    "←",
    "≥",
    "≤",
    "±",
    "×",
    "…",
    "—",
    "–",
    "•",
    "°",
    "™",
    "©",
    "®",
    "✓",
    "⚠",
    "❌",
    "★",
    "※",
    "‰",
)
_UNITS_LONG = (
    "length-kilometer",
    "length-meter",
    "mass-kilogram",
    "duration-hour",
    "duration-minute",
    "duration-second",
    "duration-millisecond",
    "speed-kilometer-per-hour",
    "temperature-celsius",
    "area-square-kilometer",
    "volume-liter",
    "digital-gigabyte",
    "digital-megabyte",
    "energy-kilowatt-hour",
    "power-watt",
    "frequency-gigahertz",
    "pressure-hectopascal",
    "angle-degree",
    "concentr-percent",
)
_ZONES = (
    "Asia/Shanghai",
    "Asia/Taipei",
    "Asia/Ho_Chi_Minh",
    "Asia/Tokyo",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Moscow",
    "America/New_York",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Australia/Sydney",
    "Africa/Cairo",
    "Asia/Kolkata",
    "Pacific/Auckland",
)
_END = {"zh": "。", "vi": ".", "en": "."}


@cache
def _ids() -> list[str]:
    return sorted(locale_identifiers())


def _pick(rng: random.Random, mapping: dict) -> str:
    return str(mapping[rng.choice(sorted(mapping))])


def _when(rng: random.Random) -> dt.datetime:
    return dt.datetime(2000, 1, 1) + dt.timedelta(seconds=rng.randrange(30 * 365 * 86400))


def _clauses(locale: Locale) -> list[Callable[[random.Random], str]]:
    """Ways of making one clause of text in ``locale``."""

    def display(rng: random.Random) -> str:
        return Locale.parse(rng.choice(_ids())).get_display_name(locale) or ""

    def date(rng: random.Random) -> str:
        width = rng.choice(("full", "long", "medium"))
        zone = dates.get_timezone(rng.choice(_ZONES))
        return dates.format_datetime(_when(rng), width, tzinfo=zone, locale=locale)

    def interval(rng: random.Random) -> str:
        start = _when(rng)
        end = start + dt.timedelta(days=rng.randrange(1, 400))
        return dates.format_interval(
            start.date(), end.date(), rng.choice(("yMMMd", "yMd", "yMMMEd")), locale=locale
        )

    def duration(rng: random.Random) -> str:
        return dates.format_timedelta(dt.timedelta(seconds=rng.randrange(1, 10**7)), locale=locale)

    def unit(rng: random.Random) -> str:
        value = rng.choice((rng.randrange(1, 1000), round(rng.uniform(0, 100), 2)))
        length = rng.choice(("long", "short"))
        return units.format_unit(value, rng.choice(_UNITS_LONG), length=length, locale=locale)

    def amount(rng: random.Random) -> str:
        code = rng.choice(sorted(locale.currencies))
        value = round(rng.uniform(1, 10**6), 2)
        return f"{locale.currencies[code]} {numbers.format_currency(value, code, locale=locale)}"

    def zone(rng: random.Random) -> str:
        tz = dates.get_timezone(rng.choice(_ZONES))
        if rng.random() < 0.5:
            return dates.get_timezone_location(tz, locale=locale)
        return dates.get_timezone_name(tz, locale=locale)

    def count(rng: random.Random) -> str:
        value = rng.randrange(1, 10**9)
        if rng.random() < 0.5:
            return numbers.format_compact_decimal(value, locale=locale)
        return numbers.format_percent(rng.random(), locale=locale)

    def names(rng: random.Random) -> str:
        table = rng.choice((locale.territories, locale.languages, locale.scripts, locale.currencies))
        return lists.format_list([_pick(rng, table) for _ in range(rng.randrange(2, 5))], locale=locale)

    def field(rng: random.Random) -> str:
        return f"{_pick(rng, locale.territories)} {_pick(rng, locale.languages)}"

    return [display, date, interval, duration, unit, amount, zone, count, names, names, field]


def _sentence(rng: random.Random, locale: Locale) -> str:
    makers = _clauses(locale)
    parts = [rng.choice(makers)(rng) for _ in range(rng.randrange(2, 5))]
    return lists.format_list(parts, locale=locale) + _END[locale.language]


def _mixed(rng: random.Random, zh: Locale, en: Locale) -> str:
    """A Chinese sentence naming things in both languages, as bilingual documentation does."""
    parts = []
    for _ in range(rng.randrange(2, 5)):
        table = rng.choice(("territories", "languages", "scripts", "currencies"))
        key = rng.choice(sorted(getattr(zh, table)))
        chinese, english = getattr(zh, table)[key], getattr(en, table).get(key, key)
        parts.append(rng.choice((f"{chinese} ({english})", f"{english}：{chinese}", f"{chinese} {english}")))
    if rng.random() < 0.5:
        parts.append(_sentence(rng, zh).rstrip("。"))
    return lists.format_list(parts, locale=zh) + "。"


def _symbols(rng: random.Random, en: Locale) -> str:
    """An English sentence with signs: currency symbols, units, flags, marks and emoji."""
    makers = _clauses(en)
    parts = []
    for _ in range(rng.randrange(2, 5)):
        roll = rng.random()
        if roll < 0.3:
            parts.append(f"{rng.choice(GITMOJI)} {rng.choice(makers)(rng)}")
        elif roll < 0.45:
            code = rng.choice([c for c in sorted(en.territories) if len(c) == 2 and c.isalpha()])
            flag = "".join(chr(0x1F1E6 + ord(ch) - ord("A")) for ch in code)
            parts.append(f"{flag} {en.territories[code]}")
        elif roll < 0.65:
            parts.append(f"{rng.choice(makers)(rng)} {rng.choice(_SYMBOLS)} {rng.choice(makers)(rng)}")
        elif roll < 0.75:
            parts.append(f"“{rng.choice(makers)(rng)}”")
        else:
            parts.append(rng.choice(makers)(rng))
    return lists.format_list(parts, locale=en) + "."


def paragraphs(language: str, size: int, seed: int = 20) -> list[str]:
    """Paragraphs of ``language`` (one of :data:`LANGUAGES`) adding up to about ``size`` bytes of UTF-8."""
    rng = random.Random(f"{seed}:{language}")
    en = Locale.parse("en")
    locale = Locale.parse(_LOCALE.get(language, "en"))
    out: list[str] = []
    total = 0
    while total < size:
        sentences = []
        for _ in range(rng.randrange(1, 5)):
            if language == "mixed":
                sentences.append(_mixed(rng, locale, en))
            elif language == "en+symbols":
                sentences.append(_symbols(rng, en))
            else:
                sentences.append(_sentence(rng, locale))
        paragraph = ("" if language.startswith(("zh", "mixed")) else " ").join(sentences)
        out.append(paragraph)
        total += len(paragraph.encode("utf-8")) + 2
    return out

"""The English formats written by hand agree with Babel's ``en`` locale (which the core install lacks)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from babel.dates import format_datetime
from babel.numbers import format_decimal, format_scientific

from metrics_registry.runs import english_format


def _values() -> list[float]:
    chosen = random.Random(20261125)
    values = [
        0.0,
        -0.0,
        0.5,
        0.12345,
        0.12335,
        0.00105,
        9.9995e-4,
        1e9,
        1e-300,
        5e20,
        123456789.99999,
        -1234567.12345,
    ]
    for _ in range(4000):
        magnitude = 10 ** chosen.uniform(-8, 12)
        values.append(chosen.choice((1, -1)) * magnitude)
        values.append(round(chosen.uniform(-1000, 1000), chosen.randint(0, 6)))
    return values


def test_decimal_and_scientific_agree_with_babel() -> None:
    for value in _values():
        if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e9):
            assert english_format.scientific(value) == format_scientific(value, format="0.###E0", locale="en")
        else:
            assert english_format.decimal(value) == format_decimal(value, format="#,##0.####", locale="en")


def test_integers_agree_with_babel() -> None:
    chosen = random.Random(7)
    for value in [0, 1, -1, 999, 1000, -12345, *(chosen.randint(-(10**12), 10**12) for _ in range(2000))]:
        assert english_format.integer(value) == format_decimal(value, locale="en")


def test_dates_agree_with_babel() -> None:
    chosen = random.Random(11)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    moments = [start, start.replace(hour=12), start.replace(hour=23, minute=59, second=59)]
    moments += [start + timedelta(seconds=chosen.randint(0, 10**9)) for _ in range(2000)]
    for moment in moments:
        assert english_format.datetime_medium(moment) == format_datetime(
            moment, "medium", tzinfo=UTC, locale="en"
        )

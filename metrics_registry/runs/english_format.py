"""Numbers and dates of an English report, exactly as Babel writes them for the ``en`` locale.

Written by hand because Babel (33 MB of locale data) is an extra: the core
install reports in English without it (pyproject.toml), and English is the
one locale whose patterns are fixed here. tests/runs/test_english_format.py
checks every function against Babel itself on thousands of values, so the
two cannot drift apart unnoticed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal

__all__ = ["datetime_medium", "decimal", "integer", "scientific"]

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_FOUR_PLACES = Decimal("0.0001")
_THREE_PLACES = Decimal("0.001")


def _trimmed(text: str) -> str:
    """``12.3400`` -> ``12.34``, ``12.0000`` -> ``12``."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def decimal(value: float) -> str:
    """Babel's ``format_decimal(value, format="#,##0.####", locale="en")``: grouped thousands,
    at most four decimals, rounded half to even on the shortest decimal form of ``value``."""
    rounded = Decimal(str(value)).quantize(_FOUR_PLACES, rounding=ROUND_HALF_EVEN)
    return _trimmed(f"{rounded:,f}")


def scientific(value: float) -> str:
    """Babel's ``format_scientific(value, format="0.###E0", locale="en")``: one integer digit,
    at most three decimals, the exponent without a plus sign (``1.5E-6``, ``1E9``)."""
    exact = Decimal(str(value))
    exponent = exact.adjusted()
    # Babel rounds the mantissa after scaling and does not scale again: 9.9995E-4 -> "10E-4".
    mantissa = exact.scaleb(-exponent).quantize(_THREE_PLACES, rounding=ROUND_HALF_EVEN)
    return f"{_trimmed(f'{mantissa:f}')}E{exponent}"


def integer(value: int) -> str:
    """Babel's ``format_decimal(value, locale="en")`` for an integer: ``-12,345``."""
    return f"{value:,}"


def datetime_medium(moment: datetime) -> str:
    """Babel's ``format_datetime(moment, "medium", tzinfo=UTC, locale="en")``:
    ``Nov 25, 2026, 5:05:09 PM`` (a narrow no-break space before the period, as CLDR has it)."""
    moment = moment.astimezone(UTC)
    hour = moment.hour % 12 or 12
    period = "AM" if moment.hour < 12 else "PM"
    return (
        f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year}, "
        f"{hour}:{moment.minute:02}:{moment.second:02}\u202f{period}"
    )

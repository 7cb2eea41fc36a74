"""Turn a logged cell or JSON value into a float, the way loggers write numbers; read JSON safely."""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["JsonDepthError", "load_json", "to_float"]

_SPECIAL = {
    "nan": math.nan,
    "+nan": math.nan,
    "-nan": math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-inf": -math.inf,
    "-infinity": -math.inf,
}

#: Longer integers are read as floats. Python refuses to turn more than 4300
#: digits into an ``int`` (``sys.get_int_max_str_digits``) and ``json`` raises
#: ``ValueError`` then; as a float such a number is simply infinite, which the
#: check reports as a non-finite value. A float holds at most 309 digits.
_INT_DIGITS = 300


class JsonDepthError(ValueError):
    """JSON nested deeper than Python's reader recurses."""


def _parse_int(text: str) -> int | float:
    return int(text) if len(text) <= _INT_DIGITS else float(text)


def load_json(text: str) -> Any:
    """``json.loads`` that raises only :class:`json.JSONDecodeError` or :class:`JsonDepthError`.

    Python's ``json`` reads ``NaN``/``Infinity``, as the trainers write them;
    a 5,000-digit integer becomes ``inf`` instead of a ``ValueError``.

    >>> load_json('{"kl": NaN, "n": ' + "9" * 5000 + "}")
    {'kl': nan, 'n': inf}
    >>> load_json("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    metrics_registry.runs.readers.values.JsonDepthError: JSON nested too deeply (more than ...
    """
    try:
        return json.loads(text, parse_int=_parse_int)
    except RecursionError:
        # The C scanner counts its depth against the recursion limit and fails cleanly;
        # no log a trainer writes comes near it.
        import sys

        raise JsonDepthError(
            f"JSON nested too deeply (more than about {sys.getrecursionlimit()} levels)"
        ) from None


def to_float(value: object) -> float | None:
    """The number ``value`` stands for, or ``None`` when it is not a scalar number.

    JSON writers spell non-finite floats ``NaN``/``Infinity`` (Python's
    ``json`` reads them) or as strings; CSV cells hold text. A boolean is a
    value (W&B and ``Trainer.log`` accept them): ``true`` is 1, ``false`` 0.

    >>> to_float(3), to_float("0.5"), to_float("NaN"), to_float("-Infinity"), to_float(True)
    (3.0, 0.5, nan, -inf, 1.0)
    >>> to_float({"_type": "histogram"}) is None, to_float("abc") is None
    (True, True)
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # beyond a float: infinite, which the check reports
            return math.inf if value > 0 else -math.inf  # (copysign would convert it, and overflow)
    if isinstance(value, str):
        text = value.strip()
        special = _SPECIAL.get(text.lower())
        if special is not None:
            return special
        if text.lower() in ("true", "false"):
            return float(text.lower() == "true")
        try:
            return float(text)
        except ValueError:
            return None
    return None

"""Turn a logged cell or JSON value into a float, the way loggers write numbers."""

from __future__ import annotations

import math

__all__ = ["to_float"]

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


def to_float(value: object) -> float | None:
    """The number ``value`` stands for, or ``None`` when it is not a scalar number.

    JSON writers spell non-finite floats ``NaN``/``Infinity`` (Python's
    ``json`` reads them) or as strings; CSV cells hold text.

    >>> to_float(3), to_float("0.5"), to_float("NaN"), to_float("-Infinity")
    (3.0, 0.5, nan, -inf)
    >>> to_float(True) is None, to_float({"_type": "histogram"}) is None, to_float("abc") is None
    (True, True, True)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        special = _SPECIAL.get(text.lower())
        if special is not None:
            return special
        try:
            return float(text)
        except ValueError:
            return None
    return None

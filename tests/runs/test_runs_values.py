"""Numbers as loggers write them, and JSON that would crash Python's reader."""

from __future__ import annotations

import math

import pytest

from metrics_registry.runs.readers.values import JsonDepthError, load_json, to_float


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, 1.0),
        (False, 0.0),
        ("true", 1.0),
        (" FALSE ", 0.0),
        (10**400, math.inf),  # beyond a float: infinite, which the check reports
        (-(10**400), -math.inf),
        ("9" * 5000, math.inf),
        ("-Infinity", -math.inf),
        ("1e999", math.inf),
        (0.25, 0.25),
    ],
    ids=lambda value: repr(value)[:12],
)
def test_to_float(value: object, expected: float) -> None:
    assert to_float(value) == expected


@pytest.mark.parametrize("value", [None, "abc", "", {"_type": "histogram"}, [1.0]])
def test_to_float_of_what_is_not_a_number(value: object) -> None:
    assert to_float(value) is None


def test_to_float_keeps_nan() -> None:
    assert math.isnan(to_float("nan"))  # type: ignore[arg-type]


def test_a_5000_digit_integer_is_infinite_not_a_value_error() -> None:
    record = load_json('{"kl": ' + "9" * 5000 + ', "loss": -' + "1" * 5000 + ', "step": 3}')
    assert record == {"kl": math.inf, "loss": -math.inf, "step": 3}
    assert load_json('{"n": ' + "1" * 300 + "}")["n"] == int("1" * 300)  # an int as long as it is exact


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a": ' * 50_000 + "1" + "}" * 50_000])
def test_deep_nesting_is_a_clear_error(text: str) -> None:
    with pytest.raises(JsonDepthError, match=r"JSON nested too deeply \(more than about \d+ levels\)"):
        load_json(text)


def test_nan_and_infinity_tokens_are_read() -> None:
    record = load_json('{"a": NaN, "b": -Infinity}')
    assert math.isnan(record["a"]) and record["b"] == -math.inf

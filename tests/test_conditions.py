"""Conditions on a run's release and configuration, judged with three values."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from metrics_registry.conditions import (
    Condition,
    ConfigCondition,
    RunFacts,
    all_of,
    parse_config_value,
)


def _c(option: str, op: str, value: object) -> ConfigCondition:
    return ConfigCondition.model_validate({"option": option, "op": op, "value": value})


@pytest.mark.parametrize(
    ("op", "value", "actual", "expected"),
    [
        (">", 1, 2, True),
        (">", 1, 1, False),
        (">=", 1, 1, True),
        ("<", 0.5, 0.25, True),
        ("<=", 0.5, 0.75, False),
        ("==", 0.0, 0, True),  # numbers compare as numbers
        ("!=", 0.0, 0.04, True),
        ("==", "k3", "k3", True),
        ("==", "k3", "k1", False),
        ("==", True, True, True),
        ("==", True, 1, False),  # a boolean is not the number 1
        ("in", ["group", "none"], "batch", False),
        ("in", ["group", "none"], "none", True),
        ("not in", ["group", "none"], "batch", True),
    ],
)
def test_config_condition_holds(op: str, value: object, actual: object, expected: bool) -> None:
    assert _c("option", op, value).holds({"option": actual}) is expected


def test_unknown_option_or_text_for_a_number_cannot_tell() -> None:
    condition = _c("num_mini_batches", ">", 1)
    assert condition.holds({}) is None
    assert condition.holds({"num_mini_batches": "auto"}) is None


@pytest.mark.parametrize(
    ("op", "value", "message"),
    [
        ("in", 1, "list of values"),
        ("==", [1, 2], "use 'in'"),
        (">", "two", "compares numbers"),
        ("~=", 1, "Input should be"),
    ],
)
def test_operator_and_value_must_fit(op: str, value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        _c("option", op, value)


@pytest.mark.parametrize("option", ["", "1abc", "a-b", "a b", "x" * 65, "a.b.c.d.e"])
def test_option_names_are_config_field_names(option: str) -> None:
    with pytest.raises(ValidationError):
        _c(option, "==", 1)


def test_value_lists_and_texts_are_bounded() -> None:
    with pytest.raises(ValidationError):
        _c("option", "in", list(range(21)))
    with pytest.raises(ValidationError):
        _c("option", "==", "x" * 101)


def test_text_is_what_pages_show() -> None:
    assert _c("num_mini_batches", ">", 1).text() == "num_mini_batches > 1"
    assert _c("scale_rewards", "in", ["group", "none"]).text() == 'scale_rewards in ["group", "none"]'
    assert _c("use_vllm", "==", True).text() == "use_vllm == True"
    assert _c("beta", "!=", 0.0).text() == "beta != 0"


def test_condition_combines_versions_and_config_with_three_values() -> None:
    condition = Condition.model_validate(
        {
            "versions": {"introduced": "0.17.0", "removed": "1.13.0"},
            "config": [
                {"option": "num_mini_batches", "op": ">", "value": 1},
                {"option": "gradient_accumulation_steps", "op": ">", "value": 1},
            ],
        }
    )
    both = {"num_mini_batches": 2, "gradient_accumulation_steps": 4}
    assert condition.holds(RunFacts("0.20.0", both)) is True
    assert condition.holds(RunFacts("0.15.0", both)) is False  # outside the releases
    assert condition.holds(RunFacts("0.20.0", {"num_mini_batches": 1})) is False  # one part false
    assert condition.holds(RunFacts("0.20.0", {})) is None  # config unknown
    assert condition.holds(RunFacts(None, both)) is None  # release unknown
    assert condition.holds(RunFacts(None, {"num_mini_batches": 1})) is False


def test_an_empty_condition_is_refused() -> None:
    with pytest.raises(ValidationError, match="needs 'versions', 'config' or both"):
        Condition.model_validate({})


def test_all_of_is_kleene_and() -> None:
    assert all_of([]) is True
    assert all_of([True, None, True]) is None
    assert all_of([None, False]) is False


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2", 2),
        ("-3", -3),
        ("0.05", 0.05),
        ("1e-4", 1e-4),
        ("TRUE", True),
        ("false", False),
        ('"group"', "group"),
        ("'k3'", "k3"),
        ("none", "none"),
        ("nan", "nan"),  # not a finite number: kept as text, so no comparison is made with it
        ("1e999", "1e999"),
    ],
)
def test_parse_config_value(text: str, value: object) -> None:
    assert parse_config_value(text) == value
    assert type(parse_config_value(text)) is type(value)

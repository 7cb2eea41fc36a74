"""Conditions on a run's release and configuration, and how a run is judged against them.

A healthy rule may hold only in some releases or configurations
(``applies_when``), or not in some (``except_when``), and a known issue may
show only with some configuration values (``when``). What is known about a
run is often partial: the release may be given and the configuration not.
Conditions are therefore judged with three values: ``True``, ``False`` and
``None`` (cannot tell), combined as Kleene's logic does (an ``and`` is
false as soon as one part is false, true when all are true, else unknown).
Whoever asks decides what an unknown means: ``check-run`` evaluates a rule
unless its conditions are known to exclude the run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, model_validator

from metrics_registry.modelbase import Model, VersionRange

__all__ = [
    "OPTION_PATTERN",
    "Condition",
    "ConfigCondition",
    "ConfigValue",
    "RunFacts",
    "all_of",
    "parse_config_value",
]

#: A configuration field, e.g. ``num_mini_batches`` or ``generation_kwargs.top_k``.
OPTION_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,3}$"
_SCALAR_TEXT_MAX = 100
_LIST_MAX = 20

Scalar = bool | int | float | str
Operator = Literal["==", "!=", ">", ">=", "<", "<=", "in", "not in"]


def _scalar(value: object) -> bool:
    if isinstance(value, bool | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str) and len(value) <= _SCALAR_TEXT_MAX


def _config_value(value: object) -> object:
    """One message for any wrong value (a union would report one error per member type)."""
    if _scalar(value):
        return value
    if isinstance(value, list) and 1 <= len(value) <= _LIST_MAX and all(_scalar(item) for item in value):
        return value
    raise ValueError(
        f"a value is true/false, a finite number, a text of at most {_SCALAR_TEXT_MAX} characters,"
        f" or a list of 1 to {_LIST_MAX} of those"
    )


_SCALAR_SCHEMA = {
    "anyOf": [{"type": "boolean"}, {"type": "number"}, {"type": "string", "maxLength": _SCALAR_TEXT_MAX}]
}
ConfigValue = Annotated[
    Scalar | list[Scalar],
    BeforeValidator(_config_value),
    WithJsonSchema(
        {
            "anyOf": [
                _SCALAR_SCHEMA,
                {"type": "array", "items": _SCALAR_SCHEMA, "minItems": 1, "maxItems": _LIST_MAX},
            ]
        }
    ),
]


class ConfigCondition(Model):
    """One configuration option compared with a value, e.g. ``num_mini_batches > 1``."""

    option: Annotated[str, Field(pattern=OPTION_PATTERN)] = Field(
        description="Config field, e.g. 'num_mini_batches'."
    )
    op: Operator = Field(description="Comparison: ==, !=, >, >=, <, <=, in, not in.")
    value: ConfigValue = Field(description="The value compared with (a list for 'in' and 'not in').")

    @model_validator(mode="after")
    def _fits(self) -> ConfigCondition:
        listed = isinstance(self.value, list)
        if self.op in ("in", "not in") and not listed:
            raise ValueError(f'\'{self.op}\' compares with a list of values, e.g. ["group", "none"]')
        if self.op not in ("in", "not in") and listed:
            raise ValueError(f"'{self.op}' compares with one value; use 'in' for a list")
        if self.op in (">", ">=", "<", "<=") and not _is_number(self.value):
            raise ValueError(f"'{self.op}' compares numbers; the value must be a number")
        return self

    def text(self) -> str:
        """``num_mini_batches > 1``, ``scale_rewards in ["group", "none"]``."""
        return f"{self.option} {self.op} {_show(self.value)}"

    def holds(self, config: Mapping[str, object]) -> bool | None:
        """Whether the run's ``config`` satisfies it; ``None`` when the option is not known."""
        if self.option not in config:
            return None
        actual = config[self.option]
        if self.op in ("in", "not in"):
            assert isinstance(self.value, list)
            found = any(_equal(actual, item) for item in self.value)
            return found if self.op == "in" else not found
        if self.op in ("==", "!="):
            same = _equal(actual, self.value)
            return same if self.op == "==" else not same
        if not _is_number(actual):
            return None  # a text where a number belongs: cannot tell
        a, b = float(actual), float(self.value)  # type: ignore[arg-type]
        return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[self.op]


class Condition(Model):
    """Releases and configuration values that must all hold (either part may be left out)."""

    versions: VersionRange | None = Field(
        default=None, description="Releases concerned (of the family's project, TRL by default)."
    )
    config: Annotated[list[ConfigCondition], Field(max_length=10)] = Field(
        default_factory=list, description="Configuration conditions; all must hold."
    )

    @model_validator(mode="after")
    def _not_empty(self) -> Condition:
        if self.versions is None and not self.config:
            raise ValueError("a condition needs 'versions', 'config' or both")
        return self

    def holds(self, facts: RunFacts) -> bool | None:
        """Whether a run with these ``facts`` meets the condition (``None``: cannot tell)."""
        parts: list[bool | None] = []
        if self.versions is not None:
            parts.append(None if facts.version is None else self.versions.contains(facts.version))
        parts += [c.holds(facts.config) for c in self.config]
        return all_of(parts)


class RunFacts:
    """What is known about a run: its release (of the family's project) and configuration values."""

    def __init__(self, version: str | None = None, config: Mapping[str, object] | None = None) -> None:
        self.version = version
        self.config: Mapping[str, object] = dict(config or {})

    def __repr__(self) -> str:
        return f"RunFacts(version={self.version!r}, config={dict(self.config)!r})"


def all_of(parts: Iterable[bool | None]) -> bool | None:
    """Kleene's ``and``: ``False`` if any part is, ``True`` if all are, else ``None``.

    >>> all_of([True, None]), all_of([False, None]), all_of([True, True])
    (None, False, True)
    """
    result: bool | None = True
    for part in parts:
        if part is False:
            return False
        if part is None:
            result = None
    return result


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$")


def parse_config_value(text: str) -> bool | int | float | str:
    """A value given on the command line: ``true``/``false``, a number, else the text (quotes removed).

    >>> parse_config_value("2"), parse_config_value("0.05"), parse_config_value("True")
    (2, 0.05, True)
    >>> parse_config_value('"group"'), parse_config_value("none")
    ('group', 'none')
    """
    stripped = text.strip()
    if stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    if _NUMBER.match(stripped):
        number = float(stripped)
        if math.isfinite(number):
            return int(stripped) if re.fullmatch(r"[+-]?\d+", stripped) else number
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
        return stripped[1:-1]
    return stripped


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _equal(actual: object, expected: object) -> bool:
    if _is_number(actual) and _is_number(expected):
        return float(actual) == float(expected)  # type: ignore[arg-type]
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    return str(actual) == str(expected)


def _show(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(item) for item in value) + "]"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return f'"{value}"'
    return f"{value:g}" if isinstance(value, float) else str(value)

"""Each kind of healthy rule over a series, at its thresholds (metrics_registry.runs.rules)."""

from __future__ import annotations

import math

import pytest

from metrics_registry.models import ConstantRule, DirectionRule, FiniteRule, RangeRule, SpikeRule
from metrics_registry.runs.log import Point
from metrics_registry.runs.rules import Thresholds, evaluate


def series(values: list[float], start: int = 1) -> list[Point]:
    return [Point(float(step), value) for step, value in enumerate(values, start=start)]


def band(severity: str = "warning", low: float | None = 0.0, high: float | None = 0.2) -> RangeRule:
    return RangeRule(id="band", kind="range", min=low, max=high, severity=severity, suggests="s")


def test_finite_points_at_the_first_nan_and_counts_infinities() -> None:
    rule = FiniteRule(id="finite", kind="finite", suggests="s")
    violation = evaluate(rule, series([1.0, 2.0, math.inf, 3.0, math.nan]))
    assert violation is not None
    assert (violation.reason, violation.step, violation.steps) == ("non-finite", 3, (3, 5))
    assert evaluate(rule, series([1.0, 2.0])) is None


def test_error_range_fires_on_a_single_point() -> None:
    values = [0.1] * 30
    values[11] = -0.01
    violation = evaluate(band("error", 0.0, None), series(values))
    assert violation is not None
    assert (violation.reason, violation.step, violation.figures["count"]) == ("outside", 12, 1)
    # the same single point is tolerated by a warning rule
    assert evaluate(band("warning", 0.0, None), series(values)) is None


def test_warning_range_fires_from_a_fifth_of_the_points() -> None:
    ten_percent = [0.5 if i % 10 == 0 else 0.1 for i in range(50)]  # first at step 1
    assert evaluate(band(), series(ten_percent)) is None
    twenty_percent = [0.5 if i % 5 == 0 else 0.1 for i in range(50)]
    violation = evaluate(band(), series(twenty_percent))
    assert violation is not None
    assert (violation.reason, violation.step, violation.figures["count"]) == ("outside", 1, 10)
    assert violation.figures["value"] == 0.5


def test_warning_range_fires_when_the_run_ends_outside() -> None:
    values = [0.1] * 45 + [0.9] * 5
    violation = evaluate(band(), series(values))
    assert violation is not None
    assert (violation.reason, violation.step, violation.figures["last"]) == ("outside-at-end", 46, 5)
    assert evaluate(band(), series([0.1] * 46 + [0.9] * 4)) is None


def test_range_tolerates_float32_storage_of_the_bound() -> None:
    as_float32 = 0.20000000298023224  # what TensorBoard gives back for 0.2
    assert evaluate(band("error"), series([as_float32] * 5)) is None
    assert evaluate(band("error"), series([0.2001] * 5)) is not None


def test_range_ignores_non_finite_values() -> None:
    assert evaluate(band("error"), series([math.nan, 0.1, math.inf])) is None


@pytest.mark.parametrize(
    ("direction", "values", "fires"),
    [
        ("increase", [0.2 + 0.01 * s + 0.02 * math.sin(1.7 * s) for s in range(50)], False),
        ("increase", [0.5 + 0.02 * math.sin(1.7 * s) for s in range(50)], True),  # flat
        ("increase", [0.5] * 50, True),
        ("increase", [1.0 - 0.01 * s for s in range(50)], True),
        ("decrease", [1.0 - 0.01 * s for s in range(50)], False),
        ("decrease", [0.5 + 0.02 * math.sin(1.7 * s) for s in range(50)], True),
        ("stable", [0.9 - 0.001 * s + 0.01 * math.sin(1.7 * s) for s in range(50)], False),
        ("stable", [1.0 - 0.019 * s for s in range(50)], True),  # collapses to ~0.07
        ("stable", [0.1 + 0.019 * s for s in range(50)], True),
    ],
)
def test_direction(direction: str, values: list[float], fires: bool) -> None:
    rule = DirectionRule(id="d", kind="direction", direction=direction, suggests="s")
    violation = evaluate(rule, series(values))
    assert (violation is not None) == fires
    if violation is not None:
        assert (violation.reason, violation.step) == ("trend", 1)


def test_direction_is_robust_to_outliers_and_needs_ten_points() -> None:
    rule = DirectionRule(id="d", kind="direction", direction="increase", suggests="s")
    rising = [0.01 * s for s in range(50)]
    rising[10] = rising[20] = -100.0  # two crashes do not turn a rising trend
    assert evaluate(rule, series(rising)) is None
    assert evaluate(rule, series([0.5] * 9)) is None


def test_direction_fit_is_subsampled_on_long_series() -> None:
    rule = DirectionRule(id="d", kind="direction", direction="increase", suggests="s")
    assert evaluate(rule, series([0.001 * s for s in range(20_000)])) is None


def test_spike_against_the_running_median() -> None:
    rule = SpikeRule(id="spike", kind="spike", factor=10, suggests="s")
    values = [1.0 + 0.1 * math.sin(s) for s in range(40)]
    values[30] = 50.0
    violation = evaluate(rule, series(values))
    assert violation is not None
    assert (violation.reason, violation.step, violation.figures["count"]) == ("spike", 31, 1)
    assert violation.figures["ratio"] > 40
    values[30] = 9.0  # below 10x
    assert evaluate(rule, series(values)) is None


def test_spike_needs_history_and_a_non_zero_median() -> None:
    rule = SpikeRule(id="spike", kind="spike", factor=10, suggests="s")
    assert evaluate(rule, series([1.0, 1.0, 1.0, 1.0, 100.0])) is None  # only 4 points before
    assert evaluate(rule, series([0.0] * 10 + [5.0])) is None  # median 0: no ratio
    assert evaluate(rule, series([1.0] * 5 + [math.nan, 100.0])) is not None  # NaN skipped
    custom = Thresholds(spike_min_history=2)
    assert evaluate(rule, series([1.0, 1.0, 100.0]), custom) is not None


def test_not_constant() -> None:
    stuck_at_zero = ConstantRule(id="c", kind="not_constant", value=0.0, suggests="s")
    any_constant = ConstantRule(id="c", kind="not_constant", suggests="s")
    violation = evaluate(stuck_at_zero, series([0.0] * 10, start=0))
    assert violation is not None
    assert (violation.reason, violation.step, violation.figures["value"]) == ("stuck", 0, 0.0)
    assert evaluate(stuck_at_zero, series([0.5] * 10)) is None
    assert evaluate(any_constant, series([0.5] * 10)) is not None
    assert evaluate(any_constant, series([0.5] * 9 + [0.6])) is None
    assert evaluate(any_constant, series([0.5, 0.5])) is None  # too short to tell


def test_unknown_rule_kind_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        evaluate(object(), series([1.0]))

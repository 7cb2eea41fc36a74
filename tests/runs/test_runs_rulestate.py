"""Rule states fed a point at a time: the cheap live answer agrees with the exact one (runs.rulestate)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_registry.models import ConstantRule, DirectionRule, FiniteRule, RangeRule, SpikeRule
from metrics_registry.runs.log import Point
from metrics_registry.runs.rules import evaluate
from metrics_registry.runs.rulestate import DirectionState, new_state

RULES = [
    FiniteRule(id="f", kind="finite", suggests="s"),
    RangeRule(id="r", kind="range", min=0, max=0.5, suggests="s"),
    RangeRule(id="r", kind="range", max=0.5, severity="error", suggests="s"),
    SpikeRule(id="s", kind="spike", factor=3, suggests="s"),
    ConstantRule(id="c", kind="not_constant", suggests="s"),
    ConstantRule(id="c", kind="not_constant", value=0, suggests="s"),
]

values = st.lists(
    st.one_of(
        st.sampled_from([0.0, 0.1, 0.5, 0.6, 5.0, -0.1, math.nan, math.inf]),
        st.floats(-2, 2, allow_nan=False),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(values)
def test_after_every_point_fired_and_violation_agree_with_evaluate_on_the_prefix(series: list[float]) -> None:
    points = [Point(float(step), value) for step, value in enumerate(series, start=1)]
    for rule in RULES:
        state = new_state(rule)
        for count, point in enumerate(points, start=1):
            state.add(point)
            expected = evaluate(rule, points[:count])
            assert state.fired() == (expected is not None)
            assert repr(state.violation()) == repr(expected)


def test_a_direction_rule_is_judged_live_each_time_its_series_doubles() -> None:
    """Flat for 10 points (an `increase` rule fires), then rising: fired() changes its answer at 20 points."""
    rule = DirectionRule(id="d", kind="direction", direction="increase", suggests="s")
    state = new_state(rule)
    assert isinstance(state, DirectionState)
    answers = {}
    for step in range(1, 41):
        state.add(Point(float(step), 0.5 if step <= 10 else 0.5 + 0.1 * (step - 10)))
        answers[step] = state.fired()
    assert [answers[s] for s in (9, 10, 15, 19)] == [False, True, True, True]  # judged at 10, kept
    assert answers[20] is False  # judged again at 20 points: now rising
    # between two judgements the exact answer is always there
    points = [Point(float(s), 0.5 if s <= 10 else 0.5 + 0.1 * (s - 10)) for s in range(1, 16)]
    assert evaluate(rule, points) is None

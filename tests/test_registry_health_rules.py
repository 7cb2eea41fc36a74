"""Healthy rules for entropy collapse and clip fractions: present, and firing on the runs they describe."""

from __future__ import annotations

import math

import pytest

from metrics_registry import Registry
from metrics_registry.models import DirectionRule, RangeRule
from metrics_registry.runs.log import Point
from metrics_registry.runs.rules import evaluate

STEPS = range(1, 51)


def series(function: object) -> list[Point]:
    return [Point(step, function(step)) for step in STEPS]  # type: ignore[operator]


def wobble(step: int, size: float) -> float:
    return size * math.sin(1.7 * step)


def rule(registry: Registry, family: str, key: str, rule_id: str) -> object:
    metric = registry.lookup(key, family=family).entry.metric  # type: ignore[union-attr]
    matches = [r for r in metric.healthy if r.id == rule_id]
    assert len(matches) == 1, f"{family}:{key} has no rule {rule_id!r}"
    return matches[0]


@pytest.mark.parametrize(
    ("family", "key", "rule_id", "expected"),
    [
        ("ppo", "policy/entropy_avg", "no-collapse", ("direction", "stable")),
        ("ppo", "policy/entropy_avg", "not-near-zero", ("range", 0.05, None)),
        ("ppo", "objective/entropy", "no-collapse", ("direction", "stable")),
        ("legacy-ppo", "objective/entropy", "no-collapse", ("direction", "stable")),
        ("ppo", "val/clipfrac_avg", "not-too-high", ("range", None, 0.4)),
        ("grpo", "clip_ratio", "small", ("range", 0, 0.2)),
        ("grpo", "cispo_clip_ratio", "small", ("range", 0, 0.1)),
        # already there before; the new ones follow them
        ("grpo", "clip_ratio/region_mean", "small", ("range", 0, 0.2)),
        ("grpo", "clip_ratio/low_mean", "small", ("range", 0, 0.2)),
        ("grpo", "clip_ratio/high_mean", "small", ("range", 0, 0.2)),
    ],
)
def test_rule_is_registered(registry: Registry, family: str, key: str, rule_id: str, expected: tuple) -> None:
    found = rule(registry, family, key, rule_id)
    assert found.severity == "warning"  # type: ignore[attr-defined]
    if isinstance(found, DirectionRule):
        assert (found.kind, found.direction) == expected
    else:
        assert isinstance(found, RangeRule)
        assert (found.kind, found.min, found.max) == expected


def test_entropy_collapse_is_flagged(registry: Registry) -> None:
    collapsing = series(lambda s: 1.0 * 0.9 ** (s - 1))  # 1.0 nats down to ~0.006
    healthy = series(lambda s: 0.6 + wobble(s, 0.03))
    for rule_id in ("no-collapse", "not-near-zero"):
        check = rule(registry, "ppo", "policy/entropy_avg", rule_id)
        assert evaluate(check, collapsing) is not None, rule_id
        assert evaluate(check, healthy) is None, rule_id
    summed = rule(registry, "ppo", "objective/entropy", "no-collapse")
    assert evaluate(summed, series(lambda s: 60.0 - 1.1 * s)) is not None
    assert evaluate(summed, series(lambda s: 50.0 + wobble(s, 1.0))) is None
    legacy = rule(registry, "legacy-ppo", "objective/entropy", "no-collapse")
    assert evaluate(legacy, series(lambda s: 40.0 - 0.7 * s)) is not None
    assert evaluate(legacy, series(lambda s: 30.0 + wobble(s, 1.0))) is None


def test_low_but_steady_entropy_only_warns_below_the_floor(registry: Registry) -> None:
    floor = rule(registry, "ppo", "policy/entropy_avg", "not-near-zero")
    assert evaluate(floor, series(lambda s: 0.12 + wobble(s, 0.01))) is None
    violation = evaluate(floor, series(lambda s: 0.12 if s <= 40 else 0.02))
    assert violation is not None and violation.step == 41


@pytest.mark.parametrize(
    ("family", "key", "rule_id", "high"),
    [
        ("ppo", "val/clipfrac_avg", "not-too-high", 0.6),
        ("grpo", "clip_ratio", "small", 0.35),
        ("grpo", "cispo_clip_ratio", "small", 0.25),
    ],
)
def test_persistent_clipping_is_flagged(
    registry: Registry, family: str, key: str, rule_id: str, high: float
) -> None:
    check = rule(registry, family, key, rule_id)
    assert evaluate(check, series(lambda s: 0.05 + wobble(s, 0.005))) is None
    violation = evaluate(check, series(lambda s: 0.05 if s <= 20 else high))
    assert violation is not None and violation.reason == "outside" and violation.step == 21
    # a short burst at the start (the value model catching up) is not persistent
    assert evaluate(check, series(lambda s: high if s <= 5 else 0.05)) is None

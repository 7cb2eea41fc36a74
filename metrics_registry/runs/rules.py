"""How each kind of ``healthy`` rule is evaluated over a logged series.

A series is the values one key took over a run, in logging order, each at
its step. Every kind is judged on the whole series; the numbers that decide
are in :class:`Thresholds` (the defaults below), so one place says when a
rule fires. The rule's ``severity`` (``warning`` or ``error``) is the
severity of the finding.

``finite``
    Fires when any value is NaN or infinite. The finding points at the first
    such step and counts them.

``range`` (``min`` and/or ``max``)
    Only finite values count; a value is outside when it is beyond a bound
    by more than a relative ``tolerance`` (``1e-6``: TensorBoard stores
    float32, so ``0.2`` reads back as ``0.20000000298``).

    - ``error`` rules describe values that cannot occur in a correct run (a
      negative k3 KL, a fraction above 1): a single point outside fires.
    - ``warning`` rules describe values that drift: the rule fires when at
      least ``range_fraction`` (20 %) of the points are outside, or when the
      last ``window`` (5) points are all outside, i.e. the run ends
      unhealthy. The finding points at the first point outside, or, when
      only the end of the run is outside, at the start of that last stretch.

``direction`` (``increase``, ``decrease``, ``stable``)
    A robust straight-line fit over the run: the Theil–Sen slope (the median
    of the slopes between every pair of points, on at most
    ``direction_max_points`` (200) evenly spaced points), so that a few
    outliers do not turn the trend. From it, ``change`` is the fitted change
    from the first to the last step and ``noise`` the robust spread of the
    points around the line (1.4826 × the median absolute deviation of the
    residuals). Needs ``direction_min_points`` (10) finite points.

    - ``increase`` fires when ``change <= noise``: over the whole run the
      value rose by no more than its own noise (flat or falling).
    - ``decrease`` fires when ``change >= -noise``.
    - ``stable`` fires when ``|change|`` is larger than both
      ``stable_noise`` (3) × ``noise`` and ``stable_relative`` (0.5) × the
      series' typical magnitude (the median of ``|value|``): a steady move
      of half its own size, such as an entropy collapsing towards 0.

    The finding points at the first step of the series.

``spike`` (``factor``)
    A point is a spike when ``|value|`` is more than ``factor`` × the
    running median of ``|value|`` over the previous ``spike_history`` (20)
    finite points; no spike is called before ``spike_min_history`` (5)
    points, nor against a running median of 0. The finding points at the
    first spike and counts them.

``not_constant`` (optional ``value``)
    Fires when every finite value of the run equals ``value`` (or, without
    a ``value``, equals the first one), within the same tolerance; needs
    ``not_constant_min_points`` (3) finite points. The finding points at the
    first step.

A rule whose kind needs more points than the series has is skipped (the
report counts series checked, not findings only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import median
from typing import Literal

from metrics_registry.models import ConstantRule, DirectionRule, FiniteRule, RangeRule, SpikeRule
from metrics_registry.runs.log import Point

__all__ = ["Thresholds", "Violation", "evaluate", "non_finite"]

Reason = Literal["non-finite", "outside", "outside-at-end", "trend", "spike", "stuck"]


@dataclass(frozen=True)
class Thresholds:
    """The numbers that decide when a rule fires (see the module docstring)."""

    tolerance: float = 1e-6
    range_fraction: float = 0.2
    window: int = 5
    direction_min_points: int = 10
    direction_max_points: int = 200
    stable_noise: float = 3.0
    stable_relative: float = 0.5
    spike_history: int = 20
    spike_min_history: int = 5
    not_constant_min_points: int = 3


@dataclass(frozen=True)
class Violation:
    """A rule that fired on a series: why, where first, and the figures behind it.

    ``figures`` holds what the report quotes, by name: ``count`` and
    ``total`` (points concerned / points judged), ``value`` (the worst or
    first offending value), ``median`` and ``ratio`` (spikes), ``change`` and
    ``noise`` and ``level`` (direction), ``last`` (trailing points outside).
    """

    reason: Reason
    step: float
    steps: tuple[float, ...]
    figures: dict[str, float] = field(default_factory=dict)


def _close(a: float, b: float, tolerance: float) -> bool:
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def _finite(points: list[Point]) -> list[Point]:
    return [p for p in points if math.isfinite(p.value)]


def non_finite(points: list[Point]) -> Violation | None:
    """The NaN and infinite values of a series, as a ``finite`` rule would report them."""
    bad = [p for p in points if not math.isfinite(p.value)]
    if not bad:
        return None
    return Violation(
        "non-finite",
        bad[0].step,
        tuple(p.step for p in bad),
        {"count": len(bad), "total": len(points), "value": bad[0].value},
    )


def _check_range(rule: RangeRule, points: list[Point], t: Thresholds) -> Violation | None:
    values = _finite(points)
    if not values:
        return None

    def outside(value: float) -> bool:
        low = rule.min is not None and value < rule.min and not _close(value, rule.min, t.tolerance)
        high = rule.max is not None and value > rule.max and not _close(value, rule.max, t.tolerance)
        return low or high

    flags = [outside(p.value) for p in values]
    bad = [p for p, flag in zip(values, flags, strict=True) if flag]
    if not bad:
        return None
    trailing = 0
    for flag in reversed(flags):
        if not flag:
            break
        trailing += 1

    def distance(value: float) -> float:
        below = rule.min - value if rule.min is not None else -math.inf
        above = value - rule.max if rule.max is not None else -math.inf
        return max(below, above)

    worst = max(bad, key=lambda p: distance(p.value)).value
    figures = {"count": len(bad), "total": len(values), "value": worst, "last": trailing}
    steps = tuple(p.step for p in bad)
    if rule.severity == "error" or len(bad) >= t.range_fraction * len(values):
        return Violation("outside", bad[0].step, steps, figures)
    if len(values) >= t.window and trailing >= t.window:
        return Violation("outside-at-end", values[len(values) - trailing].step, steps, figures)
    return None


def _theil_sen(points: list[Point], max_points: int) -> tuple[float, float]:
    """Slope and intercept of the Theil–Sen fit of value against step."""
    if len(points) > max_points:
        stride = (len(points) - 1) / (max_points - 1)
        points = [points[round(i * stride)] for i in range(max_points)]
    slopes = [
        (b.value - a.value) / (b.step - a.step)
        for i, a in enumerate(points)
        for b in points[i + 1 :]
        if b.step != a.step
    ]
    slope = median(slopes) if slopes else 0.0
    intercept = median(p.value - slope * p.step for p in points)
    return slope, intercept


def _check_direction(rule: DirectionRule, points: list[Point], t: Thresholds) -> Violation | None:
    values = _finite(points)
    if len(values) < t.direction_min_points:
        return None
    slope, intercept = _theil_sen(values, t.direction_max_points)
    first, last = min(p.step for p in values), max(p.step for p in values)
    change = slope * (last - first)
    residuals = [p.value - (intercept + slope * p.step) for p in values]
    centre = median(residuals)
    noise = 1.4826 * median(abs(r - centre) for r in residuals)
    level = median(abs(p.value) for p in values)
    figures = {"change": change, "noise": noise, "level": level, "total": len(values)}
    if rule.direction == "increase":
        fired = change <= noise
    elif rule.direction == "decrease":
        fired = change >= -noise
    else:
        fired = abs(change) > max(t.stable_noise * noise, t.stable_relative * level)
    if not fired:
        return None
    return Violation("trend", values[0].step, (values[0].step, values[-1].step), figures)


def _check_spike(rule: SpikeRule, points: list[Point], t: Thresholds) -> Violation | None:
    values = _finite(points)
    spikes: list[tuple[Point, float]] = []
    for index in range(t.spike_min_history, len(values)):
        history = [abs(p.value) for p in values[max(0, index - t.spike_history) : index]]
        running = median(history)
        if running > 0 and abs(values[index].value) > rule.factor * running:
            spikes.append((values[index], running))
    if not spikes:
        return None
    first, running = spikes[0]
    worst, worst_median = max(spikes, key=lambda s: abs(s[0].value) / s[1])
    return Violation(
        "spike",
        first.step,
        tuple(p.step for p, _ in spikes),
        {
            "count": len(spikes),
            "total": len(values),
            "value": first.value,
            "median": running,
            "ratio": abs(first.value) / running,
            "worst": worst.value,
            "worst_ratio": abs(worst.value) / worst_median,
        },
    )


def _check_constant(rule: ConstantRule, points: list[Point], t: Thresholds) -> Violation | None:
    values = _finite(points)
    if len(values) < t.not_constant_min_points:
        return None
    stuck = rule.value if rule.value is not None else values[0].value
    if not all(_close(p.value, stuck, t.tolerance) for p in values):
        return None
    return Violation(
        "stuck",
        values[0].step,
        (values[0].step, values[-1].step),
        {"value": stuck, "count": len(values), "total": len(values)},
    )


def evaluate(rule: object, points: list[Point], thresholds: Thresholds | None = None) -> Violation | None:
    """The violation of ``rule`` on the series ``points``, or ``None`` when it holds (or cannot be judged).

    >>> from metrics_registry.models import RangeRule
    >>> rule = RangeRule(id="small", kind="range", min=0, max=0.2, suggests="...")
    >>> series = [Point(step, value) for step, value in enumerate([0.1, 0.1, 0.5, 0.6, 0.7])]
    >>> violation = evaluate(rule, series)
    >>> violation.reason, violation.step, violation.figures["count"]
    ('outside', 2, 3)
    """
    t = thresholds or Thresholds()
    if isinstance(rule, FiniteRule):
        return non_finite(points)
    if isinstance(rule, RangeRule):
        return _check_range(rule, points, t)
    if isinstance(rule, DirectionRule):
        return _check_direction(rule, points, t)
    if isinstance(rule, SpikeRule):
        return _check_spike(rule, points, t)
    if isinstance(rule, ConstantRule):
        return _check_constant(rule, points, t)
    raise TypeError(f"unknown healthy rule {rule!r}")

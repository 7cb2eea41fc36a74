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

Each kind is one :class:`RuleState`, fed a point at a time: ``check-run``
feeds it a whole series (:func:`evaluate`), the live monitor
(:mod:`metrics_registry.integrations.monitor`) the points as a run logs
them, so a rule means the same thing in both. Feeding a point costs
constant work (a spike's running median is over at most ``spike_history``
values). :meth:`RuleState.fired` says whether the rule fires on the points
fed so far, in constant work too, except for ``direction``: its fit and its
noise are medians over the whole series, which no constant-size state
gives exactly, so :meth:`DirectionState.fired` judges again only each time
the series has doubled (constant work per point on average) and answers
from that judgement in between; :meth:`RuleState.violation` is always exact.
"""

from __future__ import annotations

import math
from array import array
from collections import deque
from dataclasses import dataclass, field
from statistics import median
from typing import Literal

from metrics_registry.models import ConstantRule, DirectionRule, FiniteRule, RangeRule, SpikeRule
from metrics_registry.runs.log import Point

__all__ = [
    "ConstantState",
    "DirectionState",
    "FiniteState",
    "RangeState",
    "RuleState",
    "SpikeState",
    "Thresholds",
    "Violation",
    "evaluate",
    "new_state",
    "non_finite",
]

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


class RuleState:
    """What a rule needs to remember of a series to judge it, fed one point at a time."""

    def add(self, point: Point) -> None:
        raise NotImplementedError

    def fired(self) -> bool:
        """Whether the rule fires on the points fed so far (cheap; see the module docstring)."""
        return self.violation() is not None

    def violation(self) -> Violation | None:
        """The violation on the points fed so far, or ``None`` when the rule holds or cannot judge yet."""
        raise NotImplementedError


class FiniteState(RuleState):
    """``finite``, and the NaN and infinite values of any series."""

    def __init__(self) -> None:
        self.total = 0
        self.bad: list[float] = []  # the steps of the non-finite values
        self.first = math.nan

    def add(self, point: Point) -> None:
        self.total += 1
        if not math.isfinite(point.value):
            if not self.bad:
                self.first = point.value
            self.bad.append(point.step)

    def fired(self) -> bool:
        return bool(self.bad)

    def violation(self) -> Violation | None:
        if not self.bad:
            return None
        figures = {"count": len(self.bad), "total": self.total, "value": self.first}
        return Violation("non-finite", self.bad[0], tuple(self.bad), figures)


class RangeState(RuleState):
    def __init__(self, rule: RangeRule, thresholds: Thresholds) -> None:
        self.rule, self.t = rule, thresholds
        self.total = 0  # finite points
        self.bad: list[float] = []  # steps of the points outside
        self.worst = self.worst_distance = math.nan
        self.trailing = 0  # points outside at the end
        self.trailing_start: float = math.nan  # the step where that stretch starts

    def _outside(self, value: float) -> bool:
        rule, tolerance = self.rule, self.t.tolerance
        low = rule.min is not None and value < rule.min and not _close(value, rule.min, tolerance)
        high = rule.max is not None and value > rule.max and not _close(value, rule.max, tolerance)
        return low or high

    def _distance(self, value: float) -> float:
        below = self.rule.min - value if self.rule.min is not None else -math.inf
        above = value - self.rule.max if self.rule.max is not None else -math.inf
        return max(below, above)

    def add(self, point: Point) -> None:
        value = point.value
        if not math.isfinite(value):
            return
        self.total += 1
        if not self._outside(value):
            self.trailing = 0
            return
        distance = self._distance(value)
        if not self.bad or distance > self.worst_distance:  # the first of equally bad values
            self.worst, self.worst_distance = value, distance
        self.bad.append(point.step)
        if self.trailing == 0:
            self.trailing_start = point.step
        self.trailing += 1

    def _reason(self) -> Reason | None:
        count, t = len(self.bad), self.t
        if not count:
            return None
        if self.rule.severity == "error" or count >= t.range_fraction * self.total:
            return "outside"
        if self.total >= t.window and self.trailing >= t.window:
            return "outside-at-end"
        return None

    def fired(self) -> bool:
        return self._reason() is not None

    def violation(self) -> Violation | None:
        reason = self._reason()
        if reason is None:
            return None
        figures = {"count": len(self.bad), "total": self.total, "value": self.worst, "last": self.trailing}
        step = self.bad[0] if reason == "outside" else self.trailing_start
        return Violation(reason, step, tuple(self.bad), figures)


def _theil_sen(steps: list[float], values: list[float], max_points: int) -> tuple[float, float]:
    """Slope and intercept of the Theil–Sen fit of value against step."""
    if len(steps) > max_points:
        stride = (len(steps) - 1) / (max_points - 1)
        picked = [round(i * stride) for i in range(max_points)]
        steps, values = [steps[i] for i in picked], [values[i] for i in picked]
    slopes = [
        (values[j] - values[i]) / (steps[j] - steps[i])
        for i in range(len(steps))
        for j in range(i + 1, len(steps))
        if steps[j] != steps[i]
    ]
    slope = median(slopes) if slopes else 0.0
    intercept = median(v - slope * s for s, v in zip(steps, values, strict=True))
    return slope, intercept


class DirectionState(RuleState):
    """Keeps the finite points (16 bytes each): the fit is over the whole series."""

    def __init__(self, rule: DirectionRule, thresholds: Thresholds) -> None:
        self.rule, self.t = rule, thresholds
        self.steps = array("d")
        self.values = array("d")
        self.first_step: float = math.nan
        self.last_step: float = math.nan
        self._judged_at = -1  # how many points the cached judgement saw
        self._judged: Violation | None = None
        self._next_judgement = max(1, thresholds.direction_min_points)

    def add(self, point: Point) -> None:
        if not math.isfinite(point.value):
            return
        if not self.steps:
            self.first_step = point.step
        self.last_step = point.step
        self.steps.append(point.step)
        self.values.append(point.value)

    def fired(self) -> bool:
        count = len(self.steps)
        if count >= self._next_judgement:
            self._next_judgement = 2 * count
            self.violation()
        return self._judged is not None

    def violation(self) -> Violation | None:
        count = len(self.steps)
        if count != self._judged_at:
            self._judged_at, self._judged = count, self._judge()
        return self._judged

    def _judge(self) -> Violation | None:
        t, steps, values = self.t, list(self.steps), list(self.values)
        if len(steps) < t.direction_min_points:
            return None
        slope, intercept = _theil_sen(steps, values, t.direction_max_points)
        change = slope * (max(steps) - min(steps))
        residuals = [v - (intercept + slope * s) for s, v in zip(steps, values, strict=True)]
        centre = median(residuals)
        noise = 1.4826 * median(abs(r - centre) for r in residuals)
        level = median(abs(v) for v in values)
        figures = {"change": change, "noise": noise, "level": level, "total": len(values)}
        direction = self.rule.direction
        if direction == "increase":
            fired = change <= noise
        elif direction == "decrease":
            fired = change >= -noise
        else:
            fired = abs(change) > max(t.stable_noise * noise, t.stable_relative * level)
        if not fired:
            return None
        return Violation("trend", self.first_step, (self.first_step, self.last_step), figures)


class SpikeState(RuleState):
    def __init__(self, rule: SpikeRule, thresholds: Thresholds) -> None:
        self.rule, self.t = rule, thresholds
        self.history: deque[float] = deque(maxlen=thresholds.spike_history)  # |value| of the last points
        self.total = 0  # finite points
        self.spikes: list[float] = []  # their steps
        self.first: tuple[float, float] = (math.nan, math.nan)  # value, running median
        self.worst: tuple[float, float] = (math.nan, math.nan)

    def add(self, point: Point) -> None:
        value = point.value
        if not math.isfinite(value):
            return
        size = abs(value)
        if self.total >= self.t.spike_min_history:
            running = median(self.history)
            if running > 0 and size > self.rule.factor * running:
                if not self.spikes:
                    self.first = self.worst = (value, running)
                elif size / running > abs(self.worst[0]) / self.worst[1]:  # the first of equal ratios
                    self.worst = (value, running)
                self.spikes.append(point.step)
        self.history.append(size)
        self.total += 1

    def fired(self) -> bool:
        return bool(self.spikes)

    def violation(self) -> Violation | None:
        if not self.spikes:
            return None
        (value, running), (worst, worst_median) = self.first, self.worst
        figures = {
            "count": len(self.spikes),
            "total": self.total,
            "value": value,
            "median": running,
            "ratio": abs(value) / running,
            "worst": worst,
            "worst_ratio": abs(worst) / worst_median,
        }
        return Violation("spike", self.spikes[0], tuple(self.spikes), figures)


class ConstantState(RuleState):
    def __init__(self, rule: ConstantRule, thresholds: Thresholds) -> None:
        self.rule, self.t = rule, thresholds
        self.total = 0  # finite points
        self.stuck = math.nan  # the value every point equals so far
        self.constant = True
        self.first_step: float = math.nan
        self.last_step: float = math.nan

    def add(self, point: Point) -> None:
        value = point.value
        if not math.isfinite(value):
            return
        if self.total == 0:
            self.first_step = point.step
            self.stuck = self.rule.value if self.rule.value is not None else value
        self.total += 1
        self.last_step = point.step
        if self.constant and not _close(value, self.stuck, self.t.tolerance):
            self.constant = False

    def fired(self) -> bool:
        return self.constant and self.total >= self.t.not_constant_min_points

    def violation(self) -> Violation | None:
        if not self.fired():
            return None
        figures = {"value": self.stuck, "count": self.total, "total": self.total}
        return Violation("stuck", self.first_step, (self.first_step, self.last_step), figures)


def new_state(rule: object, thresholds: Thresholds | None = None) -> RuleState:
    """An empty state for ``rule``; a :class:`TypeError` for an unknown kind of rule."""
    t = thresholds or Thresholds()
    if isinstance(rule, FiniteRule):
        return FiniteState()
    if isinstance(rule, RangeRule):
        return RangeState(rule, t)
    if isinstance(rule, DirectionRule):
        return DirectionState(rule, t)
    if isinstance(rule, SpikeRule):
        return SpikeState(rule, t)
    if isinstance(rule, ConstantRule):
        return ConstantState(rule, t)
    raise TypeError(f"unknown healthy rule {rule!r}")


def non_finite(points: list[Point]) -> Violation | None:
    """The NaN and infinite values of a series, as a ``finite`` rule would report them."""
    state = FiniteState()
    for point in points:
        state.add(point)
    return state.violation()


def evaluate(rule: object, points: list[Point], thresholds: Thresholds | None = None) -> Violation | None:
    """The violation of ``rule`` on the series ``points``, or ``None`` when it holds (or cannot be judged).

    >>> from metrics_registry.models import RangeRule
    >>> rule = RangeRule(id="small", kind="range", min=0, max=0.2, suggests="...")
    >>> series = [Point(step, value) for step, value in enumerate([0.1, 0.1, 0.5, 0.6, 0.7])]
    >>> violation = evaluate(rule, series)
    >>> violation.reason, violation.step, violation.figures["count"]
    ('outside', 2, 3)
    """
    state = new_state(rule, thresholds)
    for point in points:
        state.add(point)
    return state.violation()

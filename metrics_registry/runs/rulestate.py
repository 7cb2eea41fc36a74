"""The state each kind of healthy rule keeps of a series, fed one point at a time.

What each kind means, and why a state is built this way, is
:mod:`metrics_registry.runs.rules`'s docstring; this module is the one
implementation of each kind, used by ``check-run`` and the live monitor.
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
    "new_state",
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
        self.bad = array("d")  # the steps of the non-finite values (8 bytes each)
        self.first = math.nan
        self.first_step: float = math.nan  # as given (an int from TensorBoard stays one)

    def add(self, point: Point) -> None:
        self.total += 1
        if not math.isfinite(point.value):
            if not self.bad:
                self.first, self.first_step = point.value, point.step
            self.bad.append(point.step)

    def fired(self) -> bool:
        return bool(self.bad)

    def violation(self) -> Violation | None:
        if not self.bad:
            return None
        figures = {"count": len(self.bad), "total": self.total, "value": self.first}
        return Violation("non-finite", self.first_step, tuple(self.bad), figures)


class RangeState(RuleState):
    def __init__(self, rule: RangeRule, thresholds: Thresholds) -> None:
        self.rule, self.t = rule, thresholds
        self.total = 0  # finite points
        self.bad = array("d")  # steps of the points outside
        self.first_step: float = math.nan
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
        if not self.bad:
            self.first_step = point.step
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
        step = self.first_step if reason == "outside" else self.trailing_start
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
        self.spikes = array("d")  # their steps
        self.first_step: float = math.nan
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
                    self.first_step = point.step
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
        return Violation("spike", self.first_step, tuple(self.spikes), figures)


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

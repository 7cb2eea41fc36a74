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

Each kind is one :class:`~metrics_registry.runs.rulestate.RuleState` (in
:mod:`metrics_registry.runs.rulestate`), fed a point at a time: ``check-run``
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

from metrics_registry.runs.log import Point
from metrics_registry.runs.rulestate import (
    ConstantState,
    DirectionState,
    FiniteState,
    RangeState,
    RuleState,
    SpikeState,
    Thresholds,
    Violation,
    new_state,
)

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

"""`check(capture, logged, family=...)`: one result per logged key, with a diagnosis when it disagrees.

For each logged key with a reference, the kit recomputes the value from the
capture. If the logged value agrees (within the tolerance of the capture's
dtype) the result says so; if not, every hypothesis of
[`hypotheses`][metrics_registry.conformance.hypotheses] is tested, and those
whose prediction matches the logged value, while differing from the
reference, become the diagnosis (the first by preference) and `also`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from metrics_registry.conformance.capture import StepCapture, close
from metrics_registry.conformance.hypotheses import HYPOTHESES, Context
from metrics_registry.conformance.metric import Metric, evaluate

__all__ = ["Result", "check", "check_value"]

Status = Literal["agrees", "disagrees", "no-reference", "not-in-capture"]


@dataclass(frozen=True)
class Result:
    """The verdict on one logged key."""

    key: str
    status: Status
    logged: float
    expected: float | None = None
    reference: str | None = None
    diagnosis: str | None = None
    explanation: str | None = None
    also: tuple[str, ...] = field(default_factory=tuple)
    missing: str | None = None

    @property
    def ok(self) -> bool:
        return self.status != "disagrees"

    def line(self) -> str:
        """One line for a terminal or an assertion message."""
        if self.status == "agrees":
            return f"{self.key}: agrees ({self.logged:.6g})"
        if self.status == "no-reference":
            return f"{self.key}: no reference, not checked"
        if self.status == "not-in-capture":
            return f"{self.key}: not checked, the capture lacks {self.missing}"
        cause = f"{self.diagnosis}: {self.explanation}" if self.diagnosis else "no hypothesis explains it"
        return f"{self.key}: logged {self.logged:.6g}, expected {self.expected:.6g} ({cause})"


def diagnose(metric: Metric, capture: StepCapture, logged: float, expected: float) -> list[tuple[str, str]]:
    """(name, explanation) of every hypothesis that explains `logged` and not `expected`, preferred first."""
    context = Context(metric=metric, capture=capture, reference=expected, logged=logged)
    found: list[tuple[str, str]] = []
    for name, test in HYPOTHESES.items():
        for explanation, predicted in test(context):
            if math.isnan(predicted) or close(predicted, expected, capture.dtype):
                continue  # indistinguishable from the reference on this capture
            if close(predicted, logged, capture.dtype):
                found.append((name, explanation))
                break
    return found


def check_value(capture: StepCapture, logged: float, metric: Metric) -> Result:
    """Check one logged value against `metric` (family-free: any `Metric`, e.g. from a spec)."""
    from metrics_registry.conformance.capture import CaptureError

    logged = float(logged)
    try:
        expected = evaluate(metric, capture)
    except CaptureError as error:
        return Result(metric.key, "not-in-capture", logged, reference=metric.reference, missing=str(error))
    except KeyError as error:
        return Result(metric.key, "not-in-capture", logged, reference=metric.reference, missing=str(error))
    if close(logged, expected, capture.dtype):
        return Result(metric.key, "agrees", logged, expected, metric.reference)
    found = diagnose(metric, capture, logged, expected)
    name, explanation = found[0] if found else (None, None)
    return Result(
        metric.key,
        "disagrees",
        logged,
        expected,
        metric.reference,
        diagnosis=name,
        explanation=explanation,
        also=tuple(other for other, _ in found[1:]),
    )


def check(
    capture: StepCapture,
    logged: Mapping[str, float],
    family: str = "grpo",
    version: str | None = None,
) -> list[Result]:
    """One result per key of `logged` (keys without a reference for `family` say so)."""
    from metrics_registry.conformance.families import metrics_for

    table = metrics_for(family, version, capture)
    results = []
    for key, value in logged.items():
        metric = table.get(key)
        if metric is None:
            results.append(Result(key, "no-reference", float(value)))
        else:
            results.append(check_value(capture, value, metric))
    return results

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from metrics_registry.conformance.capture import StepCapture, close
from metrics_registry.conformance.hypotheses import HYPOTHESES, Context
from metrics_registry.conformance.marks import N_
from metrics_registry.conformance.metric import Metric, evaluate

__all__ = ["Result", "check", "check_value"]


def _same(text: str) -> str:
    return text


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
    params: dict[str, object] = field(default_factory=dict)
    also: tuple[str, ...] = field(default_factory=tuple)
    missing: str | None = None

    @property
    def ok(self) -> bool:
        return self.status != "disagrees"

    def cause(self, gettext: Callable[[str], str] = _same) -> str | None:
        """The diagnosis explained, in the language of `gettext`; `None` when there is none."""
        if self.explanation is None:
            return None
        params = dict(self.params)
        if "what" in params:  # layout counts: "a × b | c", each name translated
            groups = str(params["what"]).split(" | ")
            params["what"] = " / ".join(" × ".join(gettext(part) for part in g.split(" × ")) for g in groups)
        return gettext(self.explanation) % params

    def line(self, gettext: Callable[[str], str] = _same) -> str:
        """One line for a terminal or an assertion message, in the language of `gettext`."""
        _ = gettext
        values = {"name": self.key, "logged": f"{self.logged:.6g}"}
        if self.status == "agrees":
            return _(N_("%(name)s: agrees (%(logged)s)")) % values
        if self.status == "no-reference":
            return _(N_("%(name)s: no reference, not checked")) % values
        if self.status == "not-in-capture":
            return _(N_("%(name)s: not checked, the capture lacks %(missing)s")) % {
                **values,
                "missing": self.missing,
            }
        explained = self.cause(gettext)
        cause = _(N_("no hypothesis explains it")) if explained is None else f"{self.diagnosis}: {explained}"
        expected = f"{self.expected:.6g}" if self.expected is not None else "?"
        return _(N_("%(name)s: logged %(logged)s, expected %(expected)s (%(cause)s)")) % {
            **values,
            "expected": expected,
            "cause": cause,
        }


def diagnose(
    metric: Metric, capture: StepCapture, logged: float, expected: float
) -> list[tuple[str, str, dict[str, object]]]:
    """(name, template, values) of each hypothesis explaining `logged`, not `expected`; preferred first."""
    context = Context(metric=metric, capture=capture, reference=expected, logged=logged)
    found: list[tuple[str, str, dict[str, object]]] = []
    for name, test in HYPOTHESES.items():
        try:
            for explanation, params, predicted in test(context):
                if math.isnan(predicted) or close(predicted, expected, capture.dtype):
                    continue  # indistinguishable from the reference on this capture
                if close(predicted, logged, capture.dtype):
                    found.append((name, explanation, params))
                    break
        except _UNFIT:
            continue  # a variant needs tensors this capture lacks or holds in other shapes
    return found


#: what torch raises on tensors that do not fit together (shapes, dtypes, indices) or a tensor missing
_UNFIT = (KeyError, RuntimeError, ValueError, IndexError, TypeError)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return (text.splitlines()[0] if text else type(error).__name__)[:160]


def check_value(capture: StepCapture, logged: float, metric: Metric) -> Result:
    """Check one logged value against `metric` (family-free: any `Metric`, e.g. from a spec)."""
    from metrics_registry.conformance.capture import CaptureError

    logged = float(logged)
    try:
        expected = evaluate(metric, capture)
    except CaptureError as error:
        return Result(metric.key, "not-in-capture", logged, reference=metric.reference, missing=str(error))
    except KeyError as error:  # a tensor the metric reads is not in the capture
        missing = f"tensor {error}"
        return Result(metric.key, "not-in-capture", logged, reference=metric.reference, missing=missing)
    except _UNFIT as error:  # a capture is untrusted: tensors whose shapes do not fit are named, not raised
        missing = f"tensors that fit together ({_first_line(error)})"
        return Result(metric.key, "not-in-capture", logged, reference=metric.reference, missing=missing)
    if close(logged, expected, capture.dtype):
        return Result(metric.key, "agrees", logged, expected, metric.reference)
    found = diagnose(metric, capture, logged, expected)
    name, template, params = found[0] if found else (None, None, {})
    return Result(
        metric.key,
        "disagrees",
        logged,
        expected,
        metric.reference,
        diagnosis=name,
        explanation=template,
        params=params,
        also=tuple(other for other, _, _ in found[1:]),
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

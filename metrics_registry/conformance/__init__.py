"""Conformance kit: check a trainer's logged metrics against the registry's references, with the cause named.

A trainer author captures what one optimizer step used
([`StepCapture`][metrics_registry.conformance.capture.StepCapture]) and
calls [`check()`][metrics_registry.conformance.checking.check] with the values
the trainer logged. Each key either agrees with the registry's reference or
disagrees with a diagnosis (a factor equal to a layout count, a mean of
micro-batch means, padding counted, a flipped sign, another KL estimator,
...), found by testing the hypotheses of
[`hypotheses`][metrics_registry.conformance.hypotheses] on the captured data.

Importing this package does not import torch; its functions do (the `torch` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from metrics_registry.conformance.capture import CaptureError, Layout, MicroBatch, StepCapture
    from metrics_registry.conformance.checking import Result, check, check_value
    from metrics_registry.conformance.metric import Metric, Variant

__all__ = [
    "CaptureError",
    "Layout",
    "Metric",
    "MicroBatch",
    "Result",
    "StepCapture",
    "Variant",
    "check",
    "check_value",
]

_WHERE = {
    "CaptureError": "capture",
    "Layout": "capture",
    "MicroBatch": "capture",
    "StepCapture": "capture",
    "Result": "checking",
    "check": "checking",
    "check_value": "checking",
    "Metric": "metric",
    "Variant": "metric",
}


def __getattr__(name: str) -> Any:
    # lazy: the names resolve without importing torch until a function runs
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)

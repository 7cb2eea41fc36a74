"""What one optimizer step used: the tensors of every micro-batch and the layout that groups them.

A `StepCapture` is plain data (tensors, ints, floats, strings) so that
`torch.save(capture.to_dict(), path)` writes it and
`StepCapture.load(path)` reads it back with `weights_only=True`: a capture
file is untrusted input, and nothing in it is ever executed.

Tensor names are the ones the quantities in
[`quantities`][metrics_registry.conformance.quantities] read:

| name | shape | what |
| --- | --- | --- |
| `logprobs` | `(B, T)` | new log-probabilities of the sampled tokens |
| `old_logprobs` | `(B, T)` | of the policy that generated them |
| `ref_logprobs` | `(B, T)` | of the reference model |
| `advantages` | `(B,)` or `(B, T)` | |
| `mask` | `(B, T)` | the loss mask |
| `logits` | `(B, T, V)` | where entropy needs them |
| `values`, `old_values`, `returns` | `(B, T)` or `(B,)` | PPO critics |

Step-level tensors (rewards per function `(N, F)`, gradients, completion
lengths) go in `step`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CaptureError", "Layout", "MicroBatch", "StepCapture", "tolerance"]

Scalar = int | float | str | bool
FORMAT = "metrics-registry-capture/1"


class CaptureError(ValueError):
    """A capture that cannot be used; the message is one line that names the problem."""


@dataclass
class MicroBatch:
    """The tensors of one micro-batch and where it sits in the step."""

    tensors: dict[str, Any]
    mini_batch: int = 0
    epoch: int = 0
    rank: int = 0

    def __getitem__(self, name: str) -> Any:
        try:
            return self.tensors[name]
        except KeyError:
            raise CaptureError(f"the capture has no tensor {name!r} in its micro-batches") from None

    def get(self, name: str, default: Any = None) -> Any:
        return self.tensors.get(name, default)


@dataclass
class Layout:
    """How the step's data was split; `others` holds counts a framework multiplies by (action_dim, chunks)."""

    mini_batches: int = 1
    epochs: int = 1
    grad_accum: int = 1
    world_size: int = 1
    others: dict[str, int] = field(default_factory=dict)

    def counts(self, micro_batches: int) -> dict[str, int]:
        """Every count a wrong reduction could multiply or divide by, named, with the products of pairs."""
        from metrics_registry.conformance.marks import N_

        # the English names are translated when a result is shown (Result.line)
        single = {
            N_("micro-batches"): micro_batches,
            N_("mini-batches"): self.mini_batches,
            N_("epochs"): self.epochs,
            N_("gradient accumulation steps"): self.grad_accum,
            N_("processes"): self.world_size,
            **self.others,
        }
        single = {name: count for name, count in single.items() if count > 1}
        names = list(single)
        counts = dict(single)
        for i, first in enumerate(names):
            for second in names[i + 1 :]:
                counts.setdefault(f"{first} × {second}", single[first] * single[second])
        return counts


@dataclass
class StepCapture:
    """One optimizer step: its micro-batches, its layout, the config values that change meaning."""

    micro_batches: list[MicroBatch]
    layout: Layout = field(default_factory=Layout)
    config: dict[str, Scalar | None] = field(default_factory=dict)
    step: dict[str, Any] = field(default_factory=dict)
    reward_names: list[str] = field(default_factory=list)
    dtype: str = "float32"

    def to_dict(self) -> dict[str, Any]:
        """Plain containers, tensors and scalars only: what `torch.save` writes and `weights_only` reads."""
        return {
            "format": FORMAT,
            "micro_batches": [
                {"tensors": dict(mb.tensors), "mini_batch": mb.mini_batch, "epoch": mb.epoch, "rank": mb.rank}
                for mb in self.micro_batches
            ],
            "layout": {
                "mini_batches": self.layout.mini_batches,
                "epochs": self.layout.epochs,
                "grad_accum": self.layout.grad_accum,
                "world_size": self.layout.world_size,
                "others": dict(self.layout.others),
            },
            "config": dict(self.config),
            "step": dict(self.step),
            "reward_names": list(self.reward_names),
            "dtype": self.dtype,
        }

    def save(self, path: str | Path) -> None:
        import torch

        torch.save(self.to_dict(), str(path))

    @classmethod
    def from_dict(cls, data: Any, source: str = "the capture") -> StepCapture:
        """Build a capture from untrusted data, with a one-line `CaptureError` for anything malformed."""
        from metrics_registry.conformance.validate import parse_capture

        return parse_capture(data, source)

    @classmethod
    def load(cls, path: str | Path) -> StepCapture:
        """Read a file written by `save`, never unpickling code (`weights_only=True`)."""
        from metrics_registry.conformance.validate import load_capture

        return load_capture(Path(path))


#: (relative, absolute) tolerance per dtype the trainer computed in: a few units in the last place
#: of a mean over a small batch, and a margin for the order of the additions.
_TOLERANCE = {
    "float64": (1e-9, 1e-12),
    "float32": (2e-5, 1e-6),
    "float16": (4e-3, 1e-4),
    "bfloat16": (3e-2, 1e-3),
}


def tolerance(dtype: str) -> tuple[float, float]:
    """The (rtol, atol) for values computed in `dtype` (`float32`, `bfloat16`, ...)."""
    name = str(dtype).removeprefix("torch.")
    if name not in _TOLERANCE:
        raise CaptureError(f"unknown dtype {name!r}; use one of {', '.join(_TOLERANCE)}")
    return _TOLERANCE[name]


def close(a: float, b: float, dtype: str) -> bool:
    """`a` and `b` agree within the tolerance of `dtype`; NaN agrees with NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    rtol, atol = tolerance(dtype)
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def config_value(config: Mapping[str, Scalar | None], name: str, default: Scalar | None) -> Any:
    value = config.get(name, default)
    return default if value is None else value

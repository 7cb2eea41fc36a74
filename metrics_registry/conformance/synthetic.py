"""Seeded random captures from a small spec: the inputs of the bug table and of quick tests.

A spec is plain data (a TOML table in `tests/fixtures/conformance/`):

```toml
seed = 149
micro_batches = 8      # in the whole step
batch = 16             # sequences per micro-batch
width = 12             # positions per sequence
vocab = 0              # > 0 adds logits (B, T, V)
drift = 0.3            # spread of old vs new log-probabilities
full_mask = false      # true: every position is real (no padding)
grads = [10, 4]        # sizes of step["grads"], the gradients
tensors = ["logprobs", "old_logprobs", "advantages", "mask"]
dtype = "float32"
[layout]               # mini_batches, epochs, grad_accum, world_size, others = {name = count}
[config]               # config values the quantities read
```

Micro-batches are assigned to epochs first, then mini-batches, in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics_registry.conformance.capture import CaptureError, Layout, MicroBatch, StepCapture

__all__ = ["KNOWN_TENSORS", "synthetic_capture"]

KNOWN_TENSORS = frozenset(
    {
        "logprobs",
        "old_logprobs",
        "ref_logprobs",
        "advantages",
        "mask",
        "logits",
        "values",
        "old_values",
        "returns",
    }
)


def _micro_batch(spec: Mapping[str, Any], generator: Any, names: set[str]) -> dict[str, Any]:
    import torch

    batch, width = int(spec.get("batch", 8)), int(spec.get("width", 8))
    drift = float(spec.get("drift", 0.3))
    dtype = getattr(torch, str(spec.get("dtype", "float32")))

    def normal(*shape: int) -> Any:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    lengths = torch.randint(1, width + 1, (batch, 1), generator=generator)
    mask = torch.arange(width).unsqueeze(0) < lengths
    if spec.get("full_mask"):
        mask = torch.ones(batch, width, dtype=torch.bool)
    logprobs = -torch.rand(batch, width, generator=generator, dtype=torch.float64) * 3
    values = normal(batch, width)
    made = {
        "mask": mask,
        "logprobs": logprobs,
        "old_logprobs": logprobs + drift * normal(batch, width),
        "ref_logprobs": logprobs + 0.2 * normal(batch, width),
        "advantages": normal(batch),
        "values": values,
        "old_values": values + drift * normal(batch, width),
        "returns": values + 0.7 * normal(batch, width),
    }
    vocab = int(spec.get("vocab", 0))
    if vocab > 0:
        made["logits"] = normal(batch, width, vocab)
    # padding holds garbage, as real padded tensors do (unmasked reductions see it)
    for name in ("logprobs", "old_logprobs", "ref_logprobs", "values", "old_values", "returns"):
        made[name] = torch.where(mask, made[name], made[name] - 5.0)
    return {
        name: tensor if name == "mask" else tensor.to(dtype) for name, tensor in made.items() if name in names
    }


def synthetic_capture(spec: Mapping[str, Any]) -> StepCapture:
    """A deterministic random capture described by `spec` (see the module docstring)."""
    import torch

    names = set(spec.get("tensors", ["logprobs", "old_logprobs", "advantages", "mask"]))
    unknown = names - KNOWN_TENSORS
    if unknown:
        raise CaptureError(f"unknown tensors {sorted(unknown)}; use some of {sorted(KNOWN_TENSORS)}")
    layout_data = dict(spec.get("layout", {}))
    layout = Layout(
        mini_batches=int(layout_data.get("mini_batches", 1)),
        epochs=int(layout_data.get("epochs", 1)),
        grad_accum=int(layout_data.get("grad_accum", 1)),
        world_size=int(layout_data.get("world_size", 1)),
        others={str(k): int(v) for k, v in dict(layout_data.get("others", {})).items()},
    )
    count = int(spec.get("micro_batches", 1))
    per_epoch = max(1, count // layout.epochs)
    per_mini = max(1, per_epoch // layout.mini_batches)
    generator = torch.Generator().manual_seed(int(spec.get("seed", 0)))
    batches = [
        MicroBatch(
            _micro_batch(spec, generator, names),
            epoch=index // per_epoch,
            mini_batch=(index % per_epoch) // per_mini,
        )
        for index in range(count)
    ]
    step: dict[str, Any] = {}
    if spec.get("grads"):
        step["grads"] = [torch.randn(int(n), generator=generator) for n in spec["grads"]]
    return StepCapture(
        batches, layout, dict(spec.get("config", {})), step, dtype=str(spec.get("dtype", "float32"))
    )

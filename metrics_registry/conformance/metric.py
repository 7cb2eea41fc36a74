"""How a logged key is computed from a capture, and the variants a wrong implementation would compute.

A `Metric` says which per-token quantity (or which statistic) a key reports
and how it is reduced: within a micro-batch (`within`) and across the
micro-batches of the step (`across`). A `Variant` changes one of those
choices; the hypotheses of [`hypotheses`][metrics_registry.conformance.hypotheses]
evaluate the variants and compare them with the logged value.

Reductions:

* `within`: `token` (masked token mean, `sum / max(1, count)`), `sequence`
  (mean over sequences of each sequence's token mean), `padded` (masked sum
  over every position, padding included), `unmasked` (plain mean of every
  position, whatever padding holds);
* `across`: `micro_mean` (mean of the per-micro-batch values, what TRL's
  logging window does), `token_weighted` (sums and counts added over the
  step before dividing), `pooled` (a statistic over the concatenated batch),
  `sum`, `micro_var` (Bessel-corrected variance of the per-micro-batch
  values, TRL PPO's `val/ratio_var`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from metrics_registry.conformance.capture import MicroBatch, StepCapture

__all__ = ["Metric", "Variant", "evaluate"]

Within = Literal["token", "sequence", "padded", "unmasked"]
Across = Literal["micro_mean", "token_weighted", "pooled", "sum", "micro_var"]


@dataclass(frozen=True)
class Variant:
    """One change to how a metric is computed; the default changes nothing."""

    within: Within | None = None
    across: Across | None = None
    estimator: str | None = None
    last_mini_batch: bool = False
    swap_sides: bool = False
    flip_sign_pairing: bool = False
    padded_width: bool = False
    #: cells of a statistics grid left at 0 and reduced with the micro-batch values (TRL PPO ≤ 1.12)
    unwritten_cells: int = 0


#: (micro-batch tensors, config, variant) -> per-token values `(B, T)` (or per-sequence `(B,)`).
Quantity = Callable[[Mapping[str, Any], Mapping[str, Any], Variant], Any]
#: (tensors, config, variant) -> a 0-d tensor.
Statistic = Callable[[Mapping[str, Any], Mapping[str, Any], Variant], Any]


@dataclass(frozen=True)
class Metric:
    """A logged key: its reference function (dotted path) and how to recompute it from a capture.

    Exactly one of `quantity` (a per-token value, masked-mean reduced) and
    `statistic` (a value over a set of tensors) is set. `exact`, when set,
    is the registry's reference function applied to one micro-batch: the
    default variant uses it, so the value a result shows is the registry's.
    The flags say which hypotheses make sense (`estimator`: the KL estimator
    the key uses; `side`: `low` or `high` for one-sided clip fractions;
    `sign_gated`: the flag pairs a ratio side with an advantage sign;
    `length_limit`: the value compares lengths with a configured limit).
    """

    key: str
    reference: str
    quantity: Quantity | None = None
    statistic: Statistic | None = None
    exact: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] | None = None
    scope: Literal["micro", "step"] = "micro"
    within: Within = "token"
    across: Across = "micro_mean"
    mask: str = "mask"
    estimator: str | None = None
    side: Literal["low", "high"] | None = None
    sign_gated: bool = False
    length_limit: bool = False
    needs: tuple[str, ...] = ()

    def with_key(self, key: str) -> Metric:
        return replace(self, key=key)


def _batches(capture: StepCapture, variant: Variant) -> list[MicroBatch]:
    batches = capture.micro_batches
    if variant.last_mini_batch:
        last = max((mb.epoch, mb.mini_batch) for mb in batches)
        batches = [mb for mb in batches if (mb.epoch, mb.mini_batch) == last]
    return batches


def _pad_cat(tensors: list[Any]) -> Any:
    """Concatenate along the batch dimension, padding the other dimensions with zeros (masked out)."""
    import torch

    if any(not isinstance(t, torch.Tensor) for t in tensors):
        return tensors[-1]  # a list of tensors (gradients) is not batched
    if any(t.dim() == 0 for t in tensors):
        return torch.stack([t.reshape(()) for t in tensors])
    if all(t.shape[1:] == tensors[0].shape[1:] for t in tensors):
        return torch.cat(tensors)
    width = [max(t.shape[d] for t in tensors) for d in range(1, tensors[0].dim())]
    padded = []
    for t in tensors:
        pad: list[int] = []
        for d in reversed(range(1, t.dim())):
            pad += [0, width[d - 1] - t.shape[d]]
        padded.append(torch.nn.functional.pad(t, pad))
    return torch.cat(padded)


def pooled(batches: list[MicroBatch], names: tuple[str, ...]) -> dict[str, Any]:
    """The named tensors of `batches` concatenated into one batch."""
    return {name: _pad_cat([mb[name] for mb in batches]) for name in names if name in batches[0].tensors}


def _token_parts(
    metric: Metric, mb: MicroBatch, config: Mapping[str, Any], variant: Variant
) -> tuple[Any, Any]:
    """(sum, count) of one micro-batch under the variant's `within` reduction, in float64."""
    import torch

    assert metric.quantity is not None
    values = torch.as_tensor(metric.quantity(mb.tensors, config, variant)).to(torch.float64)
    mask = torch.as_tensor(mb[metric.mask]) != 0
    if values.dim() == 1 and mask.dim() == 2:
        mask = mask.any(dim=-1)
    mask = mask.expand_as(values)
    zero = torch.zeros((), dtype=torch.float64)
    within = variant.within or metric.within
    if within == "unmasked":
        return values.sum(), torch.tensor(float(values.numel()), dtype=torch.float64)
    masked = torch.where(mask, values, zero)
    if within == "padded":
        return masked.sum(), torch.tensor(float(values.numel()), dtype=torch.float64)
    if within == "sequence" and values.dim() == 2:
        counts = mask.sum(dim=-1)
        means = masked.sum(dim=-1)[counts > 0] / counts[counts > 0].to(torch.float64)
        return means.sum(), torch.tensor(float(means.numel()), dtype=torch.float64)
    return masked.sum(), mask.sum().to(torch.float64)


def evaluate(metric: Metric, capture: StepCapture, variant: Variant = Variant()) -> float:
    """The value `metric` takes on `capture` when computed as `variant` says."""
    config = capture.config
    if metric.scope == "step":
        assert metric.statistic is not None
        return float(metric.statistic(capture.step, config, variant))
    batches = _batches(capture, variant)
    across = variant.across or metric.across
    if metric.statistic is not None:
        if across == "pooled":
            names = tuple({name for mb in batches for name in mb.tensors})
            return float(metric.statistic(pooled(batches, names), config, variant))
        return _combine(
            [float(metric.statistic(mb.tensors, config, variant)) for mb in batches], across, variant
        )
    exact_variant = replace(variant, unwritten_cells=0) == Variant()
    if metric.exact is not None and exact_variant and across in ("micro_mean", "micro_var"):
        return _combine([float(metric.exact(mb.tensors, config)) for mb in batches], across, variant)
    parts = [_token_parts(metric, mb, config, variant) for mb in batches]
    if across in {"token_weighted", "pooled"}:
        total = sum(float(s) for s, _ in parts)
        count = sum(float(c) for _, c in parts)
        return total / max(count, 1.0)
    return _combine([float(s) / max(float(c), 1.0) for s, c in parts], across, variant)


def _combine(values: list[float], across: Across, variant: Variant) -> float:
    """The per-micro-batch values reduced `across` the step, with the variant's zero cells added."""
    import statistics

    values = values + [0.0] * variant.unwritten_cells
    if across == "sum":
        return sum(values)
    if across == "micro_var":
        return statistics.variance(values) if len(values) > 1 else float("nan")
    return sum(values) / len(values)

"""Legacy PPO helpers shared by the other modules: per-minibatch means, variances, the epoch average."""

from __future__ import annotations

from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float, masked_var

__all__ = [
    "WANDB_PADDING",
]


WANDB_PADDING = -1
"""The value v0.7 puts in place of NaN in the advantage histogram (and pads ragged stacks with)."""

KlPenalty = Literal["kl", "abs", "mse", "full"]


def _per_minibatch_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Masked mean over the last two dimensions: one value per minibatch (the leading shape)."""
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    total = torch.where(keep, values, torch.zeros((), dtype=values.dtype)).sum(dim=(-2, -1))
    return total / keep.sum(dim=(-2, -1)).to(values.dtype)


def _per_minibatch_var(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Bessel-corrected masked variance over the last two dimensions, per minibatch."""
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    if values.dim() == 2:
        return masked_var(values, keep)
    flat_values = values.reshape(-1, *values.shape[-2:])
    flat_keep = keep.reshape(-1, *keep.shape[-2:])
    result = torch.stack([masked_var(v, k) for v, k in zip(flat_values, flat_keep, strict=True)])
    return result.reshape(values.shape[:-2])


def _std(values: torch.Tensor) -> torch.Tensor:
    """`torch.std` (Bessel) of all elements; NaN for fewer than two, without torch's warning."""
    values = values.reshape(-1)
    if values.numel() < 2:
        return torch.full((), float("nan"), dtype=values.dtype)
    return values.std()


def _average(per_minibatch: torch.Tensor) -> torch.Tensor:
    """Mean over every minibatch of every epoch (`torch.mean(stacked, axis=0)`)."""
    return per_minibatch.reshape(-1).mean()

"""PPOv2 helpers shared by the other modules, and the statistics grid (`grid_mean`, `grid_var`, gaps)."""

from __future__ import annotations

import math

import torch

from metrics_registry.reference.masked import as_float

__all__ = [
    "INVALID_LOGPROB",
    "grid_mean",
    "grid_var",
    "unwritten_grid_cells",
]


INVALID_LOGPROB = 1.0
"""What TRL stores as the log-probability of padding positions (both policy and reference)."""

_TEMPERATURE_EPS = 1e-7  # TRL divides logits by (temperature + 1e-7)


def _zero(like: torch.Tensor) -> torch.Tensor:
    return torch.zeros((), dtype=like.dtype)


def _mean_bt(values: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """Masked mean over the last two dimensions (one value per micro-batch); NaN when empty."""
    keep = keep.expand_as(values)
    total = torch.where(keep, values, _zero(values)).sum(dim=(-2, -1))
    return total / keep.sum(dim=(-2, -1)).to(values.dtype)


def _log_ratio(logprobs: torch.Tensor, old_logprobs: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """New minus old log-probability, 0 at padding (TRL fills both with INVALID_LOGPROB there)."""
    diff = as_float(logprobs) - as_float(old_logprobs)
    return torch.where(keep.expand_as(diff), diff, _zero(diff))


# --------------------------------------------------------------------- grid


def grid_mean(per_micro_batch: torch.Tensor, unwritten_cells: int = 0) -> torch.Tensor:
    r"""Average of a statistics grid as TRL logs it: mean over all cells, unwritten cells counted as 0.

    $$
    \bar s = \frac{1}{|G| + Z}\sum_{g \in G} s_g
    $$

    Args:
        per_micro_batch: one value per written micro-batch, any shape (the grid, possibly gathered
            over processes).
        unwritten_cells: $Z$, cells that stay at their initial 0 (TRL ≥ 0.17 with
            `num_mini_batches` > 1, see [`unwritten_grid_cells()`][unwritten_grid_cells]).
    """
    values = as_float(per_micro_batch).reshape(-1)
    return values.sum() / (values.numel() + unwritten_cells)


def grid_var(per_micro_batch: torch.Tensor, unwritten_cells: int = 0) -> torch.Tensor:
    r"""Bessel-corrected variance of the grid cells (`torch.var` default), unwritten cells as 0.

    $$
    \frac{1}{|G| + Z - 1}\sum_{g}(s_g - \bar s)^2
    $$

    NaN when the grid has a single cell.
    """
    values = as_float(per_micro_batch).reshape(-1)
    cells = torch.cat([values, torch.zeros(unwritten_cells, dtype=values.dtype)])
    if cells.numel() < 2:
        return torch.full((), float("nan"), dtype=values.dtype)
    return cells.var()


def unwritten_grid_cells(
    num_ppo_epochs: int,
    num_mini_batches: int,
    gradient_accumulation_steps: int,
    per_device_train_batch_size: int,
    num_processes: int = 1,
) -> int:
    r"""Cells of the statistics grid that TRL ≥ 0.17 never writes (they stay 0 and dilute every `*_avg`).

    From 0.17.0 the per-process rollout batch is `per_device_train_batch_size ×
    gradient_accumulation_steps` but the grid keeps `gradient_accumulation_steps`
    cells per minibatch; each minibatch only runs
    $\lceil \text{local\_mini\_batch\_size} / \text{per\_device\_train\_batch\_size} \rceil$
    micro-batches. Before 0.17.0 the answer is always 0.

    >>> unwritten_grid_cells(1, 2, 4, 8)  # half of the 8 cells stay 0
    4
    >>> unwritten_grid_cells(4, 1, 4, 8)
    0
    """
    local_batch_size = per_device_train_batch_size * gradient_accumulation_steps
    local_mini_batch_size = local_batch_size // num_mini_batches
    written = min(gradient_accumulation_steps, math.ceil(local_mini_batch_size / per_device_train_batch_size))
    return num_ppo_epochs * num_mini_batches * (gradient_accumulation_steps - written) * num_processes

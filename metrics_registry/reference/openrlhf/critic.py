r"""OpenRLHF critic metrics: `critic_loss` and `values` (only with `algo.advantage.estimator=gae`).

The critic all-reduces each micro-batch's scalars with a plain mean over
ranks, then averages all micro-batches of the global step with a plain mean
(`ppo_critic.py:102-118@3c3be623`): a mean of micro-batch means.
"""

from __future__ import annotations

import torch

from metrics_registry.reference.masked import as_float
from metrics_registry.reference.openrlhf.cells import (
    cell_masked_means,
    mean_over_cells,
    window_normalised_sums,
)

__all__ = ["critic_loss", "critic_values"]


def critic_loss(
    values: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    action_mask: torch.Tensor,
    *,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
    gradient_accumulation_steps: int = 1,
    dynamic_batch: bool = False,
    value_clip: float | None = 0.5,
) -> torch.Tensor:
    r"""`train/critic_loss`: clipped squared error, window-normalised, plain mean over ranks and cells.

    $$
    \ell_t = \tfrac12\max\big((V^{old}_t + \mathrm{clip}(V_t - V^{old}_t, \pm\epsilon_v) - R_t)^2,
    \ (V_t - R_t)^2\big)
    $$

    Args:
        values: `(B, T)` critic values during training.
        old_values: `(B, T)` critic values at experience time.
        returns: `(B, T)` GAE returns.
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.
        gradient_accumulation_steps: micro-batches per optimizer step per rank.
        dynamic_batch: `train.dynamic_batch_enable` (normaliser not divided by the steps).
        value_clip: $\epsilon_v$ (`critic.value_clip`, default 0.5), `None` for no clip.

    Returns:
        The logged number: with the window normaliser, the rank mean then the
        micro-batch mean of a window equals that window's token mean divided by
        the number of windows' worth of micro-batches, so the result is the mean
        over optimizer steps of each step's exact token-mean loss.
    """
    v, v_old, ret = as_float(values), as_float(old_values), as_float(returns)
    if value_clip is None:
        loss = (v - ret) ** 2
    else:
        clipped = v_old + (v - v_old).clamp(-value_clip, value_clip)
        loss = torch.max((clipped - ret) ** 2, (v - ret) ** 2)
    cell_values, _, cells = window_normalised_sums(
        0.5 * loss, action_mask, rank, micro_batch, gradient_accumulation_steps, dynamic_batch=dynamic_batch
    )
    return mean_over_cells(cell_values, [r for r, _ in cells])


def critic_values(
    values: torch.Tensor,
    action_mask: torch.Tensor,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""`train/values`: each cell's masked mean of the critic values, plain mean over ranks and micro-batches.

    $$
    \bar V = \frac{1}{M}\sum_m \frac{1}{W}\sum_r \frac{\sum_{t\in (r,m)} m_t V_t}{\sum_{t\in (r,m)} m_t}
    $$

    Args:
        values: `(B, T)` critic values during training (before the micro-batch's update).
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.

    Returns:
        A mean of micro-batch means (not the token mean when cells are uneven).
    """
    cell_values, _, cells = cell_masked_means(values, action_mask, rank, micro_batch)
    return mean_over_cells(cell_values, [r for r, _ in cells])

r"""How OpenRLHF's Ray PPO trainer turns per-micro-batch values into one logged number.

A *cell* is one micro-batch on one data-parallel rank. Every reference of this
package takes the rows of all cells stacked into one `(B, T)` tensor, with two
`(B,)` integer tensors saying where each row was trained:

* `rank`: the data-parallel rank (0 .. `dp_size`-1);
* `micro_batch`: the micro-batch's position in that rank's feed order over the
  whole global step (all optimizer steps and all `max_epochs` epochs).

Both default to one cell. Rows of the same (rank, micro-batch) form one cell.

The actor (`ActorPPOTrainer.ppo_train`, `openrlhf/trainer/ray/ppo_actor.py:197-258@3c3be623`)
scales each cell's value by its action-token count (`"token"` metrics) or its
row count (`"sample"` metrics), all-reduces numerators and counts, divides, and
finally weights the per-micro-batch results by the same counts: the logged
number is $\sum_c v_c n_c / \sum_c n_c$ over every cell (`weighted_over_cells`).

The critic (`CriticPPOTrainer.ppo_train`, `ppo_critic.py:102-118@3c3be623`)
averages the ranks with a plain mean and then the micro-batches with a plain
mean: a mean of micro-batch means (`mean_over_cells`).

The loss metrics go through `aggregate_loss` (`openrlhf/models/loss.py:29-32`),
which divides a cell's masked sum by the optimizer-step *window's* token count
divided by the gradient-accumulation steps, times `dp_size`
(`window_normalised_sums`).
"""

from __future__ import annotations

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "cell_ids",
    "cell_masked_means",
    "mean_over_cells",
    "weighted_over_cells",
    "window_normalised_sums",
]


def cell_ids(
    batch: int, rank: torch.Tensor | None = None, micro_batch: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor, list[tuple[int, int]]]:
    """The rank and micro-batch of every row, and the sorted list of distinct (rank, micro-batch) cells.

    Args:
        batch: number of rows `B`.
        rank: `(B,)` data-parallel rank of each row; all 0 when `None`.
        micro_batch: `(B,)` micro-batch index of each row on its rank; all 0 when `None`.

    Returns:
        `(rank, micro_batch, cells)`, the first two as int64 tensors.
    """
    ranks = torch.zeros(batch, dtype=torch.int64) if rank is None else torch.as_tensor(rank).long()
    micro = (
        torch.zeros(batch, dtype=torch.int64) if micro_batch is None else torch.as_tensor(micro_batch).long()
    )
    if ranks.shape != (batch,) or micro.shape != (batch,):
        raise ValueError(f"rank and micro_batch must have shape ({batch},), one entry per row")
    cells = sorted({(int(r), int(m)) for r, m in zip(ranks.tolist(), micro.tolist(), strict=True)})
    return ranks, micro, cells


def _rows(ranks: torch.Tensor, micro: torch.Tensor, cell: tuple[int, int]) -> torch.Tensor:
    return (ranks == cell[0]) & (micro == cell[1])


def weighted_over_cells(cell_values: list[torch.Tensor], cell_weights: list[torch.Tensor]) -> torch.Tensor:
    r"""The actor's reduction: $\sum_c v_c\,n_c / \sum_c n_c$ over cells (ranks, micro-batches, epochs).

    Args:
        cell_values: one 0-dimensional value per cell.
        cell_weights: its weight: the cell's action-token count (`"token"`
            metrics) or its number of rows (`"sample"` metrics).

    Returns:
        The weighted mean. Doing it in two steps as OpenRLHF does (first over
        ranks per micro-batch index, then over micro-batch indices with the
        rank-averaged counts) gives the same number, since both numerators
        and counts are divided by the world size.
    """
    values = torch.stack([as_float(v) for v in cell_values])
    weights = torch.stack([as_float(w).to(values.dtype) for w in cell_weights])
    return (values * weights).sum() / weights.sum()


def mean_over_cells(cell_values: list[torch.Tensor], rank_of_cell: list[int]) -> torch.Tensor:
    r"""The critic's reduction: a plain mean over ranks per micro-batch index, then over micro-batches.

    Args:
        cell_values: one 0-dimensional value per cell.
        rank_of_cell: the rank of each cell, in the same order; cells of one
            rank are in feed order, and the i-th cell of every rank is all-reduced
            together.

    Returns:
        $\frac{1}{M}\sum_m \frac{1}{W}\sum_r v_{r,m}$, a mean of micro-batch means.
    """
    by_rank: dict[int, list[torch.Tensor]] = {}
    for value, rank in zip(cell_values, rank_of_cell, strict=True):
        by_rank.setdefault(rank, []).append(as_float(value))
    lengths = {len(v) for v in by_rank.values()}
    if len(lengths) != 1:
        raise ValueError("every rank runs the same number of micro-batches (DataLoader drop_last)")
    per_step = torch.stack([torch.stack(list(step)).mean() for step in zip(*by_rank.values(), strict=True)])
    return per_step.mean()


def window_normalised_sums(
    values: torch.Tensor,
    mask: torch.Tensor,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
    gradient_accumulation_steps: int = 1,
    *,
    dynamic_batch: bool = False,
) -> tuple[list[torch.Tensor], list[torch.Tensor], list[tuple[int, int]]]:
    r"""`aggregate_loss` of every cell with the optimizer-step window normaliser (token-level loss).

    $$
    v_c = \frac{\sum_{t\in c} m_t\,x_t}{T_w / G}\cdot W
    $$

    with $T_w$ the action tokens of the window (micro-batches
    $\lfloor m/G\rfloor$ of every rank), $G$ the gradient-accumulation steps and
    $W$ the number of ranks (`iter_grad_accum_global_norm`,
    `openrlhf/utils/loss_utils.py:54-105@3c3be623`).

    Args:
        values: `(B, T)` per-token values (loss, KL or entropy).
        mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row on its rank.
        gradient_accumulation_steps: micro-batches per optimizer step per rank ($G$).
        dynamic_batch: `train.dynamic_batch_enable`: the normaliser is the
            step's whole token count, not divided by $G$ (`replay_buffer.py:162-176`,
            `loss_utils.py:28-30`); pass the micro-batches per optimizer step as
            `gradient_accumulation_steps`.

    Returns:
        `(cell_values, cell_token_counts, cells)`.
    """
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    ranks, micro, cells = cell_ids(values.shape[0], rank, micro_batch)
    dp_size = len({r for r, _ in cells})
    gas = max(int(gradient_accumulation_steps), 1)
    masked = torch.where(keep, values, torch.zeros((), dtype=values.dtype))
    window_tokens: dict[int, torch.Tensor] = {}
    for r, m in cells:
        rows = _rows(ranks, micro, (r, m))
        window_tokens[m // gas] = window_tokens.get(m // gas, 0) + keep[rows].sum()
    out_values, out_counts = [], []
    for cell in cells:
        rows = _rows(ranks, micro, cell)
        normaliser = window_tokens[cell[1] // gas].to(values.dtype) / (1 if dynamic_batch else gas)
        out_values.append(masked[rows].sum() / normaliser * dp_size)
        out_counts.append(keep[rows].sum())
    return out_values, out_counts, cells


def cell_masked_means(
    values: torch.Tensor,
    mask: torch.Tensor,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
) -> tuple[list[torch.Tensor], list[torch.Tensor], list[tuple[int, int]]]:
    """Each cell's masked mean (`masked_mean(x, action_mask, dim=None)`) and its action-token count.

    Args:
        values: `(B, T)` per-token values.
        mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row on its rank.

    Returns:
        `(cell_values, cell_token_counts, cells)`.
    """
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    ranks, micro, cells = cell_ids(values.shape[0], rank, micro_batch)
    masked = torch.where(keep, values, torch.zeros((), dtype=values.dtype))
    out_values, out_counts = [], []
    for cell in cells:
        rows = _rows(ranks, micro, cell)
        count = keep[rows].sum()
        out_values.append(masked[rows].sum() / count.to(values.dtype))
        out_counts.append(count)
    return out_values, out_counts, cells

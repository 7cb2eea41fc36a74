r"""verl's reduction pipeline: `agg_loss`, the per-mini-batch DP aggregation and the per-step reduction.

How a per-token value becomes the number verl logs on the engine path
(V1 and v0 trainers at `1dda039`, engine workers since v0.8.0):

1. **micro-batch**: the loss function returns one value per micro-batch,
   either a partial of the global mini-batch mean (`Metric(SUM)`: the loss
   terms) or a local token mean (`Metric(MEAN)`: clip fractions, `ppo_kl`),
   or a plain float (`vf_clipfrac`, `vpred_mean`, `kl_coef`).
2. **mini-batch**: the lists are gathered from all data-parallel ranks;
   [`aggregate_dp()`][aggregate_dp] averages over ranks per micro-batch index, then sums
   (SUM) or averages (MEAN) over micro-batches; plain floats are flattened.
3. **step**: one entry per mini-batch (times `ppo_epochs`) is reduced by
   [`reduce_metrics()`][reduce_metrics]: `np.mean`, except for keys containing `max`
   (`np.max`) or `min` (`np.min`).

Data layout used by every function of this package: the tensors of one
training step are `(N, T)` with the rows of every optimizer step one after
the other (`epochs × mini-batches`, each `mini_batch_size` rows). Inside a
mini-batch the rows are split into `dp_size` equal contiguous chunks (one per
rank) and each chunk into micro-batches of `micro_batch_size` rows. A row
that appears in two epochs appears twice, with the log-probabilities of the
policy at that time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float, masked_sum

__all__ = [
    "LossAggMode",
    "agg_loss",
    "aggregate_dp",
    "micro_batch_partials",
    "micro_batch_rows",
    "reduce_metrics",
]

LossAggMode = Literal[
    "token-mean", "token-sum", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"
]
Aggregation = Literal["sum", "mean"]


def agg_loss(
    loss_mat: torch.Tensor,
    loss_mask: torch.Tensor,
    loss_agg_mode: LossAggMode = "token-mean",
    *,
    dp_size: int = 1,
    batch_num_tokens: float | None = None,
    global_batch_size: float | None = None,
    loss_scale_factor: float | None = None,
) -> torch.Tensor:
    r"""verl's `agg_loss` (`verl/trainer/ppo/core_algos.py:1170-1206@1dda039`).

    With the global information set (engine path) the result is this
    micro-batch's *partial* of the mini-batch mean, e.g. for `token-mean`
    $\frac{\text{dp}}{G}\sum_t m_t\,\ell_t$ with $G$ the valid tokens of the
    whole mini-batch on all ranks; without it, a local mean.

    Args:
        loss_mat: `(B, T)` per-token values.
        loss_mask: `(B, T)` valid tokens.
        loss_agg_mode: `token-mean`, `token-sum`, `seq-mean-token-sum`,
            `seq-mean-token-mean` or `seq-mean-token-sum-norm`.
        dp_size: data-parallel ranks.
        batch_num_tokens: valid tokens of the mini-batch on all ranks (token-mean).
        global_batch_size: sequences of the mini-batch on all ranks (seq-mean modes).
        loss_scale_factor: divisor of `seq-mean-token-sum-norm`; the padded width `T` when `None`.

    Returns:
        A 0-dimensional tensor.
    """
    values = as_float(loss_mat)
    mask = as_bool_mask(loss_mask)
    weights = mask.to(values.dtype)
    if loss_agg_mode == "token-mean":
        tokens = (
            weights.sum()
            if batch_num_tokens is None
            else torch.as_tensor(batch_num_tokens, dtype=values.dtype)
        )
        return masked_sum(values, mask) / tokens * dp_size
    if loss_agg_mode == "token-sum":
        return masked_sum(values, mask) * dp_size
    if loss_agg_mode in ("seq-mean-token-sum", "seq-mean-token-sum-norm", "seq-mean-token-mean"):
        counts = weights.sum(dim=-1)
        seq = masked_sum(values, mask, dim=-1)
        if loss_agg_mode == "seq-mean-token-mean":
            seq = seq / (counts + 1e-8)
        present = counts > 0
        size = present.sum().to(values.dtype) if global_batch_size is None else global_batch_size
        loss = masked_sum(seq, present) / size * dp_size
        if loss_agg_mode == "seq-mean-token-sum-norm":
            loss = loss / (values.shape[-1] if loss_scale_factor is None else loss_scale_factor)
        return loss
    raise ValueError(f"unknown loss_agg_mode {loss_agg_mode!r}")


def aggregate_dp(values: Sequence[Sequence[float]], aggregation: Aggregation) -> float:
    r"""`Metric.aggregate_dp` (`verl/utils/metric/utils.py:139-156@1dda039`): one value per mini-batch.

    $$
    v = \operatorname{op}_{k=1}^{K}\ \frac{1}{R}\sum_{r=1}^{R} v_{r,k}
    $$

    Args:
        values: `values[r][k]`, rank `r`, micro-batch `k` (every rank has the same count).
        aggregation: `"sum"` (loss partials) or `"mean"` (local token means).

    Returns:
        The mean over ranks of each micro-batch index, summed or averaged over micro-batches.
    """
    grid = torch.as_tensor(values, dtype=torch.float64)
    per_micro = grid.mean(dim=0)
    return float(per_micro.sum() if aggregation == "sum" else per_micro.mean())


def reduce_metrics(key: str, values: Sequence[float]) -> float:
    """`reduce_metrics` (`verl/utils/metric/utils.py:49-57@1dda039`): the per-step value of a list.

    Args:
        key: the metric key; the reduction is chosen by substring, so
            `actor/perf/max_memory_allocated_gb` is a maximum.
        values: one entry per optimizer step (mini-batch × epoch), or a flat list.

    Returns:
        `max` if `"max"` is in the key, else `min` if `"min"` is, else the mean.
    """
    tensor = torch.as_tensor(values, dtype=torch.float64)
    if "max" in key:
        return float(tensor.max())
    if "min" in key:
        return float(tensor.min())
    return float(tensor.mean())


def micro_batch_rows(
    num_rows: int, mini_batch_size: int | None, dp_size: int, micro_batch_size: int | None
) -> list[list[list[range]]]:
    """The rows of each micro-batch: `layout[mini_batch][rank][micro_batch]` is a `range` of rows.

    Args:
        num_rows: rows of the step (all mini-batches and epochs).
        mini_batch_size: rows per optimizer step over all ranks; all rows when `None`.
        dp_size: ranks; each mini-batch is split into `dp_size` equal contiguous chunks.
        micro_batch_size: rows per micro-batch on a rank; the whole chunk when `None`.

    Returns:
        The nested list of row ranges.
    """
    mini = mini_batch_size or num_rows
    if num_rows % mini or mini % dp_size:
        raise ValueError(
            f"{num_rows} rows do not split into mini-batches of {mini} rows over {dp_size} ranks"
        )
    per_rank = mini // dp_size
    micro = micro_batch_size or per_rank
    if per_rank % micro:
        raise ValueError(f"{per_rank} rows per rank do not split into micro-batches of {micro}")
    return [
        [
            [
                range(start + r * per_rank + k, start + r * per_rank + k + micro)
                for k in range(0, per_rank, micro)
            ]
            for r in range(dp_size)
        ]
        for start in range(0, num_rows, mini)
    ]


def micro_batch_partials(
    values: torch.Tensor,
    mask: torch.Tensor,
    ranks: list[list[range]],
    loss_agg_mode: LossAggMode,
    *,
    dp_size: int,
    loss_scale_factor: float | None,
) -> list[list[float]]:
    """`agg_loss` of each micro-batch of one mini-batch, with the mini-batch's global token and row counts.

    Args:
        values: `(N, T)` per-token values of the step.
        mask: `(N, T)` valid tokens.
        ranks: `ranks[r][k]`, the rows of micro-batch `k` on rank `r` (one item of `micro_batch_rows`).
        loss_agg_mode: `loss_agg_mode`.
        dp_size: data-parallel ranks.
        loss_scale_factor: divisor of `seq-mean-token-sum-norm`, or `None`.

    Returns:
        `partials[r][k]`, ready for `aggregate_dp(..., "sum")`.
    """
    rows = [i for rank in ranks for micro in rank for i in micro]
    tokens = float(mask[rows].sum())
    sequences = float(len(rows))
    partials = []
    for rank in ranks:
        row = []
        for micro in rank:
            sub_mask = mask[list(micro)]
            # the engine pads each micro-batch to its own longest response (padding.py:113-119@1dda039)
            width = int(sub_mask.sum(dim=-1).max()) if sub_mask.any() else 1
            row.append(
                float(
                    agg_loss(
                        values[list(micro)][:, :width],
                        sub_mask[:, :width],
                        loss_agg_mode,
                        dp_size=dp_size,
                        batch_num_tokens=tokens,
                        global_batch_size=sequences,
                        loss_scale_factor=loss_scale_factor,
                    )
                )
            )
        partials.append(row)
    return partials

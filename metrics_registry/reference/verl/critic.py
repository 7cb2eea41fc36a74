r"""verl `critic/*` metrics: value-loss terms of the update, batch statistics of `compute_data_metrics`.

Update metrics follow `compute_value_loss`
(`verl/trainer/ppo/core_algos.py:2170-2184@1dda039`) and `value_loss`
(`verl/workers/utils/losses.py:147-205@1dda039`); the batch statistics follow
`compute_data_metrics` (`verl/trainer/ppo/metric_utils.py:429-608@1dda039`),
computed once per step on the driver over the whole train batch.
"""

from __future__ import annotations

import math

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float
from metrics_registry.reference.verl.actor import verl_masked_mean
from metrics_registry.reference.verl.aggregation import (
    LossAggMode,
    aggregate_dp,
    micro_batch_partials,
    micro_batch_rows,
)

__all__ = ["data_metrics", "value_metrics"]


def value_metrics(
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    cliprange_value: float = 0.5,
    loss_agg_mode: LossAggMode = "token-mean",
    mini_batch_size: int | None = None,
    dp_size: int = 1,
    micro_batch_size: int | None = None,
) -> dict[str, float]:
    r"""`critic/vf_loss`, `critic/vf_clipfrac`, `critic/vpred_mean` of the critic update (engine path).

    $$
    \ell_t = \max\big((V_t - R_t)^2,\
    (\operatorname{clip}(V_t, V^{\text{old}}_t \pm \epsilon_v) - R_t)^2\big),\quad
    \text{vf\_loss} = \tfrac12\,\text{agg}(\ell)
    $$

    `vf_loss` is aggregated over the global mini-batch and summed over
    micro-batches (exact mini-batch value), then averaged over mini-batches;
    `vf_clipfrac` (clipped term strictly larger) and `vpred_mean` are local
    micro-batch token means, averaged over every (rank, micro-batch,
    mini-batch) entry.

    Args:
        vpreds: `(N, T)` critic outputs at update time.
        values: `(N, T)` critic values before the update ($V^{\text{old}}$).
        returns: `(N, T)` value targets.
        response_mask: `(N, T)`.
        cliprange_value: `critic.cliprange_value` $\epsilon_v$.
        loss_agg_mode: `critic.loss_agg_mode`.
        mini_batch_size: rows per optimizer step.
        dp_size: data-parallel ranks.
        micro_batch_size: rows per micro-batch on one rank.

    Returns:
        A dict with `vf_loss`, `vf_clipfrac` and `vpred_mean`.
    """
    mask = as_bool_mask(response_mask)
    vpreds, values, returns = as_float(vpreds), as_float(values), as_float(returns)
    clipped = torch.clamp(vpreds, values - cliprange_value, values + cliprange_value)
    unclipped_loss = (vpreds - returns) ** 2
    clipped_loss = (clipped - returns) ** 2
    losses = 0.5 * torch.maximum(unclipped_loss, clipped_loss)
    flags = (clipped_loss > unclipped_loss).to(vpreds.dtype)
    layout = micro_batch_rows(mask.shape[0], mini_batch_size, dp_size, micro_batch_size)
    vf_loss, clipfrac, vpred = [], [], []
    for ranks in layout:
        vf_loss.append(
            aggregate_dp(
                micro_batch_partials(
                    losses, mask, ranks, loss_agg_mode, dp_size=dp_size, loss_scale_factor=None
                ),
                "sum",
            )
        )
        for rank in ranks:
            for micro in rank:
                rows = list(micro)
                clipfrac.append(float(verl_masked_mean(flags[rows], mask[rows])))
                vpred.append(float(verl_masked_mean(vpreds[rows], mask[rows])))
    return {
        "vf_loss": sum(vf_loss) / len(vf_loss),
        "vf_clipfrac": sum(clipfrac) / len(clipfrac),
        "vpred_mean": sum(vpred) / len(vpred),
    }


def _stats(prefix: str, values: torch.Tensor) -> dict[str, float]:
    if values.numel() == 0:
        return {f"{prefix}/mean": math.nan, f"{prefix}/max": math.nan, f"{prefix}/min": math.nan}
    return {
        f"{prefix}/mean": float(values.mean()),
        f"{prefix}/max": float(values.max()),
        f"{prefix}/min": float(values.min()),
    }


def data_metrics(
    token_level_scores: torch.Tensor,
    token_level_rewards: torch.Tensor,
    advantages: torch.Tensor,
    returns: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    response_length: torch.Tensor,
    values: torch.Tensor | None = None,
) -> dict[str, float]:
    r"""`critic/{score,rewards,advantages,returns,values}/{mean,max,min}` and `critic/vf_explained_var`.

    Scores and rewards are summed per sequence and reduced over the
    sequences whose response is not empty (aborted samples are left out);
    advantages, returns and values are reduced over every valid token (a
    token-weighted mean). Explained variance is
    $1 - \operatorname{Var}(R - V)/(\operatorname{Var}(R) + 10^{-5})$ with
    the unbiased variance over valid tokens.

    Args:
        token_level_scores: `(B, T)` reward-function output (usually on the last token).
        token_level_rewards: `(B, T)` scores minus $\beta\cdot$KL when `use_kl_in_reward`.
        advantages: `(B, T)`.
        returns: `(B, T)`.
        response_mask: `(B, T)` (after rejection sampling, if any).
        response_length: `(B,)` response lengths; 0 marks an aborted sample.
        values: `(B, T)` critic values before the update, or `None` without a critic.

    Returns:
        A dict keyed by the logged names.
    """
    mask = as_bool_mask(response_mask)
    kept = torch.as_tensor(response_length) != 0
    metrics = {
        **_stats("critic/score", as_float(token_level_scores).sum(-1)[kept]),
        **_stats("critic/rewards", as_float(token_level_rewards).sum(-1)[kept]),
        **_stats("critic/advantages", torch.masked_select(as_float(advantages), mask)),
        **_stats("critic/returns", torch.masked_select(as_float(returns), mask)),
    }
    if values is not None:
        valid_values = torch.masked_select(as_float(values), mask)
        valid_returns = torch.masked_select(as_float(returns), mask)
        metrics.update(_stats("critic/values", valid_values))
        if valid_values.numel():
            explained = 1.0 - torch.var(valid_returns - valid_values) / (torch.var(valid_returns) + 1e-5)
            metrics["critic/vf_explained_var"] = float(explained)
        else:
            metrics["critic/vf_explained_var"] = math.nan
    return metrics

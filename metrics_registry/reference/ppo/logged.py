"""PPOv2 logged values: the grid averages of the per-micro-batch statistics and the `objective/*` means."""

from __future__ import annotations

import torch

from metrics_registry.reference.kl import Estimator, estimate
from metrics_registry.reference.masked import as_bool_mask, as_float
from metrics_registry.reference.ppo.common import _zero, grid_mean, grid_var
from metrics_registry.reference.ppo.micro_batch import (
    approxkl_k2_unmasked,
    clipped_policy_loss,
    clipped_value_loss,
    entropy_mean_unmasked,
    policy_clipfrac_sign_gated,
    ratio_mean_unmasked,
    value_clipfrac,
)

__all__ = [
    "approxkl_avg",
    "entropy_avg",
    "non_score_reward_mean",
    "policy_clipfrac_avg",
    "policy_loss_avg",
    "ratio_avg",
    "ratio_var",
    "rlhf_reward_mean",
    "scores_mean",
    "value_clipfrac_avg",
    "value_loss_avg",
]


# ------------------------------------------------------------- logged values


def approxkl_avg(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor, unwritten_cells: int = 0
) -> torch.Tensor:
    r"""`policy/approxkl_avg`:
    [`approxkl_k2_unmasked()`][metrics_registry.reference.ppo.micro_batch.approxkl_k2_unmasked] per
    micro-batch, averaged over
    the grid.

    $$
    \frac{1}{|G|}\sum_{g\in G}\frac{1}{2 N_g T}\sum_{i,t}
    \big(\log\pi_\theta(y_{i,t}) - \log\pi_{\text{old}}(y_{i,t})\big)^2
    $$

    Args:
        logprobs: `(..., B, T)`; leading dimensions index the micro-batches.
        old_logprobs: `(..., B, T)`.
        mask: `(..., B, T)`; padding counts in each micro-batch's denominator (quirk).
        unwritten_cells: zero cells of the grid
            ([`unwritten_grid_cells()`][metrics_registry.reference.ppo.common.unwritten_grid_cells]).
    """
    return grid_mean(approxkl_k2_unmasked(logprobs, old_logprobs, mask), unwritten_cells)


def policy_clipfrac_avg(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange: float = 0.2,
    unwritten_cells: int = 0,
) -> torch.Tensor:
    """`policy/clipfrac_avg`:
    [`policy_clipfrac_sign_gated()`][metrics_registry.reference.ppo.micro_batch.policy_clipfrac_sign_gated]
    per micro-batch,
    averaged over the grid."""
    return grid_mean(
        policy_clipfrac_sign_gated(logprobs, old_logprobs, advantages, mask, cliprange), unwritten_cells
    )


def policy_loss_avg(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange: float = 0.2,
    unwritten_cells: int = 0,
) -> torch.Tensor:
    """`loss/policy_avg`:
    [`clipped_policy_loss()`][metrics_registry.reference.ppo.micro_batch.clipped_policy_loss] per
    micro-batch, averaged over the
    grid."""
    return grid_mean(
        clipped_policy_loss(logprobs, old_logprobs, advantages, mask, cliprange), unwritten_cells
    )


def value_loss_avg(
    vpreds: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange_value: float = 0.2,
    unwritten_cells: int = 0,
) -> torch.Tensor:
    """`loss/value_avg`:
    [`clipped_value_loss()`][metrics_registry.reference.ppo.micro_batch.clipped_value_loss] (mask plus
    one) per micro-batch, grid
    average."""
    return grid_mean(
        clipped_value_loss(vpreds, old_values, returns, mask, cliprange_value=cliprange_value),
        unwritten_cells,
    )


def value_clipfrac_avg(
    vpreds: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange_value: float = 0.2,
    unwritten_cells: int = 0,
) -> torch.Tensor:
    """`val/clipfrac_avg`:
    [`value_clipfrac()`][metrics_registry.reference.ppo.micro_batch.value_clipfrac] (mask plus one
    position) per micro-batch,
    grid average."""
    return grid_mean(
        value_clipfrac(vpreds, old_values, returns, mask, cliprange_value=cliprange_value), unwritten_cells
    )


def entropy_avg(logits: torch.Tensor, temperature: float = 1.0, unwritten_cells: int = 0) -> torch.Tensor:
    """`policy/entropy_avg`:
    [`entropy_mean_unmasked()`][metrics_registry.reference.ppo.micro_batch.entropy_mean_unmasked] per
    micro-batch (padding
    included), grid average.

    `logits` is `(..., B, T, V)`.
    """
    return grid_mean(entropy_mean_unmasked(logits, temperature), unwritten_cells)


def ratio_avg(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor, unwritten_cells: int = 0
) -> torch.Tensor:
    """`val/ratio`:
    [`ratio_mean_unmasked()`][metrics_registry.reference.ppo.micro_batch.ratio_mean_unmasked] per
    micro-batch (padding counts as 1),
    grid average.

    From 0.17.0 zero cells pull it towards 0 (about 0.5 with half the grid empty).
    """
    return grid_mean(ratio_mean_unmasked(logprobs, old_logprobs, mask), unwritten_cells)


def ratio_var(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor, unwritten_cells: int = 0
) -> torch.Tensor:
    """`val/ratio_var`: Bessel-corrected variance of the per-micro-batch mean ratios
    ([`grid_var()`][metrics_registry.reference.ppo.common.grid_var]).

    NaN with a single micro-batch in total; the spread of micro-batch means, not of token ratios.
    """
    return grid_var(ratio_mean_unmasked(logprobs, old_logprobs, mask), unwritten_cells)


def _penalised_scores(
    scores: torch.Tensor, contains_eos: torch.Tensor | None, missing_eos_penalty: float | None
) -> torch.Tensor:
    scores = as_float(scores)
    if missing_eos_penalty is None or contains_eos is None:
        return scores
    return torch.where(as_bool_mask(contains_eos), scores, scores - missing_eos_penalty)


def scores_mean(
    scores: torch.Tensor,
    contains_eos: torch.Tensor | None = None,
    missing_eos_penalty: float | None = None,
) -> torch.Tensor:
    r"""`objective/scores`: mean score, minus `missing_eos_penalty` for completions without EOS.

    $$
    \bar s = \frac{1}{B}\sum_b \big(s_b - p\,[\text{no EOS in } y_b]\big)
    $$

    Args:
        scores: `(B,)` reward-model scores of the truncated completions.
        contains_eos: `(B,)` whether each completion contains the EOS token.
        missing_eos_penalty: $p$, or `None` (no penalty).

    Up to 0.10.1 `non_eos_penalty` *replaced* such scores by `penalty_reward_value`
    instead; pass the replaced scores to reproduce those releases.
    """
    return _penalised_scores(scores, contains_eos, missing_eos_penalty).mean()


def non_score_reward_mean(
    logprobs: torch.Tensor,
    ref_logprobs: torch.Tensor,
    mask: torch.Tensor,
    kl_coef: float = 0.05,
    estimator: Estimator = "k1",
) -> torch.Tensor:
    r"""`objective/non_score_reward`: minus `kl_coef` times the per-completion KL sum, averaged.

    $$
    R_{\text{KL}} = \frac{1}{B}\sum_b\sum_t m_{b,t}\,(-\beta\,k_{b,t})
    $$

    Arguments as
    [`metrics_registry.reference.kl.sequence_kl_mean()`][metrics_registry.reference.kl.sequence_kl_mean], plus
    $\beta$ (`kl_coef`, default 0.05). Equals $-\beta$ times `objective/kl`: negative when the policy moved
    away from the reference (the docs' positive sign is wrong).
    """
    per_token = -kl_coef * estimate(logprobs, ref_logprobs, estimator)
    keep = as_bool_mask(mask).expand_as(per_token)
    return torch.where(keep, per_token, _zero(per_token)).sum(dim=-1).mean()


def rlhf_reward_mean(
    logprobs: torch.Tensor,
    ref_logprobs: torch.Tensor,
    mask: torch.Tensor,
    scores: torch.Tensor,
    *,
    kl_coef: float = 0.05,
    estimator: Estimator = "k1",
    contains_eos: torch.Tensor | None = None,
    missing_eos_penalty: float | None = None,
) -> torch.Tensor:
    r"""`objective/rlhf_reward`: `objective/non_score_reward` + `objective/scores`.

    $$
    R_{\text{RLHF}} = \frac{1}{B}\sum_b\Big(s_b - \beta\sum_t m_{b,t}\,k_{b,t}\Big)
    $$

    The code adds the (already negative) penalty to the mean score, so this is
    score minus $\beta$ × KL; the docs' `score - non_score_reward` would add it.
    """
    penalty = non_score_reward_mean(logprobs, ref_logprobs, mask, kl_coef, estimator)
    return penalty + scores_mean(scores, contains_eos, missing_eos_penalty)

r"""TRL `PPOTrainer` (the PPOv2 rewrite, 0.9.2 to 1.12.x): the logged numbers.

Two kinds of metric:

* **rollout metrics** (`objective/*`), computed once per rollout batch from
  `(B, T)` tensors of the sampled completions;
* **optimisation statistics** (`policy/*`, `loss/*`, `val/*`), computed
  for every micro-batch of every PPO epoch and minibatch, written into a grid
  `num_ppo_epochs × num_mini_batches × gradient_accumulation_steps` and
  averaged over that grid (and over processes) at the end of the batch.

The `*_avg` functions take tensors of shape `(..., B, T)`: the leading
dimensions index the micro-batches of the grid (micro-batches have equal
size in TRL), `B` and `T` are one micro-batch. Without leading dimensions
the input is one micro-batch. `unwritten_cells` adds the grid cells that
TRL ≥ 0.17 leaves at 0 (see [`unwritten_grid_cells()`][unwritten_grid_cells]).

Quirks reproduced, each with the clean definition next to it:

* `policy/approxkl_avg`, `val/ratio` and `policy/entropy_avg` take a
  plain mean over all response positions, padding included
  ([`approxkl_k2_unmasked()`][approxkl_k2_unmasked], [`ratio_mean_unmasked()`][ratio_mean_unmasked],
  [`entropy_mean_unmasked()`][entropy_mean_unmasked]; clean: the `*_masked` functions);
* the clip fraction is sign-gated ([`policy_clipfrac_sign_gated()`][policy_clipfrac_sign_gated];
  CleanRL/SB3's symmetric count: [`policy_clipfrac_symmetric()`][policy_clipfrac_symmetric]);
* the value loss and value clip fraction use the completion mask extended by
  one position ([`mask_plus_one()`][mask_plus_one]);
* the score lands one position after the last real token
  ([`rollout_rewards()`][rollout_rewards]);
* zero cells of the statistics grid from 0.17.0 ([`unwritten_grid_cells()`][unwritten_grid_cells]).
"""

from __future__ import annotations

import math

import torch

from metrics_registry.reference import gae as _gae
from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.kl import Estimator, estimate
from metrics_registry.reference.masked import as_bool_mask, as_float, masked_whiten

__all__ = [
    "INVALID_LOGPROB",
    "approxkl_avg",
    "approxkl_k2_masked",
    "approxkl_k2_unmasked",
    "approxkl_k3_masked",
    "clipped_policy_loss",
    "clipped_value_loss",
    "entropy_avg",
    "entropy_mean_masked",
    "entropy_mean_unmasked",
    "grid_mean",
    "grid_var",
    "mask_plus_one",
    "non_score_reward_mean",
    "policy_clipfrac_avg",
    "policy_clipfrac_sign_gated",
    "policy_clipfrac_symmetric",
    "policy_loss_avg",
    "ratio_avg",
    "ratio_mean_masked",
    "ratio_mean_unmasked",
    "ratio_var",
    "rlhf_reward_mean",
    "rollout_advantages_and_returns",
    "rollout_rewards",
    "scores_mean",
    "unwritten_grid_cells",
    "value_clipfrac",
    "value_clipfrac_avg",
    "value_loss_avg",
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


# ------------------------------------------------------------- per micro-batch


def approxkl_k2_unmasked(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    r"""TRL's per-micro-batch `approxkl`: half the squared log-ratio, mean over *all* positions.

    $$
    \frac{1}{2BT}\sum_{b,t} \big(\log\pi_\theta - \log\pi_{\text{old}}\big)^2\,m_{b,t}
    $$

    Args:
        logprobs: `(..., B, T)` current policy log-probabilities of the sampled tokens.
        old_logprobs: `(..., B, T)` the rollout policy's.
        mask: `(..., B, T)` completion mask; padding has log-ratio 0 (TRL stores the
            same placeholder in both tensors) but still counts in the denominator.

    Estimator k2 of KL(old ‖ new), samples from the rollout policy. The quirk: the
    padding share of the positions scales the value down. Returns one value per
    micro-batch (the leading shape).
    """
    keep = as_bool_mask(mask)
    diff = _log_ratio(logprobs, old_logprobs, keep)
    return 0.5 * (diff**2).mean(dim=(-2, -1))


def approxkl_k2_masked(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    r"""Clean k2 approximate KL: masked mean over real tokens (legacy v0.7 `ppo/policy/approxkl`).

    $$
    \frac{\sum_{b,t} m_{b,t}\,\tfrac12(\log\pi_\theta - \log\pi_{\text{old}})^2}{\sum_{b,t} m_{b,t}}
    $$

    Same arguments as [`approxkl_k2_unmasked()`][approxkl_k2_unmasked]; padding never changes it.
    """
    keep = as_bool_mask(mask)
    diff = _log_ratio(logprobs, old_logprobs, keep)
    return _mean_bt(0.5 * diff**2, keep)


def approxkl_k3_masked(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    r"""k3 approximate KL(old ‖ new), masked mean: what CleanRL and SB3 log as `approx_kl`.

    $$
    \frac{\sum m\,\big((r - 1) - \log r\big)}{\sum m},\quad r = \pi_\theta/\pi_{\text{old}}
    $$

    Unbiased and non-negative, unlike k2; not logged by TRL PPO.
    """
    keep = as_bool_mask(mask)
    return _mean_bt(estimate(old_logprobs, logprobs, "k3"), keep)


def ratio_mean_unmasked(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    r"""TRL's per-micro-batch `val/ratio` cell: mean probability ratio over all positions.

    Padding has $r = 1$ exactly and counts, pulling the mean towards 1.
    Shapes as [`approxkl_k2_unmasked()`][approxkl_k2_unmasked].
    """
    keep = as_bool_mask(mask)
    return torch.exp(_log_ratio(logprobs, old_logprobs, keep)).mean(dim=(-2, -1))


def ratio_mean_masked(logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Clean probability ratio mean over real tokens only (legacy v0.7's `ratio_threshold` test uses it)."""
    keep = as_bool_mask(mask)
    return _mean_bt(torch.exp(_log_ratio(logprobs, old_logprobs, keep)), keep)


def policy_clipfrac_sign_gated(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float = 0.2,
) -> torch.Tensor:
    r"""TRL's clip fraction: share of real tokens where the clipped surrogate term wins the max.

    $$
    \frac{\sum m\,\big[-A\,\mathrm{clip}(r, 1-\epsilon, 1+\epsilon) > -A\,r\big]}{\sum m}
    $$

    i.e. $r > 1+\epsilon$ with $A > 0$, or $r < 1-\epsilon$ with
    $A < 0$: the tokens whose gradient the clip switches off.

    Args:
        logprobs: `(..., B, T)` current policy log-probabilities.
        old_logprobs: `(..., B, T)` the rollout policy's.
        advantages: `(..., B, T)` (whitened GAE advantages in TRL).
        mask: `(..., B, T)` completion mask.
        cliprange: $\epsilon$ (`cliprange`, default 0.2).

    Always in [0, 1] and never above [`policy_clipfrac_symmetric()`][policy_clipfrac_symmetric] on the same
    data.
    """
    keep = as_bool_mask(mask)
    ratio = torch.exp(_log_ratio(logprobs, old_logprobs, keep))
    advantages = as_float(advantages)
    unclipped = -advantages * ratio
    clipped = -advantages * torch.clamp(ratio, 1.0 - cliprange, 1.0 + cliprange)
    return _mean_bt((clipped > unclipped).to(ratio.dtype), keep)


def policy_clipfrac_symmetric(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor, cliprange: float = 0.2
) -> torch.Tensor:
    r"""Symmetric clip fraction (CleanRL, SB3, ppo2): share of real tokens with $|r - 1| > \epsilon$.

    Counts every token outside the trust region whatever the advantage sign. Not what TRL logs.
    """
    keep = as_bool_mask(mask)
    ratio = torch.exp(_log_ratio(logprobs, old_logprobs, keep))
    return _mean_bt(((ratio - 1.0).abs() > cliprange).to(ratio.dtype), keep)


def clipped_policy_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float = 0.2,
) -> torch.Tensor:
    r"""Clipped PPO surrogate loss per micro-batch, masked mean over real tokens.

    $$
    L^{\text{clip}} = \frac{\sum m\,\max\big(-A r,\ -A\,\mathrm{clip}(r, 1-\epsilon, 1+\epsilon)\big)}
    {\sum m}
    $$

    Shapes as [`policy_clipfrac_sign_gated()`][policy_clipfrac_sign_gated]. A loss, so lower is better; with
    whitened advantages and $r = 1$ it equals minus the masked mean advantage.
    """
    keep = as_bool_mask(mask)
    ratio = torch.exp(_log_ratio(logprobs, old_logprobs, keep))
    advantages = as_float(advantages)
    losses = torch.max(
        -advantages * ratio, -advantages * torch.clamp(ratio, 1.0 - cliprange, 1.0 + cliprange)
    )
    return _mean_bt(losses, keep)


def mask_plus_one(mask: torch.Tensor) -> torch.Tensor:
    """TRL's value mask (`~padding_mask_p1`): the completion mask of `(..., T)` extended by one position.

    The completion mask must be a prefix (real tokens first). The extra position is
    the state after the stop token, where TRL puts the score (see [`rollout_rewards()`][rollout_rewards]).
    """
    keep = as_bool_mask(mask)
    lengths = keep.sum(dim=-1, keepdim=True)
    positions = torch.arange(keep.shape[-1])
    return positions <= lengths


def _value_losses(
    vpreds: torch.Tensor, old_values: torch.Tensor, returns: torch.Tensor, cliprange_value: float
) -> tuple[torch.Tensor, torch.Tensor]:
    vpreds, old_values, returns = as_float(vpreds), as_float(old_values), as_float(returns)
    clipped = torch.max(torch.min(vpreds, old_values + cliprange_value), old_values - cliprange_value)
    return (vpreds - returns) ** 2, (clipped - returns) ** 2


def clipped_value_loss(
    vpreds: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange_value: float = 0.2,
    include_next_position: bool = True,
) -> torch.Tensor:
    r"""Half the clipped squared value error per micro-batch, masked mean.

    $$
    L^V = \tfrac12\,\frac{\sum m'\,\max\big((V - R)^2,
    (\mathrm{clip}(V, V^{\text{old}} - \epsilon_v, V^{\text{old}} + \epsilon_v) - R)^2\big)}{\sum m'}
    $$

    Args:
        vpreds: `(..., B, T)` predictions $V$ of the value model being trained.
        old_values: `(..., B, T)` rollout-time values $V^{\text{old}}$.
        returns: `(..., B, T)` GAE returns $R$ (see
            [`rollout_advantages_and_returns()`][rollout_advantages_and_returns]).
        mask: `(..., B, T)` completion mask.
        cliprange_value: $\epsilon_v$ (default 0.2).
        include_next_position: use [`mask_plus_one()`][mask_plus_one] (TRL PPOv2) rather than the completion
            mask (legacy v0.7).

    Logged without the `vf_coef` weight.
    """
    keep = mask_plus_one(mask) if include_next_position else as_bool_mask(mask)
    unclipped, clipped = _value_losses(vpreds, old_values, returns, cliprange_value)
    return 0.5 * _mean_bt(torch.max(unclipped, clipped), keep)


def value_clipfrac(
    vpreds: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange_value: float = 0.2,
    include_next_position: bool = True,
) -> torch.Tensor:
    r"""Share of positions where the clipped value error wins: $(V^{\text{clip}} - R)^2 > (V - R)^2$.

    Arguments as [`clipped_value_loss()`][clipped_value_loss]. No advantage sign is involved.
    """
    keep = mask_plus_one(mask) if include_next_position else as_bool_mask(mask)
    unclipped, clipped = _value_losses(vpreds, old_values, returns, cliprange_value)
    return _mean_bt((clipped > unclipped).to(unclipped.dtype), keep)


def entropy_mean_unmasked(logits: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    r"""TRL's per-micro-batch `policy/entropy_avg` cell: plain mean entropy over all positions.

    $$
    \frac{1}{BT}\sum_{b,t} H\big(\mathrm{softmax}(z_{b,t} / (\tau + 10^{-7}))\big)
    $$

    Args:
        logits: `(..., B, T, V)` logits of the policy being optimised at the response positions.
        temperature: $\tau$; TRL divides by `temperature + 1e-7`, reproduced here.

    Padding positions are included with whatever entropy the model gives them.
    """
    return categorical_entropy(logits, temperature + _TEMPERATURE_EPS).mean(dim=(-2, -1))


def entropy_mean_masked(logits: torch.Tensor, mask: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    """Clean per-micro-batch mean entropy over real tokens (same temperature handling as TRL)."""
    return _mean_bt(categorical_entropy(logits, temperature + _TEMPERATURE_EPS), as_bool_mask(mask))


# ------------------------------------------------------------- logged values


def approxkl_avg(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor, unwritten_cells: int = 0
) -> torch.Tensor:
    r"""`policy/approxkl_avg`: [`approxkl_k2_unmasked()`][approxkl_k2_unmasked] per micro-batch, averaged over
    the grid.

    $$
    \frac{1}{|G|}\sum_{g\in G}\frac{1}{2 N_g T}\sum_{i,t}
    \big(\log\pi_\theta(y_{i,t}) - \log\pi_{\text{old}}(y_{i,t})\big)^2
    $$

    Args:
        logprobs: `(..., B, T)`; leading dimensions index the micro-batches.
        old_logprobs: `(..., B, T)`.
        mask: `(..., B, T)`; padding counts in each micro-batch's denominator (quirk).
        unwritten_cells: zero cells of the grid ([`unwritten_grid_cells()`][unwritten_grid_cells]).
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
    """`policy/clipfrac_avg`: [`policy_clipfrac_sign_gated()`][policy_clipfrac_sign_gated] per micro-batch,
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
    """`loss/policy_avg`: [`clipped_policy_loss()`][clipped_policy_loss] per micro-batch, averaged over the
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
    """`loss/value_avg`: [`clipped_value_loss()`][clipped_value_loss] (mask plus one) per micro-batch, grid
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
    """`val/clipfrac_avg`: [`value_clipfrac()`][value_clipfrac] (mask plus one position) per micro-batch,
    grid average."""
    return grid_mean(
        value_clipfrac(vpreds, old_values, returns, mask, cliprange_value=cliprange_value), unwritten_cells
    )


def entropy_avg(logits: torch.Tensor, temperature: float = 1.0, unwritten_cells: int = 0) -> torch.Tensor:
    """`policy/entropy_avg`: [`entropy_mean_unmasked()`][entropy_mean_unmasked] per micro-batch (padding
    included), grid average.

    `logits` is `(..., B, T, V)`.
    """
    return grid_mean(entropy_mean_unmasked(logits, temperature), unwritten_cells)


def ratio_avg(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor, unwritten_cells: int = 0
) -> torch.Tensor:
    """`val/ratio`: [`ratio_mean_unmasked()`][ratio_mean_unmasked] per micro-batch (padding counts as 1),
    grid average.

    From 0.17.0 zero cells pull it towards 0 (about 0.5 with half the grid empty).
    """
    return grid_mean(ratio_mean_unmasked(logprobs, old_logprobs, mask), unwritten_cells)


def ratio_var(
    logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor, unwritten_cells: int = 0
) -> torch.Tensor:
    """`val/ratio_var`: Bessel-corrected variance of the per-micro-batch mean ratios
    ([`grid_var()`][grid_var]).

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


# ------------------------------------------------------------ rollout pieces


def rollout_rewards(
    logprobs: torch.Tensor,
    ref_logprobs: torch.Tensor,
    scores: torch.Tensor,
    mask: torch.Tensor,
    *,
    kl_coef: float = 0.05,
    estimator: Estimator = "k1",
) -> torch.Tensor:
    r"""Per-token rollout rewards: $-\beta k_t$ on real tokens, the score one position after the last.

    Args:
        logprobs: `(B, T)` policy log-probabilities of the completion tokens.
        ref_logprobs: `(B, T)` the reference model's.
        scores: `(B,)` (after any missing-EOS penalty).
        mask: `(B, T)` prefix completion mask; $L_b$ real tokens.
        kl_coef: as in [`non_score_reward_mean()`][non_score_reward_mean].
        estimator: as in [`non_score_reward_mean()`][non_score_reward_mean].

    The score is added at position $L_b$ (the first padding position, the
    state after the stop token), or at $L_b - 1$ when the completion fills all
    `T` positions. Padding positions hold 0 otherwise. Returns `(B, T)`.
    """
    per_token = -kl_coef * estimate(logprobs, ref_logprobs, estimator)
    keep = as_bool_mask(mask).expand_as(per_token)
    rewards = torch.where(keep, per_token, _zero(per_token)).clone()
    lengths = keep.sum(dim=-1)
    length = rewards.shape[-1]
    end = torch.where(lengths < length, lengths, lengths - 1).clamp(min=0)
    rows = torch.arange(rewards.shape[0])
    rewards[rows, end] += as_float(scores).to(rewards.dtype)
    return rewards


def rollout_advantages_and_returns(
    rewards: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor,
    *,
    gamma: float = 1.0,
    lam: float = 0.95,
    whiten_rewards: bool = False,
) -> dict[str, torch.Tensor]:
    r"""TRL PPOv2's advantages and returns, step by step as in `PPOTrainer.train`.

    1. values beyond the completion plus one position are set to 0;
    2. with `whiten_rewards` the rewards are scaled (not centred) with the
       statistics of the completion-plus-one positions and zeroed elsewhere;
    3. GAE over every position
    ([`metrics_registry.reference.gae.gae_advantages()`][metrics_registry.reference.gae.gae_advantages]); 4.
    returns $R = \hat A + V$ (before whitening; the value targets); 5. advantages whitened over the real
    tokens of the whole batch (mean 0,
       variance 1) and set to 0 on padding.

    Args:
        rewards: `(B, T)` from [`rollout_rewards()`][rollout_rewards].
        values: `(B, T)` rollout-time values.
        mask: `(B, T)` prefix completion mask.
        gamma: discount, TRL default 1.0.
        lam: GAE $\lambda$, TRL default 0.95.
        whiten_rewards: TRL's option of that name.

    Returns `{"advantages", "returns", "values"}`, each `(B, T)`.
    """
    keep = as_bool_mask(mask).expand_as(as_float(rewards))
    keep_p1 = mask_plus_one(keep)
    rewards, values = as_float(rewards), as_float(values)
    values = torch.where(keep_p1, values, _zero(values))
    if whiten_rewards:
        rewards = masked_whiten(rewards, keep_p1, shift_mean=False)
        rewards = torch.where(keep_p1, rewards, _zero(rewards))
    advantages = _gae.gae_advantages(rewards, values, gamma, lam)
    returns = advantages + values
    advantages = torch.where(keep, masked_whiten(advantages, keep), _zero(advantages))
    return {"advantages": advantages, "returns": returns, "values": values}

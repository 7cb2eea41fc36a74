"""PPOv2 per-micro-batch statistics, each quirk next to its clean definition."""

from __future__ import annotations

import torch

from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.kl import estimate
from metrics_registry.reference.masked import as_bool_mask, as_float
from metrics_registry.reference.ppo.common import _TEMPERATURE_EPS, _log_ratio, _mean_bt

__all__ = [
    "approxkl_k2_masked",
    "approxkl_k2_unmasked",
    "approxkl_k3_masked",
    "clipped_policy_loss",
    "clipped_value_loss",
    "entropy_mean_masked",
    "entropy_mean_unmasked",
    "mask_plus_one",
    "policy_clipfrac_sign_gated",
    "policy_clipfrac_symmetric",
    "ratio_mean_masked",
    "ratio_mean_unmasked",
    "value_clipfrac",
]


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
    the state after the stop token, where TRL puts the score (see
    [`rollout_rewards()`][metrics_registry.reference.ppo.rollout.rollout_rewards]).
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
            [`rollout_advantages_and_returns()`][metrics_registry.reference.ppo.rollout.rollout_advantages_and_returns]).
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

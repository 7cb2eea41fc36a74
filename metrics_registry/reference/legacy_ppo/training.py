"""Legacy PPO training statistics: `ppo/policy/*`, `ppo/val/*`, `ppo/returns/*`, `ppo/loss/*`."""

from __future__ import annotations

import torch

from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.legacy_ppo.common import (
    WANDB_PADDING,
    _average,
    _per_minibatch_mean,
    _per_minibatch_var,
)
from metrics_registry.reference.masked import as_bool_mask, as_float, masked_var

__all__ = [
    "advantages_histogram",
    "advantages_mean",
    "explained_variance",
    "loss_policy",
    "loss_total",
    "loss_value",
    "policy_approxkl",
    "policy_clipfrac",
    "policy_entropy",
    "policy_policykl",
    "ratio_histogram",
    "returns_mean",
    "returns_var",
    "val_clipfrac",
    "val_error",
    "val_mean",
    "val_var",
    "val_var_explained",
    "val_vpred",
]


# ----------------------------------------------------- training statistics


def policy_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/policy/entropy`: masked mean categorical entropy per minibatch, averaged over minibatches.

    $$
    \frac1M\sum_m \frac{\sum_{t\in m} m_t\,H(\pi_\theta(\cdot\mid s_t))}{\sum_{t\in m} m_t}
    $$

    `logits` `(M, B, T, V)`, `mask` `(M, B, T)`.
    """
    return _average(_per_minibatch_mean(categorical_entropy(logits), mask))


def policy_approxkl(logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/policy/approxkl`: k2 $\tfrac12(\log\pi_\theta - \log\pi_{\text{old}})^2$, masked mean.

    Estimates KL(old ‖ new) from rollout samples; biased, never negative. `(M, B, T)` inputs.
    """
    diff = as_float(logprobs) - as_float(old_logprobs)
    return _average(_per_minibatch_mean(0.5 * diff**2, mask))


def policy_policykl(logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/policy/policykl`: k1, $\log\pi_{\text{old}} - \log\pi_\theta$, masked mean, averaged.

    Unbiased for KL(old ‖ new), can be negative. (0.2.0 logged the opposite sign.)
    """
    diff = as_float(old_logprobs) - as_float(logprobs)
    return _average(_per_minibatch_mean(diff, mask))


def _ratio(logprobs: torch.Tensor, old_logprobs: torch.Tensor) -> torch.Tensor:
    return torch.exp(as_float(logprobs) - as_float(old_logprobs))


def policy_clipfrac(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float = 0.2,
) -> torch.Tensor:
    r"""`ppo/policy/clipfrac`: sign-gated clip fraction (the clipped term wins the max), masked, averaged.

    $$
    \frac1M\sum_m\frac{\sum m_t\,[-A_t\,\mathrm{clip}(r_t, 1\pm\epsilon) > -A_t r_t]}{\sum m_t}
    $$
    """
    ratio = _ratio(logprobs, old_logprobs)
    advantages = as_float(advantages)
    flags = (-advantages * torch.clamp(ratio, 1 - cliprange, 1 + cliprange) > -advantages * ratio).to(
        ratio.dtype
    )
    return _average(_per_minibatch_mean(flags, mask))


def ratio_histogram(logprobs: torch.Tensor, old_logprobs: torch.Tensor) -> torch.Tensor:
    """`ppo/policy/ratio`: every ratio of every minibatch, flattened, *unmasked* (prompt, padding too)."""
    return _ratio(logprobs, old_logprobs).reshape(-1)


def advantages_mean(advantages: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/policy/advantages_mean`: masked mean of the whitened advantages per minibatch, averaged."""
    return _average(_per_minibatch_mean(advantages, mask))


def advantages_histogram(advantages: torch.Tensor) -> torch.Tensor:
    """`ppo/policy/advantages`: all advantages of all minibatches, flattened, unmasked, NaN -> -1."""
    return torch.nan_to_num(as_float(advantages).reshape(-1), float(WANDB_PADDING))


def returns_mean(returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/returns/mean`: masked mean of the returns $\hat A + V_{\text{old}}$, averaged."""
    return _average(_per_minibatch_mean(returns, mask))


def returns_var(returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/returns/var`: Bessel-corrected masked variance of the returns *within* each minibatch, averaged.

    With one token in a minibatch the variance is NaN here (TRL divides by zero).
    """
    return _average(_per_minibatch_var(returns, mask))


def val_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/val/mean`: masked mean of the rollout values $V_{\\text{old}}$ per minibatch, averaged."""
    return _average(_per_minibatch_mean(values, mask))


def val_var(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/val/var`: Bessel-corrected masked variance of the rollout values per minibatch, averaged."""
    return _average(_per_minibatch_var(values, mask))


def val_vpred(vpreds: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/val/vpred`: masked mean of the training-time value predictions per minibatch, averaged."""
    return _average(_per_minibatch_mean(vpreds, mask))


def val_error(vpreds: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/val/error`: masked mean of $(V_\theta - R)^2$ per minibatch, averaged (no ½, no clip)."""
    return _average(_per_minibatch_mean((as_float(vpreds) - as_float(returns)) ** 2, mask))


def val_var_explained(vpreds: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/val/var_explained`: 1 - averaged error / averaged within-minibatch return variance.

    $$
    1 - \frac{\frac1M\sum_m \mathrm{mean}_{t\in m}(V_\theta - R)^2}
    {\frac1M\sum_m \widehat{\mathrm{Var}}_{t\in m}(R)}
    $$

    Not the textbook explained variance ([`explained_variance()`][explained_variance]): the numerator is
    a mean squared error (a constant offset lowers it), the denominator ignores
    the variance between minibatches, and the predictions are the training-time ones.
    """
    return 1 - val_error(vpreds, returns, mask) / returns_var(returns, mask)


def val_clipfrac(
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    cliprange_value: float = 0.2,
) -> torch.Tensor:
    r"""`ppo/val/clipfrac`: share of tokens with $(V^{\text{clip}} - R)^2 > (V_\theta - R)^2$."""
    vpreds, values, returns = as_float(vpreds), as_float(values), as_float(returns)
    clipped = torch.max(torch.min(vpreds, values + cliprange_value), values - cliprange_value)
    flags = ((clipped - returns) ** 2 > (vpreds - returns) ** 2).to(vpreds.dtype)
    return _average(_per_minibatch_mean(flags, mask))


def _skipped(
    logprobs: torch.Tensor | None,
    old_logprobs: torch.Tensor | None,
    mask: torch.Tensor,
    ratio_threshold: float,
) -> torch.Tensor:
    """Per minibatch: whether the masked mean ratio exceeds `ratio_threshold` (losses are then zeroed)."""
    if logprobs is None or old_logprobs is None:
        return torch.zeros((), dtype=torch.bool)
    return _per_minibatch_mean(_ratio(logprobs, old_logprobs), mask) > ratio_threshold


def _policy_losses(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float,
) -> torch.Tensor:
    ratio = _ratio(logprobs, old_logprobs)
    advantages = as_float(advantages)
    losses = torch.max(-advantages * ratio, -advantages * torch.clamp(ratio, 1 - cliprange, 1 + cliprange))
    return _per_minibatch_mean(losses, mask)


def _value_losses(
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    cliprange_value: float,
) -> torch.Tensor:
    vpreds, values, returns = as_float(vpreds), as_float(values), as_float(returns)
    clipped = torch.max(torch.min(vpreds, values + cliprange_value), values - cliprange_value)
    losses = torch.max((vpreds - returns) ** 2, (clipped - returns) ** 2)
    return 0.5 * _per_minibatch_mean(losses, mask)


def loss_policy(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange: float = 0.2,
    ratio_threshold: float = 10.0,
) -> torch.Tensor:
    r"""`ppo/loss/policy`: clipped surrogate, masked mean per minibatch, averaged; skipped ones count 0.

    $$
    \frac1M\sum_m [\bar r_m \le \rho]\,
    \frac{\sum m_t \max(-A_t r_t, -A_t\,\mathrm{clip}(r_t, 1\pm\epsilon))}{\sum m_t}
    $$

    A minibatch whose masked mean ratio $\bar r_m$ exceeds `ratio_threshold`
    $\rho$ (default 10, from 0.4.7) has its losses multiplied by 0 and logged as 0.
    """
    losses = _policy_losses(logprobs, old_logprobs, advantages, mask, cliprange)
    skipped = _skipped(logprobs, old_logprobs, mask, ratio_threshold)
    return _average(torch.where(skipped, torch.zeros((), dtype=losses.dtype), losses))


def loss_value(
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange_value: float = 0.2,
    logprobs: torch.Tensor | None = None,
    old_logprobs: torch.Tensor | None = None,
    ratio_threshold: float = 10.0,
) -> torch.Tensor:
    r"""`ppo/loss/value`: half the clipped squared value error, masked mean per minibatch, averaged.

    $$
    \frac1M\sum_m \frac12\,
    \frac{\sum m_t \max\big((V_\theta - R)^2, (V^{\text{clip}} - R)^2\big)}{\sum m_t}
    $$

    Before the `vf_coef` weight. Pass `logprobs` and `old_logprobs` to apply the
    `ratio_threshold` zeroing of [`loss_policy()`][loss_policy].
    """
    losses = _value_losses(vpreds, values, returns, mask, cliprange_value)
    skipped = _skipped(logprobs, old_logprobs, mask, ratio_threshold)
    return _average(torch.where(skipped, torch.zeros((), dtype=losses.dtype), losses))


def loss_total(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    *,
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float = 0.2,
    cliprange_value: float = 0.2,
    vf_coef: float = 0.1,
    ratio_threshold: float = 10.0,
) -> torch.Tensor:
    r"""`ppo/loss/total`: $L^{\text{policy}} + c_v L^{\text{value}}$ per minibatch, averaged.

    Zeroed with the two parts when `ratio_threshold` is exceeded.
    """
    policy = _policy_losses(logprobs, old_logprobs, advantages, mask, cliprange)
    value = _value_losses(vpreds, values, returns, mask, cliprange_value)
    total = policy + vf_coef * value
    skipped = _skipped(logprobs, old_logprobs, mask, ratio_threshold)
    return _average(torch.where(skipped, torch.zeros((), dtype=total.dtype), total))


def explained_variance(
    values: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor | None = None, unbiased: bool = False
) -> torch.Tensor:
    r"""Textbook explained variance (CleanRL, SB3): $1 - \mathrm{Var}(R - V)/\mathrm{Var}(R)$.

    Args:
        values: predictions $V$, any shape.
        returns: targets $R$, same shape.
        mask: positions to use (all when `None`).
        unbiased: Bessel's correction (CleanRL and SB3 use the population variance).

    1 for perfect predictions, 0 for a constant, negative when worse; insensitive to
    a constant offset. NaN when the returns do not vary (CleanRL/SB3 convention).
    The clean counterpart of [`val_var_explained()`][val_var_explained]; no TRL key logs it.
    """
    values, returns = as_float(values), as_float(returns)
    keep = as_bool_mask(mask, like=values)
    var_returns = masked_var(returns, keep, unbiased=unbiased)
    if var_returns == 0:
        return torch.full((), float("nan"), dtype=values.dtype)
    return 1 - masked_var(returns - values, keep, unbiased=unbiased) / var_returns

"""GRPO clipping metrics: `clip_ratio/*` (two-sided, 0.16's inversion, CISPO) and VESPO's weight."""

from __future__ import annotations

import math

import torch

from metrics_registry.reference.grpo.common import (
    Level,
    _nan,
    _per_sequence_mean,
    global_masked_mean,
    importance_weights,
)
from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "cispo_clip_ratio",
    "clip_ratio_0_16",
    "clip_ratios",
    "vespo_phi_seq_mean",
]


def clip_ratios(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor | None,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    epsilon_low: float = 0.2,
    epsilon_high: float | None = None,
    importance_sampling_level: Level = "token",
    delta: float | None = None,
) -> dict[str, torch.Tensor]:
    r"""GRPO's `clip_ratio/*` (0.17.0+, global form of 1.9.0+): sign-gated clip fractions.

    With $r$ from [`importance_weights()`][metrics_registry.reference.grpo.common.importance_weights]
    (capped at `delta` when set):

    * low: $r < 1 - \epsilon_{\text{low}} \wedge A < 0$;
    * high: $r > 1 + \epsilon_{\text{high}} \wedge A > 0$;
    * region: low or high (the tokens whose gradient the clip removes; PPO's rule).

    Args:
        logprobs: `(B, T)` current policy log-probabilities.
        old_logprobs: `(B, T)` of the generating policy; `None` is on-policy (all 0).
        advantages: `(B,)` one per completion (or `(B, T)`).
        mask: `(B, T)` loss mask.
        epsilon_low: `epsilon` (default 0.2).
        epsilon_high: `epsilon_high` (defaults to `epsilon_low`).
        importance_sampling_level: `"token"` or `"sequence"` (then flags are per sequence).
        delta: two-sided clipping cap on $r$.

    Returns `low_mean`, `high_mean`, `region_mean`
    ([`global_masked_mean()`][metrics_registry.reference.grpo.common.global_masked_mean] of the
    flags) and `low_min` / `high_max` (NaN-aware min / max over sequences of each
    sequence's masked mean flag; all-masked sequences are skipped; NaN if none is left).
    """
    epsilon_high = epsilon_low if epsilon_high is None else epsilon_high
    ratio = importance_weights(logprobs, old_logprobs, mask, importance_sampling_level)
    if delta is not None:
        ratio = torch.clamp(ratio, max=delta)
    advantages = as_float(advantages)
    if advantages.dim() == 1:
        advantages = advantages.unsqueeze(-1)
    low = ((ratio < 1 - epsilon_low) & (advantages < 0)).to(ratio.dtype)
    high = ((ratio > 1 + epsilon_high) & (advantages > 0)).to(ratio.dtype)
    region = torch.maximum(low, high)
    low_seq = _per_sequence_mean(low, mask)
    high_seq = _per_sequence_mean(high, mask)
    low_seq, high_seq = low_seq[~torch.isnan(low_seq)], high_seq[~torch.isnan(high_seq)]
    return {
        "low_mean": global_masked_mean(low, mask),
        "high_mean": global_masked_mean(high, mask),
        "region_mean": global_masked_mean(region, mask),
        "low_min": low_seq.min() if low_seq.numel() else _nan(ratio.dtype),
        "high_max": high_seq.max() if high_seq.numel() else _nan(ratio.dtype),
    }


def clip_ratio_0_16(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    epsilon: float = 0.2,
) -> torch.Tensor:
    r"""GRPO `clip_ratio` in 0.16.x: the *inverted* test `per_token_loss1 < per_token_loss2`.

    $$
    \frac{\sum m\,\big[r A < \mathrm{clip}(r, 1-\epsilon, 1+\epsilon) A\big]}{\sum m}
    $$

    True for $r < 1-\epsilon$ with $A > 0$ or $r > 1+\epsilon$ with
    $A < 0$: tokens outside the band whose gradient still flows, the complement
    of the binding cases (TRL issues #3032, #3144; fixed in 0.17.0). The Liger
    path that kept this key from 0.17.0 to 1.13.x used the correct rule:
    `clip_ratios(...)["region_mean"]` (per-process mean). NaN for an empty mask.
    """
    ratio = torch.exp(as_float(logprobs) - as_float(old_logprobs))
    advantages = as_float(advantages)
    if advantages.dim() == 1:
        advantages = advantages.unsqueeze(-1)
    loss1 = ratio * advantages
    loss2 = torch.clamp(ratio, 1 - epsilon, 1 + epsilon) * advantages
    keep = as_bool_mask(mask).expand_as(loss1)
    flags = torch.where(keep, (loss1 < loss2).to(ratio.dtype), torch.zeros((), dtype=ratio.dtype))
    return flags.sum() / keep.sum().to(ratio.dtype)


def cispo_clip_ratio(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor | None,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    epsilon_high: float,
    importance_sampling_level: Level = "token",
) -> torch.Tensor:
    r"""GRPO `cispo_clip_ratio`: share of tokens above the CISPO cap with a positive advantage.

    $$
    \frac{\sum m\,[r > \epsilon_{\text{high}} \wedge A > 0]}{\max(1, \sum m)}
    $$

    `epsilon_high` is an absolute cap on $r$ (e.g. 5.0), not $1 + \epsilon$.
    """
    ratio = importance_weights(logprobs, old_logprobs, mask, importance_sampling_level)
    advantages = as_float(advantages)
    if advantages.dim() == 1:
        advantages = advantages.unsqueeze(-1)
    return global_masked_mean(((ratio > epsilon_high) & (advantages > 0)).to(ratio.dtype), mask)


def vespo_phi_seq_mean(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    importance_sampling_ratio: torch.Tensor | None = None,
    k_pos: float = 2.0,
    lambda_pos: float = 3.0,
    k_neg: float = 3.0,
    lambda_neg: float = 2.0,
) -> torch.Tensor:
    r"""GRPO `vespo/phi_seq_mean`: mean over sequences of the VESPO gamma weight $\varphi(w)$.

    $$
    \varphi(w) = e^{\lambda}\,w^{k}\,e^{-\lambda w} = \exp(\lambda + k\log w - \lambda w),
    $$

    $$
    \log w = \mathrm{clamp}\Big(
    \sum_t m_t\,\mathrm{clamp}(\log\tfrac{\pi_\theta}{\pi_{\text{old}}}, -20, 20)
    + \sum_t \log\rho_t,\ \log 10^{-8},\ 20\Big)
    $$

    $k, \lambda$ are the `_pos` values for $A \ge 0$ and the `_neg`
    values otherwise ($\lambda$ clamped to at least 1e-4); $\rho$ is the optional
    vLLM importance-sampling ratio `(B, T)` (log clamped to $[\log 10^{-8}, 20]$).
    Non-finite weights become 0. $\varphi(1) = 1$.
    """
    lower = math.log(1e-8)
    log_ratio = torch.clamp(as_float(logprobs) - as_float(old_logprobs), -20.0, 20.0)
    keep = as_bool_mask(mask).expand_as(log_ratio)
    seq_log_ratio = torch.where(keep, log_ratio, torch.zeros((), dtype=log_ratio.dtype)).sum(dim=-1)
    if importance_sampling_ratio is not None:
        log_is = torch.clamp(torch.log(as_float(importance_sampling_ratio)), lower, 20.0)
        seq_log_ratio = seq_log_ratio + log_is.sum(dim=-1)
    log_w = torch.clamp(seq_log_ratio, lower, 20.0)
    advantages = as_float(advantages).reshape(-1)
    nonneg = advantages >= 0
    k = torch.where(nonneg, k_pos, k_neg).to(log_w.dtype)
    lam = torch.where(nonneg, lambda_pos, lambda_neg).to(log_w.dtype).clamp(min=1e-4)
    phi = torch.exp(lam + k * log_w - lam * torch.exp(log_w)).nan_to_num(nan=0.0, posinf=0.0, neginf=0.0)
    return global_masked_mean(phi.unsqueeze(-1), mask)

r"""TRL `GRPOTrainer` (0.14 to 1.16): rewards, group advantages, KL, entropy, clipping, losses, sampling.

Generation-time metrics (rewards, advantages, `frac_reward_zero_std`,
`sampling/*`, `tools/*`) are computed once per generation batch on the
rewards gathered from every process. Loss-time metrics (`kl`, `entropy`,
`clip_ratio/*`, `policy_loss`) are computed per micro-batch; since 1.9.0
token means are *global*: masked sums and token counts are added over
processes before dividing ([`global_masked_mean()`][global_masked_mean]). With one process, as
here, that is a plain masked mean, except that an empty mask gives 0, not NaN.

Rewards: `rewards_per_func` is `(N, F)` (completions × reward
functions) with NaN where a function returned `None`. Completions are
ordered group by group: rows `g·n … g·n + n − 1` are the `n =
num_generations` completions of prompt `g`.

Advantages are one value per completion, shape `(N,)`; per-token tensors are
`(B, T)` with the loss `mask` (completion mask times tool mask).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import torch

from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.kl import k3
from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "adaptive_entropy_coef",
    "cispo_clip_ratio",
    "clip_ratio_0_16",
    "clip_ratios",
    "entropy_mean",
    "frac_reward_zero_std",
    "global_masked_mean",
    "grad_norm",
    "group_advantages",
    "importance_weights",
    "kl_mean",
    "nanstd",
    "policy_loss",
    "reward_func_mean",
    "reward_func_std",
    "reward_mean",
    "reward_std",
    "reward_std_before_0_27",
    "sampling_stats",
    "tool_call_stats",
    "total_rewards",
    "vespo_phi_seq_mean",
]

ScaleRewards = Literal["group", "batch", "none"]
Aggregation = Literal["sum_then_normalize", "normalize_then_sum"]
Level = Literal["token", "sequence"]

_STD_EPS = 1e-4  # TRL divides by (std + 1e-4)


def _nan(dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.full((), float("nan"), dtype=dtype)


# ------------------------------------------------------------------ helpers


def nanstd(values: torch.Tensor, dim: int | None = None, keepdim: bool = False) -> torch.Tensor:
    r"""TRL's `nanstd`: Bessel-corrected standard deviation ignoring NaN; NaN when fewer than 2 values.

    $$
    s = \sqrt{\frac{1}{n-1}\sum_{i:\,x_i \ne \text{NaN}} (x_i - \bar x)^2}
    $$
    """
    values = as_float(values)
    mean = torch.nanmean(values, dim=dim, keepdim=True)
    variance = torch.nanmean((values - mean) ** 2, dim=dim, keepdim=True)
    count = (~torch.isnan(values)).sum(dim=dim, keepdim=True).to(values.dtype)
    correction = torch.where(count > 1, count / (count - 1), torch.full_like(count, float("nan")))
    std = torch.sqrt(variance * correction)
    if keepdim:
        return std
    return std.reshape(()) if dim is None else std.squeeze(dim)


def global_masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""GRPO's `global_masked_mean` (1.9.0+) on one process: masked sum over a count clamped to 1.

    $$
    \frac{\sum_{i,t} m_{i,t}\,x_{i,t}}{\max\big(1, \sum_{i,t} m_{i,t}\big)}
    $$

    Args:
        values: `(B, T)`, or `(B, 1)` for sequence-level quantities, which are
            averaged over sequences without the mask (TRL tests `x.shape[1] == 1`,
            so a `T = 1` batch is treated the same way).
        mask: `(B, T)`.

    An all-masked micro-batch gives 0, not NaN. With several processes TRL adds
    the sums and the counts of all processes before dividing; concatenate the
    processes' rows to reproduce it.
    """
    values = as_float(values)
    if values.shape[-1] == 1:
        return values.sum() / max(1.0, float(values.shape[0]))
    keep = as_bool_mask(mask).expand_as(values)
    total = torch.where(keep, values, torch.zeros((), dtype=values.dtype)).sum()
    return total / keep.sum().clamp(min=1).to(values.dtype)


def _per_sequence_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """TRL's `masked_seq_mean`: per-sequence masked mean (NaN for an empty row); `(B, 1)` passes."""
    if values.shape[-1] == 1:
        return values.squeeze(-1)
    keep = as_bool_mask(mask).expand_as(values)
    total = torch.where(keep, values, torch.zeros((), dtype=values.dtype)).sum(dim=-1)
    return total / keep.sum(dim=-1).to(values.dtype)


def importance_weights(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor | None,
    mask: torch.Tensor,
    importance_sampling_level: Level = "token",
) -> torch.Tensor:
    r"""GRPO's ratio `coef_1` between the policy being optimised and the one that generated.

    * `"token"`: $r_{i,t} = \exp(\log\pi_\theta - \log\pi_{\text{old}})$, shape `(B, T)`;
    * `"sequence"` (GSPO): the geometric mean of the token ratios over the real tokens,
      $r_i = \exp\big(\sum_t m_{i,t}\log\frac{\pi_\theta}{\pi_{\text{old}}} / \max(1, N_i)\big)$,
      with $N_i$ the real tokens of sequence $i$; shape `(B, 1)`.

    `old_logprobs=None` means on-policy (TRL uses the detached current
    log-probabilities): every ratio is exactly 1.
    """
    logprobs = as_float(logprobs)
    log_ratio = torch.zeros_like(logprobs) if old_logprobs is None else logprobs - as_float(old_logprobs)
    if importance_sampling_level == "token":
        return torch.exp(log_ratio)
    if importance_sampling_level == "sequence":
        keep = as_bool_mask(mask).expand_as(log_ratio)
        summed = torch.where(keep, log_ratio, torch.zeros((), dtype=log_ratio.dtype)).sum(dim=-1)
        return torch.exp(summed / keep.sum(dim=-1).clamp(min=1).to(log_ratio.dtype)).unsqueeze(-1)
    raise ValueError(f"unknown importance_sampling_level {importance_sampling_level!r}")


# ------------------------------------------------------------------ rewards


def total_rewards(
    rewards_per_func: torch.Tensor,
    reward_weights: Sequence[float] | torch.Tensor | None = None,
    unscorable_as_zero: bool = False,
) -> torch.Tensor:
    r"""Weighted total reward per completion: $R_i = \sum_k w_k r_{i,k}$ with `nansum`.

    Args:
        rewards_per_func: `(N, F)`, NaN where a function returned `None`.
        reward_weights: `(F,)`, default all 1.
        unscorable_as_zero: TRL before 1.6.0: a completion for which *every*
            function returned `None` gets 0. From 1.6.0 it gets NaN and is left out
            of the statistics (the default here).

    Returns `(N,)`. A function that returned `None` for one completion contributes 0 to its sum.
    """
    rewards = as_float(rewards_per_func)
    if rewards.dim() == 1:
        rewards = rewards.unsqueeze(-1)
    weights = (
        torch.ones(rewards.shape[-1], dtype=rewards.dtype)
        if reward_weights is None
        else as_float(reward_weights)
    )
    total = (rewards * weights.to(rewards.dtype)).nansum(dim=-1)
    if not unscorable_as_zero:
        total = torch.where(torch.isnan(rewards).all(dim=-1), _nan(total.dtype), total)
    return total


def reward_mean(
    rewards_per_func: torch.Tensor,
    reward_weights: Sequence[float] | torch.Tensor | None = None,
    unscorable_as_zero: bool = False,
) -> torch.Tensor:
    r"""GRPO `reward`: `nanmean` of the weighted total rewards (before any group normalisation).

    $$
    \bar R = \operatorname{nanmean}_i \sum_k w_k\,r_{i,k}
    $$

    Arguments as [`total_rewards()`][total_rewards]. NaN when every completion is unscorable.
    (0.27.x to 0.29.x ignored `reward_weights` here: pass `None` to reproduce.)
    """
    return torch.nanmean(total_rewards(rewards_per_func, reward_weights, unscorable_as_zero))


def reward_std(
    rewards_per_func: torch.Tensor,
    reward_weights: Sequence[float] | torch.Tensor | None = None,
    unscorable_as_zero: bool = False,
) -> torch.Tensor:
    r"""GRPO `reward_std` since 0.27.0: [`nanstd()`][nanstd] of the weighted totals over the whole batch.

    $$
    s_R = \operatorname{nanstd}_i\Big(\sum_k w_k\,r_{i,k}\Big)
    $$

    Mixes spread between prompts and within groups. NaN with fewer than two scorable completions.
    """
    return nanstd(total_rewards(rewards_per_func, reward_weights, unscorable_as_zero))


def reward_std_before_0_27(
    rewards: torch.Tensor, num_generations: int, scale_rewards: ScaleRewards = "group"
) -> torch.Tensor:
    r"""GRPO `reward_std` from 0.14.0 to 0.26.x: the mean over groups of the within-group `torch.std`.

    $$
    \frac{1}{G}\sum_{g=1}^{G}\operatorname{std}(R_{g,1..n})
    $$

    Args:
        rewards: `(N,)` weighted totals (`N = G·n`).
        num_generations: `n`.
        scale_rewards: from 0.22.2, `"batch"` logged the batch-wide `torch.std` instead
            (0.22.0 and 0.22.1 had the two branches swapped).
    """
    rewards = as_float(rewards)
    if scale_rewards == "batch":
        return rewards.std()
    return rewards.view(-1, num_generations).std(dim=1).mean()


def reward_func_mean(rewards: torch.Tensor) -> torch.Tensor:
    r"""`rewards/{reward_func_name}/mean`: `nanmean` of one function's raw rewards over the batch.

    `rewards` is `(N,)` with NaN where the function returned `None`; those
    completions are left out. NaN when the function scored nothing.
    """
    return torch.nanmean(as_float(rewards))


def reward_func_std(rewards: torch.Tensor) -> torch.Tensor:
    """`rewards/{reward_func_name}/std`: [`nanstd()`][nanstd] of one function's raw rewards over the whole
    batch.

    The spread across prompts, not within groups; NaN with fewer than two scored completions.
    """
    return nanstd(as_float(rewards))


def group_advantages(
    rewards_per_func: torch.Tensor,
    num_generations: int,
    reward_weights: Sequence[float] | torch.Tensor | None = None,
    scale_rewards: ScaleRewards = "group",
    multi_objective_aggregation: Aggregation = "sum_then_normalize",
) -> dict[str, torch.Tensor]:
    r"""GRPO's group-relative advantages (TRL 1.6+), with the standard deviations and zero-spread flags.

    `"sum_then_normalize"` (default):

    $$
    R_i = \sum_k w_k r_{i,k},\quad
    A_i = \frac{R_i - \operatorname{nanmean}_{j\in g(i)} R_j}{\sigma_i + 10^{-4}}
    $$

    with $\sigma_i$ the `nanstd` of the group of $i$ (`scale_rewards="group"`)
    or of the whole batch (`"batch"`); `"none"` does not divide (Dr. GRPO) but still
    computes the group std for the flags. `"normalize_then_sum"` normalises each
    function within its group first, sums, and then normalises with the batch std.

    Edges: with one completion per group the std is taken as 0 (every group
    "zero spread", advantages 0); unscorable completions (all functions `None`)
    get advantage 0; a group whose scorable completions are fewer than two has a
    NaN std, which is *not* flagged as zero.

    Args:
        rewards_per_func: `(N, F)`; `N` a multiple of `num_generations`.
        num_generations: completions per prompt `n`.
        reward_weights: `(F,)`, default all 1.
        scale_rewards: `"group"`, `"batch"` or `"none"`.
        multi_objective_aggregation: `"sum_then_normalize"` or `"normalize_then_sum"`.

    Returns `{"advantages": (N,), "std_rewards": (N,), "is_std_zero": (N,)}`.
    Advantages are invariant to permuting completions inside a group (they move with it).
    """
    per_func = as_float(rewards_per_func)
    if per_func.dim() == 1:
        per_func = per_func.unsqueeze(-1)
    n_funcs = per_func.shape[-1]
    weights = (
        torch.ones(n_funcs, dtype=per_func.dtype) if reward_weights is None else as_float(reward_weights)
    )
    weights = weights.to(per_func.dtype)
    unscorable = torch.isnan(per_func).all(dim=-1)
    if multi_objective_aggregation == "sum_then_normalize":
        rewards = (per_func * weights).nansum(dim=-1)
        rewards = torch.where(unscorable, _nan(rewards.dtype), rewards)
        grouped = rewards.view(-1, num_generations)
        group_mean = torch.nanmean(grouped, dim=1).repeat_interleave(num_generations)
        if scale_rewards in ("group", "none"):
            if num_generations > 1:
                std = nanstd(grouped, dim=1).repeat_interleave(num_generations)
            else:
                std = torch.zeros_like(rewards)
        elif scale_rewards == "batch":
            std = nanstd(rewards).expand_as(rewards) if rewards.numel() > 1 else torch.zeros_like(rewards)
        else:
            raise ValueError(f"unknown scale_rewards {scale_rewards!r}")
        advantages = rewards - group_mean
        if scale_rewards != "none":
            advantages = advantages / (std + _STD_EPS)
    elif multi_objective_aggregation == "normalize_then_sum":
        grouped = per_func.view(-1, num_generations, n_funcs)
        mean_k = torch.nanmean(grouped, dim=1, keepdim=True)
        std_k = nanstd(grouped, dim=1, keepdim=True) if num_generations > 1 else torch.zeros_like(mean_k)
        normalised = ((grouped - mean_k) / (std_k + _STD_EPS)).view(-1, n_funcs)
        rewards = (normalised * weights).nansum(dim=-1)
        rewards = torch.where(unscorable, _nan(rewards.dtype), rewards)
        std = nanstd(rewards).expand_as(rewards) if rewards.numel() > 1 else torch.zeros_like(rewards)
        advantages = (rewards - torch.nanmean(rewards)) / (std + _STD_EPS)
    else:
        raise ValueError(f"unknown multi_objective_aggregation {multi_objective_aggregation!r}")
    is_std_zero = torch.isclose(std, torch.zeros_like(std))
    return {
        "advantages": torch.nan_to_num(advantages, nan=0.0),
        "std_rewards": std,
        "is_std_zero": is_std_zero,
    }


def frac_reward_zero_std(
    rewards_per_func: torch.Tensor,
    num_generations: int,
    reward_weights: Sequence[float] | torch.Tensor | None = None,
    scale_rewards: ScaleRewards = "group",
    multi_objective_aggregation: Aggregation = "sum_then_normalize",
) -> torch.Tensor:
    r"""GRPO `frac_reward_zero_std`: share of completions whose group's reward std is `isclose` to 0.

    $$
    f_0 = \frac{1}{G}\sum_{g} \big[\operatorname{std}(R_{g,1..n}) \approx 0\big]
    $$

    Groups are equal-sized, so this is the fraction of groups with identical
    rewards (their advantages are all 0). Under `scale_rewards="batch"` or
    `"normalize_then_sum"` the flag comes from the batch std: 0 or 1. One
    completion per group gives 1.0. Arguments as [`group_advantages()`][group_advantages].
    """
    flags = group_advantages(
        rewards_per_func, num_generations, reward_weights, scale_rewards, multi_objective_aggregation
    )["is_std_zero"]
    return flags.to(torch.float64).mean()


# --------------------------------------------------------------- loss-time


def kl_mean(
    logprobs: torch.Tensor,
    ref_logprobs: torch.Tensor,
    mask: torch.Tensor,
    *,
    old_logprobs: torch.Tensor | None = None,
    use_bias_correction_kl: bool = False,
    importance_sampling_level: Level = "token",
) -> torch.Tensor:
    r"""GRPO `kl`: global masked token mean of the k3 estimate of KL(policy ‖ reference).

    $$
    \frac{\sum_{i,t} m_{i,t}\,c_{i,t}\,\big(e^{\delta_{i,t}} - \delta_{i,t} - 1\big)}
    {\max(1, \sum_{i,t} m_{i,t})},
    \quad \delta = \log\pi_{\text{ref}} - \log\pi_\theta
    $$

    Args:
        logprobs: `(B, T)` current policy log-probabilities of the completion tokens.
        ref_logprobs: `(B, T)` reference model's.
        mask: `(B, T)` loss mask.
        old_logprobs: `(B, T)` of the generating policy, for the bias correction; `None` = on-policy.
        use_bias_correction_kl: multiply each term by the importance ratio
            $c = \pi_\theta/\pi_{\text{old}}$ ([`importance_weights()`][importance_weights]; default True
            since 1.10.0).
        importance_sampling_level: `"token"` or `"sequence"` ratio for the correction.

    Per token, not summed over the completion (unlike PPO `objective/kl`).
    """
    per_token = k3(logprobs, ref_logprobs)
    if use_bias_correction_kl:
        per_token = per_token * importance_weights(logprobs, old_logprobs, mask, importance_sampling_level)
    return global_masked_mean(per_token, mask)


def entropy_mean(logits: torch.Tensor, mask: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    r"""GRPO `entropy`: global masked mean of the exact entropy of `softmax(logits / temperature)`.

    $$
    \bar H = \frac{\sum_{i,t} m_{i,t}\,H\big(\pi_\theta(\cdot \mid q, o_{i,<t})\big)}{\max(1, \sum m)}
    $$

    `logits` is `(B, T, V)` at the completion positions; `mask` `(B, T)`.
    `top_entropy_quantile` does not affect it.
    """
    return global_masked_mean(categorical_entropy(logits, temperature), mask)


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

    With $r$ from [`importance_weights()`][importance_weights] (capped at `delta` when set):

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

    Returns `low_mean`, `high_mean`, `region_mean` ([`global_masked_mean()`][global_masked_mean] of the
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


def policy_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor | None,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    loss_type: Literal["grpo", "bnpo", "dr_grpo", "dapo"] = "dapo",
    epsilon_low: float = 0.2,
    epsilon_high: float | None = None,
    beta: float = 0.0,
    ref_logprobs: torch.Tensor | None = None,
    use_bias_correction_kl: bool = False,
    importance_sampling_level: Level = "token",
    max_completion_length: int | None = None,
    num_items_in_batch: float | None = None,
    num_processes: int = 1,
    gradient_accumulation_steps: int = 1,
    steps_per_generation: int | None = None,
    entropies: torch.Tensor | None = None,
    entropy_coef: float = 0.0,
) -> dict[str, torch.Tensor]:
    r"""GRPO's clipped objective for one micro-batch: `policy_loss`, and the `loss` given to transformers.

    Per token

    $$
    \ell_{i,t} = -\min\big(r A_i,\
    \mathrm{clip}(r, 1-\epsilon_{\text{low}}, 1+\epsilon_{\text{high}})A_i\big)
    + \beta\,k3_{i,t},
    $$

    aggregated by `loss_type`:

    * `"grpo"`: mean over sequences of each sequence's masked token mean;
    * `"bnpo"`: masked token mean of the micro-batch;
    * `"dr_grpo"`: masked sum over `B × max_completion_length`;
    * `"dapo"` (default since 0.22.0): masked sum over the token count of the accumulation
      window, `num_items_in_batch / num_processes × gradient_accumulation_steps / steps_per_generation`
      (`num_items_in_batch` defaults to this micro-batch's token count, which makes it a token mean).

    `policy_loss` is that value (logged only when the entropy bonus is on).
    `loss` is what `compute_loss` returns: divided by `gradient_accumulation_steps`
    for grpo, bnpo and dr_grpo (dapo's normaliser already includes it), minus
    `entropy_coef` × the masked mean of `entropies` / `gradient_accumulation_steps`.
    transformers sums the returned losses over the micro-steps of an optimizer step and
    logs the mean over the steps of the window as `loss`: for one micro-batch per
    step it is this value.

    Args:
        logprobs: `(B, T)` current policy log-probabilities.
        old_logprobs: `(B, T)` of the generating policy; `None` is on-policy.
        advantages: `(B,)`.
        mask: `(B, T)` loss mask.
        ref_logprobs: `(B, T)` of the reference model, for the KL term (`beta`).
        entropies: `(B, T)` per-token entropies, for the bonus.

    The other arguments are the `GRPOConfig` options of the same names.
    """
    epsilon_high = epsilon_low if epsilon_high is None else epsilon_high
    logprobs = as_float(logprobs)
    keep = as_bool_mask(mask).expand_as(logprobs)
    zero = torch.zeros((), dtype=logprobs.dtype)
    ratio = importance_weights(logprobs, old_logprobs, keep, importance_sampling_level)
    advantages = as_float(advantages)
    if advantages.dim() == 1:
        advantages = advantages.unsqueeze(-1)
    clipped = torch.clamp(ratio, 1 - epsilon_low, 1 + epsilon_high)
    per_token = -torch.min(ratio * advantages, clipped * advantages)
    per_token = per_token.expand_as(logprobs)
    if beta != 0.0:
        if ref_logprobs is None:
            raise ValueError("beta != 0 needs ref_logprobs")
        kl = k3(logprobs, ref_logprobs)
        if use_bias_correction_kl:
            kl = kl * ratio
        per_token = per_token + beta * kl
    masked = torch.where(keep, per_token, zero)
    count = keep.sum().to(logprobs.dtype)
    if loss_type == "grpo":
        value = (masked.sum(dim=-1) / keep.sum(dim=-1).clamp(min=1).to(logprobs.dtype)).mean()
    elif loss_type == "bnpo":
        value = masked.sum() / count.clamp(min=1.0)
    elif loss_type == "dr_grpo":
        length = logprobs.shape[-1] if max_completion_length is None else max_completion_length
        value = masked.sum() / (logprobs.shape[0] * length)
    elif loss_type == "dapo":
        items = (
            count
            if num_items_in_batch is None
            else torch.tensor(float(num_items_in_batch), dtype=count.dtype)
        )
        steps = gradient_accumulation_steps if steps_per_generation is None else steps_per_generation
        normalizer = items.clamp(min=1.0) / num_processes * gradient_accumulation_steps / steps
        value = masked.sum() / normalizer
    else:
        raise ValueError(f"unsupported loss_type {loss_type!r} (grpo, bnpo, dr_grpo, dapo)")
    loss = value if loss_type == "dapo" else value / gradient_accumulation_steps
    if entropy_coef != 0.0:
        if entropies is None:
            raise ValueError("entropy_coef != 0 needs entropies")
        entropy = torch.where(keep, as_float(entropies), zero).sum() / count.clamp(min=1.0)
        loss = loss - entropy_coef * entropy / gradient_accumulation_steps
    return {"policy_loss": value, "loss": loss}


def adaptive_entropy_coef(
    entropy_coef: float,
    entropy_sum: float,
    token_count: float,
    *,
    entropy_target: float = 0.2,
    entropy_coef_delta: float = 0.005,
    entropy_coef_min: float = 0.0,
    entropy_coef_max: float = 1.0,
) -> torch.Tensor:
    r"""GRPO `entropy_coef` with `use_adaptive_entropy=True`: the coefficient after one optimizer step.

    $$
    H = \frac{\sum \text{entropy}}{\max(1, N_{\text{tokens}})},\qquad
    c' = \begin{cases}\min(c + \Delta, c_{\max}) & H \le H^\ast\\
    \max(c - \Delta, c_{\min}) & H > H^\ast\end{cases}
    $$

    Args:
        entropy_coef: $c$ before the step.
        entropy_sum: masked entropy summed over the accumulation window and all processes.
        token_count: the matching token count.
        entropy_target: the config option of that name ($H^\ast$).
        entropy_coef_delta: the config option of that name ($\Delta$).
        entropy_coef_min: the config option of that name ($c_{\min}$).
        entropy_coef_max: the config option of that name ($c_{\max}$).

    With a static coefficient the logged value is just `entropy_coef`.
    """
    entropy = float(entropy_sum) / max(1.0, float(token_count))
    if entropy <= entropy_target:
        new = min(entropy_coef + entropy_coef_delta, entropy_coef_max)
    else:
        new = max(entropy_coef - entropy_coef_delta, entropy_coef_min)
    return torch.tensor(new, dtype=torch.float64)


# ------------------------------------------------------------ generation-time


def sampling_stats(
    old_logprobs: torch.Tensor,
    sampling_logprobs: torch.Tensor,
    mask: torch.Tensor,
    *,
    mode: Literal["token_truncate", "token_mask", "sequence_truncate", "sequence_mask"] = "sequence_mask",
    clip_min: float | None = None,
    clip_max: float | None = 3.0,
) -> dict[str, torch.Tensor]:
    r"""GRPO `sampling/*` (vLLM importance-sampling correction, 0.26+ modes) on one process.

    * `logp_difference_mean` / `_max`: mean / max over real tokens of
      $|\log\pi_{\text{train}} - \log\pi_{\text{vLLM}}|$, NaN differences dropped (0.0 if none is left);
    * the ratio $\rho = \exp(\log\pi_{\text{train}} - \log\pi_{\text{vLLM}})$ per token,
      or per sequence from the *sum* of the masked token log-ratios (a product of token
      ratios); NaN log-ratios count as 0; then `*_truncate` clamps it to
      `[clip_min, clip_max]` and `*_mask` sets ratios outside to 0;
    * `importance_sampling_ratio_min` / `_mean` / `_max` over the real tokens
      (token modes) or the sequences (sequence modes); 0.0 when there are none.

    Args:
        old_logprobs: `(B, T)` recomputed by the training model before any update.
        sampling_logprobs: `(B, T)` returned by vLLM (NaN where unavailable).
        mask: `(B, T)` completion mask (times the tool mask).
        mode: `vllm_importance_sampling_mode`.
        clip_min: its lower bound.
        clip_max: its upper bound.

    Returns the five statistics and `importance_sampling_ratio` (`(B, T)` or `(B, 1)`).
    Across processes TRL averages the means and takes the NaN-aware min/max of the extremes.
    """
    old, sampled = as_float(old_logprobs), as_float(sampling_logprobs)
    keep = as_bool_mask(mask).expand_as(old)
    zero = torch.zeros((), dtype=old.dtype)
    delta = (old - sampled).abs()
    kept = delta[keep & ~torch.isnan(delta)]
    diff = torch.nan_to_num(torch.where(keep, old - sampled, zero), nan=0.0)
    sequence_level = mode.startswith("sequence")
    log_ratio = diff.sum(dim=-1, keepdim=True) if sequence_level else diff
    ratio = torch.exp(log_ratio)
    if mode.endswith("truncate"):
        ratio = torch.clamp(ratio, min=clip_min, max=clip_max)
    elif mode.endswith("mask"):
        low = -math.inf if clip_min is None else clip_min
        high = math.inf if clip_max is None else clip_max
        ratio = ratio.masked_fill((ratio < low) | (ratio > high), 0.0)
    else:
        raise ValueError(f"unknown mode {mode!r}")
    flat = ratio.reshape(-1) if sequence_level else ratio[keep]

    def _stat(values: torch.Tensor, reduce: str) -> torch.Tensor:
        return getattr(values, reduce)() if values.numel() else torch.zeros((), dtype=old.dtype)

    return {
        "logp_difference_mean": _stat(kept, "mean"),
        "logp_difference_max": _stat(kept, "max"),
        "importance_sampling_ratio": ratio,
        "importance_sampling_ratio_min": _stat(flat, "min"),
        "importance_sampling_ratio_mean": _stat(flat, "mean"),
        "importance_sampling_ratio_max": _stat(flat, "max"),
    }


def tool_call_stats(
    tool_call_counts: torch.Tensor, tool_failure_counts: torch.Tensor, num_completions: int
) -> dict[str, torch.Tensor]:
    r"""GRPO `tools/call_frequency` and `tools/failure_frequency` of one generation batch.

    $$
    \text{call\_frequency} = \frac{\sum_p \text{calls}_p}{N},\qquad
    \text{failure\_frequency} = \frac{\sum_p \text{failures}_p}{\sum_p \text{calls}_p}
    \ (0 \text{ without calls})
    $$

    Args:
        tool_call_counts: `(P,)` tool calls per process (all rounds, failed ones included).
        tool_failure_counts: `(P,)` failed calls per process.
        num_completions: `N`, completions of the generation batch over all processes.
    """
    calls = torch.as_tensor(tool_call_counts).to(torch.float64).sum()
    failures = torch.as_tensor(tool_failure_counts).to(torch.float64).sum()
    failure_frequency = failures / calls if calls > 0 else torch.zeros((), dtype=torch.float64)
    return {"call_frequency": calls / num_completions, "failure_frequency": failure_frequency}


def grad_norm(gradients: torch.Tensor | Sequence[torch.Tensor]) -> torch.Tensor:
    r"""`grad_norm` (transformers): global L2 norm of all parameter gradients, before clipping.

    $$
    \|g\|_2 = \sqrt{\sum_{p}\sum_j g_{p,j}^2}
    $$

    `gradients` is one tensor or a sequence of tensors (one per parameter).
    """
    parts = [gradients] if isinstance(gradients, torch.Tensor) else list(gradients)
    flat = torch.cat([as_float(part).reshape(-1) for part in parts]) if parts else torch.zeros(0)
    return torch.linalg.vector_norm(flat)

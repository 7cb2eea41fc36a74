"""GRPO generation-time reward metrics: per-function rewards, group advantages, `frac_reward_zero_std`."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference.grpo.common import _STD_EPS, Aggregation, ScaleRewards, _nan, nanstd
from metrics_registry.reference.masked import as_float

__all__ = [
    "frac_reward_zero_std",
    "group_advantages",
    "reward_func_mean",
    "reward_func_std",
    "reward_mean",
    "reward_std",
    "reward_std_before_0_27",
    "total_rewards",
]


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
    r"""GRPO `reward_std` since 0.27.0: [`nanstd()`][metrics_registry.reference.grpo.common.nanstd] of
    the weighted totals over the whole batch.

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
    """`rewards/{reward_func_name}/std`: [`nanstd()`][metrics_registry.reference.grpo.common.nanstd] of
    one function's raw rewards over the whole
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

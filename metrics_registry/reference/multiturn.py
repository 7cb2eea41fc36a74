r"""The multi-turn GRPO extension (`extensions/multiturn_grpo.yaml`): group filtering and turn advantages.

The project's notes give the rules only in words; where they leave a choice
open, the choice made here is stated and is a parameter:

* a group is dropped when the standard deviation of its rewards is below
  `min_group_std` (the notes: `std < min_group_std`); which standard
  deviation is not said: Bessel-corrected by default (`torch.std`), the
  population one with `unbiased=False`;
* turn advantages come from per-turn ("process") rewards, each turn
  credited on its own; whether they are normalised within the group is not
  said: by default each turn reward is normalised with the mean and standard
  deviation of all turn rewards of its group (the process-supervision form
  of GRPO, Shao et al. 2024), `normalize="none"` keeps the raw rewards, and
  `reward_to_go=True` credits each turn with the sum of its own and later
  normalised rewards (DeepSeekMath's process supervision).
"""

from __future__ import annotations

from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = ["filter_groups", "turn_advantages"]


def filter_groups(
    rewards: torch.Tensor, min_group_std: float, unbiased: bool = True
) -> dict[str, torch.Tensor]:
    r"""Low-variance group filter: `train/groups_kept` and `train/groups_filtered`.

    $$
    \text{kept}_g = \big[\operatorname{std}(R_{g,1..n}) \ge \sigma_{\min}\big]
    $$

    Args:
        rewards: `(G, n)` one reward per rollout, `n` rollouts for each of the `G` queries.
        min_group_std: $\sigma_{\min}$; groups with a smaller spread are dropped.
        unbiased: Bessel's correction (`torch.std` default); `False` for the population std.

    Returns `keep` (`(G,)` bool), `groups_kept`, `groups_filtered` and
    `total_groups` (int64 scalars; kept + filtered = total). A group with a single
    rollout has no spread (NaN with `unbiased`) and is dropped; NaN rewards make
    the group's std NaN and drop it too. Permuting rollouts inside a group changes nothing.
    """
    rewards = as_float(rewards)
    if rewards.dim() == 1:
        rewards = rewards.unsqueeze(0)
    correction = 1 if unbiased else 0
    if rewards.shape[-1] > correction:
        std = rewards.std(dim=-1, correction=correction)
    else:  # a single rollout has no spread (torch would warn and give NaN)
        std = torch.full(rewards.shape[:-1], float("nan"), dtype=rewards.dtype)
    keep = std >= min_group_std  # NaN compares false: dropped
    kept = keep.sum()
    total = torch.tensor(keep.numel())
    return {"keep": keep, "groups_kept": kept, "groups_filtered": total - kept, "total_groups": total}


def turn_advantages(
    turn_rewards: torch.Tensor,
    turn_mask: torch.Tensor | None = None,
    normalize: Literal["group", "none"] = "group",
    reward_to_go: bool = False,
    eps: float = 1e-4,
) -> torch.Tensor:
    r"""Turn-by-turn advantages of one group (the `console/turn_advantage_table` cells).

    With `normalize="group"`:

    $$
    \tilde r_{i,k} = \frac{r_{i,k} - \operatorname{mean}(r)}{\operatorname{std}(r) + \epsilon},\qquad
    A_{i,k} = \tilde r_{i,k}\ \ \text{or, with reward\_to\_go,}\ \ \sum_{k' \ge k} \tilde r_{i,k'}
    $$

    mean and (Bessel-corrected) std taken over every real turn of every rollout
    of the group.

    Args:
        turn_rewards: `(..., n, K)` process reward of turn `k` of rollout `i`; leading
            dimensions are independent groups.
        turn_mask: `(..., n, K)`, true for turns that happened (rollouts that exit early
            have fewer); all true when `None`.
        normalize: `"group"` or `"none"` (raw process rewards).
        reward_to_go: sum the (normalised) rewards of this and later turns.
        eps: added to the standard deviation.

    Returns `(..., n, K)`; turns that did not happen hold 0. A group whose turn
    rewards are all equal gets advantages 0. These defaults are this registry's
    reading of the notes (see the module docstring), not a documented formula.
    """
    rewards = as_float(turn_rewards)
    keep = as_bool_mask(turn_mask, like=rewards).expand_as(rewards)
    zero = torch.zeros((), dtype=rewards.dtype)
    if normalize == "group":
        count = keep.sum(dim=(-2, -1), keepdim=True).to(rewards.dtype)
        mean = torch.where(keep, rewards, zero).sum(dim=(-2, -1), keepdim=True) / count
        squares = torch.where(keep, (rewards - mean) ** 2, zero).sum(dim=(-2, -1), keepdim=True)
        std = torch.sqrt(squares / (count - 1).clamp(min=1))
        rewards = (rewards - mean) / (std + eps)
    elif normalize != "none":
        raise ValueError(f"unknown normalize {normalize!r}")
    rewards = torch.where(keep, rewards, zero)
    if reward_to_go:
        rewards = torch.flip(torch.cumsum(torch.flip(rewards, dims=(-1,)), dim=-1), dims=(-1,))
        rewards = torch.where(keep, rewards, zero)
    return rewards

r"""OpenRLHF per-sample rollout metrics: reward, return, group reward std, lengths, truncation.

Every key here is a per-sample value that the actor reduces to the mean over
every sample it trained on (`"sample"` weighting, `ppo_actor.py:389-399@3c3be623`):
the weighting by row count over cells makes it a plain mean over rows, so the
references take the rows of the whole step. `rollout_stats` gives the
`rollout/*` keys the controller computes before training
(`ppo_trainer.py:412-427`).
"""

from __future__ import annotations

from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float, masked_sum

__all__ = [
    "group_reward_std",
    "response_clip_ratio",
    "response_length_span",
    "rollout_stats",
    "sample_mean",
    "shaped_return",
]

AdvantageEstimator = Literal["gae", "reinforce", "rloo", "reinforce_baseline", "dr_grpo", "group_norm"]


def sample_mean(values: torch.Tensor) -> torch.Tensor:
    r"""`train/reward`, `train/score`, `train/truncated`, `train/total_length`: the mean over samples.

    $$
    \bar x = \frac{1}{B}\sum_b x_b
    $$

    Args:
        values: `(B,)` one value per trained sample (booleans count as 0/1).

    Returns:
        The mean; each sample weighs 1 whatever its length.
    """
    return as_float(values).mean()


def group_reward_std(rewards: torch.Tensor, n_samples_per_prompt: int) -> torch.Tensor:
    r"""`train/group_reward_std`: Bessel-corrected std of each prompt group's rewards, averaged over samples.

    $$
    \bar s = \frac{1}{P}\sum_p \sqrt{\frac{1}{n-1}\sum_i (r_{p,i} - \bar r_p)^2}
    $$

    Args:
        rewards: `(P * n,)` rewards in prompt order, the `n` samples of a prompt adjacent.
        n_samples_per_prompt: `n` (> 1; the key is not logged otherwise).

    Returns:
        The mean of the per-group stds (each sample carries its group's std, and
        groups have equal size).
    """
    grouped = as_float(rewards).reshape(-1, n_samples_per_prompt)
    return grouped.std(-1).mean()


def shaped_return(
    rewards: torch.Tensor,
    kl: torch.Tensor,
    action_mask: torch.Tensor,
    *,
    n_samples_per_prompt: int = 1,
    advantage_estimator: AdvantageEstimator = "gae",
    kl_coef: float = 0.0,
    reward_clip_range: tuple[float, float] | list[float] | torch.Tensor | None = None,
) -> torch.Tensor:
    r"""`train/return`: per-sample sum of the shaped reward (baseline, clip, minus β·KL), mean over samples.

    $$
    R_b = \mathrm{clip}(r'_b) - \beta\sum_t m_{b,t}\,k_{b,t}
    $$

    with $r'$ the reward after the estimator's baseline: `gae`/`reinforce`: $r$;
    `rloo`: $r$ minus the mean of the other $n-1$; `reinforce_baseline`/`dr_grpo`:
    $r - \bar r_{group}$; `group_norm`: $(r - \bar r_{group})/(s_{group} + 10^{-9})$
    (`experience_maker.py:264-311`, `models/utils.py:98-126`).

    Args:
        rewards: `(B,)` raw rewards (after length penalties), prompt order, groups adjacent.
        kl: `(B, T)` per-token KL estimates from experience time (zeros with `use_loss`).
        action_mask: `(B, T)` action mask.
        n_samples_per_prompt: group size `n`.
        advantage_estimator: `algo.advantage.estimator`.
        kl_coef: $\beta$ (`algo.kl.init_coef`; negative counts as 0).
        reward_clip_range: `(low, high)` of `reward.clip_range`, or `None`.

    Returns:
        The mean of $R_b$ over samples: undiscounted, before advantage whitening.
    """
    r = as_float(rewards).reshape(-1, n_samples_per_prompt)
    if advantage_estimator == "rloo":
        r = r - (r.sum(-1, keepdim=True) - r) / (n_samples_per_prompt - 1)
    elif advantage_estimator in ("reinforce_baseline", "dr_grpo"):
        r = r - r.mean(-1, keepdim=True)
    elif advantage_estimator == "group_norm":
        r = (r - r.mean(-1, keepdim=True)) / (r.std(-1, keepdim=True) + 1e-9)
    elif advantage_estimator not in ("gae", "reinforce"):
        raise ValueError(f"unknown advantage estimator {advantage_estimator!r}")
    r = r.reshape(-1)
    if reward_clip_range is not None:
        low, high = (float(x) for x in torch.as_tensor(reward_clip_range, dtype=torch.float64).tolist())
        r = r.clamp(min=low, max=high)
    beta = max(float(kl_coef), 0.0)
    kl_sum = masked_sum(as_float(kl), action_mask, dim=-1)
    return (r - beta * kl_sum).mean()


def response_length_span(action_mask: torch.Tensor) -> torch.Tensor:
    r"""`train/response_length`: positions from the first to the last action token, mean over samples.

    $$
    L_b = t_{last} - t_{first} + 1
    $$

    Args:
        action_mask: `(B, T)` action mask of each sample (multi-turn: model
            turns 1, environment tokens between them 0).

    Returns:
        The mean span; environment tokens between the first and last model
        token count (`samples_generator.py:276-277`). A row without action tokens counts 0.
    """
    keep = as_bool_mask(action_mask)
    positions = torch.arange(keep.shape[-1]).expand_as(keep)
    first = torch.where(keep, positions, keep.shape[-1]).min(dim=-1).values
    last = torch.where(keep, positions, -1).max(dim=-1).values
    span = torch.where(keep.any(dim=-1), last - first + 1, 0)
    return span.to(torch.float64).mean()


def response_clip_ratio(total_length: torch.Tensor, max_len: int) -> torch.Tensor:
    r"""`train/response_clip_ratio`: share of samples whose total length reached `data.max_len`.

    $$
    c = \frac{1}{B}\sum_b [\ell_b \ge L_{max}]
    $$

    Args:
        total_length: `(B,)` prompt + response tokens after truncation.
        max_len: `data.max_len`.

    Returns:
        The fraction (the context cap, not the `max_new_tokens` cap of `truncated`).
    """
    return (as_float(total_length) >= max_len).to(torch.float64).mean()


def rollout_stats(
    rewards: torch.Tensor, response_length: torch.Tensor, truncated: torch.Tensor
) -> dict[str, torch.Tensor]:
    r"""The `rollout/*` keys: exact statistics of all the step's samples, before training.

    $$
    \bar r = \frac{1}{N}\sum_i r_i,\quad s_r = \sqrt{\tfrac{1}{N-1}\sum_i (r_i - \bar r)^2}
    $$

    Args:
        rewards: `(N,)` every sample's reward (after length penalties).
        response_length: `(N,)` span lengths.
        truncated: `(N,)` whether vLLM stopped at `max_new_tokens`.

    Returns:
        `reward_mean`, `reward_std` (Bessel-corrected over the whole batch, 0 for one
        sample), `response_length_mean`, `truncated_rate`, `num_samples`.
    """
    r = as_float(rewards)
    return {
        "reward_mean": r.mean(),
        "reward_std": r.std() if r.numel() > 1 else torch.zeros((), dtype=r.dtype),
        "response_length_mean": as_float(response_length).mean(),
        "truncated_rate": as_float(truncated).mean(),
        "num_samples": torch.tensor(float(r.numel()), dtype=torch.float64),
    }

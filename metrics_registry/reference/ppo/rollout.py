"""PPOv2 rollout pieces: the per-token rewards and the whitened GAE advantages and returns."""

from __future__ import annotations

import torch

from metrics_registry.reference import gae as _gae
from metrics_registry.reference.kl import Estimator, estimate
from metrics_registry.reference.masked import as_bool_mask, as_float, masked_whiten
from metrics_registry.reference.ppo.common import _zero
from metrics_registry.reference.ppo.micro_batch import mask_plus_one

__all__ = [
    "rollout_advantages_and_returns",
    "rollout_rewards",
]


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
        kl_coef: as in
            [`non_score_reward_mean()`][metrics_registry.reference.ppo.logged.non_score_reward_mean].
        estimator: as in
            [`non_score_reward_mean()`][metrics_registry.reference.ppo.logged.non_score_reward_mean].

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

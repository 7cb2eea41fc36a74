r"""Generalised advantage estimation (GAE) and the TD($\lambda$) returns.

For $t = T-1, \dots, 0$, with $V_T$ the bootstrap value (0 in TRL):

$$
\delta_t = r_t + \gamma V_{t+1} - V_t,\qquad
\hat A_t = \delta_t + \gamma\lambda\,\hat A_{t+1},\ \hat A_T = 0,\qquad
R_t = \hat A_t + V_t
$$

$R_t$ is a TD($\lambda$) target, not a Monte-Carlo return (the two
agree for $\lambda = 1$). TRL runs the recursion over every position
of the padded response, without a done mask; the rewards and values of
padding are 0 by then, so padding after the last real token changes nothing
(see
[`rollout_advantages_and_returns()`][metrics_registry.reference.ppo.rollout.rollout_advantages_and_returns]
for what TRL zeroes and where it puts the score).
"""

from __future__ import annotations

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = ["gae", "gae_advantages"]


def gae_advantages(
    rewards: torch.Tensor,
    values: torch.Tensor,
    gamma: float = 1.0,
    lam: float = 0.95,
    bootstrap_value: float = 0.0,
) -> torch.Tensor:
    r"""GAE advantages over the last dimension, as TRL's loop computes them.

    $$
    \hat A_t = \sum_{l \ge 0} (\gamma\lambda)^l\,\delta_{t+l},\quad \delta_t = r_t + \gamma V_{t+1} - V_t
    $$

    Args:
        rewards: `(B, T)` per-position rewards.
        values: `(B, T)` value estimates $V(s_t)$ of the state before position `t`.
        gamma: discount (TRL default 1.0).
        lam: GAE $\lambda$ (TRL default 0.95).
        bootstrap_value: $V_T$ after the last position (TRL: 0, no bootstrap).

    Returns `(B, T)`. Every position takes part; zero rewards and values in the
    padding make it inert.
    """
    rewards, values = as_float(rewards), as_float(values)
    length = rewards.shape[-1]
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[..., 0])
    for t in reversed(range(length)):
        next_value = values[..., t + 1] if t < length - 1 else torch.full_like(last, bootstrap_value)
        delta = rewards[..., t] + gamma * next_value - values[..., t]
        last = delta + gamma * lam * last
        advantages[..., t] = last
    return advantages


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor | None = None,
    gamma: float = 1.0,
    lam: float = 0.95,
) -> dict[str, torch.Tensor]:
    r"""Advantages and returns $R_t = \hat A_t + V_t$, with an optional mask.

    Args:
        rewards: `(B, T)`.
        values: `(B, T)`.
        mask: `(B, T)` or `None`. Where false, rewards and values are set to 0
            before the recursion, as TRL v0.7's `compute_advantages` does. The
            recursion still runs through masked positions: a masked *prefix*
            (the prompt, in v0.7) receives the discounted advantage of the first
            real token, which is why v0.7's unmasked advantage histogram shows
            non-zero values on prompt positions.
        gamma: as in [`gae_advantages()`][gae_advantages].
        lam: as in [`gae_advantages()`][gae_advantages].

    Returns `{"advantages": (B, T), "returns": (B, T), "values": (B, T)}` (the
    values after masking).
    """
    rewards, values = as_float(rewards), as_float(values)
    if mask is not None:
        keep = as_bool_mask(mask).expand_as(rewards)
        zero = torch.zeros((), dtype=rewards.dtype)
        rewards = torch.where(keep, rewards, zero)
        values = torch.where(keep, values, zero)
    advantages = gae_advantages(rewards, values, gamma, lam)
    return {"advantages": advantages, "returns": advantages + values, "values": values}

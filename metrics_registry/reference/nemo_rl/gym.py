r"""NeMo-RL NeMo-Gym rollout keys: the effort-level reward shaping.

Effort levels (`nemo_rl/experience/rollouts.py:367-465,2796-2807@7ea279ab`): a
sample whose last user prompt contains `effort_levels.low_string` gets the
length term $\ell = \min\big(1, w\,(1 - L/U)\big)$, with $L$ the tokens of the
rollout's last message (0 unless it is an assistant message), $w$ =
`low_weight` and $U$ = `low_ub`, and its reward becomes
$r + r\max(\ell, 0) + c\min(\ell, 0)$ with $c$ = `low_penalty`.
"""

from __future__ import annotations

import math
import statistics

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = ["effort_shaping"]


def effort_shaping(
    rewards: torch.Tensor,
    lengths: torch.Tensor,
    low_effort: torch.Tensor,
    *,
    low_weight: float = 0.0,
    low_penalty: float = 1.0,
    low_ub: int = 64000,
) -> dict[str, float]:
    r"""The effort-level keys of a NeMo-Gym batch, keyed by their logged names without `train/`.

    Args:
        rewards: `(B,)` the NeMo-Gym rewards before shaping.
        lengths: `(B,)` tokens of each rollout's last message (0 when it is not an assistant message).
        low_effort: `(B,)` whether the last user prompt contains `low_string`.
        low_weight: `env.nemo_gym.effort_levels.low_weight`; 0 turns the shaping off.
        low_penalty: `low_penalty`, the weight of a negative length term.
        low_ub: `low_ub`, the length at which the term reaches 0.

    Returns:
        `mean_length_reward_low`, `mean_reward_low` (the shaped rewards), `mean_length_low` and
        `median_length_low` over the low-effort samples, `mean_length_high` and `median_length_high`
        over the others; a key whose samples are missing is not logged.
    """
    low = as_bool_mask(low_effort).reshape(-1)
    if low_weight <= 0:
        return {}
    reward_list = as_float(rewards).reshape(-1).tolist()
    length_list = [int(v) for v in torch.as_tensor(lengths).reshape(-1).tolist()]
    terms, shaped, low_lengths, high_lengths = [], [], [], []
    for reward, length, is_low in zip(reward_list, length_list, low.tolist(), strict=True):
        if not is_low:
            high_lengths.append(length)
            continue
        term = min(1.0, low_weight * (1.0 - length / low_ub))
        terms.append(term)
        shaped.append(reward + reward * max(term, 0.0) + low_penalty * min(term, 0.0))
        low_lengths.append(length)
    out: dict[str, float] = {}
    if terms:
        out["mean_length_reward_low"] = math.fsum(terms) / len(terms)
        out["mean_reward_low"] = math.fsum(shaped) / len(shaped)
        out["mean_length_low"] = sum(low_lengths) / len(low_lengths)
        out["median_length_low"] = float(statistics.median(low_lengths))
    if high_lengths:
        out["mean_length_high"] = sum(high_lengths) / len(high_lengths)
        out["median_length_high"] = float(statistics.median(high_lengths))
    return out

r"""verl in-reward KL (`algorithm.use_kl_in_reward`): `actor/reward_kl_penalty` and its coefficient.

Computed on the driver by `apply_kl_penalty`
(`verl/trainer/ppo/ray_trainer.py:94-117@1dda039`, used by the V1 trainer too)
over the whole train batch before the update, with $\pi_{\text{old}}$ (not the
updated policy) against the reference model.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference.masked import as_bool_mask
from metrics_registry.reference.verl.actor import kl_penalty, verl_masked_mean

__all__ = ["reward_kl_penalty", "reward_kl_penalty_coefs"]


def reward_kl_penalty(
    old_log_probs: torch.Tensor,
    ref_log_probs: torch.Tensor,
    response_mask: torch.Tensor,
    kl_penalty_type: str = "kl",
) -> float:
    r"""`actor/reward_kl_penalty`: mean over sequences of the per-sequence token mean of the in-reward KL.

    $$
    \mathrm{KL} = \frac1B\sum_b \frac{\sum_t m_{b,t}\,k_{b,t}}{\sum_t m_{b,t} + 10^{-8}},\quad
    k = \text{kl\_penalty}(\log\pi_{\text{old}}, \log\pi_{\text{ref}})
    $$

    Args:
        old_log_probs: `(B, T)` $\log\pi_{\text{old}}$ (not the updated policy).
        ref_log_probs: `(B, T)` $\log\pi_{\text{ref}}$.
        response_mask: `(B, T)`.
        kl_penalty_type: `algorithm.kl_penalty` (default `kl`, k1: can be negative).

    Returns:
        The value `apply_kl_penalty` logs (`verl/trainer/ppo/ray_trainer.py:94-117@1dda039`).
    """
    mask = as_bool_mask(response_mask)
    kld = kl_penalty(old_log_probs, ref_log_probs, kl_penalty_type) * mask
    return float(verl_masked_mean(kld, mask, dim=-1).mean())


def reward_kl_penalty_coefs(
    kl_values: Sequence[float],
    kl_coef: float = 0.001,
    target_kl: float | None = None,
    horizon: float = 10000.0,
    batch_size: int = 1,
) -> list[float]:
    r"""`actor/reward_kl_penalty_coeff` of each step: $\beta$ *before* that step's adaptive update.

    Adaptive rule (`core_algos.py:164-174@1dda039`):
    $\beta \leftarrow \beta\,(1 + \operatorname{clip}(\mathrm{KL}/\mathrm{target} - 1, \pm 0.2)\,B/H)$
    with $H$ the horizon;
    with `target_kl=None` the controller is fixed.

    Args:
        kl_values: `actor/reward_kl_penalty` of the successive steps.
        kl_coef: `algorithm.kl_ctrl.kl_coef`.
        target_kl: `algorithm.kl_ctrl.target_kl` (adaptive controller), or `None` (fixed).
        horizon: `algorithm.kl_ctrl.horizon`.
        batch_size: sequences per step (`n_steps` of the update).

    Returns:
        The logged coefficient of each step.
    """
    beta = kl_coef
    logged = []
    for current in kl_values:
        logged.append(beta)
        if target_kl is not None:
            error = min(max(current / target_kl - 1, -0.2), 0.2)
            beta *= 1 + error * batch_size / horizon
    return logged

r"""verl `rollout_corr/*` off-policy diagnostics: trainer π_old against the rollout engine's π_rollout.

Follows `compute_offpolicy_metrics`
(`verl/trainer/ppo/rollout_corr_helper.py:904-1010@1dda039`), computed once per
step on the driver in decoupled mode. With $\log\rho = \log\pi_{\text{old}} -
\log\pi_{\text{rollout}}$ per token and samples drawn from π_rollout:

* `kl`: mean of $-\log\rho$, the k1 estimate of KL(π_rollout ‖ π_old), any sign;
* `k3_kl`: mean of $\rho - \log\rho - 1$, the k3 estimate of the same KL, $\ge 0$;
* `training_ppl`, `rollout_ppl`: mean over sequences of $\exp(-\text{token mean of } \log\pi)$;
* `log_ppl_diff`: mean over sequences of (token mean of $\log\pi_{\text{rollout}}$ − token mean of
  $\log\pi_{\text{old}}$), i.e. training log-PPL minus rollout log-PPL;
* `ppl_ratio`: arithmetic mean over sequences of $\exp(\text{log\_ppl\_diff}_i)$;
* `chi2_token`: mean of $\rho^2$ minus 1; `chi2_seq`: mean over *all* rows of
  $\exp(2\sum_t\log\rho_t)$ minus 1 (clamped to ±20 in the exponent).
"""

from __future__ import annotations

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float, masked_sum
from metrics_registry.reference.verl.actor import verl_masked_mean

__all__ = ["offpolicy_metrics"]

_SAFETY_BOUND = 20.0


def offpolicy_metrics(
    old_log_probs: torch.Tensor, rollout_log_probs: torch.Tensor, response_mask: torch.Tensor
) -> dict[str, float]:
    r"""The off-policy diagnostics under `rollout_corr/`, keyed by their logged names.

    Args:
        old_log_probs: `(B, T)` $\log\pi_{\text{old}}$ from the trainer's recompute pass.
        rollout_log_probs: `(B, T)` $\log\pi_{\text{rollout}}$ returned by the inference engine.
        response_mask: `(B, T)` valid tokens (at least one).

    Returns:
        A dict with the `rollout_corr/*` keys of `compute_offpolicy_metrics`.
    """
    mask = as_bool_mask(response_mask)
    old = as_float(old_log_probs)
    rollout = as_float(rollout_log_probs)
    mean_old = verl_masked_mean(old, mask, dim=-1)
    mean_rollout = verl_masked_mean(rollout, mask, dim=-1)
    log_ratio = old - rollout
    diff = mean_rollout - mean_old
    rho = torch.exp(torch.clamp(log_ratio, -_SAFETY_BOUND, _SAFETY_BOUND))
    seq_log_ratio = torch.clamp(masked_sum(log_ratio, mask, dim=-1), -_SAFETY_BOUND, _SAFETY_BOUND)
    values = {
        "training_ppl": torch.exp(-mean_old).mean(),
        "training_log_ppl": (-mean_old).mean(),
        "kl": verl_masked_mean(rollout - old, mask),
        "k3_kl": verl_masked_mean(torch.exp(log_ratio) - log_ratio - 1, mask),
        "rollout_ppl": torch.exp(-mean_rollout).mean(),
        "rollout_log_ppl": (-mean_rollout).mean(),
        "log_ppl_diff": diff.mean(),
        "log_ppl_abs_diff": diff.abs().mean(),
        "log_ppl_diff_max": diff.max(),
        "log_ppl_diff_min": diff.min(),
        "ppl_ratio": torch.exp(diff).mean(),
        "chi2_token": verl_masked_mean(rho.square(), mask) - 1.0,
        "chi2_seq": torch.exp(2.0 * seq_log_ratio).mean() - 1.0,
    }
    return {f"rollout_corr/{name}": float(value) for name, value in values.items()}

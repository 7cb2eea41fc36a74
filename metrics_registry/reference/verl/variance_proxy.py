r"""verl `variance_proxy/*`: cheap proxies of the policy-gradient noise of a batch.

Follows `compute_variance_proxy_metrics`
(`verl/trainer/ppo/metric_utils.py:691-803@1dda039`), computed once per step
on the driver when the actor returns $\sum_v \pi(v)^2$ per token
(`actor_rollout_ref.actor.calculate_sum_pi_squared=true`). With
$\pi_t = \exp(\log\pi_{\text{old}}(y_t))$ the probability of the sampled
token, the logit-gradient score norm of sequence $i$ is
$W_i = \sum_t m_t\,(1 - 2\pi_t + \sum_v \pi_t(v)^2)$, its advantage the token
mean $\bar A_i$ over the response mask, and over the $N$ rows of the batch:

* `proxy1_signal_strength` $= \lVert g\rVert^2$, the square of `actor/grad_norm` (0 when it is missing);
* `proxy2_total_power` $= \frac1N\sum_i \bar A_i^2 \max(W_i, 0)$, with rollout importance
  weights $\frac1N\sum_i \bar\rho_i^2\,\bar A_i^2 \max(W_i, 0)$ ($\bar\rho_i$ the token mean of the weights);
* `proxy3_pure_noise` $= \max\big(0, (\text{proxy2} - \text{proxy1}) / (N - 1)\big)$
  (0 for one row or no norm);
* `expected_a_squared` $= \frac1N\sum_i \bar A_i^2$;
* `expected_w` $= \frac1N\sum_i W_i$, where each token's term is multiplied by $\rho_t^2$ when
  rollout importance weights are present and $W_i$ is not clamped.
"""

from __future__ import annotations

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float
from metrics_registry.reference.verl.actor import verl_masked_mean

__all__ = ["variance_proxy_metrics"]


def variance_proxy_metrics(
    old_log_probs: torch.Tensor,
    sum_pi_squared: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    gradient_norm: float | None = None,
    rollout_is_weights: torch.Tensor | None = None,
) -> dict[str, float]:
    r"""The `variance_proxy/*` keys, keyed by their logged names.

    Args:
        old_log_probs: `(B, T)` $\log\pi_{\text{old}}$ of the sampled tokens.
        sum_pi_squared: `(B, T)` $\sum_v \pi(v)^2$ of the next-token distribution at each position.
        advantages: `(B, T)` advantages.
        response_mask: `(B, T)` valid response tokens.
        gradient_norm: the step's `actor/grad_norm` (mean over its optimizer steps), or `None`.
        rollout_is_weights: `(B, T)` rollout importance weights when rollout correction applies them.

    Returns:
        A dict with the five `variance_proxy/*` keys.
    """
    mask = as_bool_mask(response_mask)
    weight = mask.to(torch.float64)
    pi = torch.exp(as_float(old_log_probs))
    w_token = 1 - 2 * pi + as_float(sum_pi_squared)
    a_bar = verl_masked_mean(as_float(advantages), mask, dim=-1)
    w_plain = (torch.where(mask, w_token, 0.0) * weight).sum(dim=-1)
    if rollout_is_weights is None:
        w_logged = w_plain
        power = (a_bar**2 * w_plain.clamp_min(0.0)).mean()
    else:
        rho = as_float(rollout_is_weights)
        w_scaled = w_token * rho**2
        w_logged = (torch.where(mask, w_scaled, 0.0) * weight).sum(dim=-1)
        w_back = w_scaled / torch.clamp(rho**2, min=1e-10)  # verl divides the weights out again
        w_back = (torch.where(mask, w_back, 0.0) * weight).sum(dim=-1).clamp_min(0.0)
        rho_bar = verl_masked_mean(rho, mask, dim=-1)
        power = (rho_bar**2 * a_bar**2 * w_back).mean()
    signal = None if gradient_norm is None else float(gradient_norm) ** 2
    rows = a_bar.shape[0]
    noise = 0.0
    if signal is not None and rows > 1:
        noise = max(0.0, float((power - signal) / (rows - 1)))
    return {
        "variance_proxy/proxy1_signal_strength": 0.0 if signal is None else signal,
        "variance_proxy/proxy2_total_power": float(power),
        "variance_proxy/proxy3_pure_noise": noise,
        "variance_proxy/expected_a_squared": float((a_bar**2).mean()),
        "variance_proxy/expected_w": float(w_logged.mean()),
    }

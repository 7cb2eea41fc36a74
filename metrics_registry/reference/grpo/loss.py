"""GRPO loss-time metrics: `kl`, `entropy`, `policy_loss`, the adaptive entropy coefficient, `grad_norm`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch

from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.grpo.common import Level, global_masked_mean, importance_weights
from metrics_registry.reference.kl import k3
from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "adaptive_entropy_coef",
    "entropy_mean",
    "grad_norm",
    "kl_mean",
    "policy_loss",
]


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
            $c = \pi_\theta/\pi_{\text{old}}$
            ([`importance_weights()`][metrics_registry.reference.grpo.common.importance_weights]; default
            True
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

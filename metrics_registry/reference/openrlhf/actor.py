r"""OpenRLHF actor metrics: `policy_loss`, `ppo_clip_ratio`, `ppo_kl`, `vllm_kl`, `entropy_loss`.

Per token (`PolicyLoss.forward`, `openrlhf/models/loss.py:155-230@3c3be623`),
with $\rho = \exp(\mathrm{clamp}(\log\pi_\theta - \log\pi_{old}, \pm 20))$ and
advantage $A$: surr1 $= \rho A$, surr2 $= \mathrm{clip}(\rho, 1-\epsilon_l, 1+\epsilon_h) A$,
loss $= -\min(\text{surr1}, \text{surr2})$ (dual clip: $-\max(\min(\cdot), cA)$
where $A < 0$).

Two reductions meet here (see `cells`): the clip fraction and the two KLs
are masked means per cell, then token-weighted over cells, i.e. global token
means; the loss and the entropy are window-normalised sums (`aggregate_loss`)
that the logger then token-weights as if they were means, which is only the
token mean when every cell holds the same number of action tokens.
"""

from __future__ import annotations

import torch

from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.masked import as_float
from metrics_registry.reference.openrlhf.cells import (
    cell_masked_means,
    weighted_over_cells,
    window_normalised_sums,
)

__all__ = [
    "clip_ratio",
    "entropy_loss",
    "policy_loss",
    "policy_loss_per_token",
    "ppo_kl",
    "vllm_kl",
]


def policy_loss_per_token(
    log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    advantages: torch.Tensor,
    *,
    eps_clip_low: float = 0.2,
    eps_clip_high: float = 0.2,
    dual_clip: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    r"""Per-token PPO loss and its two surrogates (`policy_loss_type="ppo"`, no IS correction).

    $$
    \ell_t = -\min\big(\rho_t A_t,\ \mathrm{clip}(\rho_t, 1-\epsilon_l, 1+\epsilon_h) A_t\big)
    $$

    Args:
        log_probs: `(B, T)` log-probabilities under the policy being updated.
        old_log_probs: `(B, T)` under the policy that made the experience.
        advantages: `(B, T)` advantages.
        eps_clip_low: $\epsilon_l$ (`actor.eps_clip_low_high[0]`, default `actor.eps_clip` 0.2).
        eps_clip_high: $\epsilon_h$.
        dual_clip: $c > 1$ or `None` (`actor.dual_clip`).

    Returns:
        `(loss, surr1, surr2)`, each `(B, T)`.
    """
    log_ratio = (as_float(log_probs) - as_float(old_log_probs)).clamp(min=-20.0, max=20.0)
    ratio = log_ratio.exp()
    advantages = as_float(advantages)
    surr1 = ratio * advantages
    surr2 = ratio.clamp(1 - eps_clip_low, 1 + eps_clip_high) * advantages
    clipped = torch.min(surr1, surr2)
    if dual_clip is None:
        return -clipped, surr1, surr2
    return -torch.where(advantages < 0, torch.max(clipped, dual_clip * advantages), clipped), surr1, surr2


def policy_loss(
    log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    advantages: torch.Tensor,
    action_mask: torch.Tensor,
    *,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
    gradient_accumulation_steps: int = 1,
    dynamic_batch: bool = False,
    eps_clip_low: float = 0.2,
    eps_clip_high: float = 0.2,
    dual_clip: float | None = None,
) -> torch.Tensor:
    r"""`train/policy_loss` as logged: window-normalised cell losses, token-weighted over cells.

    $$
    \text{logged} = \frac{\sum_c n_c\,v_c}{\sum_c n_c},\qquad
    v_c = \frac{W\,G\,\sum_{t\in c} m_t \ell_t}{T_{w(c)}}
    $$

    Args:
        log_probs: `(B, T)` current-policy log-probabilities, rows of every cell stacked.
        old_log_probs: `(B, T)` experience-time log-probabilities.
        advantages: `(B, T)` advantages.
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row (see `cells`).
        micro_batch: `(B,)` micro-batch index of each row on its rank.
        gradient_accumulation_steps: micro-batches per optimizer step per rank.
        dynamic_batch: `train.dynamic_batch_enable` (normaliser not divided by the steps).
        eps_clip_low: lower clip $\epsilon_l$.
        eps_clip_high: upper clip $\epsilon_h$.
        dual_clip: dual-clip constant or `None`.

    Returns:
        The logged number. Equals the token mean of $\ell_t$ only when every
        cell has the same action-token count; otherwise the cells are weighted
        by $n_c^2$ (the weights sum to $1 + \mathrm{CV}^2$ of the counts).
    """
    loss, _, _ = policy_loss_per_token(
        log_probs,
        old_log_probs,
        advantages,
        eps_clip_low=eps_clip_low,
        eps_clip_high=eps_clip_high,
        dual_clip=dual_clip,
    )
    values, counts, _ = window_normalised_sums(
        loss, action_mask, rank, micro_batch, gradient_accumulation_steps, dynamic_batch=dynamic_batch
    )
    return weighted_over_cells(values, counts)


def clip_ratio(
    log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    advantages: torch.Tensor,
    action_mask: torch.Tensor,
    *,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
    eps_clip_low: float = 0.2,
    eps_clip_high: float = 0.2,
) -> torch.Tensor:
    r"""`train/ppo_clip_ratio`: share of action tokens where surr2 < surr1, global token mean.

    $$
    \text{clip} = \frac{\sum_t m_t\,[\mathrm{clip}(\rho_t)A_t < \rho_t A_t]}{\sum_t m_t}
    $$

    Args:
        log_probs: `(B, T)` current-policy log-probabilities.
        old_log_probs: `(B, T)` experience-time log-probabilities.
        advantages: `(B, T)` advantages.
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.
        eps_clip_low: lower clip.
        eps_clip_high: upper clip.

    Returns:
        The token-weighted mean over cells of each cell's masked mean, i.e. the
        global fraction. Tokens with $A_t = 0$ never count; dual-clip
        activations are not counted separately.
    """
    _, surr1, surr2 = policy_loss_per_token(
        log_probs, old_log_probs, advantages, eps_clip_low=eps_clip_low, eps_clip_high=eps_clip_high
    )
    values, counts, _ = cell_masked_means(torch.lt(surr2, surr1), action_mask, rank, micro_batch)
    return weighted_over_cells(values, counts)


def ppo_kl(
    log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    action_mask: torch.Tensor,
    *,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""`train/ppo_kl`: k1 estimate of KL(π_old ‖ π_θ), the drift of the policy during the update.

    $$
    \mathrm{KL} = \frac{\sum_t m_t\,(\log\pi_{old} - \log\pi_\theta)}{\sum_t m_t}
    $$

    Args:
        log_probs: `(B, T)` current-policy log-probabilities.
        old_log_probs: `(B, T)` experience-time log-probabilities (the sampling side).
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.

    Returns:
        The global token mean (unclamped log-ratio, can be negative).
    """
    diff = as_float(old_log_probs) - as_float(log_probs)
    values, counts, _ = cell_masked_means(diff, action_mask, rank, micro_batch)
    return weighted_over_cells(values, counts)


def vllm_kl(
    rollout_log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    action_mask: torch.Tensor,
    *,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""`train/vllm_kl`: k1 estimate of KL(π_vLLM ‖ π_old), the train/inference mismatch.

    $$
    \mathrm{KL} = \frac{\sum_t m_t\,(\log\pi_{vLLM} - \log\pi_{old})}{\sum_t m_t}
    $$

    Args:
        rollout_log_probs: `(B, T)` log-probabilities vLLM returned when sampling.
        old_log_probs: `(B, T)` the trainer's log-probabilities of the same tokens.
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.

    Returns:
        The global token mean.
    """
    diff = as_float(rollout_log_probs) - as_float(old_log_probs)
    values, counts, _ = cell_masked_means(diff, action_mask, rank, micro_batch)
    return weighted_over_cells(values, counts)


def entropy_loss(
    logits: torch.Tensor,
    action_mask: torch.Tensor,
    *,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
    gradient_accumulation_steps: int = 1,
    dynamic_batch: bool = False,
) -> torch.Tensor:
    r"""`train/entropy_loss`: token entropy of softmax(logits) (untempered), logged like the loss.

    $$
    H_t = -\sum_v p_{t,v}\log p_{t,v},\quad p_t = \mathrm{softmax}(z_t)
    $$

    Args:
        logits: `(B, T, V)` raw logits of the action positions (OpenRLHF takes
            the entropy before dividing the logits by the temperature).
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.
        gradient_accumulation_steps: micro-batches per optimizer step per rank.
        dynamic_batch: `train.dynamic_batch_enable` (normaliser not divided by the steps).

    Returns:
        Window-normalised cell sums, token-weighted over cells: the mean entropy
        in nats when cells are even, inflated by $1 + \mathrm{CV}^2$ of the
        cells' token counts otherwise.
    """
    entropy = categorical_entropy(logits)
    values, counts, _ = window_normalised_sums(
        entropy, action_mask, rank, micro_batch, gradient_accumulation_steps, dynamic_batch=dynamic_batch
    )
    return weighted_over_cells(values, counts)

r"""OpenRLHF `kl` and `logprobs_diff`: the reference KL, in the reward (default) or in the loss.

`compute_approx_kl` (`openrlhf/models/utils.py:64-95@3c3be623`) takes
$\lambda_t = \log\pi_\theta - \log\pi_{ref}$ and returns, clamped to
$[-10, 10]$ per token:

| `algo.kl.estimator` | value | as `metrics_registry.reference.kl` |
| --- | --- | --- |
| `k1` (default) | $\lambda$ | `k1(logq=π_θ, logp=π_ref)` |
| `k2` | $\lambda^2/2$ | `k2` |
| `k3` | $e^{-\lambda} - 1 + \lambda$ | `k3(logq=π_θ, logp=π_ref)` |

so every estimator targets KL(π_θ ‖ π_ref) on tokens sampled from π_θ.

* KL in the reward (`algo.kl.use_loss` off, `--use_kl_loss` absent before
  0.10.2): computed once at experience time, a masked mean per sequence, then
  a mean over sequences (`experience_maker.py:205-227`).
* KL in the loss: recomputed in every training micro-batch with the policy
  being updated, through `aggregate_loss` (`ppo_actor.py:319-333`), so it has
  the loss's window normalisation (see `cells`).
"""

from __future__ import annotations

import torch

from metrics_registry.reference.kl import Estimator, estimate
from metrics_registry.reference.masked import as_float, masked_mean
from metrics_registry.reference.openrlhf.cells import (
    cell_masked_means,
    weighted_over_cells,
    window_normalised_sums,
)

__all__ = [
    "approx_kl",
    "logprobs_diff_in_loss",
    "logprobs_diff_in_reward",
    "reference_kl_in_loss",
    "reference_kl_in_reward",
]


def approx_kl(
    log_probs: torch.Tensor, ref_log_probs: torch.Tensor, estimator: Estimator = "k1"
) -> torch.Tensor:
    r"""Per-token `compute_approx_kl`: the k1/k2/k3 estimate of KL(π_θ ‖ π_ref), clamped to [-10, 10].

    Args:
        log_probs: `(B, T)` policy log-probabilities of the sampled tokens.
        ref_log_probs: `(B, T)` reference-model log-probabilities of the same tokens.
        estimator: `"k1"`, `"k2"` or `"k3"`.

    Returns:
        `(B, T)` per-token estimates.
    """
    return estimate(as_float(log_probs), as_float(ref_log_probs), estimator).clamp(min=-10, max=10)


def reference_kl_in_reward(
    log_probs: torch.Tensor,
    ref_log_probs: torch.Tensor,
    action_mask: torch.Tensor,
    estimator: Estimator = "k1",
) -> torch.Tensor:
    r"""`train/kl` with the KL in the reward: per-sequence token mean, then mean over sequences.

    $$
    \mathrm{KL} = \frac{1}{B}\sum_b \frac{\sum_t m_{b,t}\,k_{b,t}}{\sum_t m_{b,t}}
    $$

    Args:
        log_probs: `(B, T)` log-probabilities of the policy that generated the batch.
        ref_log_probs: `(B, T)` reference-model log-probabilities.
        action_mask: `(B, T)` action mask.
        estimator: `"k1"` (default), `"k2"` or `"k3"`.

    Returns:
        The per-sample mean over every trained sample (the actor's sample
        weighting over cells is a plain mean over rows, so no cell layout is needed).
    """
    per_sequence = masked_mean(approx_kl(log_probs, ref_log_probs, estimator), action_mask, dim=-1)
    return per_sequence.mean()


def logprobs_diff_in_reward(
    log_probs: torch.Tensor, ref_log_probs: torch.Tensor, action_mask: torch.Tensor
) -> torch.Tensor:
    r"""`train/logprobs_diff` with the KL in the reward: unclamped k1, per-sequence mean, mean over sequences.

    $$
    d = \frac{1}{B}\sum_b \frac{\sum_t m_{b,t}(\log\pi_\theta - \log\pi_{ref})}{\sum_t m_{b,t}}
    $$

    Args:
        log_probs: `(B, T)` policy log-probabilities.
        ref_log_probs: `(B, T)` reference log-probabilities.
        action_mask: `(B, T)` action mask.

    Returns:
        The per-sample mean.
    """
    diff = as_float(log_probs) - as_float(ref_log_probs)
    return masked_mean(diff, action_mask, dim=-1).mean()


def reference_kl_in_loss(
    log_probs: torch.Tensor,
    ref_log_probs: torch.Tensor,
    action_mask: torch.Tensor,
    estimator: Estimator = "k1",
    *,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
    gradient_accumulation_steps: int = 1,
    dynamic_batch: bool = False,
) -> torch.Tensor:
    r"""`train/kl` with `algo.kl.use_loss`: the KL loss term, window-normalised, token-weighted over cells.

    $$
    \text{logged} = \frac{\sum_c n_c\,v_c}{\sum_c n_c},\qquad
    v_c = \frac{W\,G\sum_{t\in c} m_t k_t}{T_{w(c)}}
    $$

    Args:
        log_probs: `(B, T)` log-probabilities of the policy being updated.
        ref_log_probs: `(B, T)` reference log-probabilities.
        action_mask: `(B, T)` action mask.
        estimator: `"k1"`, `"k2"` or `"k3"`.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.
        gradient_accumulation_steps: micro-batches per optimizer step per rank.
        dynamic_batch: `train.dynamic_batch_enable` (normaliser not divided by the steps).

    Returns:
        The logged number; the token mean of $k_t$ only when cells are even.
    """
    per_token = approx_kl(log_probs, ref_log_probs, estimator)
    values, counts, _ = window_normalised_sums(
        per_token, action_mask, rank, micro_batch, gradient_accumulation_steps, dynamic_batch=dynamic_batch
    )
    return weighted_over_cells(values, counts)


def logprobs_diff_in_loss(
    log_probs: torch.Tensor,
    ref_log_probs: torch.Tensor,
    action_mask: torch.Tensor,
    rank: torch.Tensor | None = None,
    micro_batch: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""`train/logprobs_diff` with `algo.kl.use_loss`: cell masked means, token-weighted (global token mean).

    $$
    d = \frac{\sum_t m_t(\log\pi_\theta - \log\pi_{ref})}{\sum_t m_t}
    $$

    Args:
        log_probs: `(B, T)` log-probabilities of the policy being updated.
        ref_log_probs: `(B, T)` reference log-probabilities.
        action_mask: `(B, T)` action mask.
        rank: `(B,)` rank of each row.
        micro_batch: `(B,)` micro-batch index of each row.

    Returns:
        The global token mean (no window scaling: it is a plain `masked_mean`).
    """
    diff = as_float(log_probs) - as_float(ref_log_probs)
    values, counts, _ = cell_masked_means(diff, action_mask, rank, micro_batch)
    return weighted_over_cells(values, counts)

r"""Entropy: exact categorical entropy from logits, and the sampled (surprisal) estimate.

Two different quantities share the word "entropy" in the trainers' logs:

* the exact per-position entropy $H = -\sum_v p_v \log p_v$ of the
  next-token distribution, from the full logits (PPO `policy/entropy_avg`,
  GRPO `entropy`, legacy `ppo/policy/entropy`);
* the surprisal $-\log\pi(y_t)$ of the *sampled* token, summed over a
  completion, whose expectation is the entropy of the whole completion (PPO
  and legacy `objective/entropy`).
"""

from __future__ import annotations

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float, masked_mean

__all__ = [
    "categorical_entropy",
    "masked_entropy_mean",
    "sampled_sequence_entropy",
    "sampled_sequence_entropy_before_1_10",
]


def categorical_entropy(logits: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    r"""Exact entropy in nats of the categorical distribution `softmax(logits / temperature)`.

    $$
    H = -\sum_v p_v \log p_v = \log\sum_v e^{z_v} - \sum_v p_v z_v,
    \qquad p = \mathrm{softmax}(z),\ z = \text{logits}/\tau
    $$

    Args:
        logits: `(..., V)`.
        temperature: the sampling temperature $\tau$ the trainer divides by.

    Returns `(...)`. TRL evaluates the right-hand form (`logsumexp` minus
    the probability-weighted logits); this function uses the left-hand form on
    `log_softmax`, the same number without the cancellation between two
    large terms, so logits of ±1e4 give a finite, accurate result. Entries with
    probability 0 (logit `-inf`) contribute 0.
    """
    z = as_float(logits) / temperature
    logp = torch.log_softmax(z, dim=-1)
    p = logp.exp()
    terms = torch.where(p > 0, p * logp, torch.zeros((), dtype=p.dtype))
    return -terms.sum(dim=-1)


def masked_entropy_mean(logits: torch.Tensor, mask: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    r"""Mean categorical entropy over the positions selected by `mask`.

    $$
    \bar H = \frac{\sum_{b,t} m_{b,t}\,H_{b,t}}{\sum_{b,t} m_{b,t}}
    $$

    Args:
        logits: `(B, T, V)`.
        mask: `(B, T)`.
        temperature: divides the logits first.

    Legacy `ppo/policy/entropy` per minibatch (temperature 1). NaN when the
    mask is empty.
    """
    return masked_mean(categorical_entropy(logits, temperature), mask)


def sampled_sequence_entropy(logprobs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`objective/entropy`: sampled-token surprisal, summed per completion, averaged over completions.

    $$
    \hat H_{\text{seq}} = \frac{1}{B}\sum_{b=1}^{B}\sum_{t} m_{b,t}\,\big(-\log\pi_\theta(y_{b,t})\big)
    $$

    Args:
        logprobs: `(B, T)` log-probabilities of the sampled tokens under the
            policy that sampled them.
        mask: `(B, T)`, true for the completion's tokens.

    A one-sample Monte-Carlo estimate of the entropy of the whole completion:
    it grows with length and is noisy. This is TRL PPO from 1.10.0 (padding
    masked) and legacy v0.7 (response mask). NaN for an empty batch.
    """
    surprisal = -as_float(logprobs)
    keep = as_bool_mask(mask).expand_as(surprisal)
    return torch.where(keep, surprisal, torch.zeros((), dtype=surprisal.dtype)).sum(dim=-1).mean()


def sampled_sequence_entropy_before_1_10(
    logprobs: torch.Tensor, mask: torch.Tensor, placeholder: float = 1.0
) -> torch.Tensor:
    r"""TRL PPO `objective/entropy` up to 1.9.x: each padding position adds `-placeholder`.

    $$
    \frac{1}{B}\sum_{b}\Big(\sum_{t} m_{b,t}\,(-\log\pi_\theta(y_{b,t}))
    - \text{placeholder}\cdot\#\{t : m_{b,t}=0\}\Big)
    $$

    Args:
        logprobs: `(B, T)` as for [`sampled_sequence_entropy()`][sampled_sequence_entropy]; the values at
            padding positions are ignored.
        mask: `(B, T)`.
        placeholder: the log-probability TRL stores at padding positions
            (`INVALID_LOGPROB = 1.0`).

    The quirk: `(-logprobs).sum(1).mean()` ran over the padding too, where the
    stored log-probability is 1.0, so every padding position subtracted 1 nat.
    The result is lower than [`sampled_sequence_entropy()`][sampled_sequence_entropy] by the mean number
    of padding positions per completion.
    """
    logprobs = as_float(logprobs)
    keep = as_bool_mask(mask).expand_as(logprobs)
    filled = torch.where(keep, logprobs, torch.full((), placeholder, dtype=logprobs.dtype))
    return (-filled).sum(dim=-1).mean()

r"""KL divergence estimators k1, k2, k3 (Schulman, "Approximating KL Divergence").

Setting: tokens $x$ are *sampled from* a distribution $q$, and we
want $\mathrm{KL}(q \,\|\, p) = \mathbb{E}_{x\sim q}[\log q(x) - \log p(x)]$
with only the two log-probabilities of the sampled token available. With
$\log r = \log p(x) - \log q(x)$:

| name | per-sample value | bias | sign |
| --- | --- | --- | --- |
| k1 | $-\log r$ | unbiased | any |
| k2 | $\tfrac12(\log r)^2$ | biased | $\ge 0$ |
| k3 | $(r - 1) - \log r$ | unbiased | $\ge 0$ |

Every function here takes `logq` (log-probability under the *sampling*
distribution) and `logp` (under the other one), and estimates
$\mathrm{KL}(q\,\|\,p)$. How the trainers map onto this:

* TRL PPO `objective/kl` and GRPO `kl`: samples from the policy,
  `logq = logprobs` (policy), `logp = ref_logprobs`: KL(policy ‖ reference).
* TRL PPO `policy/approxkl_avg` (k2) and legacy `ppo/policy/policykl` (k1):
  samples from the rollout policy, `logq = old_logprobs`, `logp = new logprobs`:
  KL(old ‖ new).
"""

from __future__ import annotations

from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "Estimator",
    "estimate",
    "exact_categorical_kl",
    "k1",
    "k2",
    "k3",
    "k3_reverse",
    "sequence_kl_mean",
]

Estimator = Literal["k1", "k2", "k3"]


def k1(logq: torch.Tensor, logp: torch.Tensor) -> torch.Tensor:
    r"""k1 per sample: $\log q(x) - \log p(x)$, unbiased for KL(q ‖ p), negative on some samples.

    Args:
        logq: log-probabilities of the sampled tokens under the sampling distribution, any shape.
        logp: log-probabilities of the same tokens under the other distribution, same shape.

    Returns the element-wise estimate (no reduction).
    """
    return as_float(logq) - as_float(logp)


def k2(logq: torch.Tensor, logp: torch.Tensor) -> torch.Tensor:
    r"""k2 per sample: $\tfrac12(\log p(x) - \log q(x))^2$, never negative, biased for KL(q ‖ p).

    Its expectation is an f-divergence that matches KL to second order when
    $p \approx q$; it over-estimates when the distributions are far apart.
    Symmetric in its arguments. Element-wise, no reduction.
    """
    return 0.5 * (as_float(logp) - as_float(logq)) ** 2


def k3(logq: torch.Tensor, logp: torch.Tensor) -> torch.Tensor:
    r"""k3 per sample: $(r - 1) - \log r$, $r = p(x)/q(x)$; unbiased for KL(q ‖ p), >= 0.

    It is k1 plus the zero-mean control variate $r - 1$. Computed as
    `expm1(log r) - log r` (TRL writes `exp(log r) - 1 - log r`; the same
    number up to rounding). When $\log r$ is large the value overflows to
    `inf`, which is the honest result. Element-wise, no reduction.
    """
    log_r = as_float(logp) - as_float(logq)
    return torch.expm1(log_r) - log_r


def k3_reverse(logq: torch.Tensor, logp: torch.Tensor) -> torch.Tensor:
    r"""Estimator of the *other* direction, KL(p ‖ q), from samples of q: $r\log r - (r - 1)$.

    Unbiased and non-negative; no trainer in the registry logs it, but it is
    what one needs to estimate KL(reference ‖ policy) from policy samples.
    Element-wise, no reduction.
    """
    log_r = as_float(logp) - as_float(logq)
    r = torch.exp(log_r)
    return r * log_r - torch.expm1(log_r)


def estimate(logq: torch.Tensor, logp: torch.Tensor, estimator: Estimator = "k1") -> torch.Tensor:
    """The per-sample estimate of KL(q ‖ p) named by `estimator` (`"k1"`, `"k2"` or `"k3"`)."""
    functions = {"k1": k1, "k2": k2, "k3": k3}
    if estimator not in functions:
        raise ValueError(f"unknown estimator {estimator!r}; use 'k1', 'k2' or 'k3'")
    return functions[estimator](logq, logp)


def exact_categorical_kl(logits_q: torch.Tensor, logits_p: torch.Tensor) -> torch.Tensor:
    r"""Exact $\mathrm{KL}(q\,\|\,p) = \sum_v q_v(\log q_v - \log p_v)$ of two categoricals.

    Args:
        logits_q: logits (or log-probabilities) of q, shape `(..., V)`.
        logits_p: logits of p, same shape.

    Returns shape `(...)`. This is TRL v0.7's `kl_penalty="full"` (written
    there as `F.kl_div(ref_logprob, logprob, log_target=True)`). Vocabulary
    entries where $q_v = 0$ contribute 0.
    """
    logq = torch.log_softmax(as_float(logits_q), dim=-1)
    logp = torch.log_softmax(as_float(logits_p), dim=-1)
    q = logq.exp()
    terms = torch.where(q > 0, q * (logq - logp), torch.zeros((), dtype=q.dtype))
    return terms.sum(dim=-1)


def sequence_kl_mean(
    logprobs: torch.Tensor,
    ref_logprobs: torch.Tensor,
    mask: torch.Tensor,
    estimator: Estimator = "k1",
) -> torch.Tensor:
    r"""TRL PPO `objective/kl`: per-token KL estimates summed per completion, averaged over completions.

    $$
    \mathrm{KL} = \frac{1}{B}\sum_{b=1}^{B}\sum_{t} m_{b,t}\,k_{b,t},\quad
    $$

              k^{(1)} = \log\pi_\theta - \log\pi_{\text{ref}},\quad
              k^{(3)} = (\rho - 1) - \log\rho,\ \rho = \pi_{\text{ref}}/\pi_\theta

    Args:
        logprobs: `(B, T)` log-probabilities of the sampled completion tokens
            under the policy that sampled them (temperature-scaled logits).
        ref_logprobs: `(B, T)` the same tokens under the reference model.
        mask: `(B, T)`, true up to and including the stop token.
        estimator: `"k1"` (TRL's default) or `"k3"` (`kl_estimator="k3"`,
            from 0.17.0); `"k2"` is accepted for comparison.

    Direction: KL(policy ‖ reference), sampled from the policy. The sum makes it a
    sequence-level KL that grows with completion length. TRL fills padding
    with the same placeholder (1.0) in both tensors, so it adds 0: the same
    as masking. An empty batch gives NaN (mean of nothing).
    """
    per_token = estimate(logprobs, ref_logprobs, estimator)
    keep = as_bool_mask(mask).expand_as(per_token)
    per_sequence = torch.where(keep, per_token, torch.zeros((), dtype=per_token.dtype)).sum(dim=-1)
    return per_sequence.mean()

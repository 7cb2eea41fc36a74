r"""NeMo-RL `ClippedPGLossFn` metrics: `loss`, `kl_penalty`, `probs_ratio*`, `approx_entropy`, ...

Every function takes per-token tensors in the layout of
[`batches`][metrics_registry.reference.nemo_rl.batches] (`(G, M, B, T)`,
`(M, B, T)` or nested lists of micro-batches) and returns the number the
driver logs under `train/<key>` after the worker's division by `n_GB` and the
driver's sum (`nemo_rl/algorithms/loss/loss_functions.py:374-790@7ea279ab`).

Log-probabilities: `curr` at the weights being trained, `prev` from the
training framework at the rollout weights (before the step), `gen` from the
inference engine, `ref` from the reference policy. Advantages are per token
(NeMo-RL expands the per-sample advantage over the sequence).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch

from metrics_registry.reference import kl as kl_estimators
from metrics_registry.reference.masked import as_float
from metrics_registry.reference.nemo_rl.batches import (
    GlobalBatches,
    as_global_batches,
    driver_extremum,
    loss_masks,
    sequence_normalized,
    token_normalized,
)

__all__ = [
    "approx_entropy",
    "calculate_kl",
    "kl_penalty",
    "loss",
    "probs_ratio_stats",
]

KLType = Literal["k1", "k2", "k3"]
Tensors = torch.Tensor | Sequence


def calculate_kl(
    logprobs: torch.Tensor,
    logprobs_reference: torch.Tensor,
    kl_type: KLType = "k3",
    *,
    input_clamp_value: float | None = None,
    output_clamp_value: float | None = None,
    weights: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""NeMo-RL's per-token KL: the k-estimator of KL(π ‖ π_reference) on tokens sampled from π.

    With $\log r = \log\pi_{\text{ref}} - \log\pi$ clamped to $\pm$`input_clamp_value`:
    k1 $= -\log r$, k2 $= \tfrac12(\log r)^2$, k3 $= e^{\log r} - 1 - \log r$; then multiplied
    by `weights` and clamped to $\pm$`output_clamp_value` (`nemo_rl/algorithms/utils.py:72-99@7ea279ab`).

    Args:
        logprobs: log-probabilities of the sampled tokens under π (the sampling side).
        logprobs_reference: the same tokens under the other distribution.
        kl_type: `"k1"`, `"k2"` or `"k3"` (`loss_fn.reference_policy_kl_type`).
        input_clamp_value: clamp of the log-ratio, `None` for none.
        output_clamp_value: clamp of the result, `None` for none.
        weights: per-token importance weights multiplied in before the output clamp.

    Returns:
        The element-wise estimate (no reduction).
    """
    log_r = as_float(logprobs_reference) - as_float(logprobs)
    if input_clamp_value is not None:
        log_r = log_r.clamp(-input_clamp_value, input_clamp_value)
    # kl.estimate(logq, logp) uses log r = logp - logq; logq = 0 makes it the clamped log r.
    per_token = kl_estimators.estimate(torch.zeros_like(log_r), log_r, kl_type)
    if weights is not None:
        per_token = as_float(weights) * per_token
    if output_clamp_value is not None:
        per_token = per_token.clamp(-output_clamp_value, output_clamp_value)
    return per_token


def _map(fn, *layouts: GlobalBatches) -> GlobalBatches:  # type: ignore[no-untyped-def]
    return [[fn(*mbs) for mbs in zip(*gbs, strict=True)] for gbs in zip(*layouts, strict=True)]


def _reduce(
    per_token: GlobalBatches, token_mask: Tensors, sample_mask: Tensors | None, token_level: bool
) -> torch.Tensor:
    masks = loss_masks(token_mask, sample_mask)
    if token_level:
        return token_normalized(per_token, masks)
    tokens = as_global_batches(token_mask, 2)
    samples = (
        as_global_batches(sample_mask, 1)
        if sample_mask is not None
        else [[torch.ones(t.shape[0]) for t in gb] for gb in tokens]
    )
    return sequence_normalized(per_token, tokens, samples)


def kl_penalty(
    curr_logprobs: Tensors,
    reference_logprobs: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
    *,
    reference_policy_kl_penalty: float = 0.01,
    reference_policy_kl_type: KLType = "k3",
    token_level_loss: bool = True,
    kl_input_clamp_value: float | None = 20.0,
    kl_output_clamp_value: float | None = 10.0,
    generation_logprobs: Tensors | None = None,
    use_on_policy_kl_approximation: bool = False,
) -> torch.Tensor:
    r"""`train/kl_penalty`: the reference-KL estimate **divided by β**, i.e. not the penalty itself.

    $$
    \text{kl\_penalty} = \frac{1}{n_{GB}}\sum_g \frac{\sum_{b,t} M_{b,t}\, w_{b,t}\,
    k\!\left(\log\pi_{\text{ref}} - \log\pi_\theta\right)_{b,t}}{N_g}
    $$

    with $k$ the estimator of `reference_policy_kl_type` (clamped as in
    [`calculate_kl()`][calculate_kl]), $w = 1$ in value (or $\pi_\theta/\pi_{gen}$ with
    `use_on_policy_kl_approximation`), token-normalized with `token_level_loss: true`,
    else the mean over valid samples of per-sample token means. The loss adds
    `β × kl_penalty`; the logged value has β divided out (`kl.item() / β`,
    `nemo_rl/algorithms/loss/loss_functions.py:777@7ea279ab`).

    Args:
        curr_logprobs: current-policy log-probabilities of the sampled tokens (token layout).
        reference_logprobs: reference-policy log-probabilities, same layout.
        token_mask: generated-token mask, same layout.
        sample_mask: per-sample mask, `(G, M, B)` layout; all ones if `None`.
        reference_policy_kl_penalty: β; with 0 the value is exactly 0.
        reference_policy_kl_type: `"k1"`, `"k2"` or `"k3"`.
        token_level_loss: token-normalized (`True`) or sequence-normalized.
        kl_input_clamp_value: clamp of the log-ratio (20 by default).
        kl_output_clamp_value: clamp of the per-token KL (10 by default).
        generation_logprobs: inference-engine log-probabilities, for the on-policy approximation.
        use_on_policy_kl_approximation: weight each token by $\pi_\theta/\pi_{gen}$.

    Returns:
        The unweighted KL(π_θ ‖ π_ref) estimate the driver logs.
    """
    if reference_policy_kl_penalty == 0:
        return torch.zeros((), dtype=torch.float64)
    curr = as_global_batches(curr_logprobs, 2)
    ref = as_global_batches(reference_logprobs, 2)
    if use_on_policy_kl_approximation:
        if generation_logprobs is None:
            raise ValueError("use_on_policy_kl_approximation needs generation_logprobs")
        gen = as_global_batches(generation_logprobs, 2)
        weights = _map(
            lambda c, g: torch.nan_to_num(torch.exp(as_float(c) - as_float(g)), 0.0, 0.0, 0.0), curr, gen
        )
    else:
        weights = _map(lambda c: torch.ones_like(as_float(c)), curr)
    per_token = _map(
        lambda c, r, w: calculate_kl(
            c,
            r,
            reference_policy_kl_type,
            input_clamp_value=kl_input_clamp_value,
            output_clamp_value=kl_output_clamp_value,
            weights=w,
        ),
        curr,
        ref,
        weights,
    )
    return _reduce(per_token, token_mask, sample_mask, token_level_loss)


def _ratios(
    curr: torch.Tensor,
    prev: torch.Tensor,
    token_mask: torch.Tensor,
    *,
    ratio_clip_min: float,
    ratio_clip_max: float,
    sequence_level: bool,
    disable_ppo_ratio: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    curr, prev = as_float(curr), as_float(prev)
    if disable_ppo_ratio:
        return curr, curr
    log_ratio = curr - prev
    if sequence_level:
        tmask = as_float(token_mask)
        seq_mean = (log_ratio * tmask).sum(-1) / (tmask.sum(-1) + 1e-8)
        ratios = seq_mean.exp().unsqueeze(-1).expand_as(log_ratio)
    else:
        ratios = log_ratio.exp()
    return ratios, ratios.clamp(1.0 - ratio_clip_min, 1.0 + ratio_clip_max)


def probs_ratio_stats(
    curr_logprobs: Tensors,
    prev_logprobs: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
    *,
    ratio_clip_min: float = 0.2,
    ratio_clip_max: float = 0.2,
    sequence_level_importance_ratios: bool = False,
    disable_ppo_ratio: bool = False,
) -> dict[str, torch.Tensor]:
    r"""`train/probs_ratio`, `probs_ratio_clamped` and their `_min` / `_max`.

    $r = e^{\log\pi_\theta - \log\pi_{\text{prev}}}$ per token (GSPO: $e^{\text{mean}_t(\cdot)}$
    per sample, broadcast to its tokens); $r^{c} = \mathrm{clamp}(r, 1-\epsilon_{min}, 1+\epsilon_{max})$.

    Args:
        curr_logprobs: current-policy log-probabilities (token layout).
        prev_logprobs: log-probabilities at the rollout weights from the training framework.
        token_mask: generated-token mask.
        sample_mask: per-sample mask; all ones if `None`.
        ratio_clip_min: $\epsilon_{min}$ (`loss_fn.ratio_clip_min`).
        ratio_clip_max: $\epsilon_{max}$ (`loss_fn.ratio_clip_max`).
        sequence_level_importance_ratios: GSPO's per-sample ratio.
        disable_ppo_ratio: the "ratio" is then the current log-probability itself.

    Returns:
        `probs_ratio` and `probs_ratio_clamped`: token-weighted means per global batch, averaged
        over global batches (always token-normalized). `probs_ratio_min`, `probs_ratio_max`,
        `probs_ratio_clamped_min`, `probs_ratio_clamped_max`: extrema over every valid token of
        the step, `-1.0` when there is none. No clip fraction: `probs_ratio_clamped` is a mean
        of clamped ratios, not a share of clipped tokens.
    """
    curr = as_global_batches(curr_logprobs, 2)
    prev = as_global_batches(prev_logprobs, 2)
    tokens = as_global_batches(token_mask, 2)
    pairs = _map(
        lambda c, p, t: _ratios(
            c,
            p,
            t,
            ratio_clip_min=ratio_clip_min,
            ratio_clip_max=ratio_clip_max,
            sequence_level=sequence_level_importance_ratios,
            disable_ppo_ratio=disable_ppo_ratio,
        ),
        curr,
        prev,
        tokens,
    )
    ratios = [[pair[0] for pair in gb] for gb in pairs]
    clamped = [[pair[1] for pair in gb] for gb in pairs]
    masks = loss_masks(token_mask, sample_mask)
    return {
        "probs_ratio": token_normalized(ratios, masks),
        "probs_ratio_clamped": token_normalized(clamped, masks),
        "probs_ratio_min": driver_extremum(ratios, masks, "min"),
        "probs_ratio_max": driver_extremum(ratios, masks, "max"),
        "probs_ratio_clamped_min": driver_extremum(clamped, masks, "min"),
        "probs_ratio_clamped_max": driver_extremum(clamped, masks, "max"),
    }


def loss(
    curr_logprobs: Tensors,
    prev_logprobs: Tensors,
    advantages: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
    *,
    ratio_clip_min: float = 0.2,
    ratio_clip_max: float = 0.2,
    ratio_clip_c: float | None = None,
    token_level_loss: bool = True,
    reference_logprobs: Tensors | None = None,
    reference_policy_kl_penalty: float = 0.0,
    reference_policy_kl_type: KLType = "k3",
    generation_logprobs: Tensors | None = None,
    use_importance_sampling_correction: bool = False,
) -> torch.Tensor:
    r"""`train/loss`: clipped surrogate plus β·KL, reduced like every loss-function key.

    $$
    \ell_{b,t} = w_{b,t}\max\!\big(-A_{b,t} r_{b,t},\; -A_{b,t}\,\mathrm{clamp}(r_{b,t}, 1-\epsilon_{min},
    1+\epsilon_{max})\big),\qquad \text{loss} = \overline{\ell} + \beta\,\overline{k}
    $$

    with dual clip $\min(\ell, -A\,c)$ where $A < 0$ if `ratio_clip_c` is set, $w = \pi_{prev}/\pi_{gen}$
    with `use_importance_sampling_correction` (else 1), and the bars the token-normalized
    (or sequence-normalized) reduction of [`batches`][metrics_registry.reference.nemo_rl.batches].

    Args:
        curr_logprobs: current-policy log-probabilities (token layout).
        prev_logprobs: log-probabilities at the rollout weights.
        advantages: per-token advantages (same layout).
        token_mask: generated-token mask.
        sample_mask: per-sample mask; all ones if `None`.
        ratio_clip_min: $\epsilon_{min}$.
        ratio_clip_max: $\epsilon_{max}$.
        ratio_clip_c: dual-clip constant $c > 1$, or `None`.
        token_level_loss: token-normalized (`True`) or sequence-normalized.
        reference_logprobs: reference-policy log-probabilities, needed when β ≠ 0.
        reference_policy_kl_penalty: β.
        reference_policy_kl_type: estimator of the KL term.
        generation_logprobs: inference-engine log-probabilities, for the importance weights.
        use_importance_sampling_correction: multiply the clipped term by $\pi_{prev}/\pi_{gen}$.

    Returns:
        The logged loss (the VAPO NLL term, always 0 in GRPO, is left out).
    """
    curr = as_global_batches(curr_logprobs, 2)
    prev = as_global_batches(prev_logprobs, 2)
    adv = as_global_batches(advantages, 2)
    tokens = as_global_batches(token_mask, 2)
    if use_importance_sampling_correction:
        if generation_logprobs is None:
            raise ValueError("use_importance_sampling_correction needs generation_logprobs")
        gen = as_global_batches(generation_logprobs, 2)
        weights = _map(
            lambda p, g: torch.nan_to_num(torch.exp(as_float(p) - as_float(g)), 0.0, 0.0, 0.0), prev, gen
        )
    else:
        weights = _map(lambda p: torch.ones_like(as_float(p)), prev)

    def surrogate(
        c: torch.Tensor, p: torch.Tensor, a: torch.Tensor, t: torch.Tensor, w: torch.Tensor
    ) -> torch.Tensor:
        ratios, clamped = _ratios(
            c,
            p,
            t,
            ratio_clip_min=ratio_clip_min,
            ratio_clip_max=ratio_clip_max,
            sequence_level=False,
            disable_ppo_ratio=False,
        )
        a = as_float(a)
        clip_loss = torch.maximum(-a * ratios, -a * clamped)
        if ratio_clip_c is not None:
            clip_loss = torch.where(a < 0, torch.minimum(clip_loss, -a * ratio_clip_c), clip_loss)
        return w * clip_loss

    per_token = _map(surrogate, curr, prev, adv, tokens, weights)
    actor = _reduce(per_token, token_mask, sample_mask, token_level_loss)
    if reference_policy_kl_penalty == 0:
        return actor
    if reference_logprobs is None:
        raise ValueError("a KL term (reference_policy_kl_penalty != 0) needs reference_logprobs")
    kl = kl_penalty(
        curr_logprobs,
        reference_logprobs,
        token_mask,
        sample_mask,
        reference_policy_kl_penalty=reference_policy_kl_penalty,
        reference_policy_kl_type=reference_policy_kl_type,
        token_level_loss=token_level_loss,
    )
    return actor + reference_policy_kl_penalty * kl


def approx_entropy(
    curr_logprobs: Tensors,
    generation_logprobs: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
) -> torch.Tensor:
    r"""`train/approx_entropy`: importance-weighted surprisal of the sampled tokens, token-normalized.

    $$
    \hat H = -\frac{1}{n_{GB}}\sum_g \frac{\sum_{b,t} M_{b,t}\,
    \frac{\pi_\theta}{\pi_{gen}}\,\log\pi_\theta}{N_g}
    $$

    An estimate of the per-token entropy of π_θ from tokens sampled by the inference engine
    (`nemo_rl/algorithms/loss/loss_functions.py:711-717@7ea279ab`); not an exact entropy.

    Args:
        curr_logprobs: current-policy log-probabilities (token layout).
        generation_logprobs: inference-engine log-probabilities.
        token_mask: generated-token mask.
        sample_mask: per-sample mask; all ones if `None`.

    Returns:
        The logged value, in nats per token.
    """
    curr = as_global_batches(curr_logprobs, 2)
    gen = as_global_batches(generation_logprobs, 2)
    per_token = _map(lambda c, g: -torch.exp(as_float(c) - as_float(g)) * as_float(c), curr, gen)
    return token_normalized(per_token, loss_masks(token_mask, sample_mask))

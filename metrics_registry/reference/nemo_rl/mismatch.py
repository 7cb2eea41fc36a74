r"""NeMo-RL train/inference mismatch metrics: inference-engine vs training-framework log-probabilities.

All compare `gen` (the inference engine's log-probabilities of the sampled
tokens) with `prev` (the training framework's, at the same weights, before
the update); all are token-normalized whatever `token_level_loss` is
(`nemo_rl/algorithms/loss/loss_functions.py:341-347, 406-466, 568-708@7ea279ab`).
The sequence-level statistics are computed once per step by the driver on the
whole batch (`nemo_rl/algorithms/grpo.py:2513-2641@7ea279ab`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float
from metrics_registry.reference.nemo_rl.batches import (
    as_global_batches,
    loss_masks,
    token_normalized,
)
from metrics_registry.reference.nemo_rl.loss import KLType, _map, calculate_kl

__all__ = ["mismatch_stats", "sampling_importance_ratio", "seq_mult_prob_error_stats"]

Tensors = torch.Tensor | Sequence
TISType = Literal["tis", "icepop", "seq-mask-tis"]


def mismatch_stats(
    generation_logprobs: Tensors,
    prev_logprobs: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
    reference_policy_kl_type: KLType = "k3",
) -> dict[str, torch.Tensor]:
    r"""`train/token_mult_prob_error`, `gen_kl_error`, `policy_kl_error`, `js_divergence_error`.

    Per token, with $g = \log\pi_{gen}$ and $p = \log\pi_{prev}$:

    * `token_mult_prob_error`: $e^{|g - p|}$ (≥ 1; 1 is a perfect match);
    * `gen_kl_error`: $k(p - g)$ of `reference_policy_kl_type`, i.e. KL(gen ‖ train) with k3;
    * `policy_kl_error`: $k(g - p)$, the same estimator with the roles swapped, still on tokens
      sampled from gen (with k3 not an unbiased KL(train ‖ gen));
    * `js_divergence_error`: $\tfrac12[k_3\text{-term}(p, m) + k_3\text{-term}(g, m)]$ with
      $m = \log(\tfrac12 e^{p} + \tfrac12 e^{g})$, always k3-shaped.

    each token-normalized per global batch and averaged over global batches.

    Args:
        generation_logprobs: inference-engine log-probabilities (token layout).
        prev_logprobs: training-framework log-probabilities at the rollout weights.
        token_mask: generated-token mask.
        sample_mask: per-sample mask; all ones if `None`.
        reference_policy_kl_type: the estimator also used for the reference KL (`"k3"` default).

    Returns:
        The four logged values.
    """
    gen = as_global_batches(generation_logprobs, 2)
    prev = as_global_batches(prev_logprobs, 2)
    masks = loss_masks(token_mask, sample_mask)
    # NeMo-RL exponentiates |g - p| * mask, so padding holds exp(0) = 1 before masking.
    mult = _map(lambda g, p, m: torch.exp((as_float(g) - as_float(p)).abs() * m), gen, prev, masks)
    gen_kl = _map(lambda g, p: calculate_kl(g, p, reference_policy_kl_type), gen, prev)
    policy_kl = _map(lambda g, p: calculate_kl(p, g, reference_policy_kl_type), gen, prev)

    def js(g: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        g, p = as_float(g), as_float(p)
        mix = torch.log(0.5 * torch.exp(p) + 0.5 * torch.exp(g))
        return 0.5 * (torch.exp(p - mix) - (p - mix) - 1) + 0.5 * (torch.exp(g - mix) - (g - mix) - 1)

    return {
        "token_mult_prob_error": token_normalized(mult, masks),
        "gen_kl_error": token_normalized(gen_kl, masks),
        "policy_kl_error": token_normalized(policy_kl, masks),
        "js_divergence_error": token_normalized(_map(js, gen, prev), masks),
    }


def _seq_log_mean(log_w: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
    tmask = as_float(token_mask)
    return (log_w * tmask).sum(-1) / (tmask.sum(-1) + 1e-8)


def sampling_importance_ratio(
    generation_logprobs: Tensors,
    prev_logprobs: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
    *,
    sequence_level_importance_ratios: bool = False,
    truncated_importance_sampling_type: TISType | None = None,
    truncated_importance_sampling_ratio: float | None = None,
    truncated_importance_sampling_ratio_min: float | None = None,
) -> dict[str, torch.Tensor]:
    r"""`train/sampling_importance_ratio` and `train/is_oob_ratio`.

    Token level: $w = e^{p - g}$ per token, token-normalized. Sequence level (GSPO):
    $w_b = e^{\sum_t (p - g) M}$ per sample (a product over tokens), normalized by valid samples.
    Truncated importance sampling then changes $w$ before it is averaged: `tis` clamps it to
    [min (default 0), max]; `icepop` sets weights outside [min, max] to 0; `seq-mask-tis` zeroes
    every token of a sample whose geometric-mean ratio $e^{\text{mean}_t(p-g)}$ is outside [min, max].
    `is_oob_ratio` is the share of valid tokens (samples for `seq-mask-tis`) out of bounds.

    Args:
        generation_logprobs: inference-engine log-probabilities (token layout).
        prev_logprobs: training-framework log-probabilities at the rollout weights.
        token_mask: generated-token mask.
        sample_mask: per-sample mask; all ones if `None`.
        sequence_level_importance_ratios: one weight per sample (GSPO).
        truncated_importance_sampling_type: `"tis"`, `"icepop"`, `"seq-mask-tis"` or `None`.
        truncated_importance_sampling_ratio: the upper bound.
        truncated_importance_sampling_ratio_min: the lower bound.

    Returns:
        `sampling_importance_ratio`, and `is_oob_ratio` when a truncation type is set. With
        sequence-level ratios NeMo-RL multiplies the `(B, 1)` weights by the `(B,)` sample mask,
        which broadcasts to `(B, B)`: each micro-batch adds $(\sum_b w_b)(\sum_b s_b)/N_g$, so the
        logged value is about the number of valid samples per micro-batch times the mean weight
        (NeMo-RL PR #3753). `sampling_importance_ratio_intended` is then the mean weight over valid
        samples, as the fix computes it.
    """
    gen = as_global_batches(generation_logprobs, 2)
    prev = as_global_batches(prev_logprobs, 2)
    tokens = as_global_batches(token_mask, 2)
    masks = loss_masks(token_mask, sample_mask)
    samples = (
        [[as_float(s) for s in gb] for gb in as_global_batches(sample_mask, 1)]
        if sample_mask is not None
        else [[torch.ones(t.shape[0], dtype=torch.float64) for t in gb] for gb in tokens]
    )
    if sequence_level_importance_ratios:
        weights = _map(
            lambda g, p, m: torch.nan_to_num(
                torch.exp(((as_float(p) - as_float(g)) * m).sum(-1)), 0.0, 0.0, 0.0
            ).unsqueeze(-1),
            gen,
            prev,
            masks,
        )
    else:
        weights = _map(
            lambda g, p: torch.nan_to_num(torch.exp(as_float(p) - as_float(g)), 0.0, 0.0, 0.0), gen, prev
        )

    out: dict[str, torch.Tensor] = {}
    high = truncated_importance_sampling_ratio
    if truncated_importance_sampling_type is not None and high is not None:
        low = truncated_importance_sampling_ratio_min
        if truncated_importance_sampling_type == "tis":
            low = 0.0 if low is None else low
            oob = _map(lambda w: ((w > high) | (w < low)).to(torch.float64), weights)
            out["is_oob_ratio"] = token_normalized(_map(lambda o, m: o.expand_as(m), oob, masks), masks)
            weights = _map(lambda w: w.clamp(low, high), weights)
        elif truncated_importance_sampling_type == "icepop":
            kept = _map(lambda w: (w >= low) & (w <= high), weights)
            out["is_oob_ratio"] = token_normalized(
                _map(lambda k, m: (~k).to(torch.float64).expand_as(m), kept, masks), masks
            )
            weights = _map(lambda w, k: torch.where(k, w, torch.zeros_like(w)), weights, kept)
        else:  # seq-mask-tis: per-sample geometric mean of the token ratios decides
            log_w = _map(lambda g, p: torch.nan_to_num(as_float(p) - as_float(g), 0.0, 0.0, 0.0), gen, prev)
            geo_means = _map(lambda lw, t: _seq_log_mean(lw, t).exp(), log_w, tokens)
            kept = _map(lambda r: (r >= low) & (r <= high), geo_means)
            seq_ones = [[torch.ones_like(s).unsqueeze(-1) for s in gb] for gb in samples]
            out["is_oob_ratio"] = token_normalized(
                _map(lambda k: (~k).to(torch.float64).unsqueeze(-1), kept),
                _map(lambda s, o: s.unsqueeze(-1) * o, samples, seq_ones),
            )
            weights = _map(lambda w, k: w * k.to(w.dtype).unsqueeze(-1), weights, kept)
    if sequence_level_importance_ratios:
        # The (B, 1) weights times the (B,) sample mask broadcast to (B, B) in NeMo-RL: each
        # micro-batch adds (sum of all its weights) x (its valid samples) / (GB valid samples).
        n_gb = len(weights)
        logged = torch.zeros((), dtype=torch.float64)
        for weights_g, samples_g in zip(weights, samples, strict=True):
            count = sum(smask.sum() for smask in samples_g)
            for w, smask in zip(weights_g, samples_g, strict=True):
                logged = logged + w.sum() * smask.sum() / (count + 1e-8) / n_gb
        out["sampling_importance_ratio"] = logged
        out["sampling_importance_ratio_intended"] = token_normalized(
            weights, _map(lambda smask: smask.unsqueeze(-1), samples)
        )
    else:
        out["sampling_importance_ratio"] = token_normalized(weights, masks)
    return dict(sorted(out.items()))


def seq_mult_prob_error_stats(
    generation_logprobs: torch.Tensor,
    prev_logprobs: torch.Tensor,
    token_mask: torch.Tensor,
    sample_mask: torch.Tensor | None = None,
    *,
    rewards: torch.Tensor | None = None,
    seq_logprob_error_threshold: float | None = None,
) -> dict[str, torch.Tensor]:
    r"""The driver's per-sequence mismatch statistics, computed once per step on the whole batch.

    Per valid sequence (≥ 1 valid token): $e_b = \frac{\sum_t e^{|g-p| M} M}{\sum_t M}$; then the
    max, mean (over sequences, not tokens) and min. With a threshold, sequences with
    $e_b >$ threshold are masked: `num_masked_seqs_by_logprob_error` counts them,
    `masked_correct_pct` is the **fraction** (0-1) of them whose reward is exactly 1, and the
    `*_after_mask` statistics cover the kept sequences (0 when none is left).

    Args:
        generation_logprobs: `(B, T)` inference-engine log-probabilities.
        prev_logprobs: `(B, T)` training-framework log-probabilities.
        token_mask: `(B, T)` generated-token mask (already shifted).
        sample_mask: `(B,)`; all ones if `None`.
        rewards: `(B,)`, for `masked_correct_pct`.
        seq_logprob_error_threshold: `grpo.seq_logprob_error_threshold`, `None` to only measure.

    Returns:
        The eight logged values (`train/max_seq_mult_prob_error`, ...).
    """
    gen, prev = as_float(generation_logprobs), as_float(prev_logprobs)
    tokens = as_float(token_mask)
    samples = (
        torch.ones(tokens.shape[0], dtype=tokens.dtype) if sample_mask is None else as_float(sample_mask)
    )
    mask = tokens * samples.unsqueeze(-1)
    count = mask.sum(-1)
    valid = count > 0
    errors = (torch.exp((gen - prev).abs() * mask) * mask).sum(-1) / count.clamp(min=1)
    zero = torch.zeros((), dtype=torch.float64)

    def stats(keep: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if not bool(keep.any()):
            return zero, zero, zero
        chosen = errors[keep].to(torch.float64)
        return chosen.max(), chosen.mean(), chosen.min()

    high, mean, low = stats(valid)
    out = {
        "max_seq_mult_prob_error": high,
        "mean_seq_mult_prob_error": mean,
        "min_seq_mult_prob_error": low,
        "num_masked_seqs_by_logprob_error": zero,
        "masked_correct_pct": zero,
    }
    after = (high, mean, low)
    if seq_logprob_error_threshold is not None:
        kept = (errors <= seq_logprob_error_threshold).to(samples.dtype) * samples
        dropped = as_bool_mask(samples - kept)
        out["num_masked_seqs_by_logprob_error"] = dropped.sum().to(torch.float64)
        if bool(dropped.any()) and rewards is not None:
            out["masked_correct_pct"] = (as_float(rewards).reshape(-1)[dropped] == 1).sum().to(
                torch.float64
            ) / dropped.sum()
        after = stats(as_bool_mask(kept) & valid)
    out["max_seq_mult_prob_error_after_mask"] = after[0]
    out["mean_seq_mult_prob_error_after_mask"] = after[1]
    out["min_seq_mult_prob_error_after_mask"] = after[2]
    return out

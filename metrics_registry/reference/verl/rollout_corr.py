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

import math

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float, masked_sum
from metrics_registry.reference.verl.actor import verl_masked_mean

__all__ = [
    "importance_weight_metrics",
    "offpolicy_metrics",
    "rejection_masked_fractions",
    "rejection_option_metrics",
    "rollout_probs_diff_metrics",
]

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


def importance_weight_metrics(
    old_log_probs: torch.Tensor,
    rollout_log_probs: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    rollout_is: str = "token",
    threshold_upper: float = 2.0,
    threshold_lower: float | None = None,
    batch_normalize: bool = False,
) -> dict[str, float]:
    r"""`rollout_corr/rollout_is_*`: statistics of the weights $\pi_{\text{old}}/\pi_{\text{rollout}}$.

    Follows `compute_rollout_correction_weights` and `compute_is_metrics`
    (`verl/trainer/ppo/rollout_corr_helper.py:522-783@1dda039`). Token mode:
    one weight $e^{\log\rho_t}$ per token (log-ratio clamped to ±20);
    sequence mode: $e^{\sum_t \log\rho_t}$ for every token of the sequence.
    Weights are truncated at `threshold_upper` (TIS) or, when
    `threshold_lower` is given (the `"lower_upper"` form), zeroed outside
    `[lower, upper]` (IcePop). Statistics are taken *before* the optional
    batch normalisation.

    Args:
        old_log_probs: `(B, T)` $\log\pi_{\text{old}}$ (trainer recompute).
        rollout_log_probs: `(B, T)` $\log\pi_{\text{rollout}}$.
        response_mask: `(B, T)` valid tokens (at least one).
        rollout_is: `"token"` or `"sequence"`.
        threshold_upper: upper bound of `rollout_is_threshold`.
        threshold_lower: lower bound for IcePop; `None` for truncation (then $1/\text{upper}$
            is the lower bound of the `fraction_low` statistics).
        batch_normalize: `rollout_is_batch_normalize` (adds `rollout_is_batch_norm_factor`).

    Returns:
        A dict with the `rollout_corr/rollout_is_*` keys.
    """
    mask = as_bool_mask(response_mask)
    log_ratio = as_float(old_log_probs) - as_float(rollout_log_probs)
    if rollout_is == "token":
        for_metrics = log_ratio
        raw = torch.exp(torch.clamp(log_ratio, -_SAFETY_BOUND, _SAFETY_BOUND))
    elif rollout_is == "sequence":
        for_metrics = masked_sum(log_ratio, mask, dim=-1).unsqueeze(-1)
        raw = torch.exp(torch.clamp(for_metrics, -_SAFETY_BOUND, _SAFETY_BOUND)).expand_as(log_ratio)
    else:
        raise ValueError(f"rollout_is must be 'token' or 'sequence', not {rollout_is!r}")
    raw = raw * mask.to(raw.dtype)
    if threshold_lower is None:
        weights = raw.clamp(max=threshold_upper)
    else:
        kept = (raw >= threshold_lower) & (raw <= threshold_upper)
        weights = torch.where(kept, raw, torch.zeros_like(raw))
    lower = 1.0 / threshold_upper if threshold_lower is None else threshold_lower
    out = {"rollout_is_mean": float(verl_masked_mean(weights, mask))}
    out.update(
        _extremes(
            rollout_is, for_metrics, raw=raw, weights=weights, mask=mask, bounds=(lower, threshold_upper)
        )
    )
    out.update(_spread(weights, mask, threshold_upper))
    out.update(_per_sequence(weights, raw, mask, (lower, threshold_upper)))
    if threshold_lower is not None:
        outside = (raw < threshold_lower) | (raw > threshold_upper)
        out["rollout_is_oob_ratio"] = float(verl_masked_mean(outside.double(), mask))
    if batch_normalize:
        out["rollout_is_batch_norm_factor"] = _batch_norm_factor(rollout_is, weights, mask)
    return {f"rollout_corr/{name}": value for name, value in out.items()}


def _extremes(
    rollout_is: str,
    for_metrics: torch.Tensor,
    *,
    raw: torch.Tensor,
    weights: torch.Tensor,
    mask: torch.Tensor,
    bounds: tuple[float, float],
) -> dict[str, float]:
    """Max, min and the fractions beyond the bounds: of sequence log-ratios, or of token weights."""
    lower, upper = bounds
    if rollout_is == "sequence":
        return {
            "rollout_is_max": float(torch.exp(torch.clamp(for_metrics.max(), max=_SAFETY_BOUND))),
            "rollout_is_min": float(torch.exp(for_metrics.min())),
            "rollout_is_ratio_fraction_high": float((for_metrics > math.log(upper)).double().mean()),
            "rollout_is_ratio_fraction_low": float((for_metrics < math.log(lower)).double().mean()),
        }
    return {
        "rollout_is_ratio_fraction_high": float(verl_masked_mean((raw > upper).double(), mask)),
        "rollout_is_ratio_fraction_low": float(verl_masked_mean((raw < lower).double(), mask)),
        "rollout_is_max": float(weights[mask].max()),
        "rollout_is_min": float(weights[mask].min()),
    }


def _spread(weights: torch.Tensor, mask: torch.Tensor, upper: float) -> dict[str, float]:
    """Std and normalised effective sample size of the weights clamped to [0, upper]."""
    clamped = weights.clamp(min=0.0, max=upper)
    mean = verl_masked_mean(clamped, mask)
    if mask.sum() > 1:
        var = verl_masked_mean(clamped.square(), mask) - mean.square()
        std = float(torch.sqrt(torch.clamp(var, min=0.0)))
    else:
        std = 0.0
    normalized = clamped / (mean + 1e-8)
    return {
        "rollout_is_std": std,
        "rollout_is_eff_sample_size": 1.0 / float(verl_masked_mean(normalized.square(), mask)),
    }


def _per_sequence(
    weights: torch.Tensor, raw: torch.Tensor, mask: torch.Tensor, bounds: tuple[float, float]
) -> dict[str, float]:
    """Statistics of the per-sequence mean weight (processed, and raw for the fractions)."""
    lower, upper = bounds
    seq = verl_masked_mean(weights, mask, dim=-1)
    raw_seq = verl_masked_mean(raw, mask, dim=-1)
    return {
        "rollout_is_seq_mean": float(seq.mean()),
        "rollout_is_seq_std": float(seq.std()) if seq.numel() > 1 else 0.0,
        "rollout_is_seq_max": float(seq.max()),
        "rollout_is_seq_min": float(seq.min()),
        "rollout_is_seq_max_deviation": float((seq - 1.0).abs().max()),
        "rollout_is_seq_fraction_high": float((raw_seq > upper).double().mean()),
        "rollout_is_seq_fraction_low": float((raw_seq < lower).double().mean()),
    }


def _batch_norm_factor(rollout_is: str, weights: torch.Tensor, mask: torch.Tensor) -> float:
    """The mean weight the batch normalisation divides by (1.0 when it is ~0)."""
    if rollout_is == "token":
        norm = verl_masked_mean(weights, mask)
    else:
        seq = verl_masked_mean(weights, mask, dim=-1)
        present = (mask.sum(dim=-1) > 0).to(seq.dtype)
        norm = (seq * present).sum() / present.sum().clamp_min(1e-8)
    return float(norm) if norm > 1e-8 else 1.0


def rollout_probs_diff_metrics(
    old_log_probs: torch.Tensor, rollout_log_probs: torch.Tensor, response_mask: torch.Tensor
) -> dict[str, float]:
    r"""`training/rollout_probs_diff_*` and `training/rollout_actor_probs_pearson_corr`, in probability space.

    Follows `calculate_debug_metrics` (`verl/utils/debug/metrics.py:63-121@1dda039`):
    per valid token $|e^{\log\pi_{\text{old}}} - e^{\log\pi_{\text{rollout}}}|$ (probabilities,
    not log-probabilities), its max, mean and unbiased std over all valid tokens, and
    the Pearson correlation of the two probabilities.

    Args:
        old_log_probs: `(B, T)` $\log\pi_{\text{old}}$ (trainer recompute).
        rollout_log_probs: `(B, T)` $\log\pi_{\text{rollout}}$.
        response_mask: `(B, T)` valid tokens.

    Returns:
        A dict keyed by the logged names; `_valid` is 0 and the rest NaN when the mask is empty.
    """
    mask = as_bool_mask(response_mask)
    names = ("max", "mean", "std")
    if not mask.any():
        out = {"training/rollout_probs_diff_valid": 0.0}
        out.update({f"training/rollout_probs_diff_{n}": math.nan for n in names})
        out["training/rollout_actor_probs_pearson_corr"] = math.nan
        return out
    actor = torch.exp(as_float(old_log_probs))[mask]
    rollout = torch.exp(as_float(rollout_log_probs))[mask]
    diff = (actor - rollout).abs()
    return {
        "training/rollout_probs_diff_valid": 1.0,
        "training/rollout_probs_diff_max": float(diff.max()),
        "training/rollout_probs_diff_mean": float(diff.mean()),
        "training/rollout_probs_diff_std": float(diff.std()),
        "training/rollout_actor_probs_pearson_corr": float(
            torch.corrcoef(torch.stack([actor, rollout]))[0, 1]
        ),
    }


def rejection_masked_fractions(response_mask: torch.Tensor, keep_mask: torch.Tensor) -> dict[str, float]:
    r"""`rollout_corr/rollout_rs_masked_fraction` and `rollout_rs_seq_masked_fraction` of rejection sampling.

    Follows `compute_rollout_rejection_mask`
    (`verl/trainer/ppo/rollout_corr_helper.py:406-410@1dda039`): the share of valid
    tokens that every rejection option together removed, and the share of all rows
    with at least one removed valid token.

    Args:
        response_mask: `(B, T)` valid tokens before rejection.
        keep_mask: `(B, T)` the combined keep mask of all `rollout_rs` options.

    Returns:
        A dict with the two logged keys.
    """
    mask = as_bool_mask(response_mask)
    keep = as_bool_mask(keep_mask)
    rejected = ~keep & mask
    return {
        "rollout_corr/rollout_rs_masked_fraction": float(verl_masked_mean(rejected.double(), mask)),
        "rollout_corr/rollout_rs_seq_masked_fraction": float(rejected.any(dim=-1).double().mean()),
    }


_RS_OPTIONS = frozenset(
    {f"token_k{k}" for k in (1, 2, 3)}
    | {f"seq_{how}_k{k}" for how in ("sum", "mean") for k in (1, 2, 3)}
    | {f"seq_max_k{k}" for k in (2, 3)}
)


def _rs_bounds(option: str, threshold: str | float) -> tuple[float, float | None]:
    """(upper, lower) of one option in the units its statistic is compared in.

    A k1 option compares $-\\log\\rho$ with the logs of a ratio band ``"lower_upper"``
    (one number means lower = 1/upper); the others compare with one upper bound.
    """
    if not option.endswith("k1"):
        return float(threshold), None
    text = str(threshold)
    upper = float(text.split("_", 1)[1]) if "_" in text else float(text)
    lower = float(text.split("_", 1)[0]) if "_" in text else 1.0 / upper
    return math.log(upper), math.log(lower)


def rejection_option_metrics(
    old_log_probs: torch.Tensor,
    rollout_log_probs: torch.Tensor,
    response_mask: torch.Tensor,
    option: str = "token_k1",
    threshold: str | float = "0.5_2.0",
) -> dict[str, float]:
    r"""`rollout_corr/rollout_rs_<option>_*`: the statistics of one rejection-sampling option.

    Written from `compute_rollout_rejection_mask` and `compute_rs_metrics`
    (`verl/trainer/ppo/rollout_corr_helper.py:197-519@1dda039`). Per token, with
    $x = \operatorname{clamp}(\log\pi_{\text{old}} - \log\pi_{\text{rollout}}, \pm 20)$:
    k1 $= -x$, k2 $= x^2/2$, k3 $= e^x - 1 - x$. A `token_*` option rejects
    tokens whose value leaves the band; a `seq_sum_*`, `seq_mean_*` or `seq_max_*`
    option sums, averages or maximises the token values of each sequence and
    rejects whole sequences. Statistics: `mean` (token-weighted over valid tokens,
    a sequence value counted once per token), `max`/`min` (over tokens, or over
    sequences for sequence options), `fraction_high`/`fraction_low` (share above the
    upper / below the lower bound; `fraction_low` is 0 unless the option is k1),
    `std` (of the values clamped to the band), `seq_*` (over sequences with a valid
    token; `seq_fraction_low` only for k1), `masked_fraction` (rejected share of the
    valid tokens) and `seq_masked_fraction` (rejected share of the sequences with a
    valid token).

    Args:
        old_log_probs: `(B, T)` $\log\pi_{\text{old}}$.
        rollout_log_probs: `(B, T)` $\log\pi_{\text{rollout}}$.
        response_mask: `(B, T)` valid tokens (at least one).
        option: one of verl's `rollout_rs` options, e.g. `token_k1` or `seq_mean_k3`.
        threshold: its `rollout_rs_threshold` entry: a ratio band `"lower_upper"` (or one
            upper ratio) for k1 options, an upper bound of the divergence otherwise.

    Returns:
        A dict with the option's `rollout_corr/rollout_rs_<option>_*` keys.
    """
    if option not in _RS_OPTIONS:
        raise ValueError(f"unknown rollout_rs option {option!r}; one of {sorted(_RS_OPTIONS)}")
    mask = as_bool_mask(response_mask)
    x = torch.clamp(as_float(old_log_probs) - as_float(rollout_log_probs), -_SAFETY_BOUND, _SAFETY_BOUND)
    token = {"k1": -x, "k2": 0.5 * x**2, "k3": torch.exp(x) - 1.0 - x}[option[-2:]]
    upper, lower = _rs_bounds(option, threshold)
    if option.startswith("token_"):
        stat, seq_values = token, verl_masked_mean(token, mask, dim=-1)
    else:
        if option.startswith("seq_sum"):
            seq_values = masked_sum(token, mask, dim=-1)
        elif option.startswith("seq_mean"):
            seq_values = verl_masked_mean(token, mask, dim=-1)
        else:
            highest = token.masked_fill(~mask, float("-inf")).max(dim=-1).values
            seq_values = torch.where(torch.isinf(highest), torch.zeros_like(highest), highest)
        stat = seq_values.unsqueeze(-1).expand_as(token)
    keep = (stat <= upper) & (stat >= lower if lower is not None else torch.ones_like(mask))
    valid_rows = mask.any(dim=-1)
    rows = seq_values[valid_rows]
    sequence = not option.startswith("token_")
    floor = lower if lower is not None else 0.0
    out: dict[str, float] = {"mean": float(verl_masked_mean(stat, mask))}
    if sequence and rows.numel():
        out["max"], out["min"] = float(rows.max()), float(rows.min())
        out["fraction_high"] = float((rows > upper).double().mean())
        out["fraction_low"] = float((rows < lower).double().mean()) if lower is not None else 0.0
    else:
        out["max"] = float(stat.masked_fill(~mask, float("-inf")).max())
        out["min"] = float(stat.masked_fill(~mask, float("inf")).min())
        out["fraction_high"] = float(verl_masked_mean((stat > upper).double(), mask))
        out["fraction_low"] = (
            float(verl_masked_mean((stat < lower).double(), mask)) if lower is not None else 0.0
        )
    clamped = stat.clamp(min=floor, max=upper)
    variance = verl_masked_mean(clamped.square(), mask) - verl_masked_mean(clamped, mask).square()
    out["std"] = float(torch.sqrt(variance.clamp(min=0.0))) if mask.sum() > 1 else 0.0
    if rows.numel():
        out["seq_mean"], out["seq_max"], out["seq_min"] = (
            float(rows.mean()),
            float(rows.max()),
            float(rows.min()),
        )
        out["seq_std"] = float(rows.std()) if rows.numel() > 1 else 0.0
        out["seq_max_deviation"] = float(rows.abs().max())
        out["seq_fraction_high"] = float((rows > upper).double().mean())
        if lower is not None:
            out["seq_fraction_low"] = float((rows < lower).double().mean())
    else:
        out.update(dict.fromkeys(("seq_mean", "seq_std", "seq_max", "seq_min"), 0.0))
        out.update(dict.fromkeys(("seq_max_deviation", "seq_fraction_high", "seq_fraction_low"), 0.0))
    rejected = ~keep & mask
    out["masked_fraction"] = float(verl_masked_mean(rejected.double(), mask))
    hit_rows = rejected.any(dim=-1) & valid_rows
    out["seq_masked_fraction"] = float(hit_rows.sum() / valid_rows.sum()) if valid_rows.any() else 0.0
    return {f"rollout_corr/rollout_rs_{option}_{name}": value for name, value in out.items()}

"""GRPO helpers shared by the other modules: option types, NaN-aware std, global mean, importance weights."""

from __future__ import annotations

from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "global_masked_mean",
    "importance_weights",
    "nanstd",
]


ScaleRewards = Literal["group", "batch", "none"]
Aggregation = Literal["sum_then_normalize", "normalize_then_sum"]
Level = Literal["token", "sequence"]

_STD_EPS = 1e-4  # TRL divides by (std + 1e-4)


def _nan(dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.full((), float("nan"), dtype=dtype)


# ------------------------------------------------------------------ helpers


def nanstd(values: torch.Tensor, dim: int | None = None, keepdim: bool = False) -> torch.Tensor:
    r"""TRL's `nanstd`: Bessel-corrected standard deviation ignoring NaN; NaN when fewer than 2 values.

    $$
    s = \sqrt{\frac{1}{n-1}\sum_{i:\,x_i \ne \text{NaN}} (x_i - \bar x)^2}
    $$
    """
    values = as_float(values)
    mean = torch.nanmean(values, dim=dim, keepdim=True)
    variance = torch.nanmean((values - mean) ** 2, dim=dim, keepdim=True)
    count = (~torch.isnan(values)).sum(dim=dim, keepdim=True).to(values.dtype)
    correction = torch.where(count > 1, count / (count - 1), torch.full_like(count, float("nan")))
    std = torch.sqrt(variance * correction)
    if keepdim:
        return std
    return std.reshape(()) if dim is None else std.squeeze(dim)


def global_masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""GRPO's `global_masked_mean` (1.9.0+) on one process: masked sum over a count clamped to 1.

    $$
    \frac{\sum_{i,t} m_{i,t}\,x_{i,t}}{\max\big(1, \sum_{i,t} m_{i,t}\big)}
    $$

    Args:
        values: `(B, T)`, or `(B, 1)` for sequence-level quantities, which are
            averaged over sequences without the mask (TRL tests `x.shape[1] == 1`,
            so a `T = 1` batch is treated the same way).
        mask: `(B, T)`.

    An all-masked micro-batch gives 0, not NaN. With several processes TRL adds
    the sums and the counts of all processes before dividing; concatenate the
    processes' rows to reproduce it.
    """
    values = as_float(values)
    if values.shape[-1] == 1:
        return values.sum() / max(1.0, float(values.shape[0]))
    keep = as_bool_mask(mask).expand_as(values)
    total = torch.where(keep, values, torch.zeros((), dtype=values.dtype)).sum()
    return total / keep.sum().clamp(min=1).to(values.dtype)


def _per_sequence_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """TRL's `masked_seq_mean`: per-sequence masked mean (NaN for an empty row); `(B, 1)` passes."""
    if values.shape[-1] == 1:
        return values.squeeze(-1)
    keep = as_bool_mask(mask).expand_as(values)
    total = torch.where(keep, values, torch.zeros((), dtype=values.dtype)).sum(dim=-1)
    return total / keep.sum(dim=-1).to(values.dtype)


def importance_weights(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor | None,
    mask: torch.Tensor,
    importance_sampling_level: Level = "token",
) -> torch.Tensor:
    r"""GRPO's ratio `coef_1` between the policy being optimised and the one that generated.

    * `"token"`: $r_{i,t} = \exp(\log\pi_\theta - \log\pi_{\text{old}})$, shape `(B, T)`;
    * `"sequence"` (GSPO): the geometric mean of the token ratios over the real tokens,
      $r_i = \exp\big(\sum_t m_{i,t}\log\frac{\pi_\theta}{\pi_{\text{old}}} / \max(1, N_i)\big)$,
      with $N_i$ the real tokens of sequence $i$; shape `(B, 1)`.

    `old_logprobs=None` means on-policy (TRL uses the detached current
    log-probabilities): every ratio is exactly 1.
    """
    logprobs = as_float(logprobs)
    log_ratio = torch.zeros_like(logprobs) if old_logprobs is None else logprobs - as_float(old_logprobs)
    if importance_sampling_level == "token":
        return torch.exp(log_ratio)
    if importance_sampling_level == "sequence":
        keep = as_bool_mask(mask).expand_as(log_ratio)
        summed = torch.where(keep, log_ratio, torch.zeros((), dtype=log_ratio.dtype)).sum(dim=-1)
        return torch.exp(summed / keep.sum(dim=-1).clamp(min=1).to(log_ratio.dtype)).unsqueeze(-1)
    raise ValueError(f"unknown importance_sampling_level {importance_sampling_level!r}")

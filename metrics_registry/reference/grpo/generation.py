"""GRPO generation-time sampling and tool metrics (`sampling/*`, `tools/*`)."""

from __future__ import annotations

import math
from typing import Literal

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "sampling_stats",
    "tool_call_stats",
]


# ------------------------------------------------------------ generation-time


def sampling_stats(
    old_logprobs: torch.Tensor,
    sampling_logprobs: torch.Tensor,
    mask: torch.Tensor,
    *,
    mode: Literal["token_truncate", "token_mask", "sequence_truncate", "sequence_mask"] = "sequence_mask",
    clip_min: float | None = None,
    clip_max: float | None = 3.0,
) -> dict[str, torch.Tensor]:
    r"""GRPO `sampling/*` (vLLM importance-sampling correction, 0.26+ modes) on one process.

    * `logp_difference_mean` / `_max`: mean / max over real tokens of
      $|\log\pi_{\text{train}} - \log\pi_{\text{vLLM}}|$, NaN differences dropped (0.0 if none is left);
    * the ratio $\rho = \exp(\log\pi_{\text{train}} - \log\pi_{\text{vLLM}})$ per token,
      or per sequence from the *sum* of the masked token log-ratios (a product of token
      ratios); NaN log-ratios count as 0; then `*_truncate` clamps it to
      `[clip_min, clip_max]` and `*_mask` sets ratios outside to 0;
    * `importance_sampling_ratio_min` / `_mean` / `_max` over the real tokens
      (token modes) or the sequences (sequence modes); 0.0 when there are none.

    Args:
        old_logprobs: `(B, T)` recomputed by the training model before any update.
        sampling_logprobs: `(B, T)` returned by vLLM (NaN where unavailable).
        mask: `(B, T)` completion mask (times the tool mask).
        mode: `vllm_importance_sampling_mode`.
        clip_min: its lower bound.
        clip_max: its upper bound.

    Returns the five statistics and `importance_sampling_ratio` (`(B, T)` or `(B, 1)`).
    Across processes TRL averages the means and takes the NaN-aware min/max of the extremes.
    """
    old, sampled = as_float(old_logprobs), as_float(sampling_logprobs)
    keep = as_bool_mask(mask).expand_as(old)
    zero = torch.zeros((), dtype=old.dtype)
    delta = (old - sampled).abs()
    kept = delta[keep & ~torch.isnan(delta)]
    diff = torch.nan_to_num(torch.where(keep, old - sampled, zero), nan=0.0)
    sequence_level = mode.startswith("sequence")
    log_ratio = diff.sum(dim=-1, keepdim=True) if sequence_level else diff
    ratio = torch.exp(log_ratio)
    if mode.endswith("truncate"):
        ratio = torch.clamp(ratio, min=clip_min, max=clip_max)
    elif mode.endswith("mask"):
        low = -math.inf if clip_min is None else clip_min
        high = math.inf if clip_max is None else clip_max
        ratio = ratio.masked_fill((ratio < low) | (ratio > high), 0.0)
    else:
        raise ValueError(f"unknown mode {mode!r}")
    flat = ratio.reshape(-1) if sequence_level else ratio[keep]

    def _stat(values: torch.Tensor, reduce: str) -> torch.Tensor:
        return getattr(values, reduce)() if values.numel() else torch.zeros((), dtype=old.dtype)

    return {
        "logp_difference_mean": _stat(kept, "mean"),
        "logp_difference_max": _stat(kept, "max"),
        "importance_sampling_ratio": ratio,
        "importance_sampling_ratio_min": _stat(flat, "min"),
        "importance_sampling_ratio_mean": _stat(flat, "mean"),
        "importance_sampling_ratio_max": _stat(flat, "max"),
    }


def tool_call_stats(
    tool_call_counts: torch.Tensor, tool_failure_counts: torch.Tensor, num_completions: int
) -> dict[str, torch.Tensor]:
    r"""GRPO `tools/call_frequency` and `tools/failure_frequency` of one generation batch.

    $$
    \text{call\_frequency} = \frac{\sum_p \text{calls}_p}{N},\qquad
    \text{failure\_frequency} = \frac{\sum_p \text{failures}_p}{\sum_p \text{calls}_p}
    \ (0 \text{ without calls})
    $$

    Args:
        tool_call_counts: `(P,)` tool calls per process (all rounds, failed ones included).
        tool_failure_counts: `(P,)` failed calls per process.
        num_completions: `N`, completions of the generation batch over all processes.
    """
    calls = torch.as_tensor(tool_call_counts).to(torch.float64).sum()
    failures = torch.as_tensor(tool_failure_counts).to(torch.float64).sum()
    failure_frequency = failures / calls if calls > 0 else torch.zeros((), dtype=torch.float64)
    return {"call_frequency": calls / num_completions, "failure_frequency": failure_frequency}

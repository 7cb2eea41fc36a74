r"""Completion lengths, truncation flags and EOS counts.

GRPO's `completions/*` keys all come from two per-completion values
gathered from every process: the length in tokens and whether the completion
was truncated (stopped by the length limit rather than by EOS). PPO's
`val/num_eos_tokens` counts EOS-id tokens in the raw generations.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference.masked import as_bool_mask

__all__ = [
    "completion_length_stats",
    "completion_mask_up_to_eos",
    "eos_token_count",
    "mean_completion_length",
    "truncation_flags",
]


def eos_token_count(token_ids: torch.Tensor, eos_token_id: int) -> torch.Tensor:
    r"""PPO `val/num_eos_tokens`: number of positions equal to the EOS id in the raw generated tokens.

    $$
    N_{\text{eos}} = \sum_{i,t}\big[y_{i,t} = \text{eos}\big]
    $$

    Args:
        token_ids: `(B, T)` generated ids of the main process's batch (before
            truncation at the stop token; padding included).
        eos_token_id: the tokenizer's EOS id.

    Counts tokens, not completions: several EOS in one completion all count, and
    so does padding when the pad id equals the EOS id. Returns an int64 scalar.
    """
    return (torch.as_tensor(token_ids) == eos_token_id).sum()


def completion_mask_up_to_eos(completion_ids: torch.Tensor, eos_token_id: int) -> torch.Tensor:
    """GRPO's completion mask: true up to and including the first EOS, the whole row when there is none.

    `completion_ids` is `(B, T)`; returns a `(B, T)` bool mask.
    """
    ids = torch.as_tensor(completion_ids)
    is_eos = ids == eos_token_id
    length = ids.shape[-1]
    first = torch.where(is_eos.any(dim=-1), is_eos.int().argmax(dim=-1), torch.full_like(ids[..., 0], length))
    return torch.arange(length) <= first.unsqueeze(-1)


def mean_completion_length(completion_mask: torch.Tensor) -> torch.Tensor:
    r"""GRPO `completion_length` (0.14 to 0.16): mean over completions of the completion-mask row sums.

    $$
    \bar L = \frac{1}{N}\sum_i \sum_t m_{i,t}
    $$

    `completion_mask` is `(N, T)` (see [`completion_mask_up_to_eos()`][completion_mask_up_to_eos]). NaN when
    `N = 0`.
    """
    return as_bool_mask(completion_mask).sum(dim=-1).to(torch.float64).mean()


def truncation_flags(
    last_token_ids: torch.Tensor | Sequence[int],
    eos_token_ids: Sequence[int] | int,
    pad_token_id: int | None = None,
) -> torch.Tensor:
    """GRPO's `is_truncated` (since 0.24.0): the last generated token is neither an EOS id nor the pad id.

    Args:
        last_token_ids: `(N,)` the last id of every (unpadded) completion.
        eos_token_ids: the EOS id or ids (a generation config may list several).
        pad_token_id: the pad id, also accepted as a proper ending.

    Before 0.24.0 a completion counted as truncated when it contained no EOS at
    all; the two rules agree for completions cut at their first EOS.
    """
    endings = torch.as_tensor(eos_token_ids).reshape(-1).to(torch.int64)
    if pad_token_id is not None:
        endings = torch.cat([endings, torch.tensor([pad_token_id])])
    return ~torch.isin(torch.as_tensor(last_token_ids).to(torch.int64), endings)


def completion_length_stats(
    completion_lengths: torch.Tensor, is_truncated: torch.Tensor
) -> dict[str, torch.Tensor]:
    r"""GRPO's `completions/*` statistics of one generation batch.

    Args:
        completion_lengths: `(N,)` tokens per completion, gathered from all processes (up to
            and including the first EOS; model-generated tokens only when tools are used).
        is_truncated: `(N,)` flags from [`truncation_flags()`][truncation_flags].

    Returns a dict with the values TRL appends for this generation batch:

    * `mean_length`, `min_length`, `max_length`: over all completions;
    * `clipped_ratio`: fraction of truncated completions, $\frac1N\sum_i [\text{truncated}_i]$;
    * `mean_terminated_length`, `min_terminated_length`, `max_terminated_length`: over the
      completions that ended with EOS. When none did, TRL substitutes a single
      length of 0, so all three are 0 (reproduced here), not NaN.

    The logged number is the mean of these per-generation-batch values over the
    logging window (so a logged `min_length` can be fractional). An empty
    batch raises, as TRL does (`No completions were generated`).
    """
    lengths = torch.as_tensor(completion_lengths).to(torch.float64)
    truncated = as_bool_mask(is_truncated)
    if lengths.numel() == 0:
        raise ValueError("no completions: TRL raises 'No completions were generated' here")
    terminated = lengths[~truncated]
    if terminated.numel() == 0:
        terminated = torch.zeros(1, dtype=torch.float64)
    return {
        "mean_length": lengths.mean(),
        "min_length": lengths.min(),
        "max_length": lengths.max(),
        "clipped_ratio": truncated.to(torch.float64).mean(),
        "mean_terminated_length": terminated.mean(),
        "min_terminated_length": terminated.min(),
        "max_terminated_length": terminated.max(),
    }

r"""verl length, balance, timing and throughput metrics, computed once per step on the driver.

Follows `compute_data_metrics`, `compute_timing_metrics` and
`compute_throughout_metrics` (`verl/trainer/ppo/metric_utils.py:429-688@1dda039`)
and `log_seqlen_unbalance` (`verl/utils/seqlen_balancing.py:257-302@1dda039`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch

from metrics_registry.reference.masked import as_float

__all__ = ["global_seqlen_metrics", "length_metrics", "throughput_metrics", "timing_per_token_ms"]


def _stats(prefix: str, lengths: torch.Tensor, width: int) -> dict[str, float]:
    if lengths.numel() == 0:
        return {f"{prefix}/{name}": math.nan for name in ("mean", "max", "min", "clip_ratio")}
    return {
        f"{prefix}/mean": float(lengths.mean()),
        f"{prefix}/max": float(lengths.max()),
        f"{prefix}/min": float(lengths.min()),
        f"{prefix}/clip_ratio": float((lengths == width).to(torch.float64).mean()),
    }


def length_metrics(
    response_length: torch.Tensor,
    prompt_length: torch.Tensor,
    response_width: int,
    prompt_width: int,
) -> dict[str, float]:
    r"""`response_length/*`, `response_length_non_aborted/*`, `response/aborted_ratio`, `prompt_length/*`.

    `clip_ratio` is the fraction of samples whose length equals the width of
    the padded tensor: the configured maximum in the v0 trainer, but the
    longest sample of the batch in the V1 trainer (issue #7817), where it is
    at least $1/B$ and never 0. A sample of length 0 is aborted; it counts in
    `response_length/*` and not in `response_length_non_aborted/*`.

    Args:
        response_length: `(B,)` response tokens per sample.
        prompt_length: `(B,)` prompt tokens per sample.
        response_width: width of the padded `responses` tensor (v0: `rollout.response_length`;
            V1: the longest response of the batch).
        prompt_width: width of the padded `prompts` tensor.

    Returns:
        A dict keyed by the logged names.
    """
    response = as_float(response_length)
    prompt = as_float(prompt_length)
    aborted = response == 0
    return {
        **_stats("response_length", response, response_width),
        **_stats("response_length_non_aborted", response[~aborted], response_width),
        "response/aborted_ratio": float(aborted.to(torch.float64).mean()),
        **_stats("prompt_length", prompt, prompt_width),
    }


def global_seqlen_metrics(seq_lengths: Sequence[int], assignment: Sequence[int]) -> dict[str, float]:
    r"""`global_seqlen/*`: summed sequence lengths per data-parallel rank before and after balancing.

    `min`, `max`, `minmax_diff` and `mean` cut the batch in its original
    order into as many equal contiguous chunks as there are ranks;
    `balanced_min` and `balanced_max` sum the lengths of the samples the
    balancer gave each rank.

    Args:
        seq_lengths: prompt + response tokens of each sample, in batch order.
        assignment: the rank the balancer gave each sample (verl's `partitions`, one
            index per sample; ranks are `0 .. max(assignment)`).

    Returns:
        A dict keyed by the logged names.
    """
    lengths = [int(value) for value in torch.as_tensor(seq_lengths).tolist()]
    ranks = [int(value) for value in torch.as_tensor(assignment).tolist()]
    k = max(ranks) + 1
    chunk = len(lengths) // k
    before = [sum(lengths[start : start + chunk]) for start in range(0, len(lengths), chunk)]
    after = [sum(length for length, rank in zip(lengths, ranks, strict=True) if rank == r) for r in range(k)]
    return {
        "global_seqlen/min": float(min(before)),
        "global_seqlen/max": float(max(before)),
        "global_seqlen/minmax_diff": float(max(before) - min(before)),
        "global_seqlen/balanced_min": float(min(after)),
        "global_seqlen/balanced_max": float(max(after)),
        "global_seqlen/mean": sum(before) / k,
    }


def timing_per_token_ms(
    timing_s: Mapping[str, float], response_length: torch.Tensor, prompt_length: torch.Tensor
) -> dict[str, float]:
    r"""`timing_per_token_ms/<stage>`: milliseconds per token for `gen` and the training stages.

    `gen` divides by the response tokens of the batch; `ref`, `values`,
    `adv`, `update_critic` and `update_actor` by prompt + response tokens;
    other stages get no per-token value; 0.0 when the count is 0.

    Args:
        timing_s: seconds per stage (`timing_s/<stage>` without the prefix).
        response_length: `(B,)` response tokens per sample.
        prompt_length: `(B,)` prompt tokens per sample.

    Returns:
        A dict keyed by the logged names.
    """
    responses = float(as_float(response_length).sum())
    overall = responses + float(as_float(prompt_length).sum())
    tokens = {
        "gen": responses,
        **dict.fromkeys(("ref", "values", "adv", "update_critic", "update_actor"), overall),
    }
    return {
        f"timing_per_token_ms/{name}": (seconds * 1000 / tokens[name] if tokens[name] > 0 else 0.0)
        for name, seconds in timing_s.items()
        if name in tokens
    }


def throughput_metrics(
    global_token_num: Sequence[int], time_per_step: float, n_gpus: int
) -> dict[str, float]:
    r"""`perf/total_num_tokens`, `perf/time_per_step`, `perf/throughput` (tokens per second per GPU).

    Args:
        global_token_num: prompt + response tokens of each sample.
        time_per_step: `timing_s/step` in seconds.
        n_gpus: GPUs of the trainer's resource pool.

    Returns:
        A dict keyed by the logged names.
    """
    total = float(sum(global_token_num))
    return {
        "perf/total_num_tokens": total,
        "perf/time_per_step": float(time_per_step),
        "perf/throughput": total / (time_per_step * n_gpus),
    }

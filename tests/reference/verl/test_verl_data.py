"""verl length, balance, timing and throughput references against ports of verl's metric code."""

from __future__ import annotations

import math

import _verl_port as port
import pytest
import torch

from metrics_registry.reference.verl import data


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_length_metrics_match_verl(seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    response = torch.randint(0, 9, (12,), generator=g).to(torch.float32)
    response[0] = 8
    response[1] = 0
    prompt = torch.randint(1, 6, (12,), generator=g).to(torch.float32)
    ours = data.length_metrics(response, prompt, response_width=8, prompt_width=5)
    theirs = port.compute_length_metrics(response, prompt, 8, 5)
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert math.isclose(ours[key], value, rel_tol=1e-6), key


def test_v1_clip_ratio_is_never_zero_because_the_width_is_the_batch_max() -> None:
    """Issue #7817: nothing reaches the limit 16, yet the V1 width (the longest response) gives 1/3."""
    lengths = torch.tensor([4.0, 6.0, 5.0])
    prompts = torch.tensor([2.0, 2.0, 2.0])
    v0 = data.length_metrics(lengths, prompts, response_width=16, prompt_width=2)
    v1 = data.length_metrics(lengths, prompts, response_width=int(lengths.max()), prompt_width=2)
    assert v0["response_length/clip_ratio"] == 0.0
    assert v1["response_length/clip_ratio"] == pytest.approx(1 / 3)


def test_all_aborted_gives_nan_for_the_non_aborted_statistics() -> None:
    out = data.length_metrics(torch.zeros(3), torch.ones(3), response_width=4, prompt_width=1)
    assert math.isnan(out["response_length_non_aborted/mean"])
    assert out["response/aborted_ratio"] == 1.0


def test_global_seqlen_matches_verl() -> None:
    lengths = [10, 200, 30, 40, 500, 60]
    partitions = [[1, 0], [4], [2, 3, 5]]
    ours = data.global_seqlen_metrics(lengths, assignment=[0, 0, 2, 2, 1, 2])
    assert ours == pytest.approx(port.log_seqlen_unbalance(lengths, partitions, "global_seqlen"))
    assert ours["global_seqlen/minmax_diff"] == 560 - 70  # chunks (10+200, 30+40, 500+60) before balancing
    assert (ours["global_seqlen/balanced_min"], ours["global_seqlen/balanced_max"]) == (130, 500)


def test_timing_per_token_matches_verl() -> None:
    response = torch.tensor([100.0, 300.0])
    prompt = torch.tensor([50.0, 50.0])
    timing = {"gen": 2.0, "update_actor": 5.0, "step": 9.0, "testing": 1.0}
    theirs = port.compute_timing_metrics(prompt, response, timing)
    ours = data.timing_per_token_ms(timing, response, prompt)
    assert ours == pytest.approx({k: v for k, v in theirs.items() if k.startswith("timing_per_token_ms/")})
    assert ours["timing_per_token_ms/gen"] == pytest.approx(5.0)  # 2 s over 400 response tokens, not 500


def test_throughput_matches_verl() -> None:
    tokens = [150, 350, 500]
    ours = data.throughput_metrics(tokens, time_per_step=10.0, n_gpus=4)
    assert ours == pytest.approx(port.compute_throughout_metrics(tokens, {"step": 10.0}, 4))

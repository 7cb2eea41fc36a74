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

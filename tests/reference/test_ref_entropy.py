"""Entropy: exact categorical entropy vs torch.distributions, sampled entropy vs Monte Carlo."""

from __future__ import annotations

import math

import pytest
import torch
from _refutil import DTYPE_TOL, LOW_PRECISION, close, prefix_mask
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.distributions import Categorical

from metrics_registry.reference.entropy import (
    categorical_entropy,
    masked_entropy_mean,
    sampled_sequence_entropy,
    sampled_sequence_entropy_before_1_10,
)


def test_matches_torch_distributions_and_trl_formula() -> None:
    g = torch.Generator().manual_seed(0)
    logits = 3 * torch.randn(4, 5, 13, generator=g, dtype=torch.float64)
    expected = Categorical(logits=logits).entropy()
    assert close(categorical_entropy(logits), expected, 1e-12)
    # TRL: torch.logsumexp(logits, -1) - torch.sum(softmax(logits) * logits, -1)
    trl = torch.logsumexp(logits, -1) - torch.sum(logits.softmax(-1) * logits, -1)
    assert close(categorical_entropy(logits), trl, 1e-12)
    assert close(
        categorical_entropy(logits, temperature=0.7), Categorical(logits=logits / 0.7).entropy(), 1e-12
    )


def test_known_values_and_extreme_logits() -> None:
    uniform = torch.zeros(7, dtype=torch.float64)
    assert close(categorical_entropy(uniform), math.log(7))
    big = torch.tensor([[1e4, -1e4, 0.0], [1e4, 1e4, -1e4], [-1e4, -1e4, -1e4]])
    result = categorical_entropy(big)
    assert torch.isfinite(result).all()
    assert close(result, [0.0, math.log(2), math.log(3)], 1e-6)
    masked_vocab = torch.tensor([0.0, 0.0, -float("inf")], dtype=torch.float64)
    assert close(categorical_entropy(masked_vocab), math.log(2))


def test_masked_mean_entropy() -> None:
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(3, 4, 6, generator=g, dtype=torch.float64)
    mask = prefix_mask([4, 1, 2], 4)
    h = Categorical(logits=logits).entropy()
    assert close(masked_entropy_mean(logits, mask), h[mask].mean())


def test_sampled_entropy_is_an_unbiased_estimate_of_sequence_entropy() -> None:
    g = torch.Generator().manual_seed(2)
    per_position = torch.randn(5, 6, generator=g, dtype=torch.float64)  # 5 positions, vocab 6
    n = 40_000
    tokens = torch.stack(
        [torch.multinomial(per_position[t].softmax(-1), n, replacement=True, generator=g) for t in range(5)],
        1,
    )
    logprobs = per_position.log_softmax(-1)[torch.arange(5), tokens]
    mask = torch.ones(n, 5, dtype=torch.bool)
    true = Categorical(logits=per_position).entropy().sum().item()
    estimate = sampled_sequence_entropy(logprobs, mask).item()
    se = (-logprobs).sum(1).std().item() / math.sqrt(n)
    assert abs(estimate - true) < 4 * se


def test_sampled_entropy_quirk_before_1_10() -> None:
    logprobs = torch.tensor([[-1.0, -2.0, -0.5, -0.25], [-0.3, -0.7, -1.0, -3.0]], dtype=torch.float64)
    mask = prefix_mask([2, 4], 4)
    clean = sampled_sequence_entropy(logprobs, mask)
    assert close(clean, ((1.0 + 2.0) + (0.3 + 0.7 + 1.0 + 3.0)) / 2)
    # TRL < 1.10: logprobs filled with INVALID_LOGPROB = 1.0 at padding, then (-logprobs).sum(1).mean()
    filled = logprobs.masked_fill(~mask, 1.0)
    quirk = sampled_sequence_entropy_before_1_10(logprobs, mask)
    assert close(quirk, (-filled).sum(1).mean())
    assert close(clean - quirk, (~mask).sum(1).double().mean())  # one nat per padding position


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=4),
    extra=st.integers(min_value=0, max_value=3),
    junk=st.floats(allow_nan=True, allow_infinity=True),
)
def test_padding_never_changes_the_sampled_entropy(lengths: list[int], extra: int, junk: float) -> None:
    g = torch.Generator().manual_seed(len(lengths))
    width = max(lengths)
    logprobs = -torch.rand(len(lengths), width + extra, generator=g, dtype=torch.float64)
    mask = prefix_mask(lengths, width + extra)
    base = sampled_sequence_entropy(logprobs[:, :width], mask[:, :width])
    logprobs[~mask] = junk
    assert close(sampled_sequence_entropy(logprobs, mask), base, 1e-12)


@pytest.mark.parametrize("dtype", LOW_PRECISION)
def test_low_precision_logits(dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(3)
    logits = (2 * torch.randn(6, 32, generator=g, dtype=torch.float64)).to(dtype)
    result = categorical_entropy(logits)
    assert result.dtype == dtype
    assert close(result.double(), categorical_entropy(logits.double()), 8 * DTYPE_TOL[dtype])
    big = torch.tensor([1e4, -1e4, 9999.0], dtype=dtype)
    assert torch.isfinite(categorical_entropy(big)).all()

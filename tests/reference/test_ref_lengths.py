"""Completion lengths, truncation flags and EOS counts against brute-force loops."""

from __future__ import annotations

import statistics

import pytest
import torch
from _refutil import close
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_registry.reference.lengths import (
    completion_length_stats,
    completion_mask_up_to_eos,
    eos_token_count,
    mean_completion_length,
    truncation_flags,
)

EOS, PAD = 2, 0


def test_completion_mask_and_mean_length() -> None:
    ids = torch.tensor([[5, 2, 7, 2], [5, 6, 7, 8], [2, 0, 0, 0]])
    mask = completion_mask_up_to_eos(ids, EOS)
    assert mask.tolist() == [[True, True, False, False], [True] * 4, [True, False, False, False]]
    assert close(mean_completion_length(mask), (2 + 4 + 1) / 3)


def test_eos_count_counts_tokens_not_completions() -> None:
    ids = torch.tensor([[5, 2, 7, 2], [5, 6, 7, 8], [3, 2, 2, 2]])  # pad id == eos id in the last row
    assert eos_token_count(ids, EOS).item() == 5


def test_truncation_flags() -> None:
    last = torch.tensor([2, 9, 0, 3])
    assert truncation_flags(last, [2, 3], PAD).tolist() == [False, True, False, False]
    assert truncation_flags(last, 2).tolist() == [False, True, True, True]


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(1, 50), st.booleans()), min_size=1, max_size=12))
def test_statistics_against_python(rows: list[tuple[int, bool]]) -> None:
    lengths = torch.tensor([n for n, _ in rows])
    truncated = torch.tensor([t for _, t in rows])
    stats = completion_length_stats(lengths, truncated)
    values = [float(n) for n, _ in rows]
    terminated = [float(n) for n, t in rows if not t] or [0.0]  # TRL substitutes one 0
    assert close(stats["mean_length"], statistics.fmean(values))
    assert stats["min_length"].item() == min(values) and stats["max_length"].item() == max(values)
    assert close(stats["clipped_ratio"], sum(t for _, t in rows) / len(rows))
    assert 0.0 <= stats["clipped_ratio"].item() <= 1.0
    assert close(stats["mean_terminated_length"], statistics.fmean(terminated))
    assert stats["min_terminated_length"].item() == min(terminated)
    assert stats["max_terminated_length"].item() == max(terminated)


def test_no_terminated_completion_gives_zeros_and_empty_batch_raises() -> None:
    stats = completion_length_stats(torch.tensor([8, 8]), torch.tensor([True, True]))
    assert stats["clipped_ratio"].item() == 1.0
    assert stats["mean_terminated_length"].item() == 0.0 == stats["max_terminated_length"].item()
    with pytest.raises(ValueError, match="no completions"):
        completion_length_stats(torch.tensor([], dtype=torch.int64), torch.tensor([], dtype=torch.bool))


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(1, 50), st.booleans()), min_size=2, max_size=8),
    seed=st.integers(0, 99),
)
def test_order_of_completions_does_not_matter(rows: list[tuple[int, bool]], seed: int) -> None:
    lengths = torch.tensor([n for n, _ in rows])
    truncated = torch.tensor([t for _, t in rows])
    order = torch.randperm(len(rows), generator=torch.Generator().manual_seed(seed))
    a = completion_length_stats(lengths, truncated)
    b = completion_length_stats(lengths[order], truncated[order])
    assert all(close(a[k], b[k], 1e-12) for k in a)

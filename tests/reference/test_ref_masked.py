"""Masked mean, variance and whitening against brute-force loops and TRL's formulas."""

from __future__ import annotations

import math
import statistics

import pytest
import torch
from _refutil import DTYPE_TOL, LOW_PRECISION, close, random_prefix_mask
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_registry.reference.masked import masked_mean, masked_sum, masked_var, masked_whiten

floats = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


def _trl_masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """trl/core.py (v0.7) and ppo_trainer.py (PPOv2), verbatim."""
    return (values * mask).sum() / mask.sum()


def _trl_masked_var(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    mean = _trl_masked_mean(values, mask)
    variance = _trl_masked_mean((values - mean) ** 2, mask)
    mask_sum = mask.sum()
    return variance * (mask_sum / (mask_sum - 1))


def test_against_python_loops() -> None:
    g = torch.Generator().manual_seed(0)
    values = torch.randn(5, 7, generator=g, dtype=torch.float64)
    mask = random_prefix_mask(g, 5, 7)
    selected = [values[b, t].item() for b in range(5) for t in range(7) if mask[b, t]]
    assert close(masked_sum(values, mask), math.fsum(selected))
    assert close(masked_mean(values, mask), statistics.fmean(selected))
    assert close(masked_var(values, mask), statistics.variance(selected))
    assert close(masked_var(values, mask, unbiased=False), statistics.pvariance(selected))
    per_row = masked_mean(values, mask, dim=-1)
    for b in range(5):
        row = [values[b, t].item() for t in range(7) if mask[b, t]]
        assert close(per_row[b], statistics.fmean(row))


def test_matches_trl_formulas_for_finite_values() -> None:
    g = torch.Generator().manual_seed(1)
    values = torch.randn(4, 6, generator=g, dtype=torch.float64)
    mask = random_prefix_mask(g, 4, 6, min_length=2)
    assert close(masked_mean(values, mask), _trl_masked_mean(values, mask.double()))
    assert close(masked_var(values, mask), _trl_masked_var(values, mask.double()))
    trl_whitened = (values - _trl_masked_mean(values, mask.double())) * torch.rsqrt(
        _trl_masked_var(values, mask.double()) + 1e-8
    )
    assert close(masked_whiten(values, mask), trl_whitened)


def test_whitening_gives_mean_zero_variance_one_on_the_mask() -> None:
    g = torch.Generator().manual_seed(2)
    values = 3.0 + 5.0 * torch.randn(6, 9, generator=g, dtype=torch.float64)
    mask = random_prefix_mask(g, 6, 9, min_length=2)
    whitened = masked_whiten(values, mask)
    assert close(masked_mean(whitened, mask), 0.0, 1e-9)
    assert close(masked_var(whitened, mask), 1.0, 1e-6)
    scaled = masked_whiten(values, mask, shift_mean=False)
    assert close(masked_mean(scaled, mask), masked_mean(values, mask), 1e-9)


def test_masked_positions_are_ignored_even_when_not_finite() -> None:
    values = torch.tensor([[1.0, 2.0, float("nan")], [3.0, float("inf"), -float("inf")]])
    mask = torch.tensor([[True, True, False], [True, False, False]])
    assert masked_mean(values, mask).item() == 2.0
    assert masked_sum(values, mask).item() == 6.0
    assert masked_var(values, mask).item() == 1.0


def test_empty_and_single_element_edges() -> None:
    values = torch.tensor([[1.0, 2.0]])
    nothing = torch.zeros(1, 2, dtype=torch.bool)
    assert math.isnan(masked_mean(values, nothing).item())
    assert math.isnan(masked_var(values, nothing).item())
    one = torch.tensor([[True, False]])
    assert masked_mean(values, one).item() == 1.0
    assert math.isnan(masked_var(values, one).item())  # Bessel with N = 1
    assert masked_var(values, one, unbiased=False).item() == 0.0
    empty_batch = torch.zeros(0, 4)
    assert math.isnan(masked_mean(empty_batch, torch.zeros(0, 4, dtype=torch.bool)).item())


def test_integer_masks_and_values_are_accepted() -> None:
    assert masked_mean(torch.tensor([1, 2, 3]), torch.tensor([1, 1, 0])).item() == 1.5


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(floats, min_size=2, max_size=12),
    padding=st.lists(st.one_of(floats, st.just(float("nan")), st.just(float("inf"))), max_size=6),
)
def test_padding_never_changes_masked_statistics(values: list[float], padding: list[float]) -> None:
    base = torch.tensor(values, dtype=torch.float64)
    base_mask = torch.ones(len(values), dtype=torch.bool)
    padded = torch.cat([base, torch.tensor(padding, dtype=torch.float64)])
    padded_mask = torch.cat([base_mask, torch.zeros(len(padding), dtype=torch.bool)])
    assert close(masked_mean(padded, padded_mask), masked_mean(base, base_mask), 1e-9)
    assert close(masked_var(padded, padded_mask), masked_var(base, base_mask), 1e-6)
    whitened = masked_whiten(padded, padded_mask)[: len(values)]
    assert close(whitened, masked_whiten(base, base_mask), 1e-6)


@pytest.mark.parametrize("dtype", LOW_PRECISION)
def test_low_precision_inputs(dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(3)
    values = torch.randn(4, 16, generator=g, dtype=torch.float64)
    mask = random_prefix_mask(g, 4, 16, min_length=4)
    low = values.to(dtype)
    reference = masked_mean(low.double(), mask)  # what the rounded inputs give in float64
    result = masked_mean(low, mask)
    assert result.dtype == dtype
    assert close(result.double(), reference, DTYPE_TOL[dtype])
    assert close(masked_var(low, mask).double(), masked_var(low.double(), mask), 4 * DTYPE_TOL[dtype])

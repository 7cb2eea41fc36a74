"""verl `rollout_corr/*` and train/inference probability diagnostics against ports of verl's code."""

from __future__ import annotations

import math

import _verl_port as port
import pytest
import torch

from metrics_registry.reference.verl import rollout_corr


def _logps(seed: int, rows: int = 6, width: int = 8, shift: float = 0.3) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, width + 1, (rows,), generator=g)
    mask = torch.arange(width).unsqueeze(0) < lengths.unsqueeze(-1)
    rollout = -torch.rand(rows, width, generator=g, dtype=torch.float64) * 4
    old = rollout + torch.randn(rows, width, generator=g, dtype=torch.float64) * shift
    return old, rollout, mask


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_offpolicy_metrics_match_verl(seed: int) -> None:
    old, rollout, mask = _logps(seed)
    ours = rollout_corr.offpolicy_metrics(old, rollout, mask)
    theirs = port.compute_offpolicy_metrics(old, rollout, mask.to(torch.float64))
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert math.isclose(ours[key], value, rel_tol=1e-9, abs_tol=1e-12), key


@pytest.mark.parametrize("rollout_is", ["token", "sequence"])
@pytest.mark.parametrize(("upper", "lower"), [(2.0, None), (1.5, 0.5)])
@pytest.mark.parametrize("normalize", [False, True])
def test_importance_weight_metrics_match_verl(
    rollout_is: str, upper: float, lower: float | None, normalize: bool
) -> None:
    old, rollout, mask = _logps(7, shift=0.6 if rollout_is == "token" else 0.1)
    ours = rollout_corr.importance_weight_metrics(
        old,
        rollout,
        mask,
        rollout_is=rollout_is,
        threshold_upper=upper,
        threshold_lower=lower,
        batch_normalize=normalize,
    )
    theirs = port.compute_rollout_correction_weights(
        old - rollout, mask.to(torch.float64), rollout_is, upper, lower, normalize
    )
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        # verl's fraction flags are float32 (`.float()`): agreement to float32 precision
        assert math.isclose(ours[key], value, rel_tol=1e-6, abs_tol=1e-7), key


def test_probs_diff_matches_verl_and_is_in_probability_space() -> None:
    old, rollout, mask = _logps(3)
    ours = rollout_corr.rollout_probs_diff_metrics(old, rollout, mask)
    theirs = port.calculate_debug_metrics(old, rollout, mask)
    for key, value in theirs.items():
        assert math.isclose(ours[key], value, rel_tol=1e-9, abs_tol=1e-12), key
    logprob_diff = float((old - rollout).abs()[mask].mean())
    assert not math.isclose(ours["training/rollout_probs_diff_mean"], logprob_diff, rel_tol=1e-2)


def test_log_ppl_diff_sign_is_training_minus_rollout() -> None:
    """The docs say rollout minus training; the code logs log-PPL(training) - log-PPL(rollout)."""
    old = torch.tensor([[-2.0, -2.0]], dtype=torch.float64)  # trainer less confident
    rollout = torch.tensor([[-1.0, -1.0]], dtype=torch.float64)
    out = rollout_corr.offpolicy_metrics(old, rollout, torch.ones(1, 2, dtype=torch.bool))
    assert out["rollout_corr/log_ppl_diff"] == pytest.approx(1.0)
    assert out["rollout_corr/ppl_ratio"] == pytest.approx(math.e)


def test_rejection_totals_match_verl() -> None:
    response_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]], dtype=torch.float64)
    final_mask = torch.tensor([[1, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]], dtype=torch.float64)
    # verl/trainer/ppo/rollout_corr_helper.py:407-410@1dda039
    masked = port.masked_mean(1 - final_mask, response_mask).item()
    final_keep_bool = (final_mask > 0.5) & response_mask.bool()
    seq = (~final_keep_bool & response_mask.bool()).any(dim=-1).float().mean().item()
    ours = rollout_corr.rejection_masked_fractions(response_mask, final_mask)
    assert ours["rollout_corr/rollout_rs_masked_fraction"] == pytest.approx(masked)
    assert ours["rollout_corr/rollout_rs_seq_masked_fraction"] == pytest.approx(seq)
    assert ours["rollout_corr/rollout_rs_seq_masked_fraction"] == pytest.approx(1 / 3)  # all rows count


# Log-ratios x = log π_old − log π_rollout of two sequences (the second has one valid token),
# checked against values worked out by hand from verl's definitions (no port of verl's code).
_MASK = torch.tensor([[True, True, True], [True, False, False]])


def _old_rollout() -> tuple[torch.Tensor, torch.Tensor]:
    old = torch.tensor([[0.0, 1.0, -1.0], [0.5, 9.0, 9.0]], dtype=torch.float64) - 2.0
    return old, torch.full((2, 3), -2.0, dtype=torch.float64)


def test_token_k1_rejection_statistics_by_hand() -> None:
    old, rollout = _old_rollout()
    got = rollout_corr.rejection_option_metrics(old, rollout, _MASK, option="token_k1", threshold="0.5_2.0")
    got = {key.removeprefix("rollout_corr/rollout_rs_token_k1_"): value for key, value in got.items()}
    band = math.log(2.0)  # k1 = −x kept in [ln 0.5, ln 2]: tokens 0 and −0.5 kept, −1 and 1 rejected
    clamped = [0.0, -band, band, -0.5]
    mean_c = sum(clamped) / 4
    expected = {
        "mean": -0.125,
        "max": 1.0,
        "min": -1.0,
        "fraction_high": 0.25,
        "fraction_low": 0.25,
        "std": math.sqrt(sum(c * c for c in clamped) / 4 - mean_c**2),
        "seq_mean": -0.25,
        "seq_std": math.sqrt(0.125),
        "seq_max": 0.0,
        "seq_min": -0.5,
        "seq_max_deviation": 0.5,
        "seq_fraction_high": 0.0,
        "seq_fraction_low": 0.0,
        "masked_fraction": 0.5,
        "seq_masked_fraction": 0.5,
    }
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-7, abs_tol=1e-9), key  # verl's means add 1e-8


def test_seq_mean_k3_rejects_whole_sequences_by_hand() -> None:
    old, rollout = _old_rollout()
    got = rollout_corr.rejection_option_metrics(old, rollout, _MASK, option="seq_mean_k3", threshold=0.2)
    got = {key.removeprefix("rollout_corr/rollout_rs_seq_mean_k3_"): value for key, value in got.items()}
    row0 = (0.0 + (math.e - 2.0) + math.exp(-1.0)) / 3  # mean of e^x − 1 − x over the first sequence
    row1 = math.exp(0.5) - 1.5
    assert "seq_fraction_low" not in got  # only k1 options have a lower bound
    close = {"rel_tol": 1e-7}  # verl's means divide by count + 1e-8
    assert math.isclose(got["mean"], (3 * row0 + row1) / 4, **close)  # a sequence value counts once per token
    assert math.isclose(got["max"], row0, **close) and math.isclose(got["min"], row1, **close)
    assert got["fraction_high"] == 0.5 and got["fraction_low"] == 0.0  # over sequences: plain means
    assert math.isclose(got["masked_fraction"], 0.75, **close) and got["seq_masked_fraction"] == 0.5
    clamped = [0.2, 0.2, 0.2, row1]
    mean_c = sum(clamped) / 4
    assert math.isclose(got["std"], math.sqrt(sum(c * c for c in clamped) / 4 - mean_c**2), rel_tol=1e-6)


def test_an_unknown_rejection_option_is_refused() -> None:
    old, rollout = _old_rollout()
    with pytest.raises(ValueError, match="seq_max_k1"):
        rollout_corr.rejection_option_metrics(old, rollout, _MASK, option="seq_max_k1", threshold=0.2)

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

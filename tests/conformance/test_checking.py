"""check() on a GRPO capture: every key agrees when logged right, and each wrong reduction is named."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest
import torch
from _grpo_capture import grpo_capture

from metrics_registry.conformance import Variant, check, check_value
from metrics_registry.conformance.families.trl_grpo import metrics
from metrics_registry.conformance.hypotheses import HYPOTHESES
from metrics_registry.conformance.metric import evaluate
from metrics_registry.reference.grpo.clipping import clip_ratios
from metrics_registry.reference.masked import masked_mean

#: (key, how the wrong value is computed, the diagnosis expected)
WRONG = [
    ("kl", Variant(estimator="k1"), "other_estimator"),
    ("kl", Variant(estimator="k2"), "other_estimator"),
    ("kl", Variant(within="padded"), "padding_counted"),
    ("kl", Variant(within="unmasked"), "unmasked"),
    ("entropy", Variant(within="sequence"), "mean_of_sequence_means"),
    ("entropy", Variant(across="token_weighted"), "mean_of_micro_batch_means"),
    ("entropy", Variant(last_mini_batch=True), "last_mini_batch_only"),
    ("clip_ratio/low_mean", Variant(swap_sides=True), "sides_swapped"),
    ("clip_ratio/high_mean", Variant(flip_sign_pairing=True), "advantage_sign_paired_wrong"),
    ("clip_ratio/region_mean", Variant(within="sequence"), "mean_of_sequence_means"),
]
SCALED = [
    ("kl", 0.0, "constant_zero"),
    ("entropy", -1.0, "sign_flipped"),
    ("clip_ratio/high_mean", 2.0, "layout_factor"),
    ("grad_norm", 4.0, "layout_factor"),
    ("reward", 0.0, "constant_zero"),
]


NOT_IN_SYNTHETIC = {
    key for key in metrics(grpo_capture()) if key.startswith("completions/")
}  # no completion_ids


def logged_right() -> dict[str, float]:
    capture = grpo_capture()
    return {
        key: evaluate(metric, capture)
        for key, metric in metrics(capture).items()
        if key not in NOT_IN_SYNTHETIC
    }


def test_a_correctly_logged_step_agrees_on_every_key() -> None:
    capture = grpo_capture()
    logged = logged_right()
    assert {"kl", "entropy", "rewards/accuracy/mean", "rewards/format/std", "clip_ratio/low_min"} <= set(
        logged
    )
    results = check(capture, logged, family="grpo", version="1.16.0")
    assert [r.line() for r in results if r.status != "agrees"] == []
    assert len(results) == len(logged)


def test_the_table_gives_the_registry_reference_numbers() -> None:
    """The kit's per-token path (used by the hypotheses) equals the registry's reference function."""
    capture = grpo_capture("float64")
    table = metrics(capture)
    for key in ("kl", "entropy", "clip_ratio/low_mean", "clip_ratio/high_mean", "clip_ratio/region_mean"):
        via_reference = evaluate(table[key], capture)
        via_quantity = evaluate(table[key], capture, Variant(within="token"))  # same numbers, other path
        assert via_quantity == pytest.approx(via_reference, rel=1e-12, abs=1e-15), key
    mb = capture.micro_batches[0].tensors
    flags = clip_ratios(
        mb["logprobs"], mb["old_logprobs"], mb["advantages"], mb["mask"], epsilon_low=0.2, epsilon_high=0.28
    )
    one = type(capture)(capture.micro_batches[:1], config=capture.config, dtype="float64")
    assert evaluate(table["clip_ratio/low_min"], one) == pytest.approx(float(flags["low_min"]))
    assert evaluate(table["clip_ratio/high_max"], one) == pytest.approx(float(flags["high_max"]))


@pytest.mark.parametrize(("key", "variant", "expected"), WRONG, ids=[f"{k}-{e}" for k, _, e in WRONG])
def test_a_wrong_reduction_is_named(key: str, variant: Variant, expected: str) -> None:
    capture = grpo_capture()
    metric = metrics(capture)[key]
    wrong = evaluate(metric, capture, variant)
    result = check_value(capture, wrong, metric)
    assert result.status == "disagrees", result.line()
    assert result.diagnosis == expected, result.line()


@pytest.mark.parametrize(("key", "factor", "expected"), SCALED, ids=[f"{k}-{e}" for k, _, e in SCALED])
def test_a_scaled_value_is_named(key: str, factor: float, expected: str) -> None:
    capture = grpo_capture()
    metric = metrics(capture)[key]
    result = check_value(capture, evaluate(metric, capture) * factor, metric)
    assert result.diagnosis == expected, result.line()
    if expected == "layout_factor":
        assert f"multiplied by {int(factor)}" in (result.cause() or "")


def test_a_value_no_hypothesis_explains_disagrees_without_a_diagnosis() -> None:
    capture = grpo_capture()
    metric = metrics(capture)["kl"]
    result = check_value(capture, evaluate(metric, capture) + 0.0123, metric)
    assert result.status == "disagrees" and result.diagnosis is None
    assert "no hypothesis explains it" in result.line()


@pytest.mark.parametrize(
    ("dtype", "relative", "passes"),
    [("float32", 1e-6, True), ("float32", 1e-3, False), ("bfloat16", 1e-3, True), ("bfloat16", 1e-1, False)],
)
def test_tolerance_follows_the_dtype(dtype: str, relative: float, passes: bool) -> None:
    capture = grpo_capture(dtype)
    metric = metrics(capture)["entropy"]
    value = evaluate(metric, capture)
    assert check_value(capture, value * (1 + relative), metric).ok is passes


def test_keys_without_a_reference_or_tensor_say_so() -> None:
    capture = grpo_capture()
    for mb in capture.micro_batches:
        del mb.tensors["logits"]
    results = {r.key: r for r in check(capture, {"entropy": 1.0, "learning_rate": 1e-6, "step_time": 0.1})}
    assert results["entropy"].status == "not-in-capture" and "logits" in results["entropy"].line()
    assert results["learning_rate"].status == "no-reference"
    assert all(r.ok for r in results.values())


def test_a_version_that_does_not_log_a_key_leaves_it_unchecked() -> None:
    capture = grpo_capture()
    results = {r.key: r for r in check(capture, {"clip_ratio/low_mean": 5.0}, version="0.16.0")}
    assert results["clip_ratio/low_mean"].status == "no-reference"


def test_every_hypothesis_is_exercised_here_or_in_the_bug_table() -> None:
    fixtures = Path(__file__).parent.parent / "fixtures" / "conformance"
    tested = {expected for _, _, expected in WRONG + SCALED}
    for path in fixtures.glob("*.toml"):
        tested |= {key["diagnosis"] for key in tomllib.loads(path.read_text(encoding="utf-8"))["keys"]}
    assert tested == set(HYPOTHESES)


def test_nan_agrees_only_with_nan() -> None:
    capture = grpo_capture()
    metric = metrics(capture)["kl"]
    assert not check_value(capture, math.nan, metric).ok
    for mb in capture.micro_batches:
        mb.tensors["mask"] = torch.zeros_like(mb.tensors["mask"])
    entropy = metrics(capture)["entropy"]
    assert check_value(capture, 0.0, entropy).ok  # TRL: sum / max(1, count) is 0 for an empty mask
    assert masked_mean(torch.ones(2), torch.zeros(2)).isnan()  # the plain reference gives NaN


def test_a_grid_variance_over_unwritten_cells_is_named() -> None:
    """TRL PPO ≤ 1.12's `val/ratio_var` with half its grid left at 0: no factor on the reference gives it."""
    from metrics_registry.conformance.families.trl_ppo import metrics as ppo_metrics
    from metrics_registry.conformance.synthetic import synthetic_capture

    spec = {"seed": 112, "micro_batches": 4, "batch": 8, "width": 6, "drift": 0.1, "full_mask": True}
    capture = synthetic_capture(
        {
            **spec,
            "tensors": ["logprobs", "old_logprobs", "mask"],
            "layout": {"mini_batches": 2, "grad_accum": 4},
        }
    )
    metric = ppo_metrics(capture)["val/ratio_var"]
    cells = [float(torch.exp(mb["logprobs"] - mb["old_logprobs"]).mean()) for mb in capture.micro_batches]
    assert check_value(capture, torch.tensor(cells).var().item(), metric).status == "agrees"
    diluted = torch.tensor(cells + [0.0] * 4).var().item()  # TRL's grid of 8 cells, 4 never written
    result = check_value(capture, diluted, metric)
    assert result.diagnosis == "unwritten_cells", result.line()
    assert "grid of 8 cells of which 4" in (result.cause() or "")

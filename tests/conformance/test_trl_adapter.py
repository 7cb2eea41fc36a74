"""Real TRL GRPO steps on a tiny local model conform; a copy of the trainer with broken logging is caught.

The capture adapter (metrics_registry.conformance.trl_adapter) subclasses
TRL's `GRPOTrainer`; every logged key the registry has a reference for must
agree. Then the same adapter runs on a *copy* of TRL's trainer module in
which single logging reductions are broken (each key one break, training
unchanged), and each break must be caught and named on some step, never
named wrongly.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from _tiny_trl import tiny_grpo

trl = pytest.importorskip("trl", reason="the test extra installs trl (constraints/test.txt pins it)")

from metrics_registry.conformance import check  # noqa: E402
from metrics_registry.conformance.trl_adapter import capturing  # noqa: E402

#: key -> (the logging line of TRL's grpo_trainer.py, its broken form, the diagnosis expected)
BREAKS: dict[str, tuple[str, str, str]] = {
    "entropy": (
        'self._metrics[mode]["entropy"].append(global_masked_mean(entropies))',
        'self._metrics[mode]["entropy"].append(masked_seq_mean(entropies).mean().item())',
        "mean_of_sequence_means",
    ),
    "kl": (
        'self._metrics[mode]["kl"].append(global_masked_mean(per_token_kl))',
        # k1 in place of k3, with the same importance-ratio correction as the line it replaces
        'self._metrics[mode]["kl"].append(global_masked_mean((per_token_logps - ref_per_token_logps)'
        " * (coef_1 if self.args.use_bias_correction_kl else 1)))",
        "other_estimator",
    ),
    "clip_ratio/low_mean": (
        'self._metrics[mode]["clip_ratio/low_mean"].append(global_masked_mean(is_low_clipped.float()))',
        'self._metrics[mode]["clip_ratio/low_mean"].append(global_masked_mean('
        "((coef_1 < 1 - self.epsilon_low) & (advantages > 0)).float()))",
        "advantage_sign_paired_wrong",
    ),
    "reward": (
        'self._metrics[mode]["reward"].append(torch.nanmean(rewards).item())',
        'self._metrics[mode]["reward"].append('
        "torch.nanmean(rewards).item() * self.args.gradient_accumulation_steps)",
        "layout_factor",
    ),
}
CHECKED = {
    "kl", "entropy", "grad_norm", "loss", "reward", "reward_std", "frac_reward_zero_std",
    "rewards/count_w1/mean", "rewards/count_w1/std", "rewards/shortness/mean", "rewards/shortness/std",
    "clip_ratio/low_mean", "clip_ratio/high_mean", "clip_ratio/region_mean", "clip_ratio/low_min",
    "clip_ratio/high_max", "completions/mean_length", "completions/min_length", "completions/max_length",
    "completions/clipped_ratio", "completions/mean_terminated_length", "completions/min_terminated_length",
    "completions/max_terminated_length",
}  # fmt: skip


def broken_trainer_class() -> type:
    """TRL's GRPOTrainer from a copy of its module with the BREAKS applied (the installed TRL untouched)."""
    from trl.trainer import grpo_trainer

    source = inspect.getsource(grpo_trainer)
    for key, (line, broken, _) in BREAKS.items():
        assert source.count(line) == 1, f"TRL's logging of {key} changed; update BREAKS"
        source = source.replace(line, broken)
    name = "trl.trainer._broken_grpo_trainer"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = types.ModuleType(name)
    module.__package__ = "trl.trainer"
    module.__spec__ = spec
    sys.modules[name] = module
    exec(compile(source, f"<broken copy of {grpo_trainer.__file__}>", "exec"), module.__dict__)
    return module.GRPOTrainer


def run(trainer_class: type, tmp_path: Path) -> list[tuple[Any, dict[str, float]]]:
    trainer = tiny_grpo(capturing(trainer_class), tmp_path, max_steps=3)
    trainer.train()
    return trainer.conformance_steps


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, dict[str, float]]]:
    return run(trl.GRPOTrainer, tmp_path_factory.mktemp("good"))


@pytest.fixture(scope="module")
def broken_steps(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, dict[str, float]]]:
    return run(broken_trainer_class(), tmp_path_factory.mktemp("broken"))


def test_every_logged_key_with_a_reference_conforms(steps: list[tuple[Any, dict[str, float]]]) -> None:
    assert len(steps) == 3
    checked: set[str] = set()
    for capture, logged in steps:
        assert len(capture.micro_batches) == 2  # gradient_accumulation_steps
        results = check(capture, logged, family="grpo", version=trl.__version__)
        assert [r.line() for r in results if r.status not in ("agrees", "no-reference")] == []
        checked |= {r.key for r in results if r.status == "agrees"}
    assert checked == CHECKED
    clipped = [logged["clip_ratio/region_mean"] for _, logged in steps]
    assert max(clipped) > 0  # the clip checks saw clipped tokens, not only zeros


@pytest.mark.parametrize("key", sorted(BREAKS))
def test_a_broken_reduction_in_a_copy_of_the_trainer_is_caught_and_named(
    broken_steps: list[tuple[Any, dict[str, float]]], key: str
) -> None:
    expected = BREAKS[key][2]
    verdicts = []
    for capture, logged in broken_steps:
        for result in check(capture, logged, family="grpo", version=trl.__version__):
            if result.key == key:
                verdicts.append(result)
            elif result.key in BREAKS:
                continue
            else:  # the keys not broken still conform
                assert result.status in ("agrees", "no-reference"), result.line()
    caught = [r for r in verdicts if r.status == "disagrees"]
    assert caught, f"{key}: the break was never caught: {[r.line() for r in verdicts]}"
    assert all(r.diagnosis == expected for r in caught), [r.line() for r in caught]

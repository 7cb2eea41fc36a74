"""check-run on logs written the way NeMo-RL's trackers write them, read with the built-in NeMo-RL family.

The writers (``_framework_logs``) repeat NeMo-RL's own ``log_metrics`` lines at
7ea279ab, so the keys carry the ``train/`` prefix the family registers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _framework_logs import assert_detected, check_framework_log

import metrics_registry
from metrics_registry.registry import Registry

STEPS = 10
SERIES = {
    "loss": [-0.01] * STEPS,
    "kl_penalty": [0.001 * (i + 1) for i in range(STEPS)],
    "probs_ratio": [1.0] * STEPS,
    "token_mult_prob_error": [1.01] * 5 + [1.2] * 5,  # the engine drifts from the trainer
    "gen_kl_error": [0.0005] * STEPS,
    "grad_norm": [0.5] * STEPS,
    "reward": [0.1 * i for i in range(STEPS)],
    "truncation_rate": [0.05] * STEPS,
}


@pytest.fixture(scope="module")
def builtin() -> Registry:
    return metrics_registry.load()


def _rule_findings(report, key: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {f.rule_id for f in report.findings if f.kind == "rule" and f.key == key}


@pytest.mark.parametrize("kind", ["nemo-rl-wandb", "nemo-rl-tensorboard"])
def test_a_nemo_rl_log_is_told_nemo_rl_and_checked(kind: str, tmp_path: Path, builtin: Registry) -> None:
    report = check_framework_log(kind, tmp_path, SERIES, builtin)
    assert_detected(report, "nemo-rl", "nemo-rl")
    assert all(report.keys[f"train/{name}"].entry is not None for name in SERIES)
    assert report.keys["train/kl_penalty"].entry.family.id == "nemo-rl"  # type: ignore[union-attr]
    assert "near-one" in _rule_findings(report, "train/token_mult_prob_error")
    assert not _rule_findings(report, "train/probs_ratio")


def test_the_megatron_grad_norm_bug_is_reported_for_the_releases_it_affects(
    tmp_path: Path, builtin: Registry
) -> None:
    megatron = {"policy.megatron_cfg.enabled": True}

    def issues(version: str, config: dict) -> list:
        report = check_framework_log(
            "nemo-rl-wandb",
            tmp_path / version / str(bool(config)),
            SERIES,
            builtin,
            version=version,
            config=config,
        )
        return [f for f in report.findings if f.kind == "known-issue" and f.key == "train/grad_norm"]

    (found,) = issues("0.3.1", megatron)
    assert found.confirmed and "1426" in found.issue.url  # type: ignore[union-attr]
    assert issues("0.4.0", megatron) == []
    assert issues("0.3.1", {"policy.megatron_cfg.enabled": False}) == []


def test_a_negative_kl_penalty_is_an_error_only_for_non_negative_estimators(
    tmp_path: Path, builtin: Registry
) -> None:
    series = {**SERIES, "kl_penalty": [-0.002] * STEPS}
    k3 = check_framework_log(
        "nemo-rl-wandb", tmp_path / "k3", series, builtin, config={"loss_fn.reference_policy_kl_type": "k3"}
    )
    assert "non-negative-k3" in _rule_findings(k3, "train/kl_penalty")
    k1 = check_framework_log(
        "nemo-rl-wandb", tmp_path / "k1", series, builtin, config={"loss_fn.reference_policy_kl_type": "k1"}
    )
    assert "non-negative-k3" not in _rule_findings(k1, "train/kl_penalty")

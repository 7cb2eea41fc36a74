"""check-run on OpenRLHF logs, with the OpenRLHF family the registry ships (not a stand-in)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _framework_logs import assert_detected, check_framework_log, nan_at

from metrics_registry.registry import Registry

SERIES = {
    "policy_loss": [0.1] * 10,  # TRL logs a policy_loss too
    "kl": [0.01] * 10,  # and a kl, and a reward
    "reward": [0.2 + 0.05 * i for i in range(10)],
    "ppo_clip_ratio": [0.05] * 10,
    "entropy_loss": [1.3] * 10,
    "rollout/reward_mean": [0.2 + 0.05 * i for i in range(10)],
    "timing/step_total": [42.0] * 10,
    "actor_lr": [1e-6] * 10,
}


@pytest.mark.parametrize("kind", ["openrlhf-wandb", "openrlhf-tensorboard"])
def test_an_openrlhf_log_is_told_and_its_keys_are_openrlhfs(
    kind: str, registry: Registry, tmp_path: Path
) -> None:
    report = check_framework_log(kind, tmp_path, SERIES, registry)
    assert_detected(report, "openrlhf", "openrlhf")
    for name in SERIES:  # logged as train/<name>, found as <name>, the shared names included
        info = report.keys[f"train/{name}"]
        assert info.entry is not None and info.entry.id == f"openrlhf:{name}", info


def test_a_nan_kl_in_an_openrlhf_log_breaks_openrlhfs_rule(registry: Registry, tmp_path: Path) -> None:
    series = {**SERIES, "kl": nan_at(SERIES["kl"], 3)}
    report = check_framework_log("openrlhf-wandb", tmp_path, series, registry)
    (finding,) = [f for f in report.findings if f.key == "train/kl" and f.severity == "error"]
    assert finding.entry.id == "openrlhf:kl"  # type: ignore[union-attr]


def test_known_issues_read_in_the_terminal_with_formulas_in_unicode(
    registry: Registry, tmp_path: Path
) -> None:
    from rich.console import Console

    from metrics_registry.runs.locale import Localizer
    from metrics_registry.runs.render import render_text

    report = check_framework_log("openrlhf-wandb", tmp_path, SERIES, registry, version="0.10.4")
    console = Console(width=400, record=True, color_system=None)
    render_text([report], Localizer("en"), console)
    text = console.export_text()
    assert "known to be" in text and "OpenRLHF 0.10.4" in text  # the project's name, not its id
    issue = next(i for i in registry.lookup("entropy_loss", family="openrlhf").entry.metric.known_issues)
    assert "$" in issue.description
    assert "$" not in text  # every formula of the shown descriptions is read, none left as LaTeX

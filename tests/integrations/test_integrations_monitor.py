"""HealthMonitor against check-run: fed the same series, it finds the same (integrations.monitor)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from _livelogs import finished_logs_fixture, logs  # noqa: F401  (the finished_logs fixture)

from metrics_registry.integrations.follow import follower_for
from metrics_registry.integrations.monitor import HealthMonitor
from metrics_registry.registry import Registry
from metrics_registry.runs import RunLog, check_run, read_log
from metrics_registry.runs.check import CheckOptions, RunFinding
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.readers.trainer_state import read_trainer_state
from metrics_registry.runs.render import render_json, render_markdown

EN = Localizer("en")
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def as_json(report: object) -> dict[str, object]:
    """The report of one run as check-run writes it in JSON."""
    (run,) = json.loads(render_json([report], EN))["runs"]  # type: ignore[list-item]
    return run


def history(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8"))["log_history"]


def observe_history(
    monitor: HealthMonitor, records: list[dict[str, object]]
) -> list[tuple[float, RunFinding]]:
    """Feed ``log_history`` records as Trainer.log handed them out; the live findings with their step."""
    live = []
    for record in records:
        values = {key: value for key, value in record.items() if key != "step"}
        step = record["step"]
        live += [(step, finding) for finding in monitor.observe(step, values)]  # type: ignore[arg-type]
    return live


def ident(finding: RunFinding) -> tuple[object, ...]:
    return (finding.kind, finding.key, finding.rule_id, finding.severity, repr(finding.violation))


def test_the_report_after_each_step_is_check_runs_report_on_the_log_so_far(
    registry: Registry, tmp_path: Path
) -> None:
    """Every prefix of a real unhealthy GRPO log: check-run's report equals the monitor's, to the byte."""
    full = logs.write_trainer_state(tmp_path / "full" / "trainer_state.json", logs.grpo_unhealthy())
    records = history(full)
    state = json.loads(full.read_text(encoding="utf-8"))
    prefix = tmp_path / "prefix" / "trainer_state.json"
    prefix.parent.mkdir()
    monitor = HealthMonitor(registry, source=prefix, log_format="trainer-state")
    live: list[tuple[int, RunFinding]] = []
    for count in range(1, len(records) + 1):
        found = observe_history(monitor, records[count - 1 : count])
        live += [(count, finding) for _step, finding in found]
        prefix.write_text(json.dumps({**state, "log_history": records[:count]}), encoding="utf-8")
        expected = check_run(read_trainer_state(prefix), registry)
        assert as_json(monitor.report()) == as_json(expected), f"after {count} records"
        # every live finding of this record is in check-run's report of the log up to it
        reported_now = {ident(f) for f in expected.findings}
        missing = [ident(f) for seen, f in live if seen == count and ident(f) not in reported_now]
        assert not missing, (missing, sorted(reported_now))
    # and each was reported once, though most rules keep firing to the end
    assert len({(f.key, f.rule_id, f.kind) for _count, f in live}) == len(live)
    assert {(f.rule_id, f.key, f.step) for _count, f in live if f.kind == "rule"} >= {
        ("enough-signal", "frac_reward_zero_std", 1),
        ("non-negative", "kl", 12),
        ("finite", "loss", 33),
    }


def test_a_finding_is_reported_at_the_step_it_first_holds(registry: Registry, tmp_path: Path) -> None:
    """A range, spike and finite rule: live at the record check-run would first report it, not later."""
    path = logs.write_trainer_state(tmp_path / "trainer_state.json", logs.grpo_unhealthy())
    monitor = HealthMonitor(registry)
    live = {(f.key, f.rule_id): step for step, f in observe_history(monitor, history(path))}
    assert live[("kl", "non-negative")] == 12  # the error rule fires on its single point
    assert live[("kl", "not-exploding")] == 30
    assert live[("loss", "finite")] == 33
    assert live[("grad_norm", "no-spikes")] == 40
    assert live[("reward_std", "has-signal")] == 3  # not_constant needs three points
    # a direction rule is judged when its series doubles: from 10 points on
    assert live[("reward", "improving")] == 10


@pytest.mark.parametrize(
    "name", ["trainer-state folder", "tensorboard folder", "wandb-jsonl", "wandb run folder"]
)
def test_following_a_finished_log_reports_what_check_run_reports(
    name: str, registry: Registry, finished_logs: dict[str, Path]
) -> None:
    """Each format, read by watch's followers record by record, gives check-run's findings and counts."""
    path = finished_logs[name]
    expected = {run.run: check_run(run, registry) for run in read_log(path)}
    follower = follower_for(path)
    monitors: dict[str | None, HealthMonitor] = {}
    for record in follower.poll() + follower.finish():
        monitor = monitors.setdefault(record.run, HealthMonitor(registry, source=path))
        monitor.hf_prefixed |= record.hf_prefixed
        monitor.observe(record.step, record.values, record.time)
    assert set(monitors) == set(expected)
    for run, report in expected.items():
        got, want = as_json(monitors[run].report()), as_json(report)
        assert got["findings"] == want["findings"]
        assert (got["keys"], got["counts"], got["steps"], got["family"]) == (
            want["keys"],
            want["counts"],
            want["steps"],
            want["family"],
        )


def test_an_ambiguous_key_is_judged_as_the_family_settled_later(registry: Registry) -> None:
    """`objective/kl` alone is PPO or legacy PPO; once PPO-only keys come, PPO's rules judged it all along."""
    series = logs.ppo_unhealthy()
    log = RunLog(Path("run"), "wandb-jsonl")
    monitor = HealthMonitor(registry, source="run", log_format="wandb-jsonl")
    for step in logs.STEPS:
        values = {"objective/kl": series["objective/kl"][step - 1]}
        if step > 20:
            values.update({key: v[step - 1] for key, v in series.items()})
        for key, value in values.items():
            log.add(key, step, value)
        monitor.observe(step, values)
        if step == 20:
            assert monitor.report().keys["objective/kl"].status == "ambiguous"
    report, expected = monitor.report(), check_run(log, registry)
    assert report.keys["objective/kl"].entry.family.id == "ppo"
    assert as_json(report) == as_json(expected)
    assert any(f.key == "objective/kl" and f.kind == "rule" for f in report.findings)


def test_family_and_trl_version_settle_keys_as_check_run_options_do(registry: Registry) -> None:
    series = logs.ppo_unhealthy()
    log = RunLog(Path("run"), "wandb-jsonl")
    monitor = HealthMonitor(registry, family="legacy-ppo", source="run", log_format="wandb-jsonl")
    for step in logs.STEPS:
        log.add("objective/kl", step, series["objective/kl"][step - 1])
        monitor.observe(step, {"objective/kl": series["objective/kl"][step - 1]})
    expected = check_run(log, registry, CheckOptions(family="legacy-ppo"))
    assert as_json(monitor.report()) == as_json(expected)
    assert monitor.report().keys["objective/kl"].entry.family.id == "legacy-ppo"
    with pytest.raises(Exception, match="no-such-family"):
        HealthMonitor(registry, family="no-such-family")


def test_each_finding_goes_to_the_callback_once(registry: Registry) -> None:
    seen: list[RunFinding] = []
    monitor = HealthMonitor(registry, on_finding=seen.append)
    for step in range(1, 101):
        monitor.observe(step, {"frac_reward_zero_std": 1.0, "loss": math.nan if step > 50 else 0.1})
    assert [(f.key, f.rule_id, f.severity) for f in seen] == [
        ("frac_reward_zero_std", "enough-signal", "warning"),
        ("frac_reward_zero_std", "not-all-saturated", "warning"),
        ("loss", "finite", "error"),
    ]
    assert seen == monitor.findings
    assert seen[2].violation is not None and seen[2].violation.step == 51


def test_values_a_training_loop_hands_over(registry: Registry) -> None:
    """NumPy scalars and one-element tensors are numbers; other objects are non-scalar keys."""
    monitor = HealthMonitor(registry)
    monitor.observe(
        1,
        {
            "loss": np.float32(0.5),
            "kl": torch.tensor(0.01),
            "reward": np.int64(1),
            "completions/ids": torch.zeros(3),
            "note": "abc",
            "flag": True,
        },
    )
    report = monitor.report()
    assert report.summary.points == {"loss": 1, "kl": 1, "reward": 1, "flag": 1}
    assert report.log.non_scalar == {"completions/ids", "note"}
    assert set(report.keys) == {"loss", "kl", "reward", "completions/ids", "note", "flag"}
    for step in (math.nan, math.inf, "3"):
        with pytest.raises(ValueError, match="step must be a finite number"):
            monitor.observe(step, {"loss": 0.1})  # type: ignore[arg-type]


def test_an_empty_monitor_reports_that_nothing_was_checked(registry: Registry) -> None:
    report = HealthMonitor(registry).report()
    assert [(f.kind, f.nothing) for f in report.findings] == [("nothing-checked", "no-keys")]


def test_write_report_writes_check_runs_json_and_markdown(registry: Registry, tmp_path: Path) -> None:
    path = logs.write_trainer_state(tmp_path / "trainer_state.json", logs.grpo_unhealthy())
    monitor = HealthMonitor(registry, source=path, log_format="trainer-state")
    observe_history(monitor, history(path))
    out = tmp_path / "out"
    json_path, markdown_path, warnings = monitor.write_report(out, lang="zh")
    assert (json_path, markdown_path, warnings) == (out / "health-report.json", out / "health-report.md", [])
    expected = check_run(read_trainer_state(path), registry)
    zh = Localizer("zh")
    assert json_path.read_text(encoding="utf-8") == render_json([expected], zh)
    assert markdown_path.read_text(encoding="utf-8") == render_markdown([expected], zh)
    assert "frac_reward_zero_std" in markdown_path.read_text(encoding="utf-8")
    # writing again keeps the report it replaces
    monitor.write_report(out)
    assert (out / "health-report.json.bak").read_text(encoding="utf-8") == render_json([expected], zh)


def test_finish_reports_a_trend_only_the_whole_run_shows(registry: Registry) -> None:
    """Rising for 10 points (judged healthy at 10), then flat: the fit over all 15 says it did not improve."""
    seen: list[RunFinding] = []
    # a lone 'reward' is also OpenRLHF's key: the family says which one is meant
    monitor = HealthMonitor(registry, family="grpo", on_finding=seen.append)
    for step, value in enumerate([0.1 * i for i in range(10)] + [0.0] * 5, start=1):
        assert monitor.observe(step, {"reward": value}) == []
    (trend,) = monitor.finish()
    assert (trend.key, trend.rule_id, trend.kind) == ("reward", "improving", "rule")
    assert seen == [trend] == monitor.findings
    assert monitor.finish() == []  # reported once
    assert any(f.rule_id == "improving" for f in monitor.report().findings)


def test_the_monitor_needs_neither_transformers_nor_watchdog() -> None:
    """Importing the monitor (and watch's followers) loads no training framework."""
    code = (
        "import sys; import metrics_registry.integrations, metrics_registry.integrations.follow;"
        " print(sorted(m for m in ('transformers', 'trl', 'torch', 'watchdog') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV)
    assert done.stdout.strip() == "[]"

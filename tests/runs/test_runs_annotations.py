"""A run report's findings as CI annotations: rule, message in the report's language, place."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from _runlogs import grpo_unhealthy, write_trainer_state

from metrics_registry import Registry
from metrics_registry.runs import check_run, read_log
from metrics_registry.runs.annotations import run_annotations
from metrics_registry.runs.check import RunFinding, RunReport
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.log import ReadProblem, RunLog


def test_a_fired_rule_links_to_its_metric(registry: Registry, tmp_path: Path) -> None:
    (log,) = read_log(write_trainer_state(tmp_path / "trainer_state.json", grpo_unhealthy()))
    annotations = run_annotations([check_run(log, registry)], Localizer("vi"))
    kl = next(a for a in annotations if a.rule.id == "grpo:kl#non-negative")
    assert kl.rule.name == "non-negative"
    assert kl.rule.help_page == "vi/reference/grpo/kl/"
    assert kl.path == tmp_path / "trainer_state.json" and kl.line is None
    first, expected, advice = kl.message.split("\n")
    assert first.startswith("kl: ")
    assert expected.startswith("kỳ vọng: ")
    assert advice


def test_log_problems_point_at_their_line_or_byte() -> None:
    log = RunLog(Path("run.csv"), "wandb-csv", run="r1")
    nul = ReadProblem("nul-bytes", Path("run.csv"), lines=(7, 9))
    cut = ReadProblem("stopped", Path("events.out"), reason="bad crc", byte=5696, record=101, read=100)
    report = RunReport(log, {}, [RunFinding("nul-bytes", "warning", None, problem=nul)], Counter())
    report.findings.append(RunFinding("log-stopped", "error", None, problem=cut))
    loc = Localizer("en")
    first, second = run_annotations([report], loc)
    assert (first.rule.id, first.level, first.path, first.line) == (
        "nul-bytes",
        "warning",
        Path("run.csv"),
        7,
    )
    assert first.message.startswith("[r1] NUL bytes removed from 2 lines of run.csv")
    assert (second.path, second.line, second.byte_offset) == (Path("events.out"), None, 5696)
    assert second.rule.help_page == "en/tools/check-run/#broken-empty-and-unknown-logs"


def test_every_kind_of_finding_has_a_rule() -> None:
    """A new kind of finding without a rule here would stop --format github|sarif with a KeyError."""
    from typing import get_args

    from metrics_registry.runs.annotations import _kind_rule
    from metrics_registry.runs.check import FindingKind

    loc = Localizer("zh")
    for kind in get_args(FindingKind):
        if kind != "rule":
            rule = _kind_rule(kind, loc)
            assert rule.id == kind and rule.description and rule.help_page.startswith("zh/tools/check-run/#")

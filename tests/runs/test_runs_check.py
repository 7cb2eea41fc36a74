"""Checking real logs: each unhealthy series flagged (rule, key, step), healthy runs pass, 3 languages."""

from __future__ import annotations

import json
import math
from pathlib import Path

import _runlogs as logs
import pytest

import metrics_registry
from metrics_registry import Registry
from metrics_registry.i18n.translate import Translator, UiTranslations, load_catalog
from metrics_registry.registry import Entry
from metrics_registry.runs import CheckOptions, ReadProblem, RunLog, RunReport, check_run, read_log
from metrics_registry.runs.check import non_finite_severity
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.render import render_json, render_markdown
from metrics_registry.runs.wording import describe

ROOT = Path(__file__).resolve().parents[2]


def rule_findings(report: RunReport) -> set[tuple[str, str, int]]:
    return {(f.rule_id, f.key, int(f.step)) for f in report.findings if f.kind == "rule"}  # type: ignore[arg-type]


def serious(report: RunReport) -> list[str]:
    return [f"{f.key}:{f.rule_id}" for f in report.findings if f.severity in ("error", "warning")]


def check(path: Path, registry: Registry, **options: str) -> list[RunReport]:
    return [check_run(run, registry, CheckOptions(**options)) for run in read_log(path)]


def test_trainer_state(grpo_state: Path, grpo_healthy_state: Path, registry: Registry) -> None:
    (report,) = check(grpo_state, registry)
    assert report.family == "grpo"
    assert rule_findings(report) == logs.GRPO_UNHEALTHY_FINDINGS
    severities = {(f.key, f.rule_id): f.severity for f in report.findings if f.kind == "rule"}
    assert severities[("kl", "non-negative")] == "error"  # error rules: one point is enough
    notes = {(f.kind, f.key) for f in report.findings if f.kind != "rule"}
    assert notes == {("legacy-key", "completion_length"), ("unknown-key", "my_custom/metric")}
    legacy = next(f for f in report.findings if f.kind == "legacy-key")
    assert [e.id for e in legacy.info.successors] == ["grpo:completions/mean_length"]
    assert report.keys["eval_reward"].match.mode == "eval"  # type: ignore[union-attr]
    assert report.keys["rewards/accuracy_reward/mean"].entry.key == "rewards/{reward_func_name}/mean"  # type: ignore[union-attr]
    (healthy,) = check(grpo_healthy_state, registry)
    assert serious(healthy) == [] and healthy.series_checked >= 20


def test_tensorboard(ppo_tensorboard: Path, registry: Registry) -> None:
    healthy, unhealthy = check(ppo_tensorboard, registry)
    assert unhealthy.family == "ppo"
    assert rule_findings(unhealthy) == logs.PPO_UNHEALTHY_FINDINGS
    # transformers' train/ prefix undone; objective/kl (also a legacy PPO key) settled by the votes
    kl = unhealthy.keys["train/objective/kl"]
    assert (kl.lookup, kl.entry.id) == ("objective/kl", "ppo:objective/kl")  # type: ignore[union-attr]
    assert serious(healthy) == []


def test_wandb_csv(grpo_csv: Path, registry: Registry) -> None:
    healthy, unhealthy = check(grpo_csv, registry)
    assert (healthy.log.run, unhealthy.log.run) == ("grpo-healthy", "grpo-unhealthy")
    assert rule_findings(unhealthy) == logs.CSV_UNHEALTHY_FINDINGS
    assert serious(healthy) == []


def test_wandb_jsonl_legacy_run(legacy_jsonl: Path, registry: Registry) -> None:
    (report,) = check(legacy_jsonl, registry)
    assert report.family == "legacy-ppo"
    assert rule_findings(report) == logs.LEGACY_UNHEALTHY_FINDINGS
    successors = {f.key: [e.id for e in f.info.successors] for f in report.findings if f.kind == "legacy-key"}
    assert successors["ppo/loss/value"] == ["ppo:loss/value_avg"]
    assert successors["env/reward_mean"] == ["ppo:objective/scores"]
    assert (
        report.keys["env/reward_dist"].status == "legacy" or report.keys["env/reward_dist"].status == "known"
    )


def test_wandb_jsonl_through_transformers_keeps_genuine_train_keys(
    wandb_run_dir: Path, registry: Registry
) -> None:
    (report,) = check(wandb_run_dir, registry)
    assert rule_findings(report) == logs.JSONL_TRANSFORMERS_FINDINGS
    assert report.keys["train/groups_kept"].entry.id == "multiturn-grpo:train/groups_kept"  # type: ignore[union-attr]
    assert report.keys["train/kl"].entry.id == "grpo:kl"  # type: ignore[union-attr]
    reward = report.keys["eval/reward"]
    assert (reward.lookup, reward.match.mode) == ("eval_reward", "eval")  # type: ignore[union-attr]


def test_prefix_ambiguity_is_settled_by_the_run(tmp_path: Path) -> None:
    """When ``train/x`` and ``x`` are both registry keys, transformers' marks decide."""
    extension = tmp_path / "both.yaml"
    text = (ROOT / "extensions" / "multiturn_grpo.yaml").read_text(encoding="utf-8")
    extension.write_text(text.replace("train/groups_kept", "train/reward"), encoding="utf-8")
    # grpo refers to the ppo family, not loaded here: only the lookup matters
    registry, _findings = metrics_registry.validate(
        [ROOT / "metrics_registry" / "data" / "grpo.yaml", extension], builtin=False
    )
    plain = RunLog(source=tmp_path, format="wandb-jsonl")
    plain.add("train/reward", 1, 0.5)
    prefixed = RunLog(source=tmp_path, format="wandb-jsonl", hf_prefixed=True)
    prefixed.add("train/reward", 1, 0.5)
    assert check_run(plain, registry).keys["train/reward"].entry.id == "multiturn-grpo:train/reward"  # type: ignore[union-attr]
    assert check_run(prefixed, registry).keys["train/reward"].entry.id == "grpo:reward"  # type: ignore[union-attr]


def test_ambiguous_keys_need_a_family(registry: Registry, tmp_path: Path) -> None:
    run = RunLog(source=tmp_path, format="trainer-state")
    for step in range(1, 4):
        run.add("objective/kl", step, -1.0)
    report = check_run(run, registry)
    assert report.family is None
    assert [(f.kind, f.severity, f.key) for f in report.findings] == [
        ("nothing-checked", "error", None),  # no series checked: not a healthy run
        ("ambiguous-key", "info", "objective/kl"),
    ]
    assert report.findings[0].nothing == "ambiguous"
    chosen = check_run(run, registry, CheckOptions(family="ppo"))
    assert rule_findings(chosen) == {("non-negative", "objective/kl", 1)}
    by_version = check_run(run, registry, CheckOptions(trl_version="0.7.10"))
    assert by_version.keys["objective/kl"].entry.id == "legacy-ppo:objective/kl"  # type: ignore[union-attr]
    run.add("loss", 1, 0.5)  # transformers' key, GRPO family only: --family does not hide it
    mixed = check_run(run, registry, CheckOptions(family="ppo"))
    assert mixed.keys["loss"].entry.id == "grpo:loss"  # type: ignore[union-attr]
    assert mixed.keys["objective/kl"].entry.id == "ppo:objective/kl"  # type: ignore[union-attr]


# ------------------------------------------------------------- languages


def _ui(lang: str, message: str) -> str:
    """The message as the catalog translates it today (English while it is not translated)."""
    return UiTranslations(lang, load_catalog(ROOT, lang, "ui")).gettext(message)


@pytest.mark.parametrize("lang", ["en", "vi", "zh"])
def test_reports_in_every_language(lang: str, unhealthy_logs: list[Path], registry: Registry) -> None:
    reports = [r for path in unhealthy_logs for r in check(path, registry)]
    loc = Localizer(lang, site_url="https://example.org/rl", i18n_root=ROOT)
    document = json.loads(render_json(reports, loc))
    assert document["lang"] == lang
    found = {
        (f["rule"], f["key"], f["step"])
        for run in document["runs"]
        for f in run["findings"]
        if f["kind"] == "rule"
    }
    expected = (
        logs.GRPO_UNHEALTHY_FINDINGS
        | logs.PPO_UNHEALTHY_FINDINGS
        | logs.CSV_UNHEALTHY_FINDINGS
        | logs.LEGACY_UNHEALTHY_FINDINGS
    )
    assert found == expected
    kl = next(f for f in document["runs"][0]["findings"] if (f["rule"], f["key"]) == ("non-negative", "kl"))
    assert kl["url"] == f"https://example.org/rl/{lang}/reference/grpo/kl/"
    # numbers in the locale: -0.05 is "-0,05" in Vietnamese
    assert ("-0,05" if lang == "vi" else "-0.05") in kl["message"]
    assert kl["expected"] == _ui(lang, "at least %(min)s") % {"min": "0"}
    # the rule's advice from the registry catalogs, as the site shows it
    entry = registry.lookup("kl", family="grpo").entry
    index = next(i for i, r in enumerate(entry.metric.healthy) if r.id == "non-negative")
    translator = Translator(lang if lang != "en" else None, load_catalog(ROOT, lang, "registry"))
    assert kl["suggests"] == " ".join(translator.text(entry, "healthy", index, "suggests").split())
    markdown = render_markdown(reports, loc)
    assert f"| {_ui(lang, 'Key')} |" in markdown
    assert "[`train/val/ratio`](https://example.org/rl/" in markdown
    if lang == "vi":
        assert "0,35" in markdown  # the furthest clip_ratio/high_mean value


def test_locale_numbers() -> None:
    vi, zh = Localizer("vi", i18n_root=ROOT), Localizer("zh", i18n_root=ROOT)
    assert (vi.number(12345.678), zh.number(12345.678)) == ("12.345,678", "12,345.678")
    assert (vi.number(1.5e-6), vi.number(float("nan")), vi.number(float("-inf"))) == ("1,5E-6", "NaN", "-∞")
    assert vi.step(1000.0) == "1.000"


# ------------------------------------------------------------- broken logs are not healthy


def _run(tmp_path: Path, series: dict[str, list[float]], **fields: object) -> RunLog:
    run = RunLog(source=tmp_path / "log.jsonl", format="wandb-jsonl", **fields)  # type: ignore[arg-type]
    for key, values in series.items():
        for step, value in enumerate(values, start=1):
            run.add(key, step, value)
    return run


def _kinds(report: RunReport) -> dict[str | None, tuple[str, str]]:
    return {f.key: (f.kind, f.severity) for f in report.findings if f.kind in ("rule", "non-finite")}


def test_a_non_finite_value_of_any_key_is_a_finding(registry: Registry, tmp_path: Path) -> None:
    nan, inf = math.nan, math.inf
    grpo = logs.grpo_healthy()
    series = {key: grpo[key][:12] for key in ("kl", "loss", "entropy", "reward")}
    series["kl"][3], series["kl"][5] = nan, -inf  # a finite rule (warning in the registry)
    series["learning_rate"] = [1e-6] * 11 + [inf]  # known, no finite rule, not a loss/KL/ratio
    series["sampling/importance_sampling_ratio/mean"] = [1.0] * 11 + [nan]  # known, unit: ratio
    series["my/total_loss"] = [nan] + [0.5] * 11  # unknown, but its name says loss
    series["my/score"] = [0.5] * 11 + [-inf]  # unknown, nothing says how bad
    report = check_run(_run(tmp_path, series), registry, CheckOptions(family="grpo"))
    assert _kinds(report) == {
        "kl": ("rule", "error"),  # raised: a NaN KL is an error whatever the rule says
        "learning_rate": ("non-finite", "warning"),
        "sampling/importance_sampling_ratio/mean": ("non-finite", "error"),
        "my/total_loss": ("non-finite", "error"),
        "my/score": ("non-finite", "warning"),
    }
    kl = next(f for f in report.findings if f.key == "kl")
    assert (kl.step, kl.violation.figures["count"]) == (4, 2)  # type: ignore[union-attr]

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} is not JSON")

    document = json.loads(render_json([report], Localizer()), parse_constant=refuse)
    findings = document["runs"][0]["findings"]
    messages = {f["key"]: f["message"] for f in findings if f["kind"] == "non-finite"}
    assert messages["my/score"] == "1 of 12 values is NaN or infinite, at step 12"


def test_non_finite_severity_by_category_unit_and_name(registry: Registry) -> None:
    def entry(key: str) -> Entry:
        return registry.lookup(key, family="grpo").entry  # type: ignore[return-value]

    assert non_finite_severity("x", entry("grad_norm")) == "error"  # category loss
    assert non_finite_severity("x", entry("sampling/importance_sampling_ratio/max")) == "error"  # unit
    assert non_finite_severity("entropy", entry("entropy")) == "warning"
    assert [non_finite_severity(k, None) for k in ("eval/KL_div", "train/loss", "val/ratio", "acc")] == [
        "error",
        "error",
        "error",
        "warning",
    ]


@pytest.mark.parametrize(
    ("series", "non_scalar", "reason"),
    [
        ({}, set(), "no-keys"),
        ({"my/accuracy": [0.5, 0.6]}, set(), "no-known-key"),
        # a known key logged only as a histogram (GRPO-only: OpenRLHF logs a `kl` too)
        ({}, {"completions/mean_length"}, "no-values"),
    ],
)
def test_a_log_with_nothing_to_check_is_not_healthy(
    registry: Registry, tmp_path: Path, series: dict[str, list[float]], non_scalar: set[str], reason: str
) -> None:
    report = check_run(_run(tmp_path, series, non_scalar=non_scalar), registry)
    (nothing,) = [f for f in report.findings if f.kind == "nothing-checked"]
    assert (nothing.severity, nothing.key, nothing.nothing) == ("error", None, reason)
    text = render_markdown([report], Localizer())
    assert "Every checked series is healthy." not in text
    assert describe(nothing, Localizer()) in text


def test_read_problems_become_findings_about_the_whole_log(registry: Registry, tmp_path: Path) -> None:
    file = tmp_path / "log.jsonl"
    problems = [
        ReadProblem("stopped", file, "the last line is cut: not valid JSON", byte=601, line=5, read=4),
        ReadProblem("nul-bytes", file, "NUL bytes removed", lines=(3, 9)),
        ReadProblem("unterminated", file, "no line break at the end", line=7),
    ]
    series = {"kl": [0.02] * 12}
    report = check_run(_run(tmp_path, series, problems=problems), registry, CheckOptions(family="grpo"))
    found = [(f.kind, f.severity, f.key, f.problem) for f in report.findings]
    assert found == [
        ("log-stopped", "error", None, problems[0]),
        ("nul-bytes", "warning", None, problems[1]),
        ("unterminated", "warning", None, problems[2]),
    ]
    loc = Localizer()
    stopped, nul, unterminated = (describe(f, loc) for f in report.findings)
    assert stopped == (
        f"reading stopped at line 5 (byte 601) of {file}: the last line is cut: not valid JSON;"
        " 4 records before it were checked"
    )
    assert nul == (
        f"NUL bytes removed from 2 lines of {file} (3, 9) before reading them; the file may be damaged"
    )
    assert unterminated.startswith(f"the last row (line 7) of {file} has no line break after it")
    assert "Every checked series is healthy." not in render_markdown([report], loc)
    (document,) = json.loads(render_json([report], loc))["runs"]
    assert document["findings"][0]["problem"] == {
        "file": str(file),
        "reason": "the last line is cut: not valid JSON",
        "byte": 601,
        "record": None,
        "line": 5,
        "read": 4,
        "lines": [],
    }

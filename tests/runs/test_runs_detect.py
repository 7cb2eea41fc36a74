"""check-run tells the framework and family of a run from its keys, says why, and takes overrides.

Frameworks other than TRL come from small test-only families in
tests/fixtures/frameworks/ (shaped like verl, OpenRLHF and NeMo-RL) until
the real families are in the registry.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from _framework_logs import WRITERS, assert_detected, check_framework_log, nan_at

import metrics_registry
from metrics_registry.config import builtin_paths
from metrics_registry.registry import Registry
from metrics_registry.runs import CheckOptions, RunLog, check_run
from metrics_registry.runs.detect import STRONG_KEYS, frameworks, resolve_framework

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ROOT / "tests" / "fixtures" / "frameworks"
EXTRA = [FRAMEWORKS / "verl_like.yaml", FRAMEWORKS / "openrlhf_like.yaml", FRAMEWORKS / "nemo_rl_like.yaml"]

VERL_SERIES = {
    "actor/pg_clipfrac_lower": [0.001] * 10,
    "actor/entropy": [0.6] * 10,
    "actor/ppo_kl": [0.002] * 10,
    "critic/score/mean": [0.1 * i for i in range(10)],
    "response_length/mean": [300.0] * 10,
    "kl": [0.01] * 10,
    "perf/throughput": [1234.0] * 10,  # not in the test family: unknown
}
OPENRLHF_SERIES = {
    "timing/make_experience": [30.0] * 10,
    "dynamic_filtering_pass_rate": [0.7] * 10,
    "actor_lr": [1e-6] * 10,
    "kl": [0.01] * 10,  # TRL's too
    "policy_loss": [0.1] * 10,  # TRL's too
}
NEMO_RL_SERIES = {
    "token_mult_prob_error": [1.01] * 10,
    "gen_kl_error": [0.001] * 10,
    "mean_prompt_length": [120.0] * 10,
}


@pytest.fixture(scope="module")
def frameworks_registry() -> Registry:
    # TRL's families and the stand-ins only: the real OpenRLHF family (and the other frameworks' as
    # they land) would compete with the stand-in shaped like it
    trl = [path for path in builtin_paths() if path.stem in {"grpo", "ppo", "legacy_ppo"}]
    return metrics_registry.load([*trl, *EXTRA], builtin=False)


def _run(tmp_path: Path, keys: dict[str, float], *, hf_prefixed: bool = False) -> RunLog:
    run = RunLog(source=tmp_path, format="wandb-jsonl", hf_prefixed=hf_prefixed)
    for key, value in keys.items():
        for step in range(1, 4):
            run.add(key, step, value)
    return run


def test_frameworks_come_from_the_family_files(frameworks_registry: Registry) -> None:
    found = frameworks(frameworks_registry)
    assert found["trl"] == ["grpo", "legacy-ppo", "ppo"]
    assert found["verl-like"] == ["verl-like"]
    assert resolve_framework(frameworks_registry, "TRL") == "trl"
    assert resolve_framework(frameworks_registry, "grpo") == "trl"  # a family names its framework
    assert resolve_framework(frameworks_registry, "nowhere") is None


@pytest.mark.parametrize("kind", ["verl-jsonl", "verl-console", "verl-tensorboard"])
def test_a_verl_log_is_told_verl_with_its_evidence(
    kind: str, tmp_path: Path, frameworks_registry: Registry
) -> None:
    report = check_framework_log(kind, tmp_path, VERL_SERIES, frameworks_registry)
    assert_detected(report, "verl-like", "verl-like")
    detection = report.detection
    assert detection is not None
    score = detection.score("verl-like")
    assert score is not None and score.recognised == 6 and detection.total == 7
    # 'kl' is TRL's too: not evidence; every other known key is only verl's
    assert "kl" not in score.own and len(score.own) == 5
    assert detection.evidence == "actor/entropy"
    # the shared key is read as the detected framework's, not TRL's
    assert report.keys["kl"].entry.id == "verl-like:kl"  # type: ignore[union-attr]
    assert report.keys["perf/throughput"].status == "unknown"


@pytest.mark.parametrize(
    ("kind", "series", "framework"),
    [
        ("openrlhf-wandb", OPENRLHF_SERIES, "openrlhf-like"),
        ("openrlhf-tensorboard", OPENRLHF_SERIES, "openrlhf-like"),
        # the built-in NeMo-RL family registers the keys as its trackers write them (train/...)
        ("nemo-rl-tensorboard", NEMO_RL_SERIES, "nemo-rl"),
        ("nemo-rl-wandb", NEMO_RL_SERIES, "nemo-rl"),
    ],
)
def test_tracker_prefixes_of_the_other_frameworks_are_seen_through(
    kind: str, series: dict[str, list[float]], framework: str, tmp_path: Path, frameworks_registry: Registry
) -> None:
    # the built-in family ties with its test-only look-alike: read NeMo-RL logs with the built-ins alone
    registry = metrics_registry.load() if framework == "nemo-rl" else frameworks_registry
    report = check_framework_log(kind, tmp_path, series, registry)
    assert_detected(report, framework, framework)
    # every metric is logged as train/<name> and found as <name> (as train/<name> in the built-in family)
    for name in series:
        info = report.keys[f"train/{name}"]
        assert info.lookup in (name, f"train/{name}") and info.entry is not None, info
        assert info.entry.family.id == framework


def test_a_nan_in_a_detected_frameworks_series_is_an_error(
    tmp_path: Path, frameworks_registry: Registry
) -> None:
    series = {**VERL_SERIES, "kl": nan_at(VERL_SERIES["kl"], 4)}
    report = check_framework_log("verl-jsonl", tmp_path, series, frameworks_registry)
    (finding,) = [f for f in report.findings if f.key == "kl" and f.severity == "error"]
    assert finding.entry.id == "verl-like:kl"  # type: ignore[union-attr]
    assert finding.step == 5


def test_trl_runs_are_still_told_by_family(registry: Registry, tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        {
            "frac_reward_zero_std": 0.1,
            "completions/mean_length": 200.0,
            "completions/max_length": 512.0,  # reward and kl are OpenRLHF's too: three keys of its own
            "reward": 0.5,
            "kl": 0.01,
        },
    )
    report = check_run(run, registry)
    assert_detected(report, "trl", "grpo")
    assert report.family == "grpo"


def test_few_keys_are_weak_evidence_and_a_mixed_log_names_the_other(
    frameworks_registry: Registry, tmp_path: Path
) -> None:
    few = check_run(_run(tmp_path, {"actor/entropy": 0.5}), frameworks_registry)
    assert_detected(few, "verl-like", how=("weak",))
    assert STRONG_KEYS > 1
    verl = {"actor/entropy": 0.5, "actor/ppo_kl": 0.01, "critic/score/mean": 1.0}
    clear = check_run(_run(tmp_path, {**verl, "frac_reward_zero_std": 0.1}), frameworks_registry)
    assert_detected(clear, "verl-like", how=("detected",))  # 3 keys of its own against 1
    mixed = _run(tmp_path, {**verl, "frac_reward_zero_std": 0.1, "completions/mean_length": 200.0})
    report = check_run(mixed, frameworks_registry)
    assert_detected(report, "verl-like", how=("weak",))  # 3 against 2: not twice as many
    assert report.detection.score("trl").own == ("completions/mean_length", "frac_reward_zero_std")  # type: ignore[union-attr]


def test_a_tie_settles_nothing_and_says_so(frameworks_registry: Registry, tmp_path: Path) -> None:
    report = check_run(_run(tmp_path, {"actor/entropy": 0.5, "actor_lr": 1e-6}), frameworks_registry)
    detection = report.detection
    assert detection is not None
    assert (detection.how, detection.framework, detection.family) == ("tie", None, None)
    assert set(detection.tied) == {"verl-like", "openrlhf-like"}
    shared = check_run(_run(tmp_path, {"kl": 0.01}), frameworks_registry)
    assert shared.detection.how == "tie"  # type: ignore[union-attr]
    assert shared.keys["kl"].status == "ambiguous"
    nothing = check_run(_run(tmp_path, {"my/metric": 1.0}), frameworks_registry)
    assert nothing.detection.how == "none"  # type: ignore[union-attr]


def test_a_tie_on_keys_is_settled_by_a_format_only_one_framework_writes(
    registry: Registry, tmp_path: Path
) -> None:
    """kl and reward alone are TRL's and OpenRLHF's; only transformers' Trainer writes trainer_state.json."""
    keys = {"kl": -0.01, "reward": 0.5}
    as_jsonl = check_run(_run(tmp_path, keys), registry)
    assert as_jsonl.detection.how == "tie"  # type: ignore[union-attr]
    assert as_jsonl.keys["kl"].status == "ambiguous"
    state = RunLog(source=tmp_path / "trainer_state.json", format="trainer-state")
    for key, value in keys.items():
        for step in range(1, 4):
            state.add(key, step, value)
    report = check_run(state, registry)
    assert_detected(report, "trl", how=("format",))
    assert report.detection.log_format == "trainer-state"  # type: ignore[union-attr]
    assert report.detection.to_dict()["log_format"] == "trainer-state"  # type: ignore[union-attr]
    assert report.keys["kl"].status == "known"
    assert report.keys["kl"].entry.family.versions_of == "trl"  # type: ignore[union-attr]
    assert any(f.rule_id == "non-negative" for f in report.findings)  # checked, not waiting for --family
    # a format several frameworks write settles nothing; given options still win
    given = check_run(state, registry, CheckOptions(framework="openrlhf"))
    assert given.detection.how == "given"  # type: ignore[union-attr]


def test_the_format_is_named_as_the_evidence(tmp_path: Path) -> None:
    path = tmp_path / "trainer_state.json"
    history = [{"step": step, "kl": 0.01, "reward": 0.5} for step in range(1, 4)]
    path.write_text(json.dumps({"global_step": 3, "max_steps": 10, "log_history": history}), encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics_registry.cli",
            "--no-config",
            "check-run",
            "--format",
            "markdown",
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert "TRL, from the log's format: its keys are OpenRLHF's as much as TRL's," in result.stdout
    assert "only TRL writes trainer-state logs" in result.stdout


def test_framework_and_family_overrides(frameworks_registry: Registry, tmp_path: Path) -> None:
    run = _run(tmp_path, {"kl": 0.01})
    given = check_run(run, frameworks_registry, CheckOptions(framework="openrlhf-like"))
    assert_detected(given, "openrlhf-like", "openrlhf-like", how=("given",))
    assert given.keys["kl"].entry.id == "openrlhf-like:kl"  # type: ignore[union-attr]
    by_family = check_run(run, frameworks_registry, CheckOptions(family="grpo"))
    assert_detected(by_family, "trl", "grpo", how=("given",))
    assert by_family.keys["kl"].entry.id == "grpo:kl"  # type: ignore[union-attr]


def test_version_counts_the_releases_of_the_detected_framework(
    frameworks_registry: Registry, tmp_path: Path
) -> None:
    keys = {
        "actor/pg_clipfrac_lower": 0.01,
        "actor/entropy": 0.5,
        "actor/ppo_kl": 0.01,
        "critic/score/mean": 1.0,
    }
    # actor/pg_clipfrac_lower appears in 0.5.0 of the test family
    old = check_run(_run(tmp_path, keys), frameworks_registry, CheckOptions(version="0.4.0"))
    assert old.keys["actor/pg_clipfrac_lower"].status == "unknown"
    assert old.detection.version == "0.4.0" and old.detection.framework == "verl-like"  # type: ignore[union-attr]
    new = check_run(_run(tmp_path, keys), frameworks_registry, CheckOptions(version="0.5.0"))
    assert new.keys["actor/pg_clipfrac_lower"].status == "known"
    # a TRL release does not filter another framework's keys
    trl = check_run(_run(tmp_path, keys), frameworks_registry, CheckOptions(trl_version="0.7.10"))
    assert trl.keys["actor/pg_clipfrac_lower"].status == "known"
    unknown = check_run(_run(tmp_path, {"my/metric": 1.0}), frameworks_registry, CheckOptions(version="1.0"))
    assert unknown.detection.version_unused  # type: ignore[union-attr]


# ------------------------------------------------------------- the command line


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # the command line always loads the built-in families, the real verl among them: its
    # test stand-in is left out, and verl runs are told as the real family
    registries = [arg for path in EXTRA[1:] for arg in ("--registry", str(path))]
    return subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", "--no-config", *registries, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_the_report_says_which_framework_and_why(tmp_path: Path) -> None:
    writer, name = WRITERS["verl-jsonl"]
    log = writer(tmp_path / name, VERL_SERIES)
    text = _cli("check-run", "--format", "markdown", str(log), cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert (
        "| Framework | verl, family verl: 6 of 7 keys are verl's; `actor/entropy` is only verl's |"
    ) in text.stdout
    data = json.loads(_cli("check-run", "--format", "json", str(log), cwd=tmp_path).stdout)
    detection = data["runs"][0]["detection"] if "runs" in data else data[0]["detection"]
    assert detection["how"] == "detected" and detection["framework"] == "verl"
    assert detection["frameworks"][0] == {
        "framework": "verl",
        "recognised": 6,
        "own": 6,  # the real family also knows perf/throughput
        "example": ["actor/entropy"],
    }
    vi = _cli("check-run", "--lang", "vi", "--format", "markdown", str(log), cwd=tmp_path).stdout
    assert "6 trên 7 khóa thuộc verl" in vi
    zh = _cli("check-run", "--lang", "zh", "--format", "markdown", str(log), cwd=tmp_path).stdout
    assert "7 个键中有 6 个属于 verl" in zh


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--framework", "nowhere"],
            "unknown framework 'nowhere' (known: NeMo-RL, nemo-rl-like, OpenRLHF, openrlhf-like, TRL, verl)",
        ),
        (["--family", "grpo", "--framework", "verl"], "family 'grpo' is TRL's, not verl's"),
        (["--version", "1.0", "--trl-version", "1.0"], "give one of --version and --trl-version"),
        (["--framework", "verl", "--trl-version", "1.0"], "--trl-version is a TRL release"),
        (["--version", "not-a-release"], "not-a-release"),
    ],
)
def test_contradictory_options_are_usage_errors(args: list[str], message: str, tmp_path: Path) -> None:
    writer, name = WRITERS["verl-jsonl"]
    log = writer(tmp_path / name, VERL_SERIES)
    result = _cli("check-run", *args, str(log), cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_trl_version_is_still_accepted(tmp_path: Path) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text(
        "".join(
            json.dumps({"_step": s, "objective/kl": 0.1, "ppo/mean_scores": 1.0}) + "\n" for s in range(3)
        ),
        encoding="utf-8",
    )
    result = _cli("check-run", "--trl-version", "0.7.10", "--format", "json", str(run), cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    report = data["runs"][0] if "runs" in data else data[0]
    assert report["detection"]["version"] == "0.7.10"
    assert report["keys"]["objective/kl"]["metric"] == "legacy-ppo:objective/kl"
    assert not math.isnan(report["detection"]["keys"])

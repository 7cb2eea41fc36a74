"""check-run and what is known of the run: rule conditions, known issues, --config.

The scenario is issue 19's: a TRL 0.17-1.12 PPO run with num_mini_batches > 1
and gradient accumulation > 1, whose val/ratio reads about 0.5 and whose
per-token entropy is halved by construction.
"""

from __future__ import annotations

import json
from pathlib import Path

import _runlogs as logs
import pytest
from click.testing import CliRunner

from metrics_registry import Registry
from metrics_registry.cli import cli
from metrics_registry.runs.check import CheckOptions, check_run
from metrics_registry.runs.readers import read_log

DILUTED = ["--config", "num_mini_batches=2", "--config", "gradient_accumulation_steps=4"]
TRACKER = "https://github.com/huggingface/trl/pull/2531"
GRID = {
    "policy/approxkl_avg",
    "policy/clipfrac_avg",
    "loss/policy_avg",
    "loss/value_avg",
    "val/clipfrac_avg",
    "policy/entropy_avg",
    "val/ratio",
    "val/ratio_var",
}


@pytest.fixture(scope="module")
def diluted_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    series = logs.ppo_healthy()
    series["val/ratio"] = [0.5 + logs.wobble(s, 0.005) for s in logs.STEPS]
    series["policy/entropy_avg"] = [0.02 + logs.wobble(s, 0.001) for s in logs.STEPS]
    return logs.write_trainer_state(tmp_path_factory.mktemp("ppo") / "trainer_state.json", series)


def _json(*args: str) -> dict:
    result = CliRunner().invoke(cli, ["check-run", *args, "--format", "json"], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    (run,) = json.loads(result.output)["runs"]
    return run


def _rules(run: dict) -> set[tuple[str, str]]:
    return {(f["rule"], f["key"]) for f in run["findings"] if f["kind"] == "rule"}


def test_rules_fire_when_nothing_is_known(diluted_run: Path) -> None:
    run = _json(str(diluted_run), "--family", "ppo")
    assert _rules(run) == {("near-one", "val/ratio"), ("not-near-zero", "policy/entropy_avg")}
    assert run["rules_skipped"] == 0
    assert not [f for f in run["findings"] if f["kind"] == "known-issue"]  # no release given


def test_diluted_config_in_an_affected_release_skips_the_rules(diluted_run: Path) -> None:
    run = _json(str(diluted_run), "--family", "ppo", "--trl-version", "0.20.0", *DILUTED)
    assert _rules(run) == set()
    assert run["rules_skipped"] == 2
    assert run["counts"]["warning"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--trl-version", "0.16.0", *DILUTED],  # before the grid changed
        [
            "--trl-version",
            "0.20.0",
            "--config",
            "num_mini_batches=1",
            "--config",
            "gradient_accumulation_steps=4",
        ],
        ["--trl-version", "0.20.0"],  # config not given: the rule is still checked
        DILUTED,  # release not given
    ],
)
def test_the_rules_still_fire_outside_the_artefact(diluted_run: Path, args: list[str]) -> None:
    run = _json(str(diluted_run), "--family", "ppo", *args)
    assert ("near-one", "val/ratio") in _rules(run)


def test_known_issue_of_the_release_is_reported_with_its_link(diluted_run: Path) -> None:
    run = _json(str(diluted_run), "--family", "ppo", "--trl-version", "0.20.0", *DILUTED)
    issues = [f for f in run["findings"] if f["kind"] == "known-issue"]
    assert {f["key"] for f in issues} == GRID
    ratio = next(f for f in issues if f["key"] == "val/ratio")
    assert ratio["severity"] == "info"
    assert ratio["issue"] == {
        "url": TRACKER,
        "effect": "deflated",
        "affects": {"introduced": "0.17.0", "removed": "1.13.0"},
        "when": ["num_mini_batches > 1", "gradient_accumulation_steps > 1"],
        "confirmed": True,
        "fixed_in": None,
        "version": "0.20.0",
    }
    assert ratio["message"].startswith("known to be deflated in the version you ran (TRL 0.20.0): With")
    var = next(f for f in issues if f["key"] == "val/ratio_var")
    assert var["message"].startswith("known to be inflated")


def test_unknown_config_names_the_conditions(diluted_run: Path) -> None:
    run = _json(str(diluted_run), "--family", "ppo", "--trl-version", "1.12.0")
    ratio = next(f for f in run["findings"] if f["kind"] == "known-issue" and f["key"] == "val/ratio")
    assert ratio["issue"]["confirmed"] is False
    assert ratio["message"].startswith(
        "known to be deflated in the version you ran (TRL 1.12.0) when num_mini_batches > 1 and"
        " gradient_accumulation_steps > 1:"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--trl-version", "0.16.0"],
        ["--trl-version", "1.13.0"],
        ["--trl-version", "0.20.0", "--config", "gradient_accumulation_steps=1"],
    ],
)
def test_no_known_issue_outside_it(diluted_run: Path, args: list[str]) -> None:
    run = _json(str(diluted_run), "--family", "ppo", *args)
    assert not [f for f in run["findings"] if f["kind"] == "known-issue"]


def test_text_and_markdown_reports_group_keys_of_one_issue(diluted_run: Path) -> None:
    args = ["check-run", str(diluted_run), "--family", "ppo", "--trl-version", "0.20.0", *DILUTED]
    text = CliRunner().invoke(cli, args, catch_exceptions=False).output
    assert "Known issues in the version you ran" in text
    assert text.count(TRACKER) == 3  # deflated (six keys), val/ratio's own words, val/ratio_var
    assert "2 rules skipped: they do not hold for this release or configuration" in " ".join(text.split())
    assert "Every checked series is healthy." in text
    markdown = CliRunner().invoke(cli, [*args, "--format", "markdown", "--lang", "vi"]).output
    assert "### Lỗi đã biết trong phiên bản bạn đã chạy" in markdown
    assert f"[Theo dõi lỗi]({TRACKER})" in markdown
    assert "được biết là bị thu nhỏ trong phiên bản bạn đã chạy (TRL 0.20.0)" in markdown


def test_the_api_takes_the_config(diluted_run: Path, registry: Registry) -> None:
    (log,) = read_log(diluted_run)
    options = CheckOptions("ppo", "0.20.0", config={"num_mini_batches": 2, "gradient_accumulation_steps": 2})
    report = check_run(log, registry, options)
    assert report.rules_skipped == 2
    assert {f.key for f in report.findings if f.kind == "known-issue" and f.confirmed} == GRID


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("num_mini_batches", "is not NAME=VALUE"),
        ("=2", "is not NAME=VALUE"),
        ("num mini batches=2", "is not NAME=VALUE"),
        ("\x1b[2Jx=1", "is not NAME=VALUE"),
        ("x=" + "9" * 201, "longer than 200 characters"),
        ("x=a\x1b[2Jb", "control character"),
    ],
)
def test_bad_config_values_are_usage_errors(diluted_run: Path, value: str, message: str) -> None:
    result = CliRunner().invoke(cli, ["check-run", str(diluted_run), "--config", value])
    assert result.exit_code == 2
    assert message in result.output
    assert "\x1b" not in result.output

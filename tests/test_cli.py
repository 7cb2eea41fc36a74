"""The command line, run as a user runs it: a real subprocess, real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parent.parent
BROKEN = Path(__file__).parent / "fixtures" / "broken"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1"}
    env.pop("METRICS_REGISTRY_PATH", None)
    return subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_validate_passes_on_the_shipped_registry() -> None:
    result = run("validate", "--format", "json")
    assert result.returncode == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["errors"] == 0
    assert set(report["families"]) >= {"ppo", "grpo", "legacy-ppo", "multiturn-grpo"}  # + other frameworks
    assert report["metrics"] >= 100


def test_validate_reports_broken_file_and_exits_1() -> None:
    result = run("--no-config", "--registry", str(BROKEN / "unknown_field.yaml"), "validate")
    assert result.returncode == 1
    assert f"{BROKEN / 'unknown_field.yaml'}:27: error MR102 unknown-field" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("objective/kl", ["legacy-ppo", "ppo", "pass --family or --trl-version"]),
        ("eval_reward", ["'eval_reward' matched", "eval_"]),
        ("rewards/accuracy_reward/mean", ["reward_func_name = accuracy_reward"]),
    ],
)
def test_explain(key: str, expected: list[str]) -> None:
    result = run("explain", key)
    assert result.returncode == 0, result.stderr
    for text in expected:
        assert text in result.stdout


def test_explain_with_family_shows_one() -> None:
    result = run("explain", "objective/kl", "--family", "ppo")
    assert result.returncode == 0
    assert result.stdout.count("╭─") == 1  # one panel
    assert "ppo:objective/kl ─╯" in result.stdout


def test_explain_takes_the_registrys_family_key_reference() -> None:
    """'openrlhf:kl' as see_also and the pages write it: one family's entry, no --family needed."""
    result = run("explain", "openrlhf:kl")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("╭─") == 1
    assert "openrlhf:kl ─╯" in result.stdout
    other = run("explain", "ppo:kl", "--family", "grpo")  # the option and the reference disagree
    assert other.returncode == 1
    assert "no metric 'ppo:kl' in family 'grpo'" in other.stderr


def test_unknown_key_is_one_line_and_exit_1() -> None:
    result = run("explain", "objective/kll")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert "did you mean 'objective/kl'" in result.stderr


def test_export_validates_against_schema(tmp_path: Path) -> None:
    export = run("export", "--format", "json")
    schema = run("schema")
    assert export.returncode == 0 and schema.returncode == 0
    jsonschema.validate(json.loads(export.stdout), json.loads(schema.stdout))
    out = tmp_path / "metrics.json"
    assert run("export", "-o", str(out)).returncode == 0
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(export.stdout)


def test_new_scaffolds_into_the_family_file(tmp_path: Path, valid_file: Path) -> None:
    family = tmp_path / "toy.yaml"
    shutil.copy(valid_file, family)
    result = run("--no-config", "--registry", str(family), "new", "toy/entropy", "--family", "toy")
    assert result.returncode == 0, result.stderr
    assert f"{family}:" in result.stdout
    assert "  - key: toy/entropy" in family.read_text(encoding="utf-8")
    again = run("--no-config", "--registry", str(family), "new", "toy/entropy", "--family", "toy")
    assert again.returncode == 1 and "already exists" in again.stderr
    unknown = run("--no-config", "--registry", str(family), "new", "x", "--family", "nope")
    assert unknown.returncode == 2 and "unknown family 'nope'" in unknown.stderr


def test_missing_registry_file_is_a_clear_error(tmp_path: Path) -> None:
    result = run("--registry", str(tmp_path / "missing.yaml"), "export")
    assert result.returncode == 1
    assert "MR106" in result.stderr and "Traceback" not in result.stderr

"""``metrics-registry check-run`` as a user runs it: exit codes for CI, formats, languages, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import _runlogs as logs
from click.testing import CliRunner

from metrics_registry.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, ["check-run", *args], catch_exceptions=False)


def test_healthy_run_exits_0(grpo_healthy_state: Path) -> None:
    result = invoke(str(grpo_healthy_state), "--fail-on", "warning")  # not even a warning
    assert result.exit_code == 0, result.output
    assert "Every checked series is healthy." in result.output


def test_unhealthy_run_exits_1_with_json_in_vietnamese(grpo_state: Path) -> None:
    result = invoke(str(grpo_state), "--format", "json", "--lang", "vi")
    assert result.exit_code == 1
    document = json.loads(result.output)
    (run,) = document["runs"]
    found = {(f["rule"], f["key"], f["step"]) for f in run["findings"] if f["kind"] == "rule"}
    assert found == logs.GRPO_UNHEALTHY_FINDINGS
    assert document["counts"] == {"error": 2, "warning": 10, "info": 2}  # a NaN loss is an error
    spike = next(f for f in run["findings"] if f["rule"] == "not-exploding")
    assert "0,024" in spike["message"]  # the running median, with a decimal comma


def test_fail_on_chooses_the_threshold(tmp_path: Path) -> None:
    series = logs.grpo_healthy()
    series["completions/clipped_ratio"] = [0.9] * 50  # a warning, no error
    path = logs.write_trainer_state(tmp_path / "trainer_state.json", series)
    assert invoke(str(path)).exit_code == 0
    assert invoke(str(path), "--fail-on", "warning").exit_code == 1


def test_markdown_report_in_chinese_to_a_file(grpo_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    result = invoke(str(grpo_csv), "--lang", "zh", "--format", "markdown", "-o", str(out))
    assert result.exit_code == 1 and result.output == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# ") and "grpo-unhealthy" in text and "`mostly-terminated`" in text
    assert "zh/reference/grpo/kl/" in text


def test_unreadable_log_exits_3_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    path.write_text('{"_step": 0, "kl": 0.1}\n{"_step": 1, "kl": }\n', encoding="utf-8")
    result = invoke(str(path))
    assert result.exit_code == 3
    assert result.stderr.strip().count("\n") == 0
    assert f"{path}:2: not valid JSON" in result.stderr


def test_unknown_family_exits_2(grpo_healthy_state: Path) -> None:
    result = invoke(str(grpo_healthy_state), "--family", "dpo")
    assert result.exit_code == 2 and "unknown family 'dpo'" in result.stderr


def test_real_command_without_tensorboard(ppo_tensorboard: Path) -> None:
    """The installed entry point, with TensorBoard made unimportable: exit 3 naming the extra."""
    code = (
        "import sys; sys.modules['tensorboard'] = None; "
        "from metrics_registry.cli import main; "
        f"sys.argv = ['metrics-registry', 'check-run', {str(ppo_tensorboard)!r}]; main()"
    )
    env = {**os.environ, "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    assert result.returncode == 3, result.stderr
    assert "pip install 'metrics-registry[runs]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_real_command_on_tensorboard_logs(ppo_tensorboard: Path) -> None:
    """The text report of the real command, in a terminal 200 columns wide."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    result = subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", "check-run", str(ppo_tensorboard)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "train/val/ratio  near-one (range)  step 31" in result.stdout
    assert "furthest: 1.6" in result.stdout and "en/reference/ppo/val-ratio/" in result.stdout
    assert "Every checked series is healthy." in result.stdout  # the healthy run next to it


def test_links_are_absolute_urls_of_the_projects_site(grpo_state: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "mkdocs.yml").write_text(
        "site_name: x\nsite_url: https://docs.example.org/metrics/\n", encoding="utf-8"
    )
    old = Path.cwd()
    os.chdir(project)
    try:
        document = json.loads(invoke(str(grpo_state), "--format", "json").output)
        text = invoke(str(grpo_state)).output
        given = json.loads(invoke(str(grpo_state), "--format", "json", "--site-url", "https://x.org/").output)
    finally:
        os.chdir(old)
    urls = [f["url"] for run in document["runs"] for f in run["findings"] if f.get("url")]
    assert urls and all(url.startswith("https://docs.example.org/metrics/en/reference/") for url in urls)
    assert "https://docs.example.org/metrics/en/reference/" in text
    assert all(
        f["url"].startswith("https://x.org/en/")
        for run in given["runs"]
        for f in run["findings"]
        if f.get("url")
    )

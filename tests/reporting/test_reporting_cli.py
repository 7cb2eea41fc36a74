"""--format github and sarif through the real command line, on real broken files.

A broken registry file (validate), broken and unhealthy training logs
(check-run) and a page turned to mojibake (fix-encoding --check): each
output is read back as its consumer reads it (the runner's parsing rules,
the official SARIF schema) and compared with what the text output says.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _ci import assert_valid_sarif, parse_commands

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
sys.path.insert(0, str(ROOT / "tests" / "runs"))
from _runlogs import GRPO_UNHEALTHY_FINDINGS, grpo_unhealthy, write_trainer_state  # noqa: E402

SITE = "https://metrics.example.org/registry"


def run(*args: str, cwd: Path = ROOT, site_url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    env.pop("METRICS_REGISTRY_PATH", None)
    env.pop("METRICS_REGISTRY_SITE_URL", None)
    if site_url is not None:
        env["METRICS_REGISTRY_SITE_URL"] = site_url
    return subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )


def _locations(log: dict) -> list[tuple[str, str, int | None]]:
    """``(ruleId, uri, startLine)`` of every result."""
    found = []
    for result in log["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        found.append(
            (
                result["ruleId"],
                physical["artifactLocation"]["uri"],
                physical.get("region", {}).get("startLine"),
            )
        )
    return found


# ------------------------------------------------------------------ validate


@pytest.mark.parametrize("name", ["unknown_field.yaml", "yaml_syntax.yaml", "duplicate_key.yaml"])
def test_validate_a_broken_registry_file(name: str) -> None:
    relative = f"tests/fixtures/broken/{name}"
    args = ("--no-config", "--registry", relative, "validate")
    text = run(*args)
    github = run(*args, "--format", "github")
    sarif = run(*args, "--format", "sarif", site_url=SITE)
    assert text.returncode == github.returncode == sarif.returncode == 1
    assert "Traceback" not in github.stderr + sarif.stderr
    # the text lines name file, line, severity and rule: the annotations say the same
    expected = []
    for line in text.stdout.splitlines():
        if ": error " in line or ": warning " in line:
            where, what = line.split(": ")[:2]
            path, _, number = where.rpartition(":")
            expected.append((Path(path).relative_to(ROOT).as_posix(), number, *what.split()[:2]))
    commands = parse_commands(github.stdout)
    assert commands, github.stdout
    assert [(p["file"], p.get("line", ""), c, p["title"]) for c, p, _m in commands] == expected
    assert all(properties["file"] == relative for _c, properties, _m in commands)
    log = assert_valid_sarif(sarif.stdout)
    assert [(rule, uri, line) for rule, uri, line in _locations(log)] == [
        (p["title"], relative, int(p["line"]) if "line" in p else None) for _c, p, _m in commands
    ]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(
        rule["helpUri"] == f"{SITE}/en/contributing/adding-a-metric/#validation-rules" for rule in rules
    )


def test_validate_unknown_field_exact_annotation() -> None:
    result = run(
        "--no-config",
        "--registry",
        "tests/fixtures/broken/unknown_field.yaml",
        "validate",
        "--format",
        "github",
    )
    assert result.stdout.splitlines()[0].startswith(
        "::error file=tests/fixtures/broken/unknown_field.yaml,line=27,title=MR102::"
        "[toy/kl.crucal] unknown field"
    )


def test_validate_the_shipped_registry_is_clean_in_every_format() -> None:
    github = run("validate", "--format", "github")
    assert github.returncode == 0, github.stdout + github.stderr
    assert github.stdout == ""
    sarif = run("validate", "--format", "sarif")
    assert sarif.returncode == 0
    assert assert_valid_sarif(sarif.stdout)["runs"][0]["results"] == []


# ----------------------------------------------------------------- check-run


def test_check_run_an_unhealthy_training_log(tmp_path: Path) -> None:
    state = write_trainer_state(tmp_path / "out" / "trainer_state.json", grpo_unhealthy())
    args = ("check-run", "out/trainer_state.json")
    github = run(*args, "--format", "github", cwd=tmp_path)
    sarif = run(*args, "--format", "sarif", "--site-url", SITE, cwd=tmp_path)
    assert github.returncode == sarif.returncode == 1, github.stderr
    commands = parse_commands(github.stdout)
    # the logged key opens the message; the rule is the metric's (a templated key for reward functions)
    fired = {(m.split(": ", 1)[0], p["title"].split("#")[-1]) for _c, p, m in commands}
    assert {(key, rule_id) for rule_id, key, _step in GRPO_UNHEALTHY_FINDINGS} <= fired
    titles = {p["title"] for _c, p, _m in commands}
    assert {"grpo:kl#non-negative", "grpo:rewards/{reward_func_name}/mean#not-stuck"} <= titles
    assert all(properties["file"] == "out/trainer_state.json" for _c, properties, _m in commands)
    kl = next(m for _c, p, m in commands if p["title"] == "grpo:kl#non-negative")
    assert kl.startswith("kl: ") and "\nexpected: " in kl
    log = assert_valid_sarif(sarif.stdout)
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["grpo:kl#non-negative"]["helpUri"] == f"{SITE}/en/reference/grpo/kl/"
    assert rules["grpo:kl#non-negative"]["name"] == "non-negative"
    assert {uri for _r, uri, _l in _locations(log)} == {"out/trainer_state.json"}
    assert state.is_file()


def test_check_run_a_cut_log_points_at_the_line(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "hostile" / "logs" / "cut-last-line.jsonl", tmp_path / "history.jsonl")
    github = run("check-run", "history.jsonl", "--format", "github", cwd=tmp_path)
    assert github.returncode == 1
    stopped = [(c, p, m) for c, p, m in parse_commands(github.stdout) if p["title"] == "log-stopped"]
    assert stopped == [
        (
            "error",
            {"file": "history.jsonl", "line": "5", "title": "log-stopped"},
            stopped[0][2],
        )
    ]
    assert stopped[0][2].startswith("reading stopped at line 5 (byte 601) of history.jsonl")
    sarif = run("check-run", "history.jsonl", "--format", "sarif", "--lang", "zh", cwd=tmp_path)
    log = assert_valid_sarif(sarif.stdout)
    assert ("log-stopped", "history.jsonl", 5) in _locations(log)
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["log-stopped"]["shortDescription"]["text"] != (
        "The log could be read only up to a point: it is cut or damaged."
    ), "the rule's description is in the report's language"


def test_check_run_a_corrupted_tensorboard_file_points_at_the_byte(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "hostile" / "logs" / "tb-crc", tmp_path / "tb")
    sarif = run("check-run", "tb", "--format", "sarif", cwd=tmp_path)
    assert sarif.returncode == 1, sarif.stderr
    log = assert_valid_sarif(sarif.stdout)
    stopped = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "log-stopped")
    physical = stopped["locations"][0]["physicalLocation"]
    assert physical["region"] == {"byteOffset": 5696}
    assert physical["artifactLocation"]["uri"] == "tb/events.out.tfevents.1700000000.host"


def test_check_run_a_key_with_terminal_escapes_stays_one_annotation(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "hostile" / "logs" / "terminal-escape-key.jsonl", tmp_path / "h.jsonl")
    result = run("check-run", "h.jsonl", "--format", "github", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    messages = [m for _c, _p, m in parse_commands(result.stdout)]
    assert any(m.startswith("objective/kl\\x1b[2J\\x1b]0;pwned\\x07[link=") for m in messages), messages


def test_check_run_writes_the_format_to_a_file(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "hostile" / "logs" / "cut-last-line.jsonl", tmp_path / "history.jsonl")
    result = run("check-run", "history.jsonl", "--format", "sarif", "-o", "report.sarif", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert_valid_sarif((tmp_path / "report.sarif").read_text(encoding="utf-8"))


# ------------------------------------------------------------- fix-encoding


@pytest.fixture
def mojibake_project(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "zh").mkdir(parents=True)
    shutil.copy(
        FIXTURES / "encoding" / "training-logs-enhancements.zh.mojibake.md", docs / "zh" / "logs, part 1.md"
    )
    (docs / "clean.md").write_text("# Clean\n\nTiếng Việt và 中文.\n", encoding="utf-8")
    (docs / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (docs / "site").mkdir()
    shutil.copy(docs / "zh" / "logs, part 1.md", docs / "site" / "built.md")
    return tmp_path


def test_fix_encoding_check_in_every_format(mojibake_project: Path) -> None:
    text = run("fix-encoding", "--check", "docs", cwd=mojibake_project)
    github = run("fix-encoding", "--check", "--format", "github", "docs", cwd=mojibake_project)
    sarif = run("fix-encoding", "--check", "--format", "sarif", "docs", cwd=mojibake_project, site_url=SITE)
    assert text.returncode == github.returncode == sarif.returncode == 1
    assert "docs/latin1.txt: not UTF-8 text" in text.stderr
    # PATH:LINE:COLUMN: KIND DETAILS
    spots = [line.split(": ", 1) for line in text.stdout.splitlines()]
    spots = [(where.rsplit(":", 2)[0], where, what) for where, what in spots]
    assert len(spots) > 10
    assert {path for path, _where, _what in spots} == {"docs/zh/logs, part 1.md"}, "site/ is skipped"
    commands = parse_commands(github.stdout)
    damage = [(p, m) for _c, p, m in commands if p["title"] != "unreadable"]
    assert [(f"{p['file']}:{p['line']}:{p['col']}", p["title"], m) for p, m in damage] == [
        (where, what.split()[0], what) for _path, where, what in spots
    ]
    unreadable = [p for c, p, m in commands if p["title"] == "unreadable"]
    assert unreadable == [{"file": "docs/latin1.txt", "title": "unreadable"}]
    log = assert_valid_sarif(sarif.stdout)
    results = log["runs"][0]["results"]
    assert len(results) == len(commands)
    located = [
        (r["ruleId"], r["locations"][0]["physicalLocation"]) for r in results if r["ruleId"] != "unreadable"
    ]
    assert [
        (rule, p["artifactLocation"]["uri"], f"{p['region']['startLine']}:{p['region']['startColumn']}")
        for rule, p in located
    ] == [
        (
            what.split()[0],
            "docs/zh/logs,%20part%201.md",
            where.rsplit(":", 2)[1] + ":" + where.rsplit(":", 1)[1],
        )
        for _path, where, what in spots
    ]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(r["helpUri"] == f"{SITE}/en/tools/repairing-encoding/#reading-the-findings" for r in rules)


def test_fix_encoding_format_needs_check(mojibake_project: Path) -> None:
    result = run("fix-encoding", "--format", "sarif", "docs/clean.md", cwd=mojibake_project)
    assert result.returncode == 2
    assert "--format sarif reports findings: give --check" in result.stderr


def test_fix_encoding_clean_files_give_an_empty_report(mojibake_project: Path) -> None:
    github = run("fix-encoding", "--check", "--format", "github", "docs/clean.md", cwd=mojibake_project)
    assert (github.returncode, github.stdout) == (0, "")
    sarif = run("fix-encoding", "--check", "--format", "sarif", "docs/clean.md", cwd=mojibake_project)
    assert sarif.returncode == 0
    assert assert_valid_sarif(sarif.stdout)["runs"][0]["results"] == []

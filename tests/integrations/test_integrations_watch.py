"""``metrics-registry watch`` as a user runs it, on logs being written (integrations.watch)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

from _livelogs import logs
from click.testing import CliRunner

from metrics_registry.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def row(step: int, kl: float) -> str:
    return json.dumps({"_step": step, "_timestamp": logs.T0 + step, "kl": kl, "reward": 0.1 * step}) + "\n"


def test_watch_reports_a_finding_while_the_log_is_still_written(tmp_path: Path) -> None:
    """A thread appends rows to a real JSON-lines log; the finding is printed before the writer is done.

    The writer cuts one line in two with a pause between (a write in progress), sends the bad
    row (a negative k3 KL, an error) at step 15, then waits until watch has printed the finding
    before writing the rest: the report came while the file grew, not from the finished file.
    """
    log = tmp_path / "wandb-history.jsonl"
    log.touch()
    process = subprocess.Popen(
        # a lone 'kl' and 'reward' are OpenRLHF's keys too: the family says which run this is
        [
            sys.executable,
            "-m",
            "metrics_registry.cli",
            "--no-config",
            "watch",
            str(log),
            "--until-idle",
            "3",
            "--family",
            "grpo",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    lines: queue.Queue[str] = queue.Queue()
    finding_seen = threading.Event()
    written_when_seen: list[int] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
            if "non-negative" in line:
                finding_seen.set()

    def write() -> None:
        with log.open("a", encoding="utf-8") as handle:
            for step in range(1, 41):
                text = row(step, -0.05 if step == 15 else 0.01)
                if step == 5:  # half a line, then the rest: watch must wait, not fail
                    handle.write(text[:20])
                    handle.flush()
                    threading.Event().wait(0.6)
                    text = text[20:]
                handle.write(text)
                handle.flush()
                if step == 15:
                    finding_seen.wait(30)
                    written_when_seen.append(step)
                threading.Event().wait(0.02)

    reader = threading.Thread(target=read, daemon=True)
    writer = threading.Thread(target=write)
    reader.start()
    writer.start()
    writer.join(60)
    assert process.wait(60) == 1  # an error finding: exit 1, as check-run
    reader.join(5)
    output = "".join(lines.queue)
    assert finding_seen.is_set(), output
    assert written_when_seen == [15]  # the writer still had 25 rows to write
    assert "ERROR kl non-negative: 1 of 15 values is outside the healthy range, at step 15: -0.05" in output
    assert "metrics-registry watch: no new record for 3 s" in output
    assert "1 error, 0 warnings" in output
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read()


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, ["--no-config", "watch", *args], catch_exceptions=False)


def test_a_finished_trainer_run_ends_the_watch_at_once(tmp_path: Path) -> None:
    """The last checkpoint is at max_steps: the run has ended; the report is check-run's."""
    out = tmp_path / "out"
    logs.write_trainer_state(out / "checkpoint-50" / "trainer_state.json", logs.grpo_unhealthy())
    report = tmp_path / "report.json"
    result = invoke(str(out), "-o", str(report))
    assert result.exit_code == 1, result.output
    assert "metrics-registry watch: the run ended" in result.output
    # printed as it came: the 33rd value was the first NaN
    assert "ERROR loss finite: 1 of 33 values is NaN or infinite, at step 33" in result.output
    checked = CliRunner().invoke(cli, ["--no-config", "check-run", "--format", "json", str(out)])
    (want,) = json.loads(checked.output)["runs"]
    (got,) = json.loads(report.read_text(encoding="utf-8"))["runs"]
    assert got["findings"] == want["findings"]
    assert got["source"] == str(out)


def test_fail_on_and_a_healthy_run(tmp_path: Path) -> None:
    series = logs.grpo_healthy()
    path = logs.write_trainer_state(tmp_path / "trainer_state.json", series)
    result = invoke(str(path), "--fail-on", "warning")
    assert result.exit_code == 0, result.output
    series["completions/clipped_ratio"] = [0.9] * 50  # a warning, no error
    logs.write_trainer_state(path, series)
    assert invoke(str(path)).exit_code == 0
    warned = invoke(str(path), "--fail-on", "warning", "--lang", "zh")
    assert warned.exit_code == 1
    assert "completions/clipped_ratio mostly-terminated" in warned.output


def test_a_cut_last_line_is_reported_when_the_watch_ends(tmp_path: Path) -> None:
    """Still cut when the log goes idle: check-run's finding; the records before it are checked."""
    log = tmp_path / "run.jsonl"
    log.write_text("".join(row(step, 0.01) for step in range(1, 6)) + row(6, 0.01)[:15], encoding="utf-8")
    result = invoke(str(log), "--until-idle", "0", "-o", str(tmp_path / "report.md"))
    assert result.exit_code == 1, result.output
    assert "ERROR reading stopped at line 6 (byte" in result.output
    assert "the last line is cut" in result.output
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "5 records before it were checked" in markdown


def test_wrong_usage_exits_2_and_unreadable_logs_exit_3(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    log.write_text(row(1, 0.01), encoding="utf-8")
    for args, message in [
        (["--until-idle", "-1"], "give a number of seconds, 0 or more"),
        (["--until-idle", "nan"], "give a number of seconds, 0 or more"),
        (["-o", str(tmp_path / "report.txt")], "name the report .json or .md"),
        (["--family", "nope"], "unknown family 'nope'"),
    ]:
        result = invoke(str(log), *args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output
    csv = tmp_path / "export.csv"
    csv.write_text("Step,run - kl\n1,0.1\n", encoding="utf-8")
    result = invoke(str(csv))
    assert result.exit_code == 3
    assert "a wandb-csv file is read whole: use check-run" in result.output
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    result = invoke(str(empty), "--until-idle", "0")
    assert result.exit_code == 3
    assert "empty.jsonl: holds no records (nothing was written while it was watched)" in result.output


def start_watch(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "metrics_registry.cli", "--no-config", "watch", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def first_line(process: subprocess.Popen[str], seconds: float = 60) -> str:
    """The first line the watch prints; fails after ``seconds`` (a silent watch must not hang the suite)."""
    got: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: got.put(stdout.readline()), daemon=True).start()
    try:
        return got.get(timeout=seconds)
    except queue.Empty:
        process.kill()
        raise AssertionError(f"watch printed nothing in {seconds} s") from None


def test_ctrl_c_ends_the_watch_with_the_report_of_what_was_read(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    log.write_text("".join(row(step, -0.05 if step == 3 else 0.01) for step in range(1, 6)), encoding="utf-8")
    process = start_watch(tmp_path, str(log), "--family", "grpo")
    first = first_line(process)  # the finding: the log was read, the watch goes on
    assert "ERROR kl non-negative" in first
    process.send_signal(signal.SIGINT)
    rest = process.stdout.read()
    assert process.wait(30) == 1
    assert "metrics-registry watch: stopped (Ctrl-C)" in rest
    assert "run.jsonl: 1 error, 0 warnings" in rest
    assert process.stderr is not None
    assert "Traceback" not in process.stderr.read()


def test_keys_no_family_can_be_told_from_are_said_at_once_not_waited_on(tmp_path: Path) -> None:
    """A lone 'kl' and 'reward' are TRL GRPO's and OpenRLHF's keys: the watch says to pass --family."""
    log = tmp_path / "run.jsonl"
    log.write_text("".join(row(step, -0.05) for step in range(1, 6)), encoding="utf-8")
    process = start_watch(tmp_path, str(log), "--lang", "vi")
    try:
        first = first_line(process)
    finally:
        process.kill()
        process.wait(30)
    assert "mọi khóa đã biết đều nhập nhằng; hãy truyền --family" in first

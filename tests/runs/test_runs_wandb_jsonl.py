"""W&B history (JSON lines) that is damaged, empty or hostile: read to a clear point, or refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from metrics_registry.runs import LogError, read_log

LINES = '{"_step": 0, "objective/kl": 0.1}\n{"_step": 1, "objective/kl": 0.2}\n'


def write(tmp_path: Path, content: str | bytes, name: str = "history.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def test_a_cut_last_line_stops_reading_there(tmp_path: Path) -> None:
    (run,) = read_log(write(tmp_path, LINES + '{"_step": 2, "objective/k'))
    (problem,) = run.problems
    assert (problem.kind, problem.line, problem.byte, problem.read) == ("stopped", 3, len(LINES), 2)
    assert problem.reason.startswith("the last line is cut: not valid JSON")
    assert [p.step for p in run.series["objective/kl"]] == [0, 1]


def test_a_zero_filled_tail_is_a_cut_line(tmp_path: Path) -> None:
    (run,) = read_log(write(tmp_path, LINES.encode() + b"\0" * 4096))
    assert [(p.kind, p.line) for p in run.problems] == [("stopped", 3)]


def test_a_bad_line_ending_in_a_line_break_is_damage(tmp_path: Path) -> None:
    with pytest.raises(LogError, match=r"history\.jsonl:3: not valid JSON"):
        read_log(write(tmp_path, LINES + '{"_step": 2, "objective/k\n'))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", r"history\.jsonl: holds no records \(the file is empty\)"),
        ("\n  \n\n", r"history\.jsonl: holds no records \(only blank lines\)"),
        ('{"_step": 0, "objective/k', r"history\.jsonl:1: not valid JSON"),  # nothing before the cut
    ],
)
def test_nothing_readable_is_an_error(tmp_path: Path, content: str, message: str) -> None:
    with pytest.raises(LogError, match=message):
        read_log(write(tmp_path, content))


def test_an_empty_json_is_refused_like_an_empty_jsonl(tmp_path: Path) -> None:
    """Both are logs with no records: the same words, the same exit code."""
    for name in ("trainer_state.json", "history.jsonl"):
        with pytest.raises(LogError, match=rf"{name}: holds no records \(the file is empty\)"):
            read_log(write(tmp_path, "", name))


def test_an_empty_log_history_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LogError, match=r"holds no records \('log_history' is empty"):
        read_log(write(tmp_path, '{"global_step": 0, "log_history": []}', "trainer_state.json"))


def test_booleans_are_values_and_huge_steps_are_refused(tmp_path: Path) -> None:
    (run,) = read_log(write(tmp_path, '{"_step": 0, "done": false}\n{"_step": 1, "done": true}\n'))
    assert [p.value for p in run.series["done"]] == [0.0, 1.0]
    assert "done" not in run.non_scalar
    huge = '{"_step": ' + "9" * 5000 + ', "objective/kl": 0.1}\n'
    with pytest.raises(LogError, match=r"history\.jsonl:1: no finite '_step'"):
        read_log(write(tmp_path, huge))


def test_non_finite_and_huge_timestamps_give_no_time(tmp_path: Path) -> None:
    (run,) = read_log(write(tmp_path, '{"_step": 0, "kl": 0.1, "_timestamp": 1e300}\n'))
    assert run.time_range() is None
    (run,) = read_log(write(tmp_path, '{"_step": 0, "kl": 0.1, "_timestamp": NaN}\n'))
    assert run.series["kl"][0].time is None


def test_deep_nesting_names_the_line(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(LogError, match=r"history\.jsonl:2: JSON nested too deeply"):
        read_log(write(tmp_path, '{"_step": 0, "kl": 0.1}\n{"_step": 1, "x": ' + deep + "}\n"))
    with pytest.raises(LogError, match=r"trainer_state\.json: JSON nested too deeply"):
        read_log(write(tmp_path, '{"log_history": ' + deep + "}", "trainer_state.json"))


@pytest.mark.parametrize("fmt", ["wandb-jsonl", "wandb-csv", "trainer-state", "tensorboard"])
def test_a_device_or_a_pipe_is_refused_not_read_forever(tmp_path: Path, fmt: str) -> None:
    with pytest.raises(LogError, match=r"/dev/zero: not a regular file"):
        read_log(Path("/dev/zero"), fmt)  # type: ignore[arg-type]
    pipe = tmp_path / "history.jsonl"
    os.mkfifo(pipe)
    with pytest.raises(LogError, match=r"history\.jsonl: not a regular file"):
        read_log(pipe)
    pipe.unlink()

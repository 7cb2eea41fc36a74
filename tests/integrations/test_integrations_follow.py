"""Reading logs while they are written: half-written lines, files and records (integrations.follow*)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _livelogs import logs
from torch.utils.tensorboard import SummaryWriter

from metrics_registry.integrations.follow import JsonLinesFollower, TrainerStateFollower, follower_for
from metrics_registry.integrations.follow_tensorboard import TensorBoardFollower
from metrics_registry.runs import LogError, read_log

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "logs"


def row(step: int, **values: object) -> bytes:
    return (json.dumps({"_step": step, **values}) + "\n").encode()


def test_json_lines_wait_for_the_end_of_a_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(row(1, kl=0.1) + row(2, kl=0.2)[:9])
    follower = JsonLinesFollower(path)
    assert [(r.step, r.values) for r in follower.poll()] == [(1, {"kl": 0.1})]
    assert follower.poll() == []  # the cut line is not an error: it is still being written
    with path.open("ab") as handle:
        handle.write(row(2, kl=0.2)[9:] + b"\n" + row(3, kl=0.3, hist={"_type": "histogram"}))
    assert [(r.step, r.values) for r in follower.poll()] == [(2, {"kl": 0.2}), (3, {"kl": 0.3, "hist": None})]
    assert follower.finish() == []
    assert follower.problems == []


def test_a_line_still_cut_at_the_end_is_the_problem_check_run_reports() -> None:
    """The fixture's last line is cut: followed to the end, it reads as check-run reads the whole file."""
    path = FIXTURES / "cut-last-line.jsonl"
    (run,) = read_log(path)
    follower = JsonLinesFollower(path)
    records = follower.poll() + follower.finish()
    assert len(records) == 4
    assert follower.problems == [(None, run.problems[0])]


def test_a_damaged_line_or_a_shorter_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(row(1, kl=0.1) + b"{not json}\n" + row(3, kl=0.3))
    with pytest.raises(LogError, match=r"run\.jsonl:2: not valid JSON"):
        JsonLinesFollower(path).poll()
    path.write_bytes(row(1, kl=0.1) * 3)
    follower = JsonLinesFollower(path)
    follower.poll()
    path.write_bytes(row(1, kl=0.1))
    with pytest.raises(LogError, match="the file got shorter while it was followed"):
        follower.poll()


def test_a_trainer_output_folder_is_followed_checkpoint_by_checkpoint(tmp_path: Path) -> None:
    """Each checkpoint repeats the history so far; a half-written state is skipped until it is whole."""
    series = logs.grpo_healthy()
    full = logs.write_trainer_state(tmp_path / "full.json", series)
    state = json.loads(full.read_text(encoding="utf-8"))
    history = [r for r in state["log_history"] if "train_runtime" not in r and "eval_loss" not in r]

    def checkpoint(step: int, text: str | None = None) -> Path:
        path = tmp_path / "out" / f"checkpoint-{step}" / "trainer_state.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        document = {**state, "global_step": step, "log_history": history[:step]}
        path.write_text(text if text is not None else json.dumps(document, indent=2), encoding="utf-8")
        return path

    (tmp_path / "out").mkdir()
    follower = follower_for(tmp_path / "out", "trainer-state")
    assert isinstance(follower, TrainerStateFollower)
    assert follower.poll() == []
    assert follower.waiting is not None and "no trainer_state.json yet" in follower.waiting
    checkpoint(10)
    assert [r.step for r in follower.poll()] == list(range(1, 11))
    whole = json.dumps({**state, "global_step": 20, "log_history": history[:20]}, indent=2)
    path = checkpoint(20, whole[: len(whole) // 2])  # caught while the Trainer writes it
    assert follower.poll() == []
    assert follower.waiting is not None and "not valid JSON" in follower.waiting
    path.write_text(whole, encoding="utf-8")
    assert [r.step for r in follower.poll()] == list(range(11, 21))
    assert not follower.ended
    checkpoint(50)  # max_steps: the run has ended
    assert len(follower.poll()) == 30
    assert follower.ended
    assert follower.finish() == []


def test_a_trainer_state_never_whole_again_is_reported_at_the_end(tmp_path: Path) -> None:
    path = logs.write_trainer_state(tmp_path / "trainer_state.json", logs.grpo_healthy())
    follower = TrainerStateFollower(path)
    assert len(follower.poll()) > 0
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:-200], encoding="utf-8")
    follower.finish()
    ((run, problem),) = follower.problems
    assert (run, problem.kind, problem.file, problem.read) == (None, "stopped", path, follower.records_read)
    assert problem.reason.startswith("not valid JSON") and problem.line is not None
    # never readable at all: the log cannot be checked
    broken = tmp_path / "broken" / "trainer_state.json"
    broken.parent.mkdir()
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(LogError, match=r"trainer_state\.json:1: not valid JSON"):
        TrainerStateFollower(broken).finish()


def test_tensorboard_records_are_read_as_summary_writer_appends_them(tmp_path: Path) -> None:
    writer = SummaryWriter(str(tmp_path / "tb" / "run"))
    follower = follower_for(tmp_path / "tb", "tensorboard")
    for step in range(1, 4):
        writer.add_scalar("train/kl", 0.1 * step, step)
    writer.add_histogram("train/weights", np.array([0.1, 0.2, 0.3]), 3)
    writer.flush()
    records = follower.poll()
    assert [(r.run, r.step, r.values) for r in records if "train/kl" in r.values] == [
        ("run", 1, {"train/kl": pytest.approx(0.1)}),
        ("run", 2, {"train/kl": pytest.approx(0.2)}),
        ("run", 3, {"train/kl": pytest.approx(0.3)}),
    ]
    assert any(r.values == {"train/weights": None} for r in records)
    writer.add_scalar("train/kl", 0.4, 4)
    writer.add_scalar("train/epoch", 1.0, 4)
    writer.flush()
    new = follower.poll()
    assert [r.step for r in new] == [4, 4]
    assert [r.hf_prefixed for r in new] == [False, True]  # from transformers' marker key on
    assert not follower.ended
    writer.add_scalar("train/train_runtime", 12.0, 4)
    writer.close()
    follower.poll()
    assert follower.ended


def test_a_record_cut_in_the_middle_is_read_once_it_is_whole(tmp_path: Path) -> None:
    """An event file copied a few bytes at a time: every record comes out once, whole."""
    source = tmp_path / "source"
    writer = SummaryWriter(str(source))
    for step in range(1, 21):
        writer.add_scalar("loss", 1.0 / step, step)
    writer.close()
    (event_file,) = source.iterdir()
    data = event_file.read_bytes()
    target = tmp_path / "follow" / event_file.name
    target.parent.mkdir()
    target.write_bytes(b"")
    follower = TensorBoardFollower(target.parent)
    steps = []
    for end in range(0, len(data) + 37, 37):  # 37 bytes: most cuts fall inside a record
        target.write_bytes(data[:end])
        steps += [r.step for r in follower.poll()]
    assert steps == list(range(1, 21))
    assert follower.finish() == []
    assert follower.problems == []


def test_damaged_tensorboard_files_read_as_check_run_reads_them() -> None:
    for name in ("tb-crc", "tb-truncated"):
        (run,) = read_log(FIXTURES / name)
        follower = TensorBoardFollower(FIXTURES / name)
        follower.poll()
        follower.finish()
        assert follower.problems == [(None, run.problems[0])], name
    with pytest.raises(
        LogError, match=r"not a TensorBoard event file \(record 1 at byte 0: failed header crc32"
    ):
        TensorBoardFollower(FIXTURES / "tb-random").poll()
    with pytest.raises(LogError, match="holds no records"):
        TensorBoardFollower(FIXTURES / "tb-empty").finish()

"""Reading each log format, telling formats apart, and the errors for bad input (file, line, fix)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import _runlogs as logs
import pytest

from metrics_registry.runs import LogError, detect_format, read_log


def test_trainer_state_reads_train_eval_and_summary_entries(grpo_healthy_state: Path) -> None:
    (run,) = read_log(grpo_healthy_state)
    assert run.format == "trainer-state" and not run.hf_prefixed
    assert [p.step for p in run.series["kl"]][:3] == [1, 2, 3]
    assert len(run.series["kl"]) == 50
    assert [p.step for p in run.series["eval_reward"]] == [25, 50]
    assert run.series["train_runtime"][0].value == 600.5
    assert "step" not in run.series


def test_output_folder_reads_the_latest_checkpoint(grpo_state: Path) -> None:
    fmt, path = detect_format(grpo_state)
    assert (fmt, path.parent.name) == ("trainer-state", "checkpoint-50")
    (run,) = read_log(grpo_state)
    assert math.isnan(run.series["loss"][32].value)  # NaN written as NaN, read back


def test_tensorboard_folder_has_one_run_per_event_folder(ppo_tensorboard: Path) -> None:
    runs = read_log(ppo_tensorboard)
    assert [r.run for r in runs] == ["healthy", "unhealthy"]
    unhealthy = runs[1]
    assert unhealthy.format == "tensorboard" and unhealthy.hf_prefixed
    assert "train/val/ratio" in unhealthy.series and "args" not in unhealthy.series
    ratio = unhealthy.series["train/val/ratio"]
    assert ratio[-1].step == 50 and ratio[-1].value == pytest.approx(1.6)
    assert ratio[0].time is not None


def test_tensorboard_tensor_scalars_and_histograms(tmp_path: Path) -> None:
    import numpy as np
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(log_dir=str(tmp_path))
    for step in range(3):
        writer.add_scalar("kl", 0.1 * step, step, new_style=True)  # a tensor of the scalars plugin
        writer.add_histogram("objective/kl_dist", np.array([0.1, 0.2, 0.3]), step)
    writer.close()
    (run,) = read_log(tmp_path)
    assert [p.value for p in run.series["kl"]] == pytest.approx([0.0, 0.1, 0.2])
    assert run.non_scalar == {"objective/kl_dist"}


def test_wandb_csv_splits_runs_and_skips_bucket_bounds(grpo_csv: Path) -> None:
    runs = read_log(grpo_csv)
    assert [r.run for r in runs] == ["grpo-healthy", "grpo-unhealthy"]
    unhealthy = runs[1]
    assert sorted(unhealthy.series) == [f"train/{key}" for key in sorted(logs.CSV_KEYS)]
    assert unhealthy.series["train/kl"][11].value == -0.05


def test_wandb_jsonl_uses_the_trainer_step_and_skips_system_keys(wandb_run_dir: Path) -> None:
    assert detect_format(wandb_run_dir)[0] == "wandb-jsonl"
    (run,) = read_log(wandb_run_dir)
    assert run.hf_prefixed
    assert [p.step for p in run.series["eval/reward"]] == [25, 50]  # train/global_step, not _step
    assert not any(key.startswith("_") for key in run.series)
    assert "train/global_step" not in run.series
    assert run.time_range() is not None


def test_wandb_jsonl_histograms_are_non_scalar(legacy_jsonl: Path) -> None:
    (run,) = read_log(legacy_jsonl)
    assert "env/reward_dist" in run.non_scalar and "env/reward_dist" in run.logged_keys()
    assert run.series["ppo/loss/value"][0].step == 0  # W&B's _step starts at 0


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "trainer_state.json",
            '{\n  "log_history": [\n    {"step": 1,\n',
            r"trainer_state\.json:4: not valid JSON",
        ),
        ("trainer_state.json", '{"global_step": 3}', r"no 'log_history' list"),
        (
            "trainer_state.json",
            '{"log_history": [{"loss": 1.0}]}',
            r"log_history\[0\] has no finite numeric 'step'",
        ),
        (
            "history.jsonl",
            '{"_step": 0, "kl": 1}\n{"_step": 1, "kl": 2}\n{"_step": 2, "kl": \n',
            r"history\.jsonl:3: not valid JSON",
        ),
        ("history.jsonl", '{"_step": 0}\n[1, 2]\n', r"history\.jsonl:2: a JSON list, not an object"),
        (
            "export.csv",
            '"Step","run - kl"\n"1","0.5"\n"two","0.5"\n',
            r"export\.csv:3: the step cell 'two' is not a finite number",
        ),
        ("export.csv", '"run - kl","run - loss"\n"1","0.5"\n', r"export\.csv:1: no step column"),
        (
            "export.csv",
            '"Step","run - kl"\n"1","0.5","0.7"\n',
            r"export\.csv:2: 3 cells where the header has 2",
        ),
        ("export.csv", "", r"export\.csv: holds no records \(the file is empty\)"),
        ("run.log", "loss=1", r"cannot tell the format .* --input-format"),
    ],
)
def test_bad_input_names_the_file_line_and_fix(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LogError, match=message):
        read_log(path)


def test_a_folder_without_logs_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing", encoding="utf-8")
    with pytest.raises(LogError, match="no log found in this folder"):
        read_log(tmp_path)


def test_forced_format_reads_a_jsonl_with_another_name(tmp_path: Path) -> None:
    path = tmp_path / "history.txt"
    path.write_text(json.dumps({"_step": 3, "kl": 0.5}) + "\n", encoding="utf-8")
    (run,) = read_log(path, "wandb-jsonl")
    assert run.series["kl"][0].step == 3

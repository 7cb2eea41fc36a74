"""verl's own loggers, written as verl writes them (see ``_framework_logs``) and read back.

Damaged files (cut, garbage, wrong shape) are hostile cases:
tests/fixtures/hostile/logs/cases.toml (``verl-*``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import orjson
import pytest
from _framework_logs import concat_dict_to_str, write_verl_console, write_verl_jsonl

from metrics_registry.runs import LogError, read_log
from metrics_registry.runs.readers import detect_format
from metrics_registry.runs.readers.verl import console_record, read_verl_console, read_verl_jsonl

SERIES = {
    "actor/entropy": [0.6, 0.55, math.nan, 0.5],
    "actor/pg_clipfrac_lower": [0.0, 0.001, 0.002, math.inf],
    "val-core/openai/gsm8k/reward/mean@4": [0.1, 0.2, 0.3, 0.4],
    "timing_s/step": [12.5, 12.0, 11.8, 12.2],
}


def test_the_file_logger_is_read_with_orjsons_nulls_as_non_finite(tmp_path: Path) -> None:
    path = write_verl_jsonl(tmp_path / "proj" / "exp.jsonl", SERIES)
    assert b"null" in path.read_bytes()  # orjson writes NaN and inf as null
    assert detect_format(path) == ("verl-jsonl", path)
    (run,) = read_log(path)
    assert run.format == "verl-jsonl" and not run.problems
    assert [p.step for p in run.series["actor/entropy"]] == [1.0, 2.0, 3.0, 4.0]
    entropy = [p.value for p in run.series["actor/entropy"]]
    assert entropy[:2] == [0.6, 0.55] and math.isnan(entropy[2])
    assert math.isnan(run.series["actor/pg_clipfrac_lower"][3].value)  # inf -> null -> not finite
    assert run.series["val-core/openai/gsm8k/reward/mean@4"][1].value == 0.2


def test_arrays_and_texts_are_non_scalar(tmp_path: Path) -> None:
    path = tmp_path / "exp.jsonl"
    record = {"step": 1, "data": {"actor/entropy": np.float32(0.5), "hist": np.arange(3), "note": "x"}}
    # verl/utils/tracking.py:435@1dda039
    path.write_bytes(orjson.dumps(record, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    run = read_verl_jsonl(path)
    assert run.series["actor/entropy"][0].value == 0.5
    assert run.non_scalar == {"hist", "note"}


def test_a_wandb_history_is_not_taken_for_verl(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    path.write_text('{"_step": 0, "step": 1, "data": 2}\n', encoding="utf-8")
    assert detect_format(path)[0] == "wandb-jsonl"
    nested = tmp_path / "nested.jsonl"
    nested.write_text('{"step": 0, "data": 1}\n', encoding="utf-8")  # data is not an object
    assert detect_format(nested)[0] == "wandb-jsonl"


def test_a_step_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "exp.jsonl"
    path.write_text('{"step": "three", "data": {"actor/entropy": 0.5}}\n', encoding="utf-8")
    with pytest.raises(LogError, match=r"exp.jsonl:1: 'step' is not a finite number"):
        read_verl_jsonl(path)


def test_the_console_logger_is_read_among_other_output(tmp_path: Path) -> None:
    path = write_verl_console(tmp_path / "train.log", SERIES)
    text = path.read_text(encoding="utf-8")
    assert "\x1b[36m(TaskRunner pid=4242)\x1b[0m step:1 - actor/entropy:np.float64(0.6)" in text
    assert "Training Progress" in text
    assert detect_format(path) == ("verl-console", path)
    (run,) = read_log(path)
    assert run.format == "verl-console" and not run.problems
    assert sorted(run.series) == sorted(SERIES)
    values = [p.value for p in run.series["actor/pg_clipfrac_lower"]]
    assert values[:3] == [0.0, 0.001, 0.002] and values[3] == math.inf
    assert math.isnan(run.series["actor/entropy"][2].value)


def test_console_lines_without_rays_prefix_and_every_number_pformat_writes(tmp_path: Path) -> None:
    data = {
        "a": np.float32(0.25),
        "b": np.int64(3),
        "c": 1e-06,
        "d": True,
        "e": float("-inf"),
        "f": 7,
        "skipped": "text",  # not a Number: concat_dict_to_str leaves it out
    }
    line = concat_dict_to_str(data, step=12)
    assert console_record(line) == (
        12.0,
        {"a": 0.25, "b": 3.0, "c": 1e-06, "d": 1.0, "e": -math.inf, "f": 7.0},
    )
    assert console_record("step:0") == (0.0, {})
    assert console_record("global_step:3 - x:1") is None
    assert console_record("Initial validation metrics: {'val-core/x': 0.5}") is None
    path = tmp_path / "plain.txt"
    path.write_text(line + "\n", encoding="utf-8")
    assert read_verl_console(path).series["a"][0].step == 12.0


def test_a_log_of_other_text_is_not_taken_for_verl(tmp_path: Path) -> None:
    path = tmp_path / "notes.log"
    path.write_text("nothing here\nstep by step\n", encoding="utf-8")
    with pytest.raises(LogError, match="cannot tell the format"):
        detect_format(path)

"""Weights & Biases history as JSON lines: one ``wandb.log`` call per line.

The shape of ``wandb-history.jsonl`` in a run's ``files/`` folder, and of
``run.scan_history()`` written out with ``json.dumps`` per row: an object
per line with W&B's own ``_step``, ``_runtime`` and ``_timestamp`` and the
logged keys. Histograms, tables and media are objects (``{"_type": ...}``)
and count as non-scalar keys. When transformers' ``WandbCallback`` logged
the run, keys are rewritten (``train/loss``, ``eval/loss``) and every line
carries ``train/global_step``, the trainer's step, which is used as the step.

A run still being written (or killed while writing) ends in a cut line:
when the last line has no newline and does not parse, the lines before it
are read and the run gets a ``stopped`` :class:`ReadProblem`. A bad line
anywhere else is damage, and the file cannot be read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from metrics_registry.runs.log import LogError, ReadProblem, RunLog
from metrics_registry.runs.readers.values import JsonDepthError, load_json, to_float

__all__ = ["WHAT", "BadLine", "Row", "parse_line", "read_wandb_jsonl", "row_of"]

WHAT = "W&B history holds one JSON object per line (wandb-history.jsonl)"


def read_wandb_jsonl(path: Path, on_progress: Callable[[int], None] | None = None) -> RunLog:
    """Read ``path``; ``on_progress`` gets the number of bytes read so far."""
    run = RunLog(source=path, format="wandb-jsonl")
    done = records = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            start, done = done, done + len(raw)
            if on_progress is not None and number % 1000 == 0:
                on_progress(done)
            try:
                record = parse_line(raw)
            except BadLine as error:
                if raw.endswith(b"\n") or records == 0:
                    raise LogError(f"{path}:{number}: {error}; {WHAT}") from error
                cut = ReadProblem(
                    "stopped", path, f"the last line is cut: {error}", start, line=number, read=records
                )
                run.problems.append(cut)
                break
            if record is None:
                continue
            records += 1
            _add_record(run, path, number, record)
    if on_progress is not None:
        on_progress(done)
    if records == 0:
        what = "the file is empty" if done == 0 else "only blank lines"
        raise LogError(f"{path}: holds no records ({what}); {WHAT}")
    return run


class BadLine(ValueError):
    """A line that is not one JSON object with a step; the message says why."""


def parse_line(raw: bytes) -> dict[str, object] | None:
    """The object on a line (``None`` for a blank line)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadLine(f"not UTF-8 text ({error.reason})") from error
    if not line.strip():
        return None
    try:
        record = load_json(line)
    except json.JSONDecodeError as error:
        raise BadLine(f"not valid JSON ({error.msg})") from error
    except JsonDepthError as error:
        raise BadLine(str(error)) from error
    if not isinstance(record, dict):
        raise BadLine(f"a JSON {type(record).__name__}, not an object")
    return record


@dataclass(frozen=True)
class Row:
    """One line's values: the step, the time, every logged key's number (``None``: not a scalar)."""

    step: float
    time: float | None
    values: dict[str, float | None]
    hf_prefixed: bool  # written through transformers' WandbCallback (``train/global_step``)


def row_of(record: dict[str, object]) -> Row:
    """The values of one parsed line; a :class:`BadLine` when it has no finite step."""
    step = to_float(record.get("train/global_step", record.get("_step")))
    if step is None or not math.isfinite(step):
        raise BadLine("no finite '_step' (or 'train/global_step')")
    values = {
        key: to_float(value)
        for key, value in record.items()
        if not key.startswith("_") and key != "train/global_step"
    }
    return Row(step, to_float(record.get("_timestamp")), values, "train/global_step" in record)


def _add_record(run: RunLog, path: Path, number: int, record: dict[str, object]) -> None:
    try:
        row = row_of(record)
    except BadLine as error:
        raise LogError(f"{path}:{number}: {error}; {WHAT}") from error
    run.hf_prefixed |= row.hf_prefixed
    for key, value in row.values.items():
        if value is None:
            run.non_scalar.add(key)
        else:
            run.add(key, row.step, value, row.time)

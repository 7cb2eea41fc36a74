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
from pathlib import Path

from metrics_registry.runs.log import LogError, ReadProblem, RunLog
from metrics_registry.runs.readers.values import JsonDepthError, load_json, to_float

__all__ = ["read_wandb_jsonl"]

_WHAT = "W&B history holds one JSON object per line (wandb-history.jsonl)"


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
                record = _parse_line(raw)
            except _BadLine as error:
                if raw.endswith(b"\n") or records == 0:
                    raise LogError(f"{path}:{number}: {error}; {_WHAT}") from error
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
        raise LogError(f"{path}: holds no records ({what}); {_WHAT}")
    return run


class _BadLine(ValueError):
    """A line that is not one JSON object; the message says why."""


def _parse_line(raw: bytes) -> dict[str, object] | None:
    """The object on a line (``None`` for a blank line)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _BadLine(f"not UTF-8 text ({error.reason})") from error
    if not line.strip():
        return None
    try:
        record = load_json(line)
    except json.JSONDecodeError as error:
        raise _BadLine(f"not valid JSON ({error.msg})") from error
    except JsonDepthError as error:
        raise _BadLine(str(error)) from error
    if not isinstance(record, dict):
        raise _BadLine(f"a JSON {type(record).__name__}, not an object")
    return record


def _add_record(run: RunLog, path: Path, number: int, record: dict[str, object]) -> None:
    step = to_float(record.get("train/global_step", record.get("_step")))
    if step is None or not math.isfinite(step):
        raise LogError(f"{path}:{number}: no finite '_step' (or 'train/global_step'); {_WHAT}")
    time = to_float(record.get("_timestamp"))
    if "train/global_step" in record:
        run.hf_prefixed = True
    for key, value in record.items():
        if key.startswith("_") or key == "train/global_step":
            continue
        value_number = to_float(value)
        if value_number is None:
            run.non_scalar.add(key)
        else:
            run.add(key, step, value_number, time)

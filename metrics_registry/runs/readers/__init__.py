"""Read a training log in any supported format into :class:`~metrics_registry.runs.log.RunLog` objects.

=================  =====================================================
format             what is passed
=================  =====================================================
``trainer-state``  ``trainer_state.json``, or an output folder whose
                   latest ``checkpoint-<step>/trainer_state.json`` is read
``tensorboard``    a folder of event files (every subfolder with event
                   files is a run), or one event file
``wandb-csv``      a CSV exported from W&B (``.csv``)
``wandb-jsonl``    W&B history as JSON lines (``.jsonl``,
                   ``wandb-history.jsonl``, or a W&B run folder)
``verl-jsonl``     verl's file logger (``.jsonl`` whose first line is
                   ``{"step": ..., "data": {...}}``)
``verl-console``   verl's console logger: a captured terminal log
                   (``.log``, ``.txt``, ``.out``) with ``step:N - key:value``
                   lines
=================  =====================================================

OpenRLHF and NeMo-RL write their metrics only through trackers (W&B,
TensorBoard, MLflow, SwanLab), read by the formats above; their console
output is progress bars and formatted summaries, not a log of keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from metrics_registry.runs.log import LogError, LogFormat, RunLog
from metrics_registry.runs.readers.tensorboard import EVENT_FILE_PREFIX, event_folders, read_tensorboard
from metrics_registry.runs.readers.trainer_state import read_trainer_state
from metrics_registry.runs.readers.verl import (
    is_verl_record,
    looks_like_verl_console,
    read_verl_console,
    read_verl_jsonl,
)
from metrics_registry.runs.readers.wandb_csv import read_wandb_csv
from metrics_registry.runs.readers.wandb_jsonl import read_wandb_jsonl

__all__ = ["FORMATS", "detect_format", "latest_trainer_state", "read_log", "wandb_history"]

FORMATS: tuple[LogFormat, ...] = (
    "trainer-state",
    "tensorboard",
    "wandb-csv",
    "wandb-jsonl",
    "verl-jsonl",
    "verl-console",
)
#: Names of captured terminal output that may hold verl's console logger lines.
_CONSOLE_SUFFIXES = (".log", ".txt", ".out")
#: How much of a file is read to tell its format (a verl record of every metric fits).
_SNIFF_BYTES = 1 << 20

#: Keys transformers' TensorBoard and W&B callbacks always write (``epoch`` and the step, rewritten).
_HF_MARKERS = ("train/epoch", "train/global_step")


def latest_trainer_state(folder: Path) -> Path | None:
    if (folder / "trainer_state.json").is_file():
        return folder / "trainer_state.json"
    checkpoints = [
        (int(match.group(1)), path)
        for path in folder.glob("checkpoint-*/trainer_state.json")
        if (match := re.fullmatch(r"checkpoint-(\d+)", path.parent.name))
    ]
    return max(checkpoints)[1] if checkpoints else None


def wandb_history(folder: Path) -> Path | None:
    for candidate in (folder / "wandb-history.jsonl", folder / "files" / "wandb-history.jsonl"):
        if candidate.is_file():
            return candidate
    return None


def detect_format(path: Path) -> tuple[LogFormat, Path]:
    """The format of ``path`` and the file or folder to read; a clear error when it cannot tell."""
    if path.is_dir():
        if event_folders(path):
            return "tensorboard", path
        state = latest_trainer_state(path)
        if state is not None:
            return "trainer-state", state
        history = wandb_history(path)
        if history is not None:
            return "wandb-jsonl", history
        raise LogError(
            f"{path}: no log found in this folder (TensorBoard event files, trainer_state.json,"
            " checkpoint-*/trainer_state.json or wandb-history.jsonl); pass the log file itself"
        )
    if not path.exists():
        raise LogError(f"{path}: no such file or folder")
    name = path.name
    if name.startswith(EVENT_FILE_PREFIX):
        return "tensorboard", path
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "wandb-csv", path
    if suffix == ".jsonl":
        return ("verl-jsonl" if _first_record_is_verl(path) else "wandb-jsonl"), path
    if suffix == ".json":
        return "trainer-state", path
    if suffix in _CONSOLE_SUFFIXES and path.is_file() and looks_like_verl_console(_head(path)):
        return "verl-console", path
    raise LogError(
        f"{path}: cannot tell the format from the name; pass --input-format ({', '.join(FORMATS)})"
    )


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(_SNIFF_BYTES)


def _first_record_is_verl(path: Path) -> bool:
    """Whether the first non-blank line of a JSON lines file is a verl file logger record."""
    if not path.is_file():
        return False  # a device or pipe: read_log refuses it
    from metrics_registry.runs.readers.wandb_jsonl import BadLine, parse_line

    for raw in _head(path).splitlines():
        try:
            record = parse_line(raw)
        except BadLine:
            return False  # the W&B reader says what is wrong with it
        if record is not None:
            return is_verl_record(record)
    return False


def _refuse_special(path: Path) -> None:
    """A device, pipe or socket never ends (``/dev/zero``) or waits for a writer: refuse it."""
    if path.exists() and not (path.is_file() or path.is_dir()):
        raise LogError(
            f"{path}: not a regular file (a device, a pipe or a socket); pass a log file or a folder of logs"
        )


def read_log(
    path: Path, fmt: LogFormat | None = None, on_progress: Callable[[int, int], None] | None = None
) -> list[RunLog]:
    """Every run in ``path`` (``fmt=None``: detected from the name and content).

    ``on_progress(done, total)`` is called while large text logs are read
    (bytes for JSON lines, rows for CSV, ``total`` 0 when unknown).
    """
    path = Path(path)
    if fmt is None:
        fmt, path = detect_format(path)
    elif not path.exists():
        raise LogError(f"{path}: no such file or folder")
    _refuse_special(path)
    if fmt == "trainer-state":
        if path.is_dir():
            state = latest_trainer_state(path)
            if state is None:
                raise LogError(f"{path}: no trainer_state.json here or in checkpoint-*/")
            path = state
        runs = [read_trainer_state(path)]
    elif fmt == "tensorboard":
        runs = read_tensorboard(path)
    elif fmt in ("verl-jsonl", "verl-console"):
        if path.is_dir():
            raise LogError(f"{path}: a folder; pass the log file verl wrote ({fmt})")
        size = path.stat().st_size
        reader = read_verl_jsonl if fmt == "verl-jsonl" else read_verl_console
        runs = [reader(path, (lambda done: on_progress(done, size)) if on_progress else None)]
    elif fmt == "wandb-csv":
        runs = read_wandb_csv(path, (lambda rows: on_progress(rows, 0)) if on_progress else None)
    else:
        if path.is_dir():
            history = wandb_history(path)
            if history is None:
                raise LogError(f"{path}: no wandb-history.jsonl here or in files/")
            path = history
        size = path.stat().st_size
        runs = [read_wandb_jsonl(path, (lambda done: on_progress(done, size)) if on_progress else None)]
    for run in runs:
        if fmt != "trainer-state" and any(marker in run.series for marker in _HF_MARKERS):
            run.hf_prefixed = True
    return runs

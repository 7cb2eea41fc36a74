"""``trainer_state.json``: the state transformers' ``Trainer`` saves in every checkpoint folder.

Shape (``TrainerState.save_to_json``: ``json.dumps(dataclasses.asdict(state),
indent=2, sort_keys=True)``): a JSON object whose ``log_history`` is the list
of every dictionary ``Trainer.log`` received, each with the ``step``
(``state.global_step``) added, e.g.
``{"epoch": 0.5, "grad_norm": 1.2, "kl": 0.01, "learning_rate": 1e-06,
"loss": 0.02, "reward": 0.4, "step": 10}``. Evaluation entries carry
``eval_``-prefixed keys (``eval_loss``, ``eval_reward``, ``eval_runtime``);
the last entry holds the summary of ``train()`` (``train_runtime``,
``train_loss``, ...). Non-finite values are written as ``NaN``/``Infinity``.
TRL's trainers log through ``Trainer.log``, so their keys land here as logged.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from metrics_registry.runs.log import LogError, RunLog
from metrics_registry.runs.readers.values import JsonDepthError, load_json, to_float

__all__ = ["StateNotReady", "StateRecord", "load_trainer_state", "read_trainer_state", "records_of"]

_WHAT = "a trainer_state.json (written by transformers' Trainer in each checkpoint-<step>/ folder)"


class StateNotReady(LogError):
    """The bytes are not UTF-8 JSON: a damaged file, or one caught while the Trainer rewrites it.

    ``reason`` says why without the file name, ``line`` where (for bad JSON).
    """

    def __init__(self, path: Path, reason: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}; pass {_WHAT}")
        self.reason, self.line = reason, line


def load_trainer_state(path: Path, data: bytes) -> tuple[dict[str, Any], list[object]]:
    """The state object and its ``log_history`` list, read from the bytes of ``path``.

    Raises :class:`LogError` naming the file (and the line, for bad JSON), its subclass
    :class:`StateNotReady` when the bytes are not UTF-8 JSON at all.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise StateNotReady(path, f"not UTF-8 text ({error.reason})") from error
    if not text.strip():
        raise StateNotReady(path, "holds no records (the file is empty)")
    try:
        state = load_json(text)
    except json.JSONDecodeError as error:
        raise StateNotReady(path, f"not valid JSON ({error.msg})", error.lineno) from error
    except JsonDepthError as error:
        raise LogError(f"{path}: {error}; the file is damaged, pass {_WHAT}") from error
    history = state.get("log_history") if isinstance(state, dict) else None
    if not isinstance(history, list):
        raise LogError(f"{path}: no 'log_history' list at the top level; pass {_WHAT}")
    return state, history


#: A record of ``log_history``: the step and each key's number (``None``: not a scalar).
StateRecord = tuple[float, dict[str, float | None]]


def records_of(path: Path, history: list[object], start: int = 0) -> list[StateRecord]:
    """The records of ``history`` from index ``start`` on; a :class:`LogError` for a damaged one."""
    records = []
    for index in range(start, len(history)):
        record = history[index]
        if not isinstance(record, dict):
            raise LogError(f"{path}: log_history[{index}] is not an object; the file is damaged, use {_WHAT}")
        step = to_float(record.get("step"))
        if step is None or not math.isfinite(step):
            raise LogError(
                f"{path}: log_history[{index}] has no finite numeric 'step'; the file is damaged, use {_WHAT}"
            )
        records.append((step, {key: to_float(value) for key, value in record.items() if key != "step"}))
    return records


def read_trainer_state(path: Path) -> RunLog:
    _state, history = load_trainer_state(path, path.read_bytes())
    if not history:
        raise LogError(
            f"{path}: holds no records ('log_history' is empty: nothing was logged yet);"
            " pass the trainer_state.json of a later checkpoint"
        )
    run = RunLog(source=path, format="trainer-state")
    for step, values in records_of(path, history):
        for key, number in values.items():
            if number is None:
                run.non_scalar.add(key)
            else:
                run.add(key, step, number)
    return run

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

from metrics_registry.runs.log import LogError, RunLog
from metrics_registry.runs.readers.values import JsonDepthError, load_json, to_float

__all__ = ["read_trainer_state"]

_WHAT = "a trainer_state.json (written by transformers' Trainer in each checkpoint-<step>/ folder)"


def read_trainer_state(path: Path) -> RunLog:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise LogError(f"{path}: not UTF-8 text ({error.reason}); pass {_WHAT}") from error
    if not text.strip():
        raise LogError(f"{path}: holds no records (the file is empty); pass {_WHAT}")
    try:
        data = load_json(text)
    except json.JSONDecodeError as error:
        raise LogError(f"{path}:{error.lineno}: not valid JSON ({error.msg}); pass {_WHAT}") from error
    except JsonDepthError as error:
        raise LogError(f"{path}: {error}; the file is damaged, pass {_WHAT}") from error
    history = data.get("log_history") if isinstance(data, dict) else None
    if not isinstance(history, list):
        raise LogError(f"{path}: no 'log_history' list at the top level; pass {_WHAT}")
    if not history:
        raise LogError(
            f"{path}: holds no records ('log_history' is empty: nothing was logged yet);"
            " pass the trainer_state.json of a later checkpoint"
        )
    run = RunLog(source=path, format="trainer-state")
    for index, record in enumerate(history):
        if not isinstance(record, dict):
            raise LogError(f"{path}: log_history[{index}] is not an object; the file is damaged, use {_WHAT}")
        step = to_float(record.get("step"))
        if step is None or not math.isfinite(step):
            raise LogError(
                f"{path}: log_history[{index}] has no finite numeric 'step'; the file is damaged, use {_WHAT}"
            )
        for key, value in record.items():
            if key == "step":
                continue
            number = to_float(value)
            if number is None:
                run.non_scalar.add(key)
            else:
                run.add(key, step, number)
    return run

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
from pathlib import Path

from metrics_registry.runs.log import LogError, RunLog
from metrics_registry.runs.readers.values import to_float

__all__ = ["read_trainer_state"]

_WHAT = "a trainer_state.json (written by transformers' Trainer in each checkpoint-<step>/ folder)"


def read_trainer_state(path: Path) -> RunLog:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise LogError(f"{path}: not UTF-8 text ({error.reason}); pass {_WHAT}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise LogError(f"{path}:{error.lineno}: not valid JSON ({error.msg}); pass {_WHAT}") from error
    history = data.get("log_history") if isinstance(data, dict) else None
    if not isinstance(history, list):
        raise LogError(f"{path}: no 'log_history' list at the top level; pass {_WHAT}")
    run = RunLog(source=path, format="trainer-state")
    for index, record in enumerate(history):
        if not isinstance(record, dict):
            raise LogError(f"{path}: log_history[{index}] is not an object; the file is damaged, use {_WHAT}")
        step = to_float(record.get("step"))
        if step is None:
            raise LogError(
                f"{path}: log_history[{index}] has no numeric 'step'; the file is damaged, use {_WHAT}"
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

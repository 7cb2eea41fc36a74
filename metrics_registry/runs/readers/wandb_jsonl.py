"""Weights & Biases history as JSON lines: one ``wandb.log`` call per line.

The shape of ``wandb-history.jsonl`` in a run's ``files/`` folder, and of
``run.scan_history()`` written out with ``json.dumps`` per row: an object
per line with W&B's own ``_step``, ``_runtime`` and ``_timestamp`` and the
logged keys. Histograms, tables and media are objects (``{"_type": ...}``)
and count as non-scalar keys. When transformers' ``WandbCallback`` logged
the run, keys are rewritten (``train/loss``, ``eval/loss``) and every line
carries ``train/global_step``, the trainer's step, which is used as the step.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from metrics_registry.runs.log import LogError, RunLog
from metrics_registry.runs.readers.values import to_float

__all__ = ["read_wandb_jsonl"]

_WHAT = "W&B history holds one JSON object per line (wandb-history.jsonl)"


def read_wandb_jsonl(path: Path, on_progress: Callable[[int], None] | None = None) -> RunLog:
    """Read ``path``; ``on_progress`` gets the number of bytes read so far."""
    run = RunLog(source=path, format="wandb-jsonl")
    done = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            done += len(raw)
            if on_progress is not None and number % 1000 == 0:
                on_progress(done)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise LogError(f"{path}:{number}: not UTF-8 text ({error.reason}); {_WHAT}") from error
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise LogError(f"{path}:{number}: not valid JSON ({error.msg}); {_WHAT}") from error
            if not isinstance(record, dict):
                raise LogError(f"{path}:{number}: a JSON {type(record).__name__}, not an object; {_WHAT}")
            step = to_float(record.get("train/global_step", record.get("_step")))
            if step is None:
                raise LogError(f"{path}:{number}: no '_step' (or 'train/global_step'); {_WHAT}")
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
    if on_progress is not None:
        on_progress(done)
    return run

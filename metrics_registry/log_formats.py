"""The log file formats ``check-run`` and ``watch`` read, named once for the models and the readers.

A module of its own so that the log readers name them without importing the
pydantic models (which a command reading the compiled registry never loads).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["LogFileFormat"]

#: Files a trainer writes: transformers' ``trainer_state.json``, a TensorBoard folder, a W&B CSV
#: export or JSON-lines history, verl's JSON-lines file logger and its console output.
LogFileFormat = Literal[
    "trainer-state", "tensorboard", "wandb-csv", "wandb-jsonl", "verl-jsonl", "verl-console"
]

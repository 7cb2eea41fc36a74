"""Weights & Biases CSV exports.

Two shapes are read:

- a panel exported from the W&B UI ("Export panel data" -> CSV): a ``Step``
  column (or the panel's x-axis, e.g. ``train/global_step``), then for every
  run and key ``<run name> - <key>`` and the bucket bounds
  ``<run name> - <key>__MIN`` / ``__MAX`` (ignored: the plain column is the
  value). One file may hold several runs; each becomes its own run.
- a history table (``run.history().to_csv()``): an optional unnamed index
  column, ``_step`` and plain key columns, W&B's ``_runtime`` and
  ``_timestamp``.

An empty cell means the key was not logged at that step; ``NaN`` and
``Infinity`` are values, and so are ``true``/``false`` (1 and 0). NUL bytes
(a zero-filled block, as a crash or a full disk can leave) are removed from
a row before it is read, and the run gets a ``nul-bytes``
:class:`ReadProblem` naming the lines.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from pathlib import Path

from metrics_registry.runs.log import LogError, ReadProblem, RunLog
from metrics_registry.runs.readers.values import to_float

__all__ = ["STEP_COLUMNS", "read_wandb_csv"]

#: Step columns, in order of preference.
STEP_COLUMNS = ("train/global_step", "Step", "_step", "global_step", "step")
_BOUNDS = ("__MIN", "__MAX")


def _split(column: str) -> tuple[str | None, str]:
    """``("run", "key")`` for ``"run - key"``; ``(None, key)`` for a plain key column."""
    if " - " in column:
        run, key = column.rsplit(" - ", 1)
        return run, key
    return None, column


def _value_columns(header: list[str], step_column: int) -> list[tuple[int, str | None, str]]:
    """``(index, run name, key)`` of every column holding logged values."""
    columns = []
    for index, name in enumerate(header):
        if index == step_column or not name or name.endswith(_BOUNDS):
            continue
        run_name, key = _split(name)
        if key.startswith("_") or key == "train/global_step":
            continue
        columns.append((index, run_name, key))
    return columns


def _clean_row(row: list[str]) -> tuple[list[str], bool]:
    """The row without NUL bytes, and whether it had any."""
    if any("\0" in cell for cell in row):
        return [cell.replace("\0", "") for cell in row], True
    return row, False


class _Table:
    """The runs of one CSV export, filled row by row."""

    def __init__(self, path: Path, header: list[str], step_column: int) -> None:
        self.path = path
        self.header = header
        self.step_column = step_column
        self.time_column = header.index("_timestamp") if "_timestamp" in header else None
        self.columns = _value_columns(header, step_column)
        self.runs: dict[str | None, RunLog] = {}

    def add_row(self, line: int, row: list[str]) -> None:
        path, header = self.path, self.header
        if len(row) != len(header):
            raise LogError(
                f"{path}:{line}: {len(row)} cells where the header has {len(header)};"
                " the file is cut or was edited, export it again"
            )
        step = to_float(row[self.step_column])
        if step is None or not math.isfinite(step):
            raise LogError(
                f"{path}:{line}: the step cell {row[self.step_column]!r} is not a finite number;"
                f" column '{header[self.step_column]}' must hold the step of every row"
            )
        time = to_float(row[self.time_column]) if self.time_column is not None else None
        for index, run_name, key in self.columns:
            cell = row[index]
            if not cell.strip():
                continue
            run = self.runs.get(run_name)
            if run is None:
                run = self.runs[run_name] = RunLog(source=path, format="wandb-csv", run=run_name)
            value = to_float(cell)
            if value is None:
                run.non_scalar.add(key)
            else:
                run.add(key, step, value, time)


def read_wandb_csv(path: Path, on_progress: Callable[[int], None] | None = None) -> list[RunLog]:
    """Read ``path``; ``on_progress`` gets the number of rows read so far."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        try:
            header, nul = _clean_row(next(reader))
        except StopIteration:
            raise LogError(
                f"{path}: holds no records (the file is empty); export the panel or the run history again"
            ) from None
        except (csv.Error, UnicodeDecodeError) as error:
            raise LogError(f"{path}:1: not a CSV file ({error}); export the panel data as CSV") from error
        nul_lines = [1] if nul else []
        step_column = next((header.index(name) for name in STEP_COLUMNS if name in header), None)
        if step_column is None:
            raise LogError(
                f"{path}:1: no step column (looked for {', '.join(STEP_COLUMNS)}); export the panel with"
                " the x-axis 'Step', or the run history with its '_step' column"
            )
        table = _Table(path, header, step_column)
        try:
            for raw_row in reader:
                line = reader.line_num
                if on_progress is not None and line % 1000 == 0:
                    on_progress(line)
                row, nul = _clean_row(raw_row)
                if nul:
                    nul_lines.append(line)
                if any(cell.strip() for cell in row):
                    table.add_row(line, row)
        except (csv.Error, UnicodeDecodeError) as error:
            raise LogError(f"{path}:{reader.line_num}: not a valid CSV row ({error})") from error
    runs = table.runs
    if not runs:
        raise LogError(f"{path}: holds no records below the header; export the panel data again")
    for run in runs.values():
        run.hf_prefixed = header[step_column] == "train/global_step"
        if nul_lines:
            run.problems.append(ReadProblem("nul-bytes", path, "NUL bytes removed", lines=tuple(nul_lines)))
    return [runs[name] for name in sorted(runs, key=lambda n: (n is not None, n or ""))]

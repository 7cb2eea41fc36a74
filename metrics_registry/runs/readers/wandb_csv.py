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
:class:`ReadProblem` naming the lines. An export cut while it was written
ends in a short row (fewer cells than the header) or in a quoted cell that
never closes: the rows before it are read and the run gets a ``stopped``
:class:`ReadProblem`; a bad row anywhere else means the file cannot be read.
A last row that is whole but has no line break after it is read, with an
``unterminated`` :class:`ReadProblem` (it may be cut inside its last cell).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterator
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


class _ShortRow(LogError):
    """A row with fewer cells than the header: damage, or the cut end of the file."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class _Table:
    """The runs of one CSV export, filled row by row."""

    def __init__(self, path: Path, header: list[str], step_column: int) -> None:
        self.path = path
        self.header = header
        self.step_column = step_column
        self.time_column = header.index("_timestamp") if "_timestamp" in header else None
        self.columns = _value_columns(header, step_column)
        self.runs: dict[str | None, RunLog] = {}
        self.rows = 0

    def add_row(self, line: int, row: list[str]) -> None:
        path, header = self.path, self.header
        if len(row) != len(header):
            message = (
                f"{path}:{line}: {len(row)} cells where the header has {len(header)};"
                " the file is cut or was edited, export it again"
            )
            if len(row) < len(header):
                raise _ShortRow(message, f"{len(row)} of {len(header)} cells")
            raise LogError(message)
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
        self.rows += 1


def _at_end(reader: Iterator[list[str]]) -> bool:
    """Whether only blank rows are left (after a bad row: then it was the last one)."""
    try:
        return not any(any(cell.strip() for cell in row) for row in reader)
    except csv.Error:
        return False


def _ends_with_line_break(path: Path) -> bool:
    """Exports end every row with a line break; a file without one at the end may be cut there."""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return True
        handle.seek(-1, 2)
        return handle.read(1) in (b"\n", b"\r")


def _cut(
    path: Path, table: _Table, line: int, reason: str, reader: Iterator[list[str]]
) -> ReadProblem | None:
    """A ``stopped`` problem when the bad row starting on ``line`` is the last one after good rows."""
    if table.rows == 0 or not _at_end(reader):
        return None
    return ReadProblem("stopped", path, f"the last row is cut: {reason}", line=line, read=table.rows)


def read_wandb_csv(path: Path, on_progress: Callable[[int], None] | None = None) -> list[RunLog]:
    """Read ``path``; ``on_progress`` gets the number of rows read so far."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, strict=True)
        problems: list[ReadProblem] = []
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
        line = last_row = 1  # the last line read; the first line of the last row
        try:
            for raw_row in reader:
                first, line = line + 1, reader.line_num
                if on_progress is not None and line % 1000 == 0:
                    on_progress(line)
                row, nul = _clean_row(raw_row)
                if nul:
                    nul_lines.append(line)
                if any(cell.strip() for cell in row):
                    last_row = first
                    try:
                        table.add_row(line, row)
                    except _ShortRow as error:
                        cut = _cut(path, table, first, error.reason, reader)
                        if cut is None:
                            raise
                        problems.append(cut)
                        break
        except (csv.Error, UnicodeDecodeError) as error:
            # strict: a quoted cell still open at the end of the file is an error, not a value
            cut = None
            if isinstance(error, csv.Error):
                cut = _cut(path, table, line + 1, f"a quoted cell is not closed ({error})", reader)
            if cut is None:
                raise LogError(f"{path}:{reader.line_num}: not a valid CSV row ({error})") from error
            problems.append(cut)
    if not problems and table.rows and not _ends_with_line_break(path):
        problems.append(ReadProblem("unterminated", path, "no line break at the end", line=last_row))
    runs = table.runs
    if not runs:
        raise LogError(f"{path}: holds no records below the header; export the panel data again")
    for run in runs.values():
        run.hf_prefixed = header[step_column] == "train/global_step"
        run.problems.extend(problems)
        if nul_lines:
            run.problems.append(ReadProblem("nul-bytes", path, "NUL bytes removed", lines=tuple(nul_lines)))
    return [runs[name] for name in sorted(runs, key=lambda n: (n is not None, n or ""))]

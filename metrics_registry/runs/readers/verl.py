"""verl's own loggers: the file logger (JSON lines) and the console logger (text lines).

Both are backends of ``verl.utils.tracking.Tracking`` (``trainer.logger``);
each ``Tracking.log(data, step)`` call writes one line. Read from verl at
commit 1dda039:

``verl-jsonl`` (``FileLogger``, ``verl/utils/tracking.py:419-438``)
    ``orjson.dumps({"step": step, "data": data},
    option=orjson.OPT_SERIALIZE_NUMPY) + b"\\n"``, written to
    ``$VERL_FILE_LOGGER_PATH`` or ``<root>/<project>/<experiment>.jsonl``.
    orjson writes NaN and infinities as ``null``: a ``null`` value is read
    as NaN (the value was not finite, which the check reports). Arrays and
    strings are non-scalar values.

``verl-console`` (``LocalLogger``, ``verl/utils/logger/aggregate_logger.py:26-51``)
    ``print("step:{step} - key:value - key:value ...")`` where each value is
    ``pprint.pformat`` of a number (``0.5``, ``nan``, ``True``, and NumPy's
    ``np.float64(0.5)`` since NumPy 2); values that are not numbers are left
    out. The trainer runs in a Ray actor, so the line usually reaches the
    terminal behind Ray's prefix, ``(TaskRunner pid=123)``, in colour.
    Every other line of a console log (Ray's, vLLM's, progress bars) is
    skipped.

A log cut while it is written (the run killed) ends in a line without its
newline: the lines before it are read and the run gets a ``stopped``
:class:`~metrics_registry.runs.log.ReadProblem`. Any other damaged line
(bad JSON, a record without a step, a step line whose values are not
numbers) means the file cannot be read (exit 3), with the line named.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from metrics_registry.runs.log import LogError, ReadProblem, RunLog
from metrics_registry.runs.readers.values import to_float
from metrics_registry.runs.readers.wandb_jsonl import BadLine, parse_line

__all__ = [
    "CONSOLE_WHAT",
    "JSONL_WHAT",
    "console_record",
    "is_verl_record",
    "looks_like_verl_console",
    "read_verl_console",
    "read_verl_jsonl",
]

JSONL_WHAT = 'verl\'s file logger writes one {"step": ..., "data": {...}} object per line'
CONSOLE_WHAT = "verl's console logger prints 'step:N - key:value - ...' lines"

#: ANSI colour codes (Ray colours its ``(TaskRunner pid=...)`` prefix).
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: A console logger line: ``step:N`` at the start or after a prefix, then `` - key:value`` pairs.
_STEP_LINE = re.compile(r"(?:^|\s)step:(-?\d+)((?: - .*)?)$")
#: ``np.float64(0.5)``, ``numpy.int64(3)``: NumPy 2's repr of its scalars.
_NUMPY_SCALAR = re.compile(r"(?:np|numpy)\.[a-z]+[0-9]*\((.*)\)")


def is_verl_record(record: object) -> bool:
    """Whether a parsed JSON line has the file logger's shape: exactly ``step`` and ``data`` (an object)."""
    return isinstance(record, dict) and set(record) == {"step", "data"} and isinstance(record["data"], dict)


def _lines(path: Path, on_progress: Callable[[int], None] | None) -> Iterator[tuple[int, int, bytes]]:
    """``(number, start byte, raw line)`` of every line, reporting progress every 1000 lines."""
    done = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            start, done = done, done + len(raw)
            if on_progress is not None and number % 1000 == 0:
                on_progress(done)
            yield number, start, raw
    if on_progress is not None:
        on_progress(done)


def _stopped(run: RunLog, path: Path, reason: str, *, start: int, number: int, records: int) -> None:
    run.problems.append(ReadProblem("stopped", path, reason, start, line=number, read=records))


def _empty(path: Path, what: str) -> LogError:
    size = path.stat().st_size
    found = "the file is empty" if size == 0 else "no line of this shape"
    return LogError(f"{path}: holds no records ({found}); {what}")


def read_verl_jsonl(path: Path, on_progress: Callable[[int], None] | None = None) -> RunLog:
    """Read verl's file logger output; ``on_progress`` gets the number of bytes read so far."""
    run = RunLog(source=path, format="verl-jsonl")
    records = 0
    for number, start, raw in _lines(path, on_progress):
        try:
            record = parse_line(raw)
            if record is not None and not is_verl_record(record):
                raise BadLine('not a {"step": ..., "data": {...}} object')
        except BadLine as error:
            if raw.endswith(b"\n") or records == 0:
                raise LogError(f"{path}:{number}: {error}; {JSONL_WHAT}") from error
            _stopped(run, path, f"the last line is cut: {error}", start=start, number=number, records=records)
            break
        if record is None:
            continue
        step = to_float(record["step"])
        if step is None or not math.isfinite(step):
            raise LogError(f"{path}:{number}: 'step' is not a finite number; {JSONL_WHAT}")
        records += 1
        data = record["data"]
        assert isinstance(data, dict)
        for key, value in data.items():
            number_value = math.nan if value is None else to_float(value)
            if number_value is None:
                run.non_scalar.add(key)
            else:
                run.add(key, step, number_value)
    if records == 0:
        raise _empty(path, JSONL_WHAT)
    return run


def console_record(line: str) -> tuple[float, dict[str, float]] | None:
    """The step and values of one console line; ``None`` for any other line.

    Raises :class:`ValueError` for a step line whose values cannot be read.

    >>> console_record("(TaskRunner pid=7) step:3 - actor/entropy:0.5 - actor/pg_loss:np.float64(-0.1)")
    (3.0, {'actor/entropy': 0.5, 'actor/pg_loss': -0.1})
    >>> console_record("Training Progress:  12%|#2  | 3/25") is None
    True
    """
    match = _STEP_LINE.search(_ANSI.sub("", line.rstrip("\r\n")))
    if match is None:
        return None
    values: dict[str, float] = {}
    pairs = match.group(2)[len(" - ") :].split(" - ") if match.group(2) else []
    for pair in pairs:
        key, sep, text = pair.rpartition(":")
        numpy = _NUMPY_SCALAR.fullmatch(text.strip())
        value = to_float(numpy.group(1) if numpy else text)
        if not sep or not key or value is None:
            shown = pair if len(pair) <= 80 else pair[:80] + "…"
            raise ValueError(f"'{shown}' is not key:number")
        values[key] = value
    return float(match.group(1)), values


def looks_like_verl_console(head: bytes) -> bool:
    """Whether the start of a text file holds a console logger line."""
    text = head.decode("utf-8", "replace")
    return any(_STEP_LINE.search(_ANSI.sub("", line)) for line in text.splitlines())


def read_verl_console(path: Path, on_progress: Callable[[int], None] | None = None) -> RunLog:
    """Read the ``step:N - key:value`` lines of a console log; every other line is skipped."""
    run = RunLog(source=path, format="verl-console")
    records = 0
    for number, start, raw in _lines(path, on_progress):
        try:
            # other programs' output may hold any bytes; a step line's bytes must read as numbers
            record = console_record(raw.decode("utf-8", "replace"))
        except ValueError as error:
            if raw.endswith(b"\n") or records == 0:
                raise LogError(f"{path}:{number}: {error}; {CONSOLE_WHAT}") from error
            _stopped(run, path, f"the last line is cut: {error}", start=start, number=number, records=records)
            break
        if record is None:
            continue
        if not raw.endswith(b"\n"):
            # print() ends every line: a step line without its newline was cut, maybe inside a number
            _stopped(
                run,
                path,
                "the last line is cut (no line break after it)",
                start=start,
                number=number,
                records=records,
            )
            break
        records += 1
        step, values = record
        for key, value in values.items():
            run.add(key, step, value)
    if records == 0:
        raise _empty(path, CONSOLE_WHAT)
    return run

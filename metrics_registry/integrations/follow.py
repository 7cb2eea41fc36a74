"""Read a log while it is being written: the records added since the last look, and nothing else.

A follower is asked for new records (:meth:`Follower.poll`) whenever the
file-watcher says the log changed, and once more when the watch ends
(:meth:`Follower.finish`). What is half written is not an error:

``wandb-jsonl``
    Complete lines only; a last line without its line break is kept for the
    next look. When the watch ends, such a line is read if it parses, else
    it is reported as ``check-run`` reports a cut last line.
``trainer-state``
    The Trainer rewrites ``trainer_state.json`` in place (and a new one in
    each ``checkpoint-<step>/``), so a look may catch it half written:
    such a version is skipped until the file changes again. Records are
    ``log_history`` entries past those already read. The run has ended when
    ``global_step`` reaches ``max_steps``.
``tensorboard``
    :mod:`metrics_registry.integrations.follow_tensorboard`.

Lines and records are parsed by the ``check-run`` readers' own functions,
so a log reads the same followed or read whole. A damaged record (not a
cut one) is a :class:`~metrics_registry.runs.log.LogError`, as for
``check-run``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from metrics_registry.runs.log import LogError, LogFormat, ReadProblem
from metrics_registry.runs.readers import detect_format, latest_trainer_state, wandb_history
from metrics_registry.runs.readers.trainer_state import StateNotReady, load_trainer_state, records_of
from metrics_registry.runs.readers.values import to_float
from metrics_registry.runs.readers.wandb_jsonl import WHAT, BadLine, parse_line, row_of

__all__ = ["FOLLOWED", "Follower", "JsonLinesFollower", "Record", "TrainerStateFollower", "follower_for"]

#: The formats ``watch`` follows (a CSV export is a finished log: ``check-run`` reads it).
FOLLOWED: tuple[LogFormat, ...] = ("trainer-state", "tensorboard", "wandb-jsonl")

#: Keys of the summary ``Trainer.train()`` logs once, at the end (``train/`` when rewritten).
END_KEYS = frozenset({"train_runtime", "train/train_runtime"})

_CHUNK = 1 << 22  # bytes read at a time: a large log is read in pieces, not at once


@dataclass(frozen=True)
class Record:
    """One logging step: the values of each key (``None``: not a scalar) at ``step``."""

    step: float
    values: dict[str, float | None]
    time: float | None = None
    run: str | None = None  # the run within a TensorBoard folder
    hf_prefixed: bool = False  # keys rewritten by transformers' TensorBoard or W&B callback


@dataclass
class Follower:
    """What every follower has: the log, where to watch it, and what it found at the end."""

    path: Path
    format: LogFormat
    #: The run said it has ended (a Trainer's end-of-training summary, the last step).
    ended: bool = False
    #: Why the last look found nothing to read yet, for the status line (``None``: nothing waits).
    waiting: str | None = None
    records_read: int = 0
    problems: list[tuple[str | None, ReadProblem]] = field(default_factory=list)

    @property
    def watched(self) -> tuple[Path, bool]:
        """The folder to watch, and whether recursively."""
        if self.path.is_dir():
            return self.path, True
        return self.path.parent, False

    def poll(self) -> list[Record]:
        raise NotImplementedError

    def finish(self) -> list[Record]:
        """The last records (what only the end settles); damage goes to :attr:`problems`."""
        return []

    def _mark_end(self, records: list[Record]) -> None:
        if any(END_KEYS.intersection(record.values) for record in records):
            self.ended = True


class JsonLinesFollower(Follower):
    """W&B history as JSON lines, appended to."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "wandb-jsonl")
        self._read_to = 0  # bytes read
        self._consumed = 0  # bytes of the complete lines read
        self._partial = b""  # the last line, still without its line break
        self._lines = 0

    def poll(self) -> list[Record]:
        size = self.path.stat().st_size
        if size < self._read_to:
            raise LogError(
                f"{self.path}: the file got shorter while it was followed (was it replaced?);"
                " watch the new file from the start"
            )
        records: list[Record] = []
        with self.path.open("rb") as handle:
            handle.seek(self._read_to)
            while self._read_to < size:
                chunk = handle.read(min(_CHUNK, size - self._read_to))
                if not chunk:
                    break
                self._read_to += len(chunk)
                *lines, self._partial = (self._partial + chunk).split(b"\n")
                for raw in lines:
                    self._lines += 1
                    self._consumed += len(raw) + 1
                    self._add(raw + b"\n", records)
        self.waiting = None
        self._mark_end(records)
        return records

    def _add(self, raw: bytes, records: list[Record]) -> None:
        try:
            record = parse_line(raw)
            if record is None:
                return
            row = row_of(record)
        except BadLine as error:
            raise LogError(f"{self.path}:{self._lines}: {error}; {WHAT}") from error
        self.records_read += 1
        records.append(Record(row.step, row.values, row.time, hf_prefixed=row.hf_prefixed))

    def finish(self) -> list[Record]:
        records = self.poll()
        if self._partial.strip():
            number = self._lines + 1
            try:
                record = parse_line(self._partial)
                if record is not None:
                    row = row_of(record)
                    self.records_read += 1
                    records.append(Record(row.step, row.values, row.time, hf_prefixed=row.hf_prefixed))
            except BadLine as error:
                if self.records_read == 0:
                    raise LogError(f"{self.path}:{number}: {error}; {WHAT}") from error
                reason = f"the last line is cut: {error}"
                cut = ReadProblem(
                    "stopped", self.path, reason, self._consumed, line=number, read=self.records_read
                )
                self.problems.append((None, cut))
        if self.records_read == 0:
            raise LogError(
                f"{self.path}: holds no records (nothing was written while it was watched); {WHAT}"
            )
        return records


class TrainerStateFollower(Follower):
    """``trainer_state.json``, or an output folder whose ``checkpoint-<step>/`` folders appear."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "trainer-state")
        self._seen: tuple[Path, int, int] | None = None  # the version last read: file, mtime, size
        self._history = 0  # log_history entries read
        self._not_ready: StateNotReady | None = None

    def _current(self) -> Path | None:
        if self.path.is_dir():
            return latest_trainer_state(self.path)
        return self.path if self.path.exists() else None

    def poll(self) -> list[Record]:
        current = self._current()
        if current is None:
            self.waiting = f"{self.path}: no trainer_state.json yet (here or in checkpoint-*/)"
            return []
        info = current.stat()
        version = (current, info.st_mtime_ns, info.st_size)
        if version == self._seen:
            return []
        self._seen = version
        try:
            state, history = load_trainer_state(current, current.read_bytes())
        except StateNotReady as error:  # caught mid-write: read it again when it changes
            self._not_ready = error
            self.waiting = str(error)
            return []
        self._not_ready, self.waiting = None, None
        records = [Record(step, values) for step, values in records_of(current, history, self._history)]
        self._history = max(self._history, len(history))
        self.records_read += len(records)
        steps, last = to_float(state.get("global_step")), to_float(state.get("max_steps"))
        if steps is not None and last is not None and math.isfinite(last) and 0 < last <= steps:
            self.ended = True
        self._mark_end(records)
        return records

    def finish(self) -> list[Record]:
        records = self.poll()
        error = self._not_ready
        if error is not None:
            if self.records_read == 0:
                raise LogError(str(error))
            assert self._seen is not None
            problem = ReadProblem(
                "stopped", self._seen[0], error.reason, line=error.line, read=self.records_read
            )
            self.problems.append((None, problem))
        if self.records_read == 0:
            raise LogError(
                f"{self.path}: holds no records (nothing was logged while it was watched);"
                " pass the trainer_state.json or the output_dir of a run"
            )
        return records


def follower_for(path: Path, fmt: LogFormat | None = None) -> Follower:
    """The follower of ``path``: ``fmt``, or the format told from the name or what the folder holds."""
    if fmt is None:
        fmt, detected = detect_format(path)
        if not (path.is_dir() and fmt == "trainer-state"):  # a folder: follow its checkpoints as they come
            path = detected
    if fmt not in FOLLOWED:
        raise LogError(
            f"{path}: watch follows {', '.join(FOLLOWED)} logs; a {fmt} file is read whole: use check-run"
        )
    if path.exists() and not (path.is_file() or path.is_dir()):
        raise LogError(
            f"{path}: not a regular file (a device, a pipe or a socket); pass a log file or a folder"
        )
    if fmt == "tensorboard":
        from metrics_registry.integrations.follow_tensorboard import TensorBoardFollower

        return TensorBoardFollower(path)
    if fmt == "trainer-state":
        return TrainerStateFollower(path)
    if path.is_dir():
        history = wandb_history(path)
        if history is None:
            raise LogError(f"{path}: no wandb-history.jsonl here or in files/")
        path = history
    return JsonLinesFollower(path)

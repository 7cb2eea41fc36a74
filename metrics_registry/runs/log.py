"""What a run checker reads from any log: one series of points per logged key.

Readers (:mod:`metrics_registry.runs.readers`) turn each file format into a
:class:`RunLog`; everything after that (identifying keys, evaluating the
healthy rules, the report) works on this shape only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from metrics_registry.log_formats import LogFileFormat
from metrics_registry.registry import RegistryError

__all__ = ["LogError", "LogFormat", "LogSummary", "Point", "ReadProblem", "RunLog", "time_span"]

#: ``live``: values handed to the live monitor by a training loop, not read from a file.
LogFormat = Literal[LogFileFormat, "live"]


class LogError(RegistryError):
    """A log cannot be read; the message names the file, the line where there is one, and the fix."""


@dataclass(frozen=True)
class Point:
    """One logged value: the trainer's step, the value (NaN and infinities kept) and when, if known."""

    step: float
    value: float
    time: float | None = None  # seconds since the epoch


@dataclass(frozen=True)
class ReadProblem:
    """Damage a reader read around; the report turns each into a finding.

    ``stopped``
        The log is readable up to a point and no further (a truncated or
        CRC-corrupted TensorBoard record, a cut last line of JSON lines or
        last row of a CSV export): ``byte`` where the bad record or line
        starts (``None`` for CSV, read as text), ``record`` or ``line`` its
        number (from 1), ``read`` how many records or rows came before it.
    ``nul-bytes``
        NUL bytes (a zero-filled block, as a crash can leave) were removed
        from the CSV rows on ``lines`` before they were read.
    ``unterminated``
        The last CSV row, starting on ``line``, has no line break after it:
        it was read, but it may be cut inside its last cell.
    """

    kind: Literal["stopped", "nul-bytes", "unterminated"]
    file: Path
    reason: str = ""  # English, from the reader
    byte: int | None = None
    record: int | None = None
    line: int | None = None
    read: int = 0
    lines: tuple[int, ...] = ()


@dataclass
class RunLog:
    """The scalar series of one run, by logged key, in logging order.

    ``hf_prefixed`` says that transformers' TensorBoard or W&B callback
    rewrote the keys (``loss`` -> ``train/loss``, ``eval_loss`` ->
    ``eval/loss``), which is how those two formats store a Trainer's logs.
    """

    source: Path
    format: LogFormat
    run: str | None = None
    series: dict[str, list[Point]] = field(default_factory=dict)
    non_scalar: set[str] = field(default_factory=set)
    hf_prefixed: bool = False
    problems: list[ReadProblem] = field(default_factory=list)

    def add(self, key: str, step: float, value: float, time: float | None = None) -> None:
        if time is not None and not math.isfinite(time):
            time = None  # a damaged timestamp is no time, not a date the report cannot print
        self.series.setdefault(key, []).append(Point(step, value, time))

    @property
    def name(self) -> str:
        """``path`` or ``path (run)`` for the report."""
        return f"{self.source} ({self.run})" if self.run else str(self.source)

    def logged_keys(self) -> list[str]:
        """Every logged key, scalar or not, sorted."""
        return sorted(set(self.series) | self.non_scalar)

    def time_range(self) -> tuple[datetime, datetime] | None:
        times = [p.time for points in self.series.values() for p in points if p.time is not None]
        return time_span(min(times), max(times)) if times else None

    def step_range(self) -> tuple[float, float] | None:
        steps = [p.step for points in self.series.values() for p in points]
        return (min(steps), max(steps)) if steps else None


def time_span(first: float, last: float) -> tuple[datetime, datetime] | None:
    """Two times (seconds since the epoch) as UTC dates; ``None`` beyond the years ``datetime`` holds."""
    try:
        return datetime.fromtimestamp(first, tz=UTC), datetime.fromtimestamp(last, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


@dataclass(frozen=True)
class LogSummary:
    """What a report says of the log as a whole: points per key, the steps and times it spans.

    Kept apart from :class:`RunLog` so that a monitor that keeps no points can report too.
    """

    points: dict[str, int] = field(default_factory=dict)
    steps: tuple[float, float] | None = None
    times: tuple[datetime, datetime] | None = None

    @classmethod
    def of(cls, log: RunLog) -> LogSummary:
        points = {key: len(points) for key, points in log.series.items()}
        return cls(points, log.step_range(), log.time_range())

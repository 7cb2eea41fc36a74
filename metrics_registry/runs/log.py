"""What a run checker reads from any log: one series of points per logged key.

Readers (:mod:`metrics_registry.runs.readers`) turn each file format into a
:class:`RunLog`; everything after that (identifying keys, evaluating the
healthy rules, the report) works on this shape only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal

from metrics_registry.registry import RegistryError

__all__ = ["LogError", "LogFormat", "Point", "RunLog"]

LogFormat = Literal["trainer-state", "tensorboard", "wandb-csv", "wandb-jsonl"]


class LogError(RegistryError):
    """A log cannot be read; the message names the file, the line where there is one, and the fix."""


@dataclass(frozen=True)
class Point:
    """One logged value: the trainer's step, the value (NaN and infinities kept) and when, if known."""

    step: float
    value: float
    time: float | None = None  # seconds since the epoch


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

    def add(self, key: str, step: float, value: float, time: float | None = None) -> None:
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
        if not times:
            return None
        from datetime import timezone

        return (
            datetime.fromtimestamp(min(times), tz=timezone.utc),
            datetime.fromtimestamp(max(times), tz=timezone.utc),
        )

    def step_range(self) -> tuple[float, float] | None:
        steps = [p.step for points in self.series.values() for p in points]
        return (min(steps), max(steps)) if steps else None

"""Check a run while it trains: :class:`HealthMonitor`, fed by any training loop.

Hand it the metrics of every logging step; it says which healthy rule a
series breaks as soon as it breaks it, once per finding, and writes the
same report as ``metrics-registry check-run`` when the run ends::

    monitor = HealthMonitor(on_finding=lambda finding: print(finding.key, finding.rule_id))
    for step in range(steps):
        metrics = train_step()
        monitor.observe(step, metrics)
    monitor.write_report("output/")  # health-report.json and health-report.md

What is judged and how is :mod:`metrics_registry.runs.rules`'s, on the
series logged so far: at every step, :meth:`HealthMonitor.report` is what
``check-run`` would say of the log written up to that step. Each key keeps
the state of its rules (:class:`~metrics_registry.runs.check.SeriesCheck`),
never its history, so a step costs the same work at step 10 as at step
100,000 (a ``direction`` rule, whose fit needs every point, keeps the
points as 16 bytes each and is judged again each time its series doubles).

A key's family is settled as ``check-run`` settles it, from every key logged
so far: a key several families log keeps the rule states of each candidate
until the other keys settle which one it is.

Live findings are the findings about a series (``rule`` and ``non-finite``):
notes about keys (unknown, legacy, ambiguous) and a run that checked nothing
are only in the report. A finding is reported when a rule first fires; if
the series recovers later (a warning range judged on a fifth of the
points), the report at the end no longer holds it, as ``check-run`` on the
whole log would not.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from metrics_registry.registry import Entry, Registry
from metrics_registry.runs.check import (
    SEVERITIES,
    FindingId,
    RunFinding,
    RunReport,
    SeriesCheck,
    Severity,
    build_report,
    finding_id,
)
from metrics_registry.runs.detect import Detection
from metrics_registry.runs.identify import KeyInfo, identify_run, lookup_forms
from metrics_registry.runs.log import LogFormat, LogSummary, Point, ReadProblem, RunLog, time_span
from metrics_registry.runs.readers.values import to_float
from metrics_registry.runs.rules import Thresholds

__all__ = ["REPORT_STEM", "HealthMonitor", "at_least"]

#: ``health-report.json`` and ``health-report.md``.
REPORT_STEM = "health-report"


def at_least(finding: RunFinding, severity: Severity) -> bool:
    """Whether ``finding`` is as severe as ``severity`` or more."""
    return SEVERITIES.index(finding.severity) <= SEVERITIES.index(severity)


def _number(value: object) -> float | None:
    """The value as a float, or ``None`` for something that is not one number.

    Numbers as the log readers read them (:func:`to_float`), and what a
    training loop hands over as is: a NumPy scalar or a one-element tensor.
    """
    if type(value) is float:  # the common case, first: this runs for every key of every step
        return value
    number = to_float(value)
    if number is not None or isinstance(value, str) or not hasattr(value, "__float__"):
        return number
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, RuntimeError, OverflowError):  # a tensor of several values, ...
        return None


class HealthMonitor:
    """The registry's healthy rules, judged step by step over the metrics of a running training.

    ``registry``: the registry to judge with (default: the built-in families
    and the project's configured extras, as the CLI loads them). ``family``
    and ``trl_version`` settle ambiguous keys as ``check-run --family`` and
    ``--trl-version`` do. ``on_finding`` is called with each new finding.
    ``source``, ``log_format`` and ``run`` name the run in the report;
    ``hf_prefixed`` says that the keys carry transformers' ``train/`` and
    ``eval/`` prefixes (its TensorBoard and W&B callbacks write them so).
    """

    def __init__(
        self,
        registry: Registry | None = None,
        *,
        family: str | None = None,
        trl_version: str | None = None,
        thresholds: Thresholds | None = None,
        on_finding: Callable[[RunFinding], None] | None = None,
        source: str | Path = "live",
        log_format: LogFormat = "live",
        run: str | None = None,
        hf_prefixed: bool = False,
    ) -> None:
        if registry is None:
            from metrics_registry.api import load

            registry = load(include_configured=True)
        if family is not None:
            registry.family(family)  # an unknown family is an error now, not at the first step
        self.registry = registry
        self.family = family
        self.trl_version = trl_version
        self.thresholds = thresholds or Thresholds()
        self.on_finding = on_finding
        self.source, self.log_format, self.run = Path(source), log_format, run
        self._hf_prefixed = hf_prefixed
        #: Every finding reported so far, in the order it was reported.
        self.findings: list[RunFinding] = []
        self.problems: list[ReadProblem] = []
        self._series: dict[str, SeriesCheck] = {}
        self._non_scalar: set[str] = set()
        self._keys: dict[str, KeyInfo] = {}
        self._votes: Counter[str] = Counter()
        self._detection: Detection | None = None
        self._stale = False  # keys were added since they were last identified
        self._reported: set[FindingId] = set()
        self._steps: tuple[float, float] | None = None
        self._times: tuple[float, float] | None = None

    @property
    def hf_prefixed(self) -> bool:
        return self._hf_prefixed

    @hf_prefixed.setter
    def hf_prefixed(self, value: bool) -> None:
        if value != self._hf_prefixed:
            self._hf_prefixed, self._stale = value, True

    @property
    def steps_seen(self) -> int:
        """How many points were observed, over every key."""
        return sum(series.points for series in self._series.values())

    @property
    def waiting_for_family(self) -> bool:
        """Every key the registry knows is ambiguous: nothing is checked until a family settles them.

        ``watch`` says so as soon as it is true, rather than waiting in silence
        for findings that cannot come.
        """
        if self._stale:
            self._identify()
        statuses = {info.status for info in self._keys.values()}
        return "ambiguous" in statuses and not statuses & {"known", "legacy"}

    def _candidates(self, key: str) -> list[Entry]:
        """Every entry ``key`` may turn out to be, whatever the other keys settle."""
        forms = dict.fromkeys(lookup_forms(key, True) + lookup_forms(key, False))
        return [m.entry for form in forms for m in self.registry.find(form, trl_version=self.trl_version)]

    def _identify(self) -> None:
        keys = sorted(set(self._series) | self._non_scalar)
        found = identify_run(
            keys,
            self.registry,
            hf_prefixed=self._hf_prefixed,
            family=self.family,
            version=self.trl_version,
            version_of="trl" if self.trl_version is not None else None,
            log_format=self.log_format,
        )
        self._keys, self._votes, self._detection = found.keys, found.votes, found.detection
        self._stale = False

    def observe(
        self, step: float, metrics: Mapping[str, object], time: float | None = None
    ) -> list[RunFinding]:
        """Take the metrics logged at ``step`` (``time`` in seconds since the epoch); the new findings.

        A value that is not a number (a histogram, a text) makes its key a non-scalar key.
        """
        if not isinstance(step, int | float) or not math.isfinite(step):
            raise ValueError(f"step must be a finite number, not {step!r}")
        step = float(step)  # as the log readers give it: the same report, to the figure
        if time is not None and not math.isfinite(time):
            time = None
        fed: list[tuple[str, SeriesCheck, float]] = []
        for name, value in metrics.items():
            key = str(name)
            number = _number(value)
            if number is None:
                self._stale |= key not in self._non_scalar and key not in self._series
                self._non_scalar.add(key)
                continue
            series = self._series.get(key)
            if series is None:
                series = self._series[key] = SeriesCheck(self._candidates(key), self.thresholds)
                self._stale = True
            fed.append((key, series, number))
        if self._stale:
            self._identify()
        found: list[RunFinding] = []
        for key, series, number in fed:
            series.add(Point(step, number, time))
            found += series.new_findings(key, self._keys[key], self._reported)
        if fed:
            low, high = self._steps or (step, step)
            self._steps = (min(low, step), max(high, step))
            if time is not None:
                first, last = self._times or (time, time)
                self._times = (min(first, time), max(last, time))
        self.findings += found
        if self.on_finding is not None:
            for finding in found:
                self.on_finding(finding)
        return found

    def finish(self) -> list[RunFinding]:
        """The findings about a series that the report holds and were not reported yet.

        A ``direction`` rule is judged live only when its series doubles; the
        report judges it on every point. Call this once the run has ended:
        what it returns also goes to ``on_finding`` and :attr:`findings`.
        """
        found = []
        for finding in self.report().findings:
            if finding.kind not in ("rule", "non-finite"):
                continue
            ident = finding_id(finding)
            if ident not in self._reported:
                self._reported.add(ident)
                found.append(finding)
        self.findings += found
        if self.on_finding is not None:
            for finding in found:
                self.on_finding(finding)
        return found

    def add_problem(self, problem: ReadProblem) -> None:
        """Damage met while reading the log being followed; the report turns it into a finding."""
        self.problems.append(problem)

    def report(self) -> RunReport:
        """What ``check-run`` would report on the metrics observed so far."""
        if self._stale:
            self._identify()
        log = RunLog(
            self.source,
            self.log_format,
            self.run,
            non_scalar=set(self._non_scalar),
            hf_prefixed=self._hf_prefixed,
            problems=list(self.problems),
        )
        summary = LogSummary(
            {key: series.points for key, series in self._series.items()},
            self._steps,
            time_span(*self._times) if self._times is not None else None,
        )
        return build_report(
            log,
            self._keys,
            self._votes,
            lambda key, _info: self._series.get(key),
            summary=summary,
            detection=self._detection,
        )

    def write_report(
        self, folder: str | Path, *, lang: str = "en", site_url: str = "", stem: str = REPORT_STEM
    ) -> tuple[Path, Path, list[str]]:
        """Write the report as ``<stem>.json`` and ``<stem>.md`` in ``folder``, as ``check-run`` writes them.

        Returns both paths and the warnings of the report's language (a
        catalog that cannot be read, a broken translation). A report
        replaced is kept as ``.bak``.
        """
        from metrics_registry.fileio import atomic_write_text
        from metrics_registry.runs.locale import Localizer
        from metrics_registry.runs.render import render_json, render_markdown

        loc = Localizer(lang, site_url=site_url)
        reports = [self.report()]
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        json_path, markdown_path = folder / f"{stem}.json", folder / f"{stem}.md"
        atomic_write_text(json_path, render_json(reports, loc))
        atomic_write_text(markdown_path, render_markdown(reports, loc))
        return json_path, markdown_path, loc.warnings

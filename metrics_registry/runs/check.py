"""Check one run: identify its keys, evaluate the healthy rules of each known key's series.

The result is data (:class:`RunReport` of :class:`RunFinding`); the words
and numbers for a reader are added by :mod:`metrics_registry.runs.render`
in the report's language.

Finding kinds and severities:

================  =========================================================
``rule``          a healthy rule fired; the rule's severity (warning/error)
``legacy-key``    an old name with a successor (info): the successor is named
``unknown-key``   the registry does not know the key (info)
``ambiguous-key`` several families log the key and nothing settled it (info)
================  =========================================================
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from metrics_registry.registry import Entry, Registry
from metrics_registry.runs.identify import KeyInfo, identify_keys
from metrics_registry.runs.log import RunLog
from metrics_registry.runs.rules import Thresholds, Violation, evaluate

__all__ = ["SEVERITIES", "CheckOptions", "FindingKind", "RunFinding", "RunReport", "check_run"]

FindingKind = Literal["rule", "legacy-key", "unknown-key", "ambiguous-key"]
Severity = Literal["error", "warning", "info"]
#: Most severe first.
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class CheckOptions:
    family: str | None = None
    trl_version: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)


@dataclass(frozen=True)
class RunFinding:
    """One thing to tell about a run."""

    kind: FindingKind
    severity: Severity
    key: str  # as logged
    info: KeyInfo
    rule: object | None = None  # the HealthyRule that fired
    violation: Violation | None = None

    @property
    def entry(self) -> Entry | None:
        return self.info.entry

    @property
    def rule_id(self) -> str | None:
        return getattr(self.rule, "id", None)

    @property
    def step(self) -> float | None:
        return self.violation.step if self.violation is not None else None

    def sort_key(self) -> tuple[int, str, str]:
        return (SEVERITIES.index(self.severity), self.key, self.rule_id or "")


@dataclass
class RunReport:
    """Everything found in one run."""

    log: RunLog
    keys: dict[str, KeyInfo]
    findings: list[RunFinding]
    family_votes: Counter[str]
    series_checked: int = 0
    rules_evaluated: int = 0

    @property
    def family(self) -> str | None:
        """The family most keys belong to (``None`` when no key is known)."""
        top = self.family_votes.most_common(2)
        if not top or (len(top) == 2 and top[0][1] == top[1][1]):
            return None
        return top[0][0]

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def statuses(self) -> Counter[str]:
        return Counter(info.status for info in self.keys.values())


def check_run(
    log: RunLog,
    registry: Registry,
    options: CheckOptions | None = None,
    on_series: Callable[[str], None] | None = None,
) -> RunReport:
    """Identify every key of ``log`` and evaluate the healthy rules; ``on_series`` is called per key."""
    options = options or CheckOptions()
    keys, votes = identify_keys(
        log.logged_keys(),
        registry,
        hf_prefixed=log.hf_prefixed,
        family=options.family,
        trl_version=options.trl_version,
    )
    report = RunReport(log, keys, [], votes)
    for key, info in keys.items():
        if on_series is not None:
            on_series(key)
        if info.status == "unknown":
            report.findings.append(RunFinding("unknown-key", "info", key, info))
        elif info.status == "ambiguous":
            report.findings.append(RunFinding("ambiguous-key", "info", key, info))
        elif info.status == "legacy":
            report.findings.append(RunFinding("legacy-key", "info", key, info))
        entry = info.entry
        points = log.series.get(key)
        if entry is None or not points:
            continue
        report.series_checked += 1
        for rule in entry.metric.healthy:
            report.rules_evaluated += 1
            violation = evaluate(rule, points, options.thresholds)
            if violation is not None:
                report.findings.append(RunFinding("rule", rule.severity, key, info, rule, violation))
    report.findings.sort(key=RunFinding.sort_key)
    return report

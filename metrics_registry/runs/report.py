"""What checking a run produces, as data: the options the user gave, the findings, the report.

:mod:`metrics_registry.runs.check` makes a :class:`RunReport`;
:mod:`metrics_registry.runs.render` and :mod:`metrics_registry.runs.wording`
put it in words. The finding kinds and their severities are listed in
:mod:`metrics_registry.runs.check`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from metrics_registry.conditions import RunFacts
from metrics_registry.models import KnownIssue
from metrics_registry.registry import Entry
from metrics_registry.runs.detect import Detection
from metrics_registry.runs.identify import KeyInfo
from metrics_registry.runs.log import LogSummary, ReadProblem, RunLog
from metrics_registry.runs.rulestate import Thresholds, Violation

__all__ = [
    "SEVERITIES",
    "CheckOptions",
    "FindingKind",
    "NothingChecked",
    "RunFinding",
    "RunReport",
    "Severity",
]

FindingKind = Literal[
    "rule",
    "non-finite",
    "log-stopped",
    "nul-bytes",
    "unterminated",
    "nothing-checked",
    "known-issue",
    "legacy-key",
    "unknown-key",
    "ambiguous-key",
]
#: Why nothing was checked: no scalar key at all, no key in the registry, only ambiguous keys,
#: known keys without values.
NothingChecked = Literal["no-keys", "no-known-key", "ambiguous", "no-values"]
Severity = Literal["error", "warning", "info"]
#: Most severe first.
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class CheckOptions:
    """What the user says about the run: family or framework, release, configuration values.

    ``trl_version`` (``--trl-version``) is a TRL release; ``version`` (``--version``) a release
    of ``framework``, or of the framework detected from the keys when it is ``None``.
    """

    family: str | None = None
    trl_version: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    config: Mapping[str, object] = field(default_factory=dict)
    framework: str | None = None
    version: str | None = None

    def release(self) -> tuple[str | None, str] | None:
        """``(framework, version)`` the run used (framework ``None``: the detected one), if given."""
        if self.version is not None:
            return self.framework, self.version
        if self.trl_version is not None:
            return "trl", self.trl_version
        return None

    def facts(self, entry: Entry) -> RunFacts:
        """What is known of the run for ``entry``: the release counts for its framework's entries only."""
        release = self.release()
        version = release[1] if release is not None and entry.family.versions_of == release[0] else None
        return RunFacts(version, self.config)


@dataclass(frozen=True)
class RunFinding:
    """One thing to tell about a run."""

    kind: FindingKind
    severity: Severity
    key: str | None  # as logged; None for a finding about the whole log
    info: KeyInfo | None = None
    rule: object | None = None  # the HealthyRule that fired
    violation: Violation | None = None
    problem: ReadProblem | None = None  # log-stopped, nul-bytes, unterminated
    nothing: NothingChecked | None = None  # nothing-checked
    issue: KnownIssue | None = None  # known-issue
    confirmed: bool = False  # known-issue: the run's config is known to meet the issue's conditions
    version: str | None = None  # known-issue: the release the run used

    @property
    def entry(self) -> Entry | None:
        return self.info.entry if self.info is not None else None

    @property
    def rule_id(self) -> str | None:
        return getattr(self.rule, "id", None)

    @property
    def step(self) -> float | None:
        return self.violation.step if self.violation is not None else None

    def sort_key(self) -> tuple[int, str, str]:
        return (SEVERITIES.index(self.severity), self.key or "", self.rule_id or "")


@dataclass
class RunReport:
    """Everything found in one run."""

    log: RunLog
    keys: dict[str, KeyInfo]
    findings: list[RunFinding]
    family_votes: Counter[str]
    series_checked: int = 0
    rules_evaluated: int = 0
    rules_skipped: int = 0  # rules whose conditions the run is known not to meet
    summary: LogSummary = field(default_factory=LogSummary)
    detection: Detection | None = None  # how the framework and family were told (None: not asked)

    @property
    def family(self) -> str | None:
        """The family the run was detected (or said) to be, else the one most keys belong to."""
        if self.detection is not None:
            return self.detection.family
        top = self.family_votes.most_common(2)
        if not top or (len(top) == 2 and top[0][1] == top[1][1]):
            return None
        return top[0][0]

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def statuses(self) -> Counter[str]:
        return Counter(info.status for info in self.keys.values())

"""Check one run: identify its keys, evaluate the healthy rules of each known key's series.

The result is data (:class:`RunReport` of :class:`RunFinding`); the words
and numbers for a reader are added by :mod:`metrics_registry.runs.render`
in the report's language.

Finding kinds and severities:

===================  ======================================================
``rule``             a healthy rule fired; the rule's severity (warning/error),
                     except that a ``finite`` rule's finding is an error for
                     losses, KL and ratios (:func:`non_finite_severity`)
``non-finite``       a key without a ``finite`` rule took a NaN or infinite
                     value: an error for losses, KL and ratios, else a
                     warning
``log-stopped``      the reader stopped early, at damage (error): the
                     points before it were checked
``nul-bytes``        NUL bytes were removed from rows of the log (warning)
``unterminated``     the last row of a CSV has no line break after it: it
                     may be cut inside its last cell (warning)
``nothing-checked``  no series could be checked: no scalar key, no key the
                     registry knows, or only ambiguous ones (error): such a
                     log is not healthy, whatever else it holds
``known-issue``      the release the run used (``--trl-version``) logs a wrong
                     value for the key, a known metrics-only bug (info); with
                     the tracker link. Not reported when the run's config
                     (``--config``) is known to avoid the bug
``legacy-key``       an old name with a successor (info): the successor is named
``unknown-key``      the registry does not know the key (info)
``ambiguous-key``    several families log the key and nothing settled it (info)
===================  ======================================================

A healthy rule with ``applies_when`` or ``except_when`` is evaluated unless
what is known of the run (release, ``--config`` values) rules it out: an
``applies_when`` known to be false, or an ``except_when`` known to be true,
skips it (counted in :attr:`RunReport.rules_skipped`). What is not known
never skips a rule.

``log-stopped``, ``nul-bytes``, ``unterminated`` and ``nothing-checked`` are
about the whole log: their ``key`` is ``None``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from metrics_registry.conditions import RunFacts, all_of
from metrics_registry.models import FiniteRule, KnownIssue
from metrics_registry.registry import Entry, Registry
from metrics_registry.runs.identify import KeyInfo, identify_keys
from metrics_registry.runs.log import ReadProblem, RunLog
from metrics_registry.runs.rules import Thresholds, Violation, evaluate, non_finite

__all__ = [
    "SEVERITIES",
    "CheckOptions",
    "FindingKind",
    "RunFinding",
    "RunReport",
    "check_run",
    "known_issues",
    "non_finite_severity",
    "rule_applies",
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
    """What the user says about the run: family, TRL release, configuration values."""

    family: str | None = None
    trl_version: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    config: Mapping[str, object] = field(default_factory=dict)

    def facts(self, entry: Entry) -> RunFacts:
        """What is known of the run for ``entry``'s family (``--trl-version`` counts TRL releases only)."""
        version = self.trl_version if entry.family.versions_of == "trl" else None
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


#: Categories and units whose non-finite values are errors; and the same by key, for keys the
#: registry does not know (or cannot tell apart): a loss, a KL, a ratio.
_SEVERE_CATEGORIES = frozenset({"loss", "kl"})
_SEVERE_UNITS = frozenset({"ratio"})
_SEVERE_KEY = re.compile(r"loss|kl|ratio", re.IGNORECASE)


def non_finite_severity(key: str, entry: Entry | None) -> Severity:
    """``error`` for a loss, a KL or a ratio (by registry category/unit, or by key), else ``warning``.

    >>> non_finite_severity("objective/kl", None), non_finite_severity("clip_ratio/low_mean", None)
    ('error', 'error')
    >>> non_finite_severity("train/learning_rate", None)
    'warning'
    """
    metric = entry.metric if entry is not None else None
    if metric is not None and (metric.category in _SEVERE_CATEGORIES or metric.unit in _SEVERE_UNITS):
        return "error"
    return "error" if _SEVERE_KEY.search(key) else "warning"


def rule_applies(rule: object, facts: RunFacts) -> bool:
    """Whether to evaluate ``rule`` on a run with these ``facts``: unless its conditions rule the run out."""
    applies_when = getattr(rule, "applies_when", None)
    except_when = getattr(rule, "except_when", None)
    if applies_when is not None and applies_when.holds(facts) is False:
        return False
    return not (except_when is not None and except_when.holds(facts) is True)


def known_issues(entry: Entry, facts: RunFacts) -> list[tuple[KnownIssue, bool]]:
    """The known issues of ``entry`` in the run's release, and whether its config is known to meet them.

    Nothing without a release: a known issue is about releases.
    """
    if facts.version is None:
        return []
    found = []
    for issue in entry.metric.known_issues:
        if not issue.affects.contains(facts.version):
            continue
        meets = all_of(condition.holds(facts.config) for condition in issue.when)
        if meets is not False:
            found.append((issue, meets is True))
    return found


def _nothing_checked(report: RunReport) -> NothingChecked:
    statuses = report.statuses()
    if not report.keys:
        return "no-keys"
    if statuses["known"] + statuses["legacy"] + statuses["ambiguous"] == 0:
        return "no-known-key"
    if statuses["ambiguous"]:
        return "ambiguous"
    return "no-values"


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
    for problem in log.problems:
        if problem.kind == "stopped":
            report.findings.append(RunFinding("log-stopped", "error", None, problem=problem))
        else:
            report.findings.append(RunFinding(problem.kind, "warning", None, problem=problem))
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
        facts = options.facts(entry) if entry is not None else RunFacts()
        if entry is not None:
            for issue, confirmed in known_issues(entry, facts):
                report.findings.append(
                    RunFinding(
                        "known-issue",
                        "info",
                        key,
                        info,
                        issue=issue,
                        confirmed=confirmed,
                        version=facts.version,
                    )
                )
        points = log.series.get(key)
        if not points:
            continue
        rules = entry.metric.healthy if entry is not None else []
        if not any(isinstance(rule, FiniteRule) for rule in rules):
            bad = non_finite(points)
            if bad is not None:
                severity = non_finite_severity(info.lookup, entry)
                report.findings.append(RunFinding("non-finite", severity, key, info, violation=bad))
        if entry is None:
            continue
        report.series_checked += 1
        for rule in rules:
            if not rule_applies(rule, facts):
                report.rules_skipped += 1
                continue
            report.rules_evaluated += 1
            violation = evaluate(rule, points, options.thresholds)
            if violation is not None:
                severity = rule.severity
                if isinstance(rule, FiniteRule) and non_finite_severity(info.lookup, entry) == "error":
                    severity = "error"
                report.findings.append(RunFinding("rule", severity, key, info, rule, violation))
    if report.series_checked == 0:
        report.findings.append(RunFinding("nothing-checked", "error", None, nothing=_nothing_checked(report)))
    report.findings.sort(key=RunFinding.sort_key)
    return report

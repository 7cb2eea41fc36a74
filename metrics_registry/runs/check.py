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
``known-issue``      the release the run used (``--version``) logs a wrong
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
from collections.abc import Callable, Iterable
from dataclasses import replace

from metrics_registry.conditions import RunFacts, all_of
from metrics_registry.models import FiniteRule, KnownIssue
from metrics_registry.registry import Entry, Registry
from metrics_registry.runs.detect import Detection
from metrics_registry.runs.identify import KeyInfo, identify_run
from metrics_registry.runs.log import LogSummary, Point, RunLog
from metrics_registry.runs.report import (
    SEVERITIES,
    CheckOptions,
    FindingKind,
    NothingChecked,
    RunFinding,
    RunReport,
    Severity,
)
from metrics_registry.runs.rulestate import FiniteState, RuleState, Thresholds, Violation, new_state

__all__ = [
    "SEVERITIES",
    "CheckOptions",
    "FindingKind",
    "RunFinding",
    "RunReport",
    "SeriesCheck",
    "build_report",
    "check_run",
    "finding_id",
    "known_issues",
    "non_finite_severity",
    "rule_applies",
]

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


def _rule_finding(key: str, info: KeyInfo, rule: object, violation: Violation) -> RunFinding:
    severity: Severity = rule.severity  # type: ignore[attr-defined]
    if isinstance(rule, FiniteRule) and non_finite_severity(info.lookup, info.entry) == "error":
        severity = "error"
    return RunFinding("rule", severity, key, info, rule, violation)


def _non_finite_finding(key: str, info: KeyInfo, violation: Violation) -> RunFinding:
    severity = non_finite_severity(info.lookup, info.entry)
    return RunFinding("non-finite", severity, key, info, violation=violation)


#: What tells two findings of a series apart: key, kind, metric entry and rule.
FindingId = tuple[str, str, str, str]


def finding_id(finding: RunFinding) -> FindingId:
    """The :data:`FindingId` of a finding about a series, as :meth:`SeriesCheck.new_findings` keeps it."""
    entry = finding.entry
    return (finding.key or "", finding.kind, entry.id if entry is not None else "", finding.rule_id or "")


class SeriesCheck:
    """Every check of one logged key's series, fed a point at a time.

    ``entries`` are the registry entries the key may turn out to be (one for
    ``check-run``, which knows the run's keys before it reads a value; every
    candidate for the live monitor, where a key's family can be settled only
    once more keys are logged): each gets the states of its healthy rules.
    A NaN or infinite value is tracked for every key, whatever it is.
    """

    def __init__(
        self,
        entries: Iterable[Entry],
        thresholds: Thresholds,
        facts: Callable[[Entry], RunFacts] | None = None,
    ) -> None:
        self.points = 0
        self.skipped = 0  # rules of the identified entry whose conditions the run is known not to meet
        self._facts = facts
        self.non_finite = FiniteState()
        self.states: dict[str, list[RuleState]] = {}
        self._feed: list[RuleState] = [self.non_finite]
        self._checked_as: KeyInfo | None = None
        self._checks_cache: list[tuple[object | None, RuleState, FindingId]] = []
        for entry in entries:
            if entry.id in self.states:
                continue
            states = [
                self.non_finite if isinstance(rule, FiniteRule) else new_state(rule, thresholds)
                for rule in entry.metric.healthy
            ]
            self.states[entry.id] = states
            self._feed += [state for state in states if state is not self.non_finite]

    def add(self, point: Point) -> None:
        self.points += 1
        for state in self._feed:
            state.add(point)

    def _checks(self, key: str, info: KeyInfo) -> list[tuple[object | None, RuleState, FindingId]]:
        """``(rule, state, id)`` of every check that applies to the key as identified.

        The rule is ``None`` for the non-finite check of a key without a ``finite`` rule. Kept
        until the key is identified again: this runs at every point of a live run.
        """
        if info is self._checked_as:
            return self._checks_cache
        entry = info.entry
        rules = entry.metric.healthy if entry is not None else []
        entry_id = entry.id if entry is not None else ""
        checks: list[tuple[object | None, RuleState, FindingId]] = []
        if not any(isinstance(rule, FiniteRule) for rule in rules):
            checks.append((None, self.non_finite, (key, "non-finite", entry_id, "")))
        self.skipped = 0
        if entry is not None:
            facts = self._facts(entry) if self._facts is not None else RunFacts()
            for rule, state in zip(rules, self.states[entry_id], strict=True):
                if not rule_applies(rule, facts):
                    self.skipped += 1
                    continue
                checks.append((rule, state, (key, "rule", entry_id, rule.id)))  # type: ignore[attr-defined]
        self._checked_as, self._checks_cache = info, checks
        return checks

    @staticmethod
    def _finding(key: str, info: KeyInfo, rule: object | None, violation: Violation) -> RunFinding:
        if rule is None:
            return _non_finite_finding(key, info, violation)
        return _rule_finding(key, info, rule, violation)

    def findings(self, key: str, info: KeyInfo) -> list[RunFinding]:
        """What the series so far breaks, judged exactly (the report)."""
        found = []
        for rule, state, _ident in self._checks(key, info):
            violation = state.violation()
            if violation is not None:
                found.append(self._finding(key, info, rule, violation))
        return found

    def new_findings(self, key: str, info: KeyInfo, reported: set[FindingId]) -> list[RunFinding]:
        """The findings of :meth:`findings` not in ``reported`` yet (added to it), judged cheaply.

        Only rules whose :meth:`~metrics_registry.runs.rules.RuleState.fired` says so are turned
        into findings, so a point costs constant work.
        """
        found = []
        for rule, state, ident in self._checks(key, info):
            if not state.fired() or ident in reported:
                continue
            violation = state.violation()
            if violation is not None:
                reported.add(ident)
                found.append(self._finding(key, info, rule, violation))
        return found


def build_report(
    log: RunLog,
    keys: dict[str, KeyInfo],
    votes: Counter[str],
    series: Callable[[str, KeyInfo], SeriesCheck | None],
    *,
    summary: LogSummary,
    on_series: Callable[[str], None] | None = None,
    facts: Callable[[Entry], RunFacts] | None = None,
    detection: Detection | None = None,
) -> RunReport:
    """The report on a run whose keys are identified; ``series(key, info)`` gives each key's checks.

    ``facts`` says what is known of the run (release, configuration) for an entry: the known
    issues of that release are reported, and rules it rules out are skipped.
    """
    report = RunReport(log, keys, [], votes, summary=summary, detection=detection)
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
        run_facts = facts(entry) if facts is not None and entry is not None else RunFacts()
        if entry is not None:
            for issue, confirmed in known_issues(entry, run_facts):
                report.findings.append(
                    RunFinding(
                        "known-issue",
                        "info",
                        key,
                        info,
                        issue=issue,
                        confirmed=confirmed,
                        version=run_facts.version,
                    )
                )
        checks = series(key, info)
        if checks is None or not checks.points:
            continue
        report.findings += checks.findings(key, info)
        if entry is None:
            continue
        report.series_checked += 1
        report.rules_evaluated += len(entry.metric.healthy) - checks.skipped
        report.rules_skipped += checks.skipped
    if report.series_checked == 0:
        report.findings.append(RunFinding("nothing-checked", "error", None, nothing=_nothing_checked(report)))
    report.findings.sort(key=RunFinding.sort_key)
    return report


def check_run(
    log: RunLog,
    registry: Registry,
    options: CheckOptions | None = None,
    on_series: Callable[[str], None] | None = None,
) -> RunReport:
    """Identify every key of ``log`` and evaluate the healthy rules; ``on_series`` is called per key."""
    options = options or CheckOptions()
    release = options.release()
    found = identify_run(
        log.logged_keys(),
        registry,
        hf_prefixed=log.hf_prefixed,
        family=options.family,
        framework=options.framework,
        version=release[1] if release is not None else None,
        version_of=release[0] if release is not None else None,
        log_format=log.format,
    )
    detection = found.detection
    if options.version is not None and options.framework is None:
        # --version counts the releases of the framework the keys showed
        options = replace(options, framework=detection.framework if detection.version else None)
    keys, votes = found.keys, found.votes

    def series(key: str, info: KeyInfo) -> SeriesCheck | None:
        points = log.series.get(key)
        if not points:
            return None
        entries = [info.entry] if info.entry is not None else []
        checks = SeriesCheck(entries, options.thresholds, facts=options.facts)
        for point in points:
            checks.add(point)
        return checks

    return build_report(
        log,
        keys,
        votes,
        series,
        summary=LogSummary.of(log),
        on_series=on_series,
        facts=options.facts,
        detection=detection,
    )

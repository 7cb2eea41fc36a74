"""A run report's findings as CI annotations (``check-run --format github|sarif``).

A healthy rule that fired is the rule ``<family>:<key>#<rule id>`` (say
``grpo:kl#non-negative``), described by what it expects and linked to the
metric's section on the site; every other kind of finding is a rule of its
own (``non-finite``, ``log-stopped``, ``unknown-key``...). The message is
the report's sentence, in the report's language; the place is the log file,
with the line (JSON lines, CSV) or the byte (TensorBoard) where reading
stopped, when that is what the finding is about.

Every UI string is marked with ``_()`` for the ``ui`` catalog; ``_`` is the
report's gettext, bound at the top of each function.
"""

from __future__ import annotations

from metrics_registry.links import metric_url
from metrics_registry.reporting import Annotation, Level, RuleInfo
from metrics_registry.runs.check import RunFinding, RunReport
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.wording import describe, expected

__all__ = ["run_annotations"]

_LEVELS: dict[str, Level] = {"error": "error", "warning": "warning", "info": "note"}
_LOG_PAGE = "tools/check-run/#broken-empty-and-unknown-logs"
_KEYS_PAGE = "tools/check-run/#how-keys-are-identified"
_RELEASE_PAGE = "tools/check-run/#release-and-configuration"


def _kind_rule(kind: str, loc: Localizer) -> RuleInfo:
    """The rule of a finding that is not a healthy rule of the registry."""
    _ = loc.gettext
    descriptions = {
        "non-finite": (_("A series took a NaN or infinite value."), _LOG_PAGE),
        "log-stopped": (_("The log could be read only up to a point: it is cut or damaged."), _LOG_PAGE),
        "nul-bytes": (_("NUL bytes were removed from rows of the log before reading them."), _LOG_PAGE),
        "unterminated": (_("The last row of the log has no line break after it: it may be cut."), _LOG_PAGE),
        "nothing-checked": (_("No series of the log could be checked against the registry."), _LOG_PAGE),
        "known-issue": (
            _("The release the run used logs a wrong value for this key: a known bug."),
            _RELEASE_PAGE,
        ),
        "legacy-key": (_("An old name of a metric that has a successor."), _KEYS_PAGE),
        "unknown-key": (_("A logged key the registry does not know."), _KEYS_PAGE),
        "ambiguous-key": (_("A key several families log with different meanings."), _KEYS_PAGE),
    }
    description, page = descriptions[kind]
    return RuleInfo(kind, kind, description, f"{loc.lang}/{page}")


def _rule(finding: RunFinding, loc: Localizer) -> RuleInfo:
    entry = finding.entry
    if finding.rule is None or entry is None:
        return _kind_rule(finding.kind, loc)
    rule_id = finding.rule_id or ""
    return RuleInfo(
        f"{entry.id}#{rule_id}",
        rule_id,
        expected(finding.rule, loc),
        metric_url(entry, lang=loc.lang),
        _LEVELS[str(getattr(finding.rule, "severity", "warning"))],
    )


def _message(finding: RunFinding, report: RunReport, loc: Localizer) -> str:
    """The report's sentence, after the key and the run; what the rule expects and advises below it."""
    _ = loc.gettext
    head = f"[{report.log.run}] " if report.log.run else ""
    head += f"{finding.key}: " if finding.key is not None else ""
    lines = [head + describe(finding, loc)]
    if finding.rule is not None and finding.entry is not None:
        lines.append(_("expected") + f": {expected(finding.rule, loc)}")
        lines.append(loc.suggests(finding.entry, finding.rule))
    return "\n".join(line for line in lines if line)


def run_annotations(reports: list[RunReport], loc: Localizer) -> list[Annotation]:
    """One annotation per finding of every report, in the reports' order."""
    annotations = []
    for report in reports:
        for finding in report.findings:
            problem = finding.problem
            path = problem.file if problem is not None else report.log.source
            line = None
            if problem is not None:  # NUL bytes: the first line they were removed from
                line = problem.line if problem.line is not None else next(iter(problem.lines), None)
            byte = problem.byte if problem is not None and line is None else None
            annotations.append(
                Annotation(
                    _rule(finding, loc),
                    _LEVELS[finding.severity],
                    _message(finding, report, loc),
                    path,
                    line,
                    byte_offset=byte,
                )
            )
    return annotations

"""The words of a run report: what each finding says, in the report's language.

Every UI string is marked with ``_()`` for the ``ui`` catalog; ``_`` is the
report's gettext, bound at the top of each function.
"""

from __future__ import annotations

from collections.abc import Callable

from metrics_registry.describe import describe_issue_effect, describe_rule
from metrics_registry.registry import logged_by, project_name
from metrics_registry.runs.check import RunFinding
from metrics_registry.runs.detect import Detection
from metrics_registry.runs.locale import Localizer

__all__ = [
    "ISSUE_KINDS",
    "LOG_KINDS",
    "SERIES_KINDS",
    "counts_text",
    "describe",
    "detection_text",
    "expected",
    "severity_label",
]


def severity_label(severity: str, loc: Localizer) -> str:
    _ = loc.gettext
    return {"error": _("error"), "warning": _("warning"), "info": _("note")}[severity]


def expected(rule: object, loc: Localizer) -> str:
    """What the rule expects, with numbers in the report's locale (same words as the site's)."""
    return describe_rule(rule, loc.gettext, loc.number)


def _join(items: list[str]) -> str:
    return ", ".join(items)


#: Findings about the whole log, and about one series' values.
LOG_KINDS = ("log-stopped", "nul-bytes", "unterminated", "nothing-checked")
SERIES_KINDS = ("rule", "non-finite")
#: Findings about what the release the run used logs wrongly.
ISSUE_KINDS = ("known-issue",)


def _describe_issue(finding: RunFinding, loc: Localizer) -> str:
    """``known to be inflated in the version you ran (TRL 0.20.0): ...``; the link is the report's."""
    _ = loc.gettext
    issue, entry = finding.issue, finding.entry
    assert issue is not None and entry is not None
    who = project_name(entry.family)
    values = {
        "effect": describe_issue_effect(issue.effect, _),
        "version": f"{who} {finding.version}" if finding.version else issue.affects.text(who),
        "conditions": _(" and ").join(condition.text() for condition in issue.when),
        "description": loc.issue_description(entry, issue),
    }
    if issue.when and not finding.confirmed:
        head = _("known to be %(effect)s in the version you ran (%(version)s) when %(conditions)s")
    else:
        head = _("known to be %(effect)s in the version you ran (%(version)s)")
    return _("%(head)s: %(description)s") % {"head": head % values, "description": values["description"]}


def _describe_log(finding: RunFinding, loc: Localizer) -> str:
    """What a finding about the whole log says. Positions (bytes, lines) are not localized numbers."""
    _ = loc.gettext
    problem = finding.problem
    if finding.kind == "nothing-checked":
        return {
            "no-keys": _("nothing to check: the log holds no scalar values"),
            "no-known-key": _(
                "no known metric: no key of this log is in the registry; is it a log of a TRL trainer?"
            ),
            "ambiguous": _("nothing to check: every known key is ambiguous; pass --family or --version"),
            "no-values": _("nothing to check: the known keys hold no scalar values"),
        }[finding.nothing or "no-keys"]
    assert problem is not None
    if finding.kind == "nul-bytes":
        shown = ", ".join(str(n) for n in problem.lines[:5]) + (", …" if len(problem.lines) > 5 else "")
        return loc.ngettext(
            "NUL bytes removed from %(count)s line of %(file)s (%(lines)s) before reading it;"
            " the file may be damaged",
            "NUL bytes removed from %(count)s lines of %(file)s (%(lines)s) before reading them;"
            " the file may be damaged",
            len(problem.lines),
        ) % {"lines": shown, "count": loc.step(len(problem.lines)), "file": problem.file}
    if finding.kind == "unterminated":
        return _(
            "the last row (line %(line)s) of %(file)s has no line break after it: the file may be cut"
            " inside its last cell; it was read as it is"
        ) % {"line": str(problem.line), "file": problem.file}
    values = {
        "byte": str(problem.byte),
        "record": str(problem.record),
        "line": str(problem.line),
        "file": problem.file,
        "reason": problem.reason,
        "read": loc.step(problem.read),
    }
    if problem.line is not None and problem.byte is None:  # CSV: rows are lines, not bytes
        where = _("reading stopped at line %(line)s of %(file)s: %(reason)s") % values
    elif problem.line is not None:
        where = _("reading stopped at line %(line)s (byte %(byte)s) of %(file)s: %(reason)s") % values
    else:
        where = _("reading stopped at byte %(byte)s (record %(record)s) of %(file)s: %(reason)s") % values
    checked = (
        loc.ngettext(
            "%(read)s record before it was checked", "%(read)s records before it were checked", problem.read
        )
        % values
    )
    return _("%(stopped)s; %(checked)s") % {"stopped": where, "checked": checked}


def describe(finding: RunFinding, loc: Localizer) -> str:
    """What happened, in one sentence."""
    _ = loc.gettext
    if finding.kind in LOG_KINDS:
        return _describe_log(finding, loc)
    if finding.kind in ISSUE_KINDS:
        return _describe_issue(finding, loc)
    info = finding.info
    assert info is not None
    if finding.kind == "unknown-key":
        return _("not in the registry")
    if finding.kind == "ambiguous-key":
        return _(
            "logged by several families (%(families)s) with different meanings;"
            " pass --framework, --family or --version to choose"
        ) % {"families": logged_by(sorted(info.candidates, key=lambda m: m.entry.id))}
    if finding.kind == "legacy-key":
        assert info.entry is not None
        return _("legacy name of %(versions)s; the current key is %(successors)s") % {
            "versions": info.entry.version_text(short=True),
            "successors": _join([s.id for s in info.successors]),
        }
    violation = finding.violation
    assert violation is not None
    f = violation.figures
    values = {
        "step": loc.step(violation.step),
        "count": loc.step(f.get("count", 0)),
        "total": loc.step(f.get("total", 0)),
        "last": loc.step(f.get("last", 0)),
        "value": loc.number(f.get("value", 0.0)),
        "median": loc.number(f.get("median", 0.0)),
        "ratio": loc.number(round(f.get("ratio", 0.0), 1)),
        "change": loc.number(f.get("change", 0.0)),
        "noise": loc.number(f.get("noise", 0.0)),
        "level": loc.number(f.get("level", 0.0)),
    }
    count = int(f.get("count", 0))
    if violation.reason == "non-finite":
        return (
            loc.ngettext(
                "%(count)s of %(total)s values is NaN or infinite, at step %(step)s",
                "%(count)s of %(total)s values are NaN or infinite, the first at step %(step)s",
                count,
            )
            % values
        )
    if violation.reason == "outside":
        return (
            loc.ngettext(
                "%(count)s of %(total)s values is outside the healthy range, at step %(step)s: %(value)s",
                "%(count)s of %(total)s values are outside the healthy range, the first at step %(step)s;"
                " furthest: %(value)s",
                count,
            )
            % values
        )
    if violation.reason == "outside-at-end":
        return (
            _(
                "the last %(last)s values are outside the healthy range, from step %(step)s"
                " (%(count)s of %(total)s in all)"
            )
            % values
        )
    if violation.reason == "trend":
        return _("fitted change over the run: %(change)s (noise %(noise)s, typical value %(level)s)") % values
    if violation.reason == "spike":
        return (
            loc.ngettext(
                "%(count)s spike, at step %(step)s: %(value)s, %(ratio)s× the running median %(median)s",
                "%(count)s spikes, the first at step %(step)s: %(value)s, %(ratio)s× the running median"
                " %(median)s",
                count,
            )
            % values
        )
    return _("stuck at %(value)s for all %(total)s values") % values


def counts_text(errors: int, warnings: int, notes: int, loc: Localizer) -> str:
    """``1 error, 3 warnings, 2 notes`` with the language's plural forms."""
    return ", ".join(
        [
            loc.ngettext("%(n)s error", "%(n)s errors", errors) % {"n": loc.step(errors)},
            loc.ngettext("%(n)s warning", "%(n)s warnings", warnings) % {"n": loc.step(warnings)},
            loc.ngettext("%(n)s note", "%(n)s notes", notes) % {"n": loc.step(notes)},
        ]
    )


def detection_text(detection: Detection, loc: Localizer, quote: Callable[[str], str]) -> str:
    """Which framework (and family) the run is, and why: the evidence of the keys.

    ``quote`` shows a logged key (untrusted) in the report's format.
    """
    _ = loc.gettext
    if detection.framework is None:
        if detection.how == "tie" and detection.scores and detection.scores[0].own:
            text = _("not recognised: %(frameworks)s have as many keys of their own (%(count)s each)") % {
                "frameworks": _(", ").join(detection.label(name) for name in detection.tied),
                "count": loc.step(len(detection.scores[0].own)),
            }
        elif detection.how == "tie":
            text = _("not recognised: every known key is logged by several frameworks (%(frameworks)s)") % {
                "frameworks": _(", ").join(detection.label(s.framework) for s in detection.scores),
            }
        else:
            text = _("not recognised: no key is in the registry")
    else:
        text = _framework_text(detection, detection.framework, loc, quote)
    if detection.version_unused:
        text = _("%(text)s; --version not applied: the run's framework is not known") % {"text": text}
    return text


def _framework_text(detection: Detection, framework: str, loc: Localizer, quote: Callable[[str], str]) -> str:
    _ = loc.gettext
    name = detection.label(framework)
    head = name if detection.version is None else f"{name} {detection.version}"
    if detection.family is not None:
        head = _("%(framework)s, family %(family)s") % {"framework": head, "family": detection.family}
    score = detection.score(framework)
    values = {
        "head": head,
        "framework": name,
        "recognised": loc.step(score.recognised if score is not None else 0),
        "total": loc.step(detection.total),
        "own": loc.step(len(score.own) if score is not None else 0),
    }
    if detection.how == "given":
        text = _("%(head)s, as given: %(recognised)s of %(total)s keys are %(framework)s's") % values
    elif detection.how == "format":
        tied = [detection.label(other) for other in detection.tied_on_keys if other != framework]
        return _(
            "%(head)s, from the log's format: its keys are %(others)s's as much as %(framework)s's,"
            " and only %(framework)s writes %(format)s logs"
        ) % {**values, "others": _(", ").join(tied), "format": detection.log_format}
    elif detection.how == "weak":
        text = (
            _(
                "%(head)s, on weak evidence: %(recognised)s of %(total)s keys are %(framework)s's,"
                " %(own)s of them only %(framework)s's"
            )
            % values
        )
        other = next((s for s in detection.scores if s.framework != framework and s.own), None)
        if other is not None:
            text = _("%(text)s; %(other)s has %(count)s keys of its own") % {
                "text": text,
                "other": detection.label(other.framework),
                "count": loc.step(len(other.own)),
            }
        return text
    else:
        text = _("%(head)s: %(recognised)s of %(total)s keys are %(framework)s's") % values
    key = detection.evidence
    if key is None:
        return text
    owner = detection.family if detection.family_own.get(detection.family or "") else name
    return _("%(text)s; %(key)s is only %(owner)s's") % {"text": text, "key": quote(key), "owner": owner}

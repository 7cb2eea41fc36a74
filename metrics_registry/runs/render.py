"""A run report in words: terminal (rich), Markdown and JSON, in the report's language.

Every UI string is marked with ``_()`` for the ``ui`` catalog; ``_`` is the
report's gettext, bound at the top of each function.
"""

from __future__ import annotations

import json
import math
from typing import Any

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from metrics_registry.describe import describe_rule
from metrics_registry.runs.check import SEVERITIES, RunFinding, RunReport
from metrics_registry.runs.locale import Localizer

__all__ = ["describe", "expected", "render_json", "render_markdown", "render_text", "report_to_dict"]

_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_MARKS = {"error": "✗", "warning": "!", "info": "·"}


def severity_label(severity: str, loc: Localizer) -> str:
    _ = loc.gettext
    return {"error": _("error"), "warning": _("warning"), "info": _("note")}[severity]


def expected(rule: object, loc: Localizer) -> str:
    """What the rule expects, with numbers in the report's locale (same words as the site's)."""
    return describe_rule(rule, loc.gettext, loc.number)


def _join(items: list[str]) -> str:
    return ", ".join(items)


def describe(finding: RunFinding, loc: Localizer) -> str:
    """What happened, in one sentence."""
    _ = loc.gettext
    info = finding.info
    if finding.kind == "unknown-key":
        return _("not in the registry")
    if finding.kind == "ambiguous-key":
        families = _join(sorted({m.entry.family.id for m in info.candidates}))
        return _(
            "logged by several families (%(families)s) with different meanings;"
            " pass --family or --trl-version to choose"
        ) % {"families": families}
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


def _header(report: RunReport, loc: Localizer) -> list[tuple[str, str]]:
    """``(label, value)`` rows describing the run."""
    _ = loc.gettext
    log = report.log
    rows = [(_("Format"), log.format)]
    family = report.family
    rows.append((_("Family"), family if family is not None else _("not recognised")))
    steps = log.step_range()
    if steps is not None:
        rows.append((_("Steps"), f"{loc.step(steps[0])} – {loc.step(steps[1])}"))
    times = log.time_range()
    if times is not None:
        rows.append((_("Logged"), f"{loc.datetime(times[0])} – {loc.datetime(times[1])}"))
    statuses = report.statuses()
    rows.append(
        (
            _("Keys"),
            _(
                "%(total)s logged: %(known)s known, %(legacy)s legacy, %(unknown)s unknown,"
                " %(ambiguous)s ambiguous"
            )
            % {
                "total": loc.step(len(report.keys)),
                "known": loc.step(statuses["known"]),
                "legacy": loc.step(statuses["legacy"]),
                "unknown": loc.step(statuses["unknown"]),
                "ambiguous": loc.step(statuses["ambiguous"]),
            },
        )
    )
    rows.append(
        (
            _("Checked"),
            _("%(series)s series, %(rules)s rule evaluations")
            % {"series": loc.step(report.series_checked), "rules": loc.step(report.rules_evaluated)},
        )
    )
    rows.append(
        (
            _("Findings"),
            counts_text(report.count("error"), report.count("warning"), report.count("info"), loc),
        )
    )
    return rows


def counts_text(errors: int, warnings: int, notes: int, loc: Localizer) -> str:
    """``1 error, 3 warnings, 2 notes`` with the language's plural forms."""
    return ", ".join(
        [
            loc.ngettext("%(n)s error", "%(n)s errors", errors) % {"n": loc.step(errors)},
            loc.ngettext("%(n)s warning", "%(n)s warnings", warnings) % {"n": loc.step(warnings)},
            loc.ngettext("%(n)s note", "%(n)s notes", notes) % {"n": loc.step(notes)},
        ]
    )


def finding_to_dict(finding: RunFinding, loc: Localizer) -> dict[str, Any]:
    entry = finding.entry
    data: dict[str, Any] = {
        "kind": finding.kind,
        "severity": finding.severity,
        "key": finding.key,
        "lookup": finding.info.lookup,
        "metric": entry.id if entry is not None else None,
        "rule": finding.rule_id,
        "rule_kind": getattr(finding.rule, "kind", None),
        "step": finding.step,
        "message": describe(finding, loc),
    }
    if finding.violation is not None:
        data["reason"] = finding.violation.reason
        data["steps"] = list(finding.violation.steps)
        data["figures"] = dict(finding.violation.figures)
        data["expected"] = expected(finding.rule, loc)
        assert entry is not None
        data["suggests"] = loc.suggests(entry, finding.rule)
    if finding.kind == "legacy-key":
        data["successors"] = [s.id for s in finding.info.successors]
    if finding.kind == "ambiguous-key":
        data["candidates"] = [m.entry.id for m in finding.info.candidates]
    data["url"] = loc.url(entry) if entry is not None else None
    return data


def _json_number(value: float) -> float | int | str:
    """JSON has no NaN or infinity: write them as strings; whole numbers (steps) as integers."""
    if not math.isfinite(value):
        return str(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _clean(data: Any) -> Any:
    if isinstance(data, float):
        return _json_number(data)
    if isinstance(data, dict):
        return {k: _clean(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_clean(v) for v in data]
    return data


def report_to_dict(report: RunReport, loc: Localizer) -> dict[str, Any]:
    log = report.log
    steps = log.step_range()
    times = log.time_range()
    return _clean(
        {
            "source": str(log.source),
            "run": log.run,
            "format": log.format,
            "family": report.family,
            "family_votes": dict(report.family_votes.most_common()),
            "transformers_prefixes": log.hf_prefixed,
            "steps": list(steps) if steps else None,
            "logged": [t.isoformat() for t in times] if times else None,
            "keys": {
                key: {
                    "status": info.status,
                    "lookup": info.lookup,
                    "metric": info.entry.id if info.entry else None,
                    "mode": info.match.mode if info.match else None,
                    "points": len(log.series.get(key, [])),
                }
                for key, info in sorted(report.keys.items())
            },
            "series_checked": report.series_checked,
            "rules_evaluated": report.rules_evaluated,
            "counts": {severity: report.count(severity) for severity in SEVERITIES},
            "findings": [finding_to_dict(f, loc) for f in report.findings],
        }
    )


def render_json(reports: list[RunReport], loc: Localizer) -> str:
    document = {
        "lang": loc.lang,
        "runs": [report_to_dict(r, loc) for r in reports],
        "counts": {s: sum(r.count(s) for r in reports) for s in SEVERITIES},
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(reports: list[RunReport], loc: Localizer) -> str:
    _ = loc.gettext
    # Labels are looked up outside f-strings: Babel's extractor does not see into them.
    title, unhealthy, keys_title = _("Run check"), _("Unhealthy series"), _("Keys")
    columns = [
        _("Severity"),
        _("Key"),
        _("Rule"),
        _("Step"),
        _("What happened"),
        _("Expected"),
        _("What to try"),
    ]
    out = [f"# {title}", ""]
    for report in reports:
        out += [f"## `{report.log.name}`", "", "| | |", "| --- | --- |"]
        out += [f"| {_cell(label)} | {_cell(value)} |" for label, value in _header(report, loc)]
        rules = [f for f in report.findings if f.kind == "rule"]
        if rules:
            out += [
                "",
                f"### {unhealthy}",
                "",
                "| " + " | ".join(columns) + " |",
                "| --- | --- | --- | --- | --- | --- | --- |",
            ]
            for finding in rules:
                assert finding.entry is not None and finding.step is not None
                key = f"[`{finding.key}`]({loc.url(finding.entry)})"
                cells = [
                    severity_label(finding.severity, loc),
                    key,
                    f"`{finding.rule_id}`",
                    loc.step(finding.step),
                    _cell(describe(finding, loc)),
                    _cell(expected(finding.rule, loc)),
                    _cell(loc.suggests(finding.entry, finding.rule)),
                ]
                out.append("| " + " | ".join(cells) + " |")
        else:
            out += ["", _("Every checked series is healthy.")]
        notes = [f for f in report.findings if f.kind != "rule"]
        if notes:
            out += ["", f"### {keys_title}", ""]
            for finding in notes:
                out.append(f"- `{finding.key}`: {describe(finding, loc)}")
        out.append("")
    if loc.has_fallbacks:
        notice = _("Some texts are not translated yet and are shown in English.")
        out += [f"_{notice}_", ""]
    return "\n".join(out)


def render_text(reports: list[RunReport], loc: Localizer, console: Console) -> None:
    _ = loc.gettext
    for report in reports:
        console.rule(Text(report.log.name, style="bold"))
        facts = Table.grid(padding=(0, 2))
        facts.add_column(style="bold", no_wrap=True)
        facts.add_column()
        for label, value in _header(report, loc):
            facts.add_row(label, value)
        console.print(facts)
        rules = [f for f in report.findings if f.kind == "rule"]
        if not rules:
            console.print(Text(_("Every checked series is healthy."), style="green"))
        for finding in rules:
            assert finding.entry is not None and finding.step is not None
            style = _STYLES[finding.severity]
            console.print()
            console.print(
                Text.assemble(
                    (f"{_MARKS[finding.severity]} {severity_label(finding.severity, loc).upper()}  ", style),
                    (finding.key, "bold"),
                    f"  {finding.rule_id} ({getattr(finding.rule, 'kind', '')})  ",
                    (_("step %(step)s") % {"step": loc.step(finding.step)}, "dim"),
                )
            )
            body = [
                Text(describe(finding, loc)),
                Text(_("expected") + f": {expected(finding.rule, loc)}", style="dim"),
                Text(f"→ {loc.suggests(finding.entry, finding.rule)}"),
                Text(loc.url(finding.entry), style="blue underline"),
            ]
            console.print(Padding(Group(*body), (0, 0, 0, 4), expand=False))
        notes = [f for f in report.findings if f.kind != "rule"]
        if notes:
            console.print()
            for finding in notes:
                console.print(
                    Text.assemble(
                        (f"{_MARKS['info']} ", _STYLES["info"]),
                        (finding.key, "bold"),
                        ": ",
                        describe(finding, loc),
                    )
                )
        console.print()
    if loc.has_fallbacks:
        console.print(Text(_("Some texts are not translated yet and are shown in English."), style="dim"))

"""A run report: terminal (rich), Markdown and JSON, in the report's language.

The sentences of each finding are :mod:`metrics_registry.runs.wording`'s.
Every UI string is marked with ``_()`` for the ``ui`` catalog; ``_`` is the
report's gettext, bound at the top of each function.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from metrics_registry.formulas import readable_text
from metrics_registry.runs.check import RunFinding, RunReport
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.render_json import render_json, report_to_dict
from metrics_registry.runs.wording import (
    ISSUE_KINDS,
    LOG_KINDS,
    SERIES_KINDS,
    counts_text,
    describe,
    detection_text,
    expected,
    severity_label,
)
from metrics_registry.terminal import plain, printable

__all__ = [
    "describe",
    "expected",
    "print_finding",
    "render_json",
    "render_markdown",
    "render_text",
    "report_to_dict",
]

_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_MARKS = {"error": "✗", "warning": "!", "info": "·"}


def _quoted(key: str) -> str:
    return "'" + printable(key, one_line=True) + "'"


def _header(
    report: RunReport, loc: Localizer, quote: Callable[[str], str] = _quoted
) -> list[tuple[str, str]]:
    """``(label, value)`` rows describing the run; ``quote`` shows a logged key."""
    _ = loc.gettext
    rows = [(_("Format"), report.log.format)]
    if report.detection is not None:
        rows.append((_("Framework"), detection_text(report.detection, loc, quote)))
    family = report.family
    rows.append((_("Family"), family if family is not None else _("not recognised")))
    steps = report.summary.steps
    if steps is not None:
        rows.append((_("Steps"), f"{loc.step(steps[0])} – {loc.step(steps[1])}"))
    times = report.summary.times
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
    checked = {
        "series": loc.step(report.series_checked),
        "rules": loc.step(report.rules_evaluated),
        "skipped": loc.step(report.rules_skipped),
    }
    if report.rules_skipped:
        text = _(
            "%(series)s series, %(rules)s rule evaluations; %(skipped)s rules skipped: they do not hold"
            " for this release or configuration"
        )
    else:
        text = _("%(series)s series, %(rules)s rule evaluations")
    rows.append((_("Checked"), text % checked))
    rows.append(
        (
            _("Findings"),
            counts_text(report.count("error"), report.count("warning"), report.count("info"), loc),
        )
    )
    return rows


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _healthy(report: RunReport) -> bool:
    """Whether the report may say every checked series is healthy: nothing at warning or above."""
    return not any(f.severity in ("error", "warning") for f in report.findings)


def _series_cells(finding: RunFinding, loc: Localizer) -> list[str]:
    """Markdown cells of a rule or non-finite finding."""
    _ = loc.gettext
    assert finding.step is not None
    entry = finding.entry
    key = _code(finding.key or "")
    key = f"[{key}]({loc.url(entry)})" if entry is not None else key
    if finding.rule is not None:
        assert entry is not None
        rule, wanted = f"`{finding.rule_id}`", expected(finding.rule, loc)
        advice = loc.suggests(entry, finding.rule)
    else:
        rule, wanted, advice = "—", _("never NaN or infinite"), "—"
    return [
        severity_label(finding.severity, loc),
        key,
        rule,
        loc.step(finding.step),
        _cell(describe(finding, loc)),
        _cell(wanted),
        _cell(advice),
    ]


def _code(text: str) -> str:
    """``text`` (a logged key, a file name: untrusted) as one Markdown code span on one line."""
    text = printable(text, one_line=True)
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_markdown(reports: list[RunReport], loc: Localizer) -> str:
    _ = loc.gettext
    # Labels are looked up outside f-strings: Babel's extractor does not see into them.
    title, unhealthy, keys_title = _("Run check"), _("Unhealthy series"), _("Keys")
    issues_title, tracker = _("Known issues in the version you ran"), _("Tracker")
    log_title = _("The log")
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
        out += [f"## {_code(report.log.name)}", "", "| | |", "| --- | --- |"]
        out += [f"| {_cell(label)} | {_cell(value)} |" for label, value in _header(report, loc, _code)]
        problems = [f for f in report.findings if f.kind in LOG_KINDS]
        if problems:
            out += ["", f"### {log_title}", ""]
            for finding in problems:
                out.append(f"- **{severity_label(finding.severity, loc)}**: {describe(finding, loc)}")
        series = [f for f in report.findings if f.kind in SERIES_KINDS]
        if series:
            out += [
                "",
                f"### {unhealthy}",
                "",
                "| " + " | ".join(columns) + " |",
                "| --- | --- | --- | --- | --- | --- | --- |",
            ]
            out += ["| " + " | ".join(_series_cells(finding, loc)) + " |" for finding in series]
        elif _healthy(report):
            out += ["", _("Every checked series is healthy.")]
        issues = [f for f in report.findings if f.kind in ISSUE_KINDS]
        if issues:
            out += ["", f"### {issues_title}", ""]
            for keys, text, url in _issue_groups(issues, loc):
                shown = _("; ").join(_code(key) for key in keys)
                out.append(f"- {shown}: {_cell(text)} [{tracker}]({url})")
        notes = [f for f in report.findings if f.kind not in LOG_KINDS + SERIES_KINDS + ISSUE_KINDS]
        if notes:
            out += ["", f"### {keys_title}", ""]
            for finding in notes:
                what = printable(describe(finding, loc), one_line=True)
                out.append(f"- {_code(finding.key or '')}: {what}")
        out.append("")
    if loc.has_fallbacks:
        notice = _("Some texts are not translated yet and are shown in English.")
        out += [f"_{notice}_", ""]
    return "\n".join(out)


def print_finding(finding: RunFinding, loc: Localizer, console: Console) -> None:
    """A finding about a series (``rule``, ``non-finite``) as ``check-run`` prints it, and live views."""
    _ = loc.gettext
    assert finding.step is not None
    entry = finding.entry
    style = _STYLES[finding.severity]
    what = f"{finding.rule_id} ({getattr(finding.rule, 'kind', '')})" if finding.rule else finding.kind
    console.print()
    console.print(
        Text.assemble(
            (f"{_MARKS[finding.severity]} {severity_label(finding.severity, loc).upper()}  ", style),
            (printable(finding.key or "", one_line=True), "bold"),
            f"  {what}  ",
            (_("step %(step)s") % {"step": loc.step(finding.step)}, "dim"),
        )
    )
    body = [plain(readable_text(describe(finding, loc)), one_line=True)]
    if finding.rule is not None:
        assert entry is not None
        body += [
            Text(_("expected") + f": {expected(finding.rule, loc)}", style="dim"),
            Text(f"→ {printable(readable_text(loc.suggests(entry, finding.rule)))}"),
        ]
    if entry is not None:
        url = loc.url(entry)
        # a hyperlink (OSC 8) in the terminals that support it, when the URL is absolute
        link = f" link {url}" if url.startswith(("http://", "https://")) else ""
        body.append(Text(url, style=f"blue underline{link}"))
    console.print(Padding(Group(*body), (0, 0, 0, 4), expand=False))


def _issue_groups(findings: list[RunFinding], loc: Localizer) -> list[tuple[list[str], str, str]]:
    """``(keys, sentence, link)``: keys that one known issue affects in the same words, said once."""
    groups: dict[tuple[str, str], list[str]] = {}
    for finding in findings:
        assert finding.issue is not None
        groups.setdefault((describe(finding, loc), finding.issue.url), []).append(finding.key or "")
    return [(keys, text, url) for (text, url), keys in groups.items()]


def _print_issues(findings: list[RunFinding], loc: Localizer, console: Console) -> None:
    """The known issues of the release the run used, with their tracker links."""
    if not findings:
        return
    console.print()
    console.print(Text(loc.gettext("Known issues in the version you ran"), style="bold"))
    for keys, text, url in _issue_groups(findings, loc):
        console.print(
            Text.assemble(
                (f"{_MARKS['info']} ", _STYLES["info"]),
                (printable(loc.gettext("; ").join(keys)), "bold"),
                ": ",
                printable(readable_text(text)),
            )
        )
        # printable: the URL passed the registry's https check, but it is still registry text
        console.print(Padding(Text(printable(url), style="blue underline"), (0, 0, 0, 4)))


def render_text(reports: list[RunReport], loc: Localizer, console: Console) -> None:
    _ = loc.gettext
    for report in reports:
        console.rule(plain(report.log.name, style="bold"))
        facts = Table.grid(padding=(0, 2))
        facts.add_column(style="bold", no_wrap=True)
        facts.add_column()
        for label, value in _header(report, loc):
            facts.add_row(plain(label), plain(value))
        console.print(facts)
        for finding in (f for f in report.findings if f.kind in LOG_KINDS):
            mark = f"{_MARKS[finding.severity]} {severity_label(finding.severity, loc).upper()}  "
            what = printable(describe(finding, loc), one_line=True)
            console.print(Text.assemble((mark, _STYLES[finding.severity]), what))
        series = [f for f in report.findings if f.kind in SERIES_KINDS]
        if not series and _healthy(report):
            console.print(Text(_("Every checked series is healthy."), style="green"))
        for finding in series:
            print_finding(finding, loc, console)
        _print_issues([f for f in report.findings if f.kind in ISSUE_KINDS], loc, console)
        notes = [f for f in report.findings if f.kind not in LOG_KINDS + SERIES_KINDS + ISSUE_KINDS]
        if notes:
            console.print()
            for finding in notes:
                console.print(
                    Text.assemble(
                        (f"{_MARKS['info']} ", _STYLES["info"]),
                        (printable(finding.key or "", one_line=True), "bold"),
                        ": ",
                        printable(describe(finding, loc), one_line=True),
                    )
                )
        console.print()
    if loc.has_fallbacks:
        console.print(Text(_("Some texts are not translated yet and are shown in English."), style="dim"))

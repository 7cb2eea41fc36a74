"""A run report as JSON data: every key, finding and figure, with the sentences in the report's language."""

from __future__ import annotations

import json
import math
from typing import Any

from metrics_registry.runs.check import SEVERITIES, RunFinding, RunReport
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.wording import describe, expected

__all__ = ["finding_to_dict", "render_json", "report_to_dict"]


def finding_to_dict(finding: RunFinding, loc: Localizer) -> dict[str, Any]:
    entry = finding.entry
    data: dict[str, Any] = {
        "kind": finding.kind,
        "severity": finding.severity,
        "key": finding.key,
        "lookup": finding.info.lookup if finding.info is not None else None,
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
    if finding.rule is not None:
        data["expected"] = expected(finding.rule, loc)
        assert entry is not None
        data["suggests"] = loc.suggests(entry, finding.rule)
    if finding.problem is not None:
        problem = finding.problem
        data["problem"] = {
            "file": str(problem.file),
            "reason": problem.reason,
            "byte": problem.byte,
            "record": problem.record,
            "line": problem.line,
            "read": problem.read,
            "lines": list(problem.lines),
        }
    if finding.nothing is not None:
        data["reason"] = finding.nothing
    if finding.kind == "legacy-key":
        data["successors"] = [s.id for s in finding.info.successors]
    if finding.kind == "ambiguous-key" and finding.info is not None:
        data["candidates"] = [m.entry.id for m in finding.info.candidates]
    if finding.issue is not None:
        issue = finding.issue
        data["issue"] = {
            "url": issue.url,
            "effect": issue.effect,
            "affects": issue.affects.model_dump(mode="json"),
            "when": [condition.text() for condition in issue.when],
            "confirmed": finding.confirmed,
            "fixed_in": issue.fixed_in,
            "version": finding.version,
        }
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
    steps, times = report.summary.steps, report.summary.times
    return _clean(
        {
            "source": str(log.source),
            "run": log.run,
            "format": log.format,
            "family": report.family,
            "family_votes": dict(report.family_votes.most_common()),
            "detection": report.detection.to_dict() if report.detection is not None else None,
            "transformers_prefixes": log.hf_prefixed,
            "steps": list(steps) if steps else None,
            "logged": [t.isoformat() for t in times] if times else None,
            "keys": {
                key: {
                    "status": info.status,
                    "lookup": info.lookup,
                    "metric": info.entry.id if info.entry else None,
                    "mode": info.match.mode if info.match else None,
                    "points": report.summary.points.get(key, 0),
                }
                for key, info in sorted(report.keys.items())
            },
            "series_checked": report.series_checked,
            "rules_evaluated": report.rules_evaluated,
            "rules_skipped": report.rules_skipped,
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

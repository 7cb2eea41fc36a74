"""Validation findings (``metrics-registry validate``) as CI annotations.

The registry rules (``MR...``) are explained on the page about adding a
metric, the translation checks (``I18N...``) on the page about translating.
"""

from __future__ import annotations

from collections.abc import Iterable

from metrics_registry.findings import RULES, Finding
from metrics_registry.models import Severity
from metrics_registry.reporting import Annotation, Level, RuleInfo

__all__ = ["finding_annotations"]

_PAGES = {
    "MR": "en/contributing/adding-a-metric/#validation-rules",
    "I18N": "en/contributing/translating/#how-the-checks-work",
}
_LEVELS: dict[str, Level] = {"error": "error", "warning": "warning", "info": "note"}


def _rule(rule_id: str) -> RuleInfo:
    rule = RULES[rule_id]
    page = next((page for prefix, page in _PAGES.items() if rule_id.startswith(prefix)), None)
    return RuleInfo(rule.id, rule.name, rule.description, page, _LEVELS[Severity(rule.severity).value])


def finding_annotations(findings: Iterable[Finding]) -> list[Annotation]:
    """One annotation per finding: ``[key.field] message. Fix: fix`` at its file and line."""
    annotations = []
    for finding in findings:
        about = f"{finding.about()} " if finding.about() else ""
        annotations.append(
            Annotation(
                _rule(finding.rule),
                _LEVELS[Severity(finding.severity).value],
                f"{about}{finding.message}. Fix: {finding.fix}",
                finding.file,
                finding.line,
            )
        )
    return annotations

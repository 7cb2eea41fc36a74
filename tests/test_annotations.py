"""Validation findings as CI annotations: rule, level, message and place."""

from __future__ import annotations

from pathlib import Path

from metrics_registry.annotations import finding_annotations
from metrics_registry.findings import Finding
from metrics_registry.models import Severity


def test_a_registry_finding() -> None:
    finding = Finding(
        "MR102", Path("ppo.yaml"), 27, "unknown field 'crucal'", "remove it", "objective/kl", "crucal"
    )
    (annotation,) = finding_annotations([finding])
    assert annotation.rule.id == "MR102" and annotation.rule.name == "unknown-field"
    assert annotation.rule.help_page == "en/contributing/adding-a-metric/#validation-rules"
    assert annotation.rule.default_level == "error"
    assert (annotation.level, annotation.path, annotation.line) == ("error", Path("ppo.yaml"), 27)
    assert annotation.message == "[objective/kl.crucal] unknown field 'crucal'. Fix: remove it"


def test_warnings_and_translation_findings() -> None:
    warning = Finding("MR120", Path("a.yaml"), None, "lists itself", "drop it", "k")
    glossary = Finding(
        "I18N209", Path("vi/ui.po"), 4, "uses another term", "use the glossary's", severity=Severity.error
    )
    first, second = finding_annotations([warning, glossary])
    assert (first.level, first.rule.default_level, first.line) == ("warning", "warning", None)
    assert first.message == "[k] lists itself. Fix: drop it"
    assert second.level == "error", "the finding's own severity, not the rule's default"
    assert second.rule.default_level == "warning"
    assert second.rule.help_page == "en/contributing/translating/#how-the-checks-work"
    assert second.message == "uses another term. Fix: use the glossary's"

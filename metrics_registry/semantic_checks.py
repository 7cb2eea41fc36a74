"""Checks of the fields that say what a value means: concepts, known issues, rule conditions.

Registered in :data:`metrics_registry.checks.CHECKS`; the same signature as
every check there (parsed files and the registry in, findings out).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from metrics_registry.findings import Finding
from metrics_registry.loader import LoadedFile
from metrics_registry.modelbase import VersionRange
from metrics_registry.models import Metric
from metrics_registry.registry import Registry

__all__ = ["check_concepts", "check_condition_versions", "check_known_issue_versions"]


def check_concepts(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    """MR160: a metric names a concept the closed list does not hold."""
    if not registry.concepts:
        return  # the list itself is unreadable, and reported (MR161)
    known = sorted(registry.concepts)
    for loaded in files:
        if loaded.family is None:
            continue
        for index, metric in loaded.metrics:
            if metric.concept is None or metric.concept in registry.concepts:
                continue
            close = difflib.get_close_matches(metric.concept, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else "or add the concept to the list"
            yield Finding(
                "MR160",
                loaded.path,
                loaded.line_of(("metrics", index, "concept")),
                f"unknown concept '{metric.concept}'",
                f"use an id from metrics_registry/data/concepts/concepts.yaml ({hint})",
                metric.key,
                "concept",
            )


def _metric_versions(loaded: LoadedFile, metric: Metric) -> VersionRange | None:
    if metric.versions is not None:
        return metric.versions
    return loaded.family.versions if loaded.family is not None else None


def check_known_issue_versions(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    """MR162: a known issue affects only releases in which the metric is not logged."""
    for loaded in files:
        if loaded.family is None:
            continue
        for index, metric in loaded.metrics:
            logged = _metric_versions(loaded, metric)
            for position, issue in enumerate(metric.known_issues):
                if logged is None or issue.affects.overlaps(logged):
                    continue
                yield Finding(
                    "MR162",
                    loaded.path,
                    loaded.line_of(("metrics", index, "known_issues", position, "affects")),
                    f"the known issue affects {issue.affects.text('releases')}, which do not log the metric"
                    f" ({logged.text('releases')})",
                    "correct 'affects' (first affected release, first fixed one) or the metric's versions",
                    metric.key,
                    f"known_issues[{position}].affects",
                )


def check_condition_versions(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    """MR162: a healthy rule's ``applies_when``/``except_when`` names releases that do not log the metric."""
    for loaded in files:
        if loaded.family is None:
            continue
        for index, metric in loaded.metrics:
            logged = _metric_versions(loaded, metric)
            for position, rule in enumerate(metric.healthy):
                for name in ("applies_when", "except_when"):
                    condition = getattr(rule, name)
                    if logged is None or condition is None or condition.versions is None:
                        continue
                    if condition.versions.overlaps(logged):
                        continue
                    yield Finding(
                        "MR162",
                        loaded.path,
                        loaded.line_of(("metrics", index, "healthy", position, name, "versions")),
                        f"rule '{rule.id}': {name} names {condition.versions.text('releases')}, which do not"
                        f" log the metric ({logged.text('releases')})",
                        "correct the condition's versions, or remove the condition",
                        metric.key,
                        f"healthy[{position}].{name}.versions",
                    )

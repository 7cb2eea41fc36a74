"""The registry as data for other tools: the JSON export and its schema.

The export is a stable, documented shape (``schema_version``), derived from
the same models as the YAML, so the schema printed by ``metrics-registry
schema`` always describes what ``metrics-registry export`` writes.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from metrics_registry.models import FamilyInfo, Metric, VersionRange, _Model
from metrics_registry.registry import Registry

__all__ = ["EXPORT_SCHEMA_VERSION", "ExportDocument", "ExportedMetric", "export_document", "export_json"]

EXPORT_SCHEMA_VERSION = "1"


class ExportedMetric(Metric):
    """A metric as exported: the YAML fields plus what the registry derives."""

    id: str = Field(description="Globally unique id, 'family:key'.")
    family: str = Field(description="Family id.")
    trainer: str = Field(description="Trainer class that logs it.")
    versions: VersionRange = Field(description="Releases that log it (the family's when not set).")  # type: ignore[assignment]
    versions_of: str = Field(description="Whose releases 'versions' counts ('trl' or an extension).")
    templated: bool = Field(description="Whether the key has '{placeholders}'.")
    anchor: str = Field(description="Anchor of the metric on its family page, the same in every language.")


class ExportDocument(_Model):
    """Top-level object of ``metrics-registry export --format json``."""

    schema_version: Literal["1"] = EXPORT_SCHEMA_VERSION
    generator: str = Field(description="Tool and version that wrote the file.")
    families: list[FamilyInfo]
    metrics: list[ExportedMetric]


def export_document(registry: Registry) -> ExportDocument:
    from metrics_registry import __version__

    metrics = [
        ExportedMetric(
            **entry.metric.model_dump(exclude={"versions"}),
            versions=entry.versions,
            id=entry.id,
            family=entry.family.id,
            trainer=entry.family.trainer,
            versions_of=entry.family.versions_of,
            templated=entry.templated,
            anchor=entry.anchor,
        )
        for entry in registry
    ]
    return ExportDocument(
        generator=f"metrics-registry {__version__}",
        families=list(registry.families.values()),
        metrics=metrics,
    )


def export_json(registry: Registry) -> str:
    """The export as JSON text (UTF-8, keys in model order, trailing newline)."""
    data: dict[str, Any] = export_document(registry).model_dump(mode="json")
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"

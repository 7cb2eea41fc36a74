"""The JSON export: every metric, every family, every language.

The export is a stable, documented shape (`schema_version`), derived from
the same models as the YAML, so the schema printed by `metrics-registry
schema` always describes what `metrics-registry export` writes. English
is the source; the other languages come from the catalogs, field by field,
with their status (see `metrics_registry.exports.translations`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from metrics_registry.concepts import Concept
from metrics_registry.exports.translations import Translations, registry_translations
from metrics_registry.links import metric_page
from metrics_registry.locate import find_i18n_root
from metrics_registry.models import FamilyInfo, Metric, VersionRange, _Model
from metrics_registry.registry import Registry

__all__ = [
    "EXPORT_SCHEMA_VERSION",
    "ExportDocument",
    "ExportedConcept",
    "ExportedFamily",
    "ExportedMetric",
    "export_document",
    "export_json",
]

#: "2" added the translations (``languages`` and each item's ``translations``); "3" the concepts and
#: the metric fields ``concept``, ``reduction``, ``meaning_depends_on``, ``known_issues`` and the
#: healthy rules' ``applies_when``/``except_when``.
EXPORT_SCHEMA_VERSION = "3"

_TRANSLATIONS_DESCRIPTION = (
    "Translations of the translatable fields: language -> field path (e.g. 'summary', "
    "'healthy[<rule id>].suggests') -> status and text. A field absent here has no text in English either."
)


class ExportedFamily(FamilyInfo):
    """A family header as exported, with its translations."""

    translations: Translations = Field(default_factory=dict, description=_TRANSLATIONS_DESCRIPTION)


class ExportedMetric(Metric):
    """A metric as exported: the YAML fields plus what the registry derives."""

    id: str = Field(description="Globally unique id, 'family:key'.")
    family: str = Field(description="Family id.")
    trainer: str = Field(description="Trainer class that logs it.")
    versions: VersionRange = Field(description="Releases that log it (the family's when not set).")  # type: ignore[assignment]
    versions_of: str = Field(description="Whose releases 'versions' counts ('trl' or an extension).")
    templated: bool = Field(description="Whether the key has '{placeholders}'.")
    anchor: str = Field(
        description="The metric's anchor, the same in every language: "
        "'<site>/<lang>/reference/<family>/#<anchor>' on its family's index opens its page."
    )
    page: str = Field(
        description="Path of the metric's own page below a language's root of the site, "
        "the same in every language: '<site>/<lang>/<page>', e.g. 'reference/grpo/kl/'."
    )
    translations: Translations = Field(default_factory=dict, description=_TRANSLATIONS_DESCRIPTION)


class ExportedConcept(Concept):
    """A concept as exported, with the metrics that measure it and its translations."""

    metrics: list[str] = Field(description="Ids ('family:key') of the metrics that name this concept.")
    translations: Translations = Field(default_factory=dict, description=_TRANSLATIONS_DESCRIPTION)


class ExportDocument(_Model):
    """Top-level object of `metrics-registry export --format json`."""

    schema_version: Literal["3"] = EXPORT_SCHEMA_VERSION
    generator: str = Field(description="Tool and version that wrote the file.")
    source_language: Literal["en"] = Field(
        default="en", description="The language the registry is written in."
    )
    languages: list[str] = Field(
        description="Every language of the document: the source language, then each translation."
    )
    families: list[ExportedFamily]
    metrics: list[ExportedMetric]
    concepts: list[ExportedConcept] = Field(
        description="The closed list of concepts the metrics' 'concept' fields name."
    )


def export_document(registry: Registry, *, i18n_root: Path | None = None) -> ExportDocument:
    """The export as a model; translations from the catalogs under `i18n_root`.

    `i18n_root` defaults to the project found by `metrics_registry.locate.find_i18n_root()`.
    """
    from metrics_registry import __version__

    root = i18n_root if i18n_root is not None else find_i18n_root()
    translations = registry_translations(registry, root)
    languages = ["en", *sorted({lang for item in translations.values() for lang in item})]
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
            page=metric_page(entry),
            translations=translations.get(entry.id, {}),
        )
        for entry in registry
    ]
    families = [
        ExportedFamily(**family.model_dump(), translations=translations.get(family_id, {}))
        for family_id, family in registry.families.items()
    ]
    concepts = [
        ExportedConcept(
            **concept.model_dump(),
            metrics=[entry.id for entry in registry if entry.metric.concept == concept.id],
            translations=translations.get(f"concept:{concept.id}", {}),
        )
        for concept in registry.concepts.values()
    ]
    return ExportDocument(
        generator=f"metrics-registry {__version__}",
        languages=languages,
        families=families,
        metrics=metrics,
        concepts=concepts,
    )


def export_json(registry: Registry, *, i18n_root: Path | None = None) -> str:
    """The export as JSON text (UTF-8, keys in model order, trailing newline)."""
    # pydantic's own serializer (Rust): 6x faster than json.dumps of model_dump on a large registry
    return export_document(registry, i18n_root=i18n_root).model_dump_json(indent=2) + "\n"

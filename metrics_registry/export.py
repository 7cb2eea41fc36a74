"""Compatibility module: the exports live in :mod:`metrics_registry.exports`.

``from metrics_registry.export import export_json`` keeps working for the
site build, the schema and other tools.
"""

from __future__ import annotations

from metrics_registry.exports import (
    EXPORT_SCHEMA_VERSION,
    ExportDocument,
    ExportedFamily,
    ExportedMetric,
    export_document,
    export_json,
)

__all__ = [
    "EXPORT_SCHEMA_VERSION",
    "ExportDocument",
    "ExportedFamily",
    "ExportedMetric",
    "export_document",
    "export_json",
]

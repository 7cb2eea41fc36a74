"""Compare two versions of the registry (``metrics-registry diff OLD NEW``).

:func:`~metrics_registry.diff.sources.load_source` reads a side (files,
folders or git revisions), :func:`~metrics_registry.diff.compare.compare`
computes the differences, :mod:`~metrics_registry.diff.render` prints them.
"""

from __future__ import annotations

from metrics_registry.diff.compare import FIELDS, FieldChange, MetricDiff, RegistryDiff, compare
from metrics_registry.diff.sources import DiffSourceError, RegistrySource, load_source

__all__ = [
    "FIELDS",
    "DiffSourceError",
    "FieldChange",
    "MetricDiff",
    "RegistryDiff",
    "RegistrySource",
    "compare",
    "load_source",
]

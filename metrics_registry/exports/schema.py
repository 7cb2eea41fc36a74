"""The JSON Schema of the JSON export, as an export format of its own."""

from __future__ import annotations

from metrics_registry.registry import Registry

__all__ = ["export_jsonschema"]


def export_jsonschema(registry: Registry) -> str:
    """The JSON Schema that `export --format json` validates against.

    The schema depends on the format, not on the registry's content; the
    argument keeps the signature of every `export_<format>` function.
    """
    del registry
    from metrics_registry.schema import schema_text  # imports this package's models

    return schema_text("export")

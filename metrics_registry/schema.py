"""JSON Schemas generated from the models.

Two schemas: one for the YAML registry files (editors use it through the
yaml-language-server modeline; it is committed as
``metrics_registry/schema/registry-file.schema.json`` and a test keeps it
in sync), and one for the JSON export.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from metrics_registry.exports import ExportDocument
from metrics_registry.models import RegistryFile

__all__ = ["SCHEMA_FILE_NAME", "committed_schema_path", "json_schema", "schema_text"]

SCHEMA_FILE_NAME = "registry-file.schema.json"
_DIALECT = "https://json-schema.org/draft/2020-12/schema"

SchemaKind = Literal["export", "registry-file"]


def json_schema(kind: SchemaKind = "export") -> dict[str, Any]:
    """The JSON Schema of the export (default) or of a registry YAML file."""
    if kind == "export":
        schema = ExportDocument.model_json_schema(mode="serialization")
        title = "metrics-registry JSON export"
    else:
        schema = RegistryFile.model_json_schema(mode="validation")
        title = "metrics-registry registry file"
    return {"$schema": _DIALECT, "title": title, **{k: v for k, v in schema.items() if k != "title"}}


def schema_text(kind: SchemaKind = "export") -> str:
    return json.dumps(json_schema(kind), indent=2, ensure_ascii=False) + "\n"


def committed_schema_path() -> Path:
    return Path(str(resources.files("metrics_registry") / "schema" / SCHEMA_FILE_NAME))

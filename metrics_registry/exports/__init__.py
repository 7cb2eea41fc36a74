"""The registry as data for other tools: one `export_<format>(registry) -> str` per format.

| format | what |
| --- | --- |
| `json` | every metric and family, with the vi/zh translations |
| `jsonschema` | the JSON Schema of `json` |
| `rename-map` | old key -> current key, by release |
| `python` | a module of key constants (`metrics_registry/constants.py`) |
| `wandb` | `wandb.define_metric` arguments per metric |

The site publishes each one next to `metrics.json`; `metrics-registry
export --format <format>` prints it.
"""

from __future__ import annotations

from collections.abc import Callable

from metrics_registry.exports.document import (
    EXPORT_SCHEMA_VERSION,
    ExportDocument,
    ExportedFamily,
    ExportedMetric,
    export_document,
    export_json,
)
from metrics_registry.exports.python_module import export_python
from metrics_registry.exports.rename_map import export_rename_map
from metrics_registry.exports.schema import export_jsonschema
from metrics_registry.exports.wandb import export_wandb
from metrics_registry.registry import Registry

__all__ = [
    "EXPORTERS",
    "EXPORT_SCHEMA_VERSION",
    "FILE_NAMES",
    "ExportDocument",
    "ExportedFamily",
    "ExportedMetric",
    "export_document",
    "export_json",
    "export_jsonschema",
    "export_python",
    "export_rename_map",
    "export_wandb",
]

#: Format name (as ``--format`` takes it) -> export function.
EXPORTERS: dict[str, Callable[[Registry], str]] = {
    "json": export_json,
    "jsonschema": export_jsonschema,
    "rename-map": export_rename_map,
    "python": export_python,
    "wandb": export_wandb,
}

#: The file name the site publishes each format under, next to ``metrics.json``.
FILE_NAMES: dict[str, str] = {
    "json": "metrics.json",
    "jsonschema": "schema.json",
    "rename-map": "rename-map.json",
    "python": "metrics_registry_keys.py",
    "wandb": "wandb-define-metric.json",
}

"""The JSON export validates against the printed schema; the committed schema is current."""

from __future__ import annotations

import json

import jsonschema

from metrics_registry import Registry
from metrics_registry.exports import export_json
from metrics_registry.schema import committed_schema_path, json_schema, schema_text


def test_export_validates_against_schema(registry: Registry) -> None:
    document = json.loads(export_json(registry))
    jsonschema.Draft202012Validator.check_schema(json_schema("export"))
    jsonschema.validate(document, json_schema("export"), cls=jsonschema.Draft202012Validator)
    assert len(document["metrics"]) == len(registry)
    first = document["metrics"][0]
    for field in (
        "key",
        "aliases",
        "replaces",
        "replaced_by",
        "family",
        "versions",
        "title",
        "summary",
        "formula",
        "reference",
        "anchor",
        "id",
    ):
        assert field in first


def test_schema_rejects_a_broken_export(registry: Registry) -> None:
    document = json.loads(export_json(registry))
    del document["metrics"][0]["key"]
    errors = list(jsonschema.Draft202012Validator(json_schema("export")).iter_errors(document))
    assert any("'key' is a required property" in e.message for e in errors)


def test_committed_registry_file_schema_is_current() -> None:
    assert committed_schema_path().read_text(encoding="utf-8") == schema_text("registry-file"), (
        "regenerate it: metrics-registry schema --kind registry-file > "
        "metrics_registry/schema/registry-file.schema.json"
    )


def test_registry_files_validate_against_their_schema(registry: Registry) -> None:
    from ruamel.yaml import YAML

    schema = json_schema("registry-file")
    for path in sorted({entry.path for entry in registry}):
        data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
        jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)

"""Reading the CI formats back as their consumers do: the GitHub runner, a SARIF validator.

``parse_command`` follows the runner's own parsing of a workflow command
(actions/runner, ``ActionCommand.TryParseV2``): ``::name`` then properties
after the first space, split on ``,`` and then on the first ``=``, the
message after the first ``::`` that follows; values unescaped with the
runner's tables (CR, LF, and ``:`` ``,`` in properties, then ``%``).
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema

SCHEMA = Path(__file__).resolve().parents[1] / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"

_DATA = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))
_PROPERTY = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))


def _unescape(text: str, table: tuple[tuple[str, str], ...]) -> str:
    for escaped, raw in table:
        text = text.replace(escaped, raw)
    return text


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """``(command, properties, message)`` of one workflow command line."""
    assert line.startswith("::"), line
    end = line.index("::", 2)
    info = line[2:end]
    name, _, listed = info.partition(" ")
    properties = {}
    for item in listed.split(","):
        if item:
            key, _, value = item.partition("=")
            properties[key] = _unescape(value, _PROPERTY)
    return name, properties, _unescape(line[end + 2 :], _DATA)


def parse_commands(text: str) -> list[tuple[str, dict[str, str], str]]:
    """Every line of ``text``, each of which must be a workflow command."""
    return [parse_command(line) for line in text.splitlines()]


@cache
def _validator() -> jsonschema.Draft4Validator:
    data = SCHEMA.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SCHEMA_SHA256, "the vendored SARIF schema was changed"
    schema = json.loads(data)
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def assert_valid_sarif(text: str) -> dict[str, Any]:
    """Parse ``text``, validate it against the official schema and the rules it cannot express."""
    log = json.loads(text)
    errors = sorted(_validator().iter_errors(log), key=lambda error: list(error.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    for run in log["runs"]:
        rules = run["tool"]["driver"]["rules"]
        ids = [rule["id"] for rule in rules]
        assert len(ids) == len(set(ids)), ids
        for rule in rules:
            if "helpUri" in rule:  # SARIF 3.49.12: an absolute URI
                assert urlsplit(rule["helpUri"]).scheme in {"http", "https"}, rule
        for result in run["results"]:
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
            for location in result.get("locations", []):
                artifact = location["physicalLocation"]["artifactLocation"]
                scheme = urlsplit(artifact["uri"]).scheme
                # relative to %SRCROOT%, or an absolute file: URI without a base
                assert (scheme == "") == (artifact.get("uriBaseId") == "%SRCROOT%"), artifact
    return log

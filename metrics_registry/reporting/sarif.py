"""SARIF 2.1.0, the OASIS format code scanning services read (GitHub's among them).

One log, one run, the tool ``metrics-registry`` with the rules that fired
(id, name, description, link to the docs page when the site's address is
known) and one result per finding. File locations are relative to the
current folder, under the base id ``%SRCROOT%`` that the run maps to it;
columns count Unicode code points (``columnKind``), as Python's strings do.

Built as plain dicts: the only Python object models of SARIF on PyPI
(sarif-om) are unmaintained, and the document is small.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from metrics_registry.reporting.annotation import Annotation, RuleInfo, encodable, help_uri, relative_uri

__all__ = ["SARIF_SCHEMA_URI", "sarif_log", "sarif_text"]

#: The schema's own id (OASIS SARIF 2.1.0, errata 01).
SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"
TOOL_NAME = "metrics-registry"


def _tool_version() -> str | None:
    """The installed distribution's version (pyproject.toml's, the one source); none from a bare tree."""
    from importlib.metadata import PackageNotFoundError, version  # ~30 ms: only for a SARIF log

    try:
        return version(TOOL_NAME)
    except PackageNotFoundError:
        return None


def _rule(rule: RuleInfo, site_url: str) -> dict[str, Any]:
    descriptor: dict[str, Any] = {
        "id": encodable(rule.id),
        "name": encodable(rule.name),
        "shortDescription": {"text": encodable(rule.description)},
    }
    uri = help_uri(rule, site_url)
    if uri is not None:
        descriptor["helpUri"] = uri
    if rule.default_level is not None:
        descriptor["defaultConfiguration"] = {"level": rule.default_level}
    return descriptor


def _location(annotation: Annotation, cwd: Path) -> dict[str, Any]:
    assert annotation.path is not None
    uri, relative = relative_uri(annotation.path, cwd)
    artifact: dict[str, Any] = {"uri": uri}
    if relative:
        artifact["uriBaseId"] = SRCROOT
    physical: dict[str, Any] = {"artifactLocation": artifact}
    region: dict[str, Any] = {}
    if annotation.line is not None:
        region["startLine"] = annotation.line
        if annotation.column is not None:
            region["startColumn"] = annotation.column
            if annotation.end_column is not None and annotation.end_column > annotation.column:
                region["endColumn"] = annotation.end_column
    elif annotation.byte_offset is not None:
        region["byteOffset"] = annotation.byte_offset
    if region:
        physical["region"] = region
    return {"physicalLocation": physical}


def sarif_log(
    annotations: Iterable[Annotation], *, site_url: str = "", cwd: Path | None = None
) -> dict[str, Any]:
    """The SARIF log of ``annotations``, as JSON-ready data."""
    cwd = Path.cwd() if cwd is None else cwd
    rules: dict[str, RuleInfo] = {}  # the first description of an id wins
    index: dict[str, int] = {}
    results = []
    for annotation in annotations:
        rule = rules.setdefault(annotation.rule.id, annotation.rule)
        result: dict[str, Any] = {
            "ruleId": encodable(rule.id),
            "ruleIndex": index.setdefault(rule.id, len(index)),
            "level": annotation.level,
            "message": {"text": encodable(annotation.message)},
        }
        if annotation.path is not None:
            result["locations"] = [_location(annotation, cwd)]
        results.append(result)
    driver: dict[str, Any] = {"name": TOOL_NAME}
    tool_version = _tool_version()
    if tool_version is not None:
        driver["version"] = tool_version
    home = help_uri(RuleInfo(TOOL_NAME, TOOL_NAME, "", "en/"), site_url)
    if home is not None:
        driver["informationUri"] = home
    driver["rules"] = [_rule(rule, site_url) for rule in rules.values()]
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "originalUriBaseIds": {SRCROOT: {"uri": cwd.as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def sarif_text(annotations: Iterable[Annotation], *, site_url: str = "", cwd: Path | None = None) -> str:
    """:func:`sarif_log` as indented JSON text (UTF-8, non-ASCII kept), ending with a newline."""
    return json.dumps(sarif_log(annotations, site_url=site_url, cwd=cwd), indent=2, ensure_ascii=False) + "\n"

"""Read one registry YAML file into typed models, with findings that carry lines.

:mod:`metrics_registry.yamlread` turns the text into plain Python objects
and the line of every key and list item (libyaml, bounded, nothing ever
executed: any language-specific tag such as ``!!python/...`` is a syntax
finding); pydantic then validates each part on its own.
"""

from __future__ import annotations

import difflib
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from metrics_registry.findings import Finding
from metrics_registry.models import FamilyInfo, Metric, RegistryFile
from metrics_registry.yamlread import (
    MAX_ALIASED_VALUES,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    DuplicateKeyError,
    Loc,
    TagError,
    TooBigError,
    YAMLError,
    line_of,
    read_document,
)

__all__ = ["MAX_ALIASED_VALUES", "MAX_DEPTH", "MODELINE_PREFIX", "LoadedFile", "load_file"]

MODELINE_PREFIX = "# yaml-language-server: $schema="


@dataclass
class LoadedFile:
    """A parsed file: its valid parts, the line of every item, and findings.

    Each metric is validated on its own, so one broken entry does not hide
    the rest of its family from the cross-entry checks.
    """

    path: Path
    family: FamilyInfo | None = None
    metrics: list[tuple[int, Metric]] = field(default_factory=list)
    raw: Any = None
    lines: dict[Loc, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def line_of(self, loc: Loc) -> int | None:
        """Line of the deepest located prefix of ``loc`` (1-based)."""
        return line_of(self.lines, tuple(loc))

    def metric_line(self, index: int) -> int | None:
        """Line of the ``index``-th item of ``metrics`` in the file."""
        return self.lines.get(("metrics", index))

    @property
    def valid(self) -> bool:
        return self.family is not None and not any(f.is_error for f in self.findings)


def _syntax_finding(path: Path, error: YAMLError) -> Finding:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    problem = getattr(error, "problem", None)
    text = (problem or str(error)).strip().splitlines()[0]
    return Finding(
        "MR100",
        path,
        line,
        f"YAML syntax: {text}",
        "correct the YAML at this line (indentation, a missing ':' or an unclosed quote"
        " are the usual causes)",
    )


def _too_big(path: Path, line: int | None, what: str) -> Finding:
    return Finding(
        "MR107",
        path,
        line,
        f"the file {what}; it is not read further",
        "write values out plainly: a registry file needs neither YAML aliases (*name) nor deep nesting",
    )


def _field_path(loc: Loc) -> str:
    """``('healthy', 0, 'range', 'min')`` -> ``healthy[0].min`` (drops union tags)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in {"range", "direction", "finite", "spike", "not_constant"} and out.endswith("]"):
            continue  # pydantic's discriminator tag, not a field
        else:
            out += f".{part}" if out else str(part)
    return out


def _known_fields(loc: Loc) -> list[str]:
    from metrics_registry import conditions, models, semantics

    parent = loc[-2] if len(loc) >= 2 else None
    by_parent: dict[Any, type] = {
        "family": models.FamilyInfo,
        "aggregation": models.Aggregation,
        "versions": models.VersionRange,
        "affects": models.VersionRange,
        "gated_by": models.Gate,
        "changes": models.Change,
        "meaning_depends_on": semantics.MeaningDependency,
        "known_issues": semantics.KnownIssue,
        "reduction": semantics.ReductionStep,
        "config": conditions.ConfigCondition,
        "when": conditions.ConfigCondition,
        "applies_when": conditions.Condition,
        "except_when": conditions.Condition,
    }
    if len(loc) == 1:
        return list(models.RegistryFile.model_fields)
    if len(loc) >= 3 and loc[0] == "metrics" and len(loc) == 3:
        return list(models.Metric.model_fields)
    for name in reversed(loc[:-1]):
        if isinstance(name, str) and name in by_parent:
            return list(by_parent[name].model_fields)
    if parent in {"range", "direction", "finite", "spike", "not_constant"}:
        model = {
            "range": models.RangeRule,
            "direction": models.DirectionRule,
            "finite": models.FiniteRule,
            "spike": models.SpikeRule,
            "not_constant": models.ConstantRule,
        }[parent]
        return list(model.model_fields)
    return []


def _schema_findings(loaded: LoadedFile, error: ValidationError, prefix: Loc = ()) -> list[Finding]:
    findings = []
    raw = loaded.raw if isinstance(loaded.raw, dict) else {}
    for problem in error.errors():
        loc: Loc = (*prefix, *problem["loc"])
        key = None
        field_loc = loc
        if len(loc) >= 2 and loc[0] == "metrics" and isinstance(loc[1], int):
            metrics = raw.get("metrics") or []
            if loc[1] < len(metrics) and isinstance(metrics[loc[1]], dict):
                key = metrics[loc[1]].get("key")
            field_loc = loc[2:]
        field_name = _field_path(field_loc) or None
        line = loaded.line_of(loc)
        kind = problem["type"]
        name = str(loc[-1]) if loc else ""
        if kind == "extra_forbidden":
            known = _known_fields(loc)
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"known fields: {', '.join(known)}"
            findings.append(
                Finding(
                    "MR102",
                    loaded.path,
                    line,
                    f"unknown field '{name}'",
                    f"remove it or correct the spelling ({hint})",
                    key,
                    field_name,
                )
            )
        elif kind == "missing":
            findings.append(
                Finding(
                    "MR103",
                    loaded.path,
                    line,
                    f"required field '{name}' is missing",
                    f"add '{name}:' to this entry (see docs/en/contributing/adding-a-metric.md)",
                    key,
                    field_name,
                )
            )
        else:
            message = problem["msg"]
            if kind.startswith("union_tag"):
                fix = "set 'kind' to one of: range, direction, finite, spike, not_constant"
            elif kind in {"enum", "literal_error"}:
                fix = "use one of the allowed values listed in the message"
            elif kind == "string_pattern_mismatch":
                fix = "write the value in the expected form (see the field's description in the schema)"
            else:
                fix = "correct the value (the schema describes each field)"
            findings.append(
                Finding(
                    "MR104",
                    loaded.path,
                    line,
                    f"invalid value for '{field_name or name}': {message}",
                    fix,
                    key,
                    field_name,
                )
            )
    return findings


def load_file(path: Path) -> LoadedFile:
    """Parse and validate one registry file; never raises for bad content."""
    path = Path(path)
    loaded = LoadedFile(path=path)
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            loaded.findings.append(
                Finding(
                    "MR106",
                    path,
                    None,
                    "cannot read the file: it is not a regular file (a device, a pipe or a folder)",
                    "give the path of a registry YAML file",
                )
            )
            return loaded
        with path.open("rb") as stream:
            # read one byte past the limit: a file that grows after stat() is still caught
            data = stream.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            size = max(status.st_size, len(data))
            loaded.findings.append(
                _too_big(path, None, f"is {size:,} bytes, over the limit of {MAX_FILE_BYTES:,}")
            )
            return loaded
        # utf-8-sig: a byte order mark (some Windows editors add one) is not part of the text
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        loaded.findings.append(
            Finding(
                "MR106",
                path,
                None,
                f"cannot read the file: {error}",
                "check that the path exists and the file is saved as UTF-8",
            )
        )
        return loaded
    first_line = text.split("\n", 1)[0]
    if not first_line.startswith(MODELINE_PREFIX):
        loaded.findings.append(
            Finding(
                "MR105",
                path,
                1,
                "the first line is not the yaml-language-server modeline",
                f"start the file with '{MODELINE_PREFIX}<relative path to registry-file.schema.json>'",
            )
        )
    try:
        document = read_document(text)
        loaded.raw, loaded.lines = document.data, document.lines
    except YAMLError as error:
        loaded.findings.append(_syntax_finding(path, error))
        return loaded
    except DuplicateKeyError as error:
        loaded.findings.append(
            Finding(
                "MR101",
                path,
                error.line,
                f"{error}; the second value would silently win",
                "keep one of the two fields and delete the other",
            )
        )
        return loaded
    except TooBigError as error:
        loaded.findings.append(_too_big(path, error.line, error.what))
        return loaded
    except TagError as error:
        loaded.findings.append(
            Finding(
                "MR100",
                path,
                error.line,
                f"YAML tag '{error.tag}' is not allowed; registry files hold plain data only",
                "remove the tag and write the value as a plain string, number, list or mapping",
            )
        )
        return loaded
    if not isinstance(loaded.raw, dict):
        loaded.findings.append(
            Finding(
                "MR104",
                path,
                1,
                "the file must be a mapping with 'family' and 'metrics'",
                "start from an existing family file or run 'metrics-registry new'",
            )
        )
        return loaded
    loaded.findings.extend(_control_character_findings(loaded, document.controls))
    _validate_parts(loaded)
    return loaded


def _control_character_findings(loaded: LoadedFile, controls: list[Loc]) -> list[Finding]:
    """An MR108 finding per text of the file that holds a terminal or bidirectional control."""
    from metrics_registry.terminal import CONTROL_CHARACTERS, printable

    findings = []
    for loc in controls:
        value: Any = loaded.raw
        for part in loc:
            value = value[part]
        found = CONTROL_CHARACTERS.search(value)
        assert found is not None
        findings.append(
            Finding(
                "MR108",
                loaded.path,
                loaded.line_of(loc),
                f"'{_field_path(loc)}' holds the control character {printable(found.group())!r}",
                "delete it: registry texts are plain Markdown (write a tab or a new line as such)",
                field=_field_path(loc),
            )
        )
    return sorted(findings, key=lambda finding: finding.line or 0)


def _validate_parts(loaded: LoadedFile) -> None:
    raw: dict[str, Any] = loaded.raw
    for name in raw:
        if name not in RegistryFile.model_fields:
            loaded.findings.append(
                Finding(
                    "MR102",
                    loaded.path,
                    loaded.lines.get((name,)),
                    f"unknown top-level field '{name}'",
                    "a registry file has only 'family' and 'metrics'",
                    field=name,
                )
            )
    for name in RegistryFile.model_fields:
        if name not in raw:
            loaded.findings.append(
                Finding(
                    "MR103",
                    loaded.path,
                    1,
                    f"required top-level field '{name}' is missing",
                    f"add '{name}:' (copy the layout of metrics_registry/data/ppo.yaml)",
                    field=name,
                )
            )
    if "family" in raw:
        try:
            loaded.family = FamilyInfo.model_validate(raw["family"])
        except ValidationError as error:
            loaded.findings.extend(_schema_findings(loaded, error, ("family",)))
    metrics = raw.get("metrics")
    if "metrics" in raw and (not isinstance(metrics, list) or not metrics):
        loaded.findings.append(
            Finding(
                "MR104",
                loaded.path,
                loaded.lines.get(("metrics",)),
                "'metrics' must be a non-empty list of entries",
                "add at least one entry with 'metrics-registry new KEY --family FAMILY'",
                field="metrics",
            )
        )
        return
    for index, item in enumerate(metrics or []):
        try:
            loaded.metrics.append((index, Metric.model_validate(item)))
        except ValidationError as error:
            loaded.findings.extend(_schema_findings(loaded, error, ("metrics", index)))

"""Read one registry YAML file into typed models, with findings that carry lines.

ruamel.yaml's round-trip parser is used because it records the line of
every key and list item; the data is copied into plain Python objects
before pydantic sees it. Nothing in the YAML is ever executed: the
round-trip constructor builds only mappings, lists and scalars, and any
language-specific tag (``!!python/...``) is a syntax finding.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from metrics_registry.findings import Finding
from metrics_registry.models import FamilyInfo, Metric, RegistryFile

__all__ = ["MODELINE_PREFIX", "LoadedFile", "load_file"]

MODELINE_PREFIX = "# yaml-language-server: $schema="

Loc = tuple[str | int, ...]

# Registry files are untrusted input (a pull request). A file is refused
# before parsing when larger than this; the built-in ones are ~0.1 MiB.
MAX_FILE_BYTES = 8 * 1024 * 1024
# YAML aliases let a few lines stand for billions of values ("billion
# laughs"), and deep nesting makes ruamel's scanner quadratic and its
# composer recursive. Values reached through aliases are counted while the
# document is copied; nesting is measured first with libyaml's event parser
# (linear, in C). Real registry files use no aliases and nest 6 levels.
MAX_ALIASED_VALUES = 10_000
MAX_DEPTH = 64


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
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return None

    def metric_line(self, index: int) -> int | None:
        """Line of the ``index``-th item of ``metrics`` in the file."""
        return self.lines.get(("metrics", index))

    @property
    def valid(self) -> bool:
        return self.family is not None and not any(f.is_error for f in self.findings)


class _TooBigError(Exception):
    """The document expands beyond :data:`MAX_VALUES` values or :data:`MAX_DEPTH` levels."""

    def __init__(self, what: str, loc: Loc) -> None:
        super().__init__(what)
        self.what = what
        self.loc = loc


class _Budget:
    """How many more values aliases may add to the copy (shared by the whole document)."""

    def __init__(self, values: int = MAX_ALIASED_VALUES) -> None:
        self.values = values
        self.seen: set[int] = set()

    def enter(self, node: Any, loc: Loc, aliased: bool) -> bool:
        """Account for ``node``; return whether it is (inside) a repeated alias."""
        if isinstance(node, CommentedMap | CommentedSeq):
            aliased = aliased or id(node) in self.seen
            self.seen.add(id(node))
        if aliased:
            self.values -= 1
            if self.values < 0:
                raise _TooBigError(
                    f"expands to more than {MAX_ALIASED_VALUES:,} values through YAML aliases", loc
                )
        if len(loc) > MAX_DEPTH:
            raise _TooBigError(f"is nested more than {MAX_DEPTH} levels deep", loc)
        return aliased


def _nesting_problem(text: str) -> tuple[int | None, str] | None:
    """Whether ``text`` nests deeper than :data:`MAX_DEPTH`, found before ruamel reads it.

    PyYAML's event parser (libyaml, in C, where installed) reads the
    structure in linear time and without recursion; only the depth is
    looked at here, every other problem is left to ruamel's precise messages.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    return (mark.line + 1 if mark else None), f"is nested more than {MAX_DEPTH} levels deep"
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as error:
        if "depth" in str(error) or "nesting" in str(error):  # libyaml's own limit (1,000 levels)
            mark = getattr(error, "problem_mark", None)
            return (mark.line + 1 if mark else None), f"is nested more than {MAX_DEPTH} levels deep"
    except RecursionError:
        return None, f"is nested more than {MAX_DEPTH} levels deep"
    return None


class _TagError(Exception):
    """A YAML tag that would ask for a language-specific object."""

    def __init__(self, tag: str, loc: Loc) -> None:
        super().__init__(tag)
        self.tag = tag
        self.loc = loc


def _check_tag(node: Any, loc: Loc) -> None:
    # The round-trip parser does not execute '!!python/...' tags, it keeps
    # them on the node; refuse them so that no caller ever sees one.
    tag = getattr(getattr(node, "tag", None), "value", None)
    if tag and (not tag.startswith("tag:yaml.org,2002:") or "python/" in tag):
        raise _TagError(tag, loc)


def _plain(node: Any, loc: Loc, lines: dict[Loc, int], budget: _Budget, aliased: bool = False) -> Any:
    """Copy ruamel nodes into dict/list/str/... and record each item's line."""
    aliased = budget.enter(node, loc, aliased)
    _check_tag(node, loc)
    if isinstance(node, CommentedMap):
        result: dict[str, Any] = {}
        for key, value in node.items():
            child = (*loc, str(key))
            position = node.lc.key(key)
            if position is not None:
                lines[child] = position[0] + 1
            result[str(key)] = _plain(value, child, lines, budget, aliased)
        return result
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            child = (*loc, index)
            position = node.lc.item(index)
            if position is not None:
                lines[child] = position[0] + 1
            items.append(_plain(value, child, lines, budget, aliased))
        return items
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node  # dates and other scalars: pydantic reports them precisely


def _syntax_finding(path: Path, error: YAMLError) -> Finding:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    if isinstance(error, DuplicateKeyError):
        text = str(getattr(error, "problem", "") or error).strip().splitlines()[0]
        return Finding(
            "MR101",
            path,
            line,
            f"{text}; the second value would silently win",
            "keep one of the two fields and delete the other",
        )
    problem = getattr(error, "problem", None) if isinstance(error, MarkedYAMLError) else None
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
    from metrics_registry import models

    parent = loc[-2] if len(loc) >= 2 else None
    by_parent: dict[Any, type] = {
        "family": models.FamilyInfo,
        "aggregation": models.Aggregation,
        "versions": models.VersionRange,
        "gated_by": models.Gate,
        "changes": models.Change,
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
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            loaded.findings.append(
                _too_big(path, None, f"is {size:,} bytes, over the limit of {MAX_FILE_BYTES:,}")
            )
            return loaded
        # utf-8-sig: a byte order mark (some Windows editors add one) is not part of the text
        text = path.read_text(encoding="utf-8-sig")
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
    nesting = _nesting_problem(text)
    if nesting is not None:
        loaded.findings.append(_too_big(path, *nesting))
        return loaded
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        document = yaml.load(text)
    except YAMLError as error:
        loaded.findings.append(_syntax_finding(path, error))
        return loaded
    except RecursionError:  # ruamel's composer recurses once per nesting level
        loaded.findings.append(_too_big(path, None, f"is nested more than {MAX_DEPTH} levels deep"))
        return loaded
    try:
        loaded.raw = _plain(document, (), loaded.lines, _Budget())
    except _TooBigError as error:
        loaded.findings.append(_too_big(path, loaded.line_of(error.loc), error.what))
        loaded.raw = None
        return loaded
    except _TagError as error:
        loaded.findings.append(
            Finding(
                "MR100",
                path,
                loaded.line_of(error.loc),
                f"YAML tag '{error.tag}' is not allowed; registry files hold plain data only",
                "remove the tag and write the value as a plain string, number, list or mapping",
            )
        )
        loaded.raw = None
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
    _validate_parts(loaded)
    return loaded


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

"""``metrics-registry new``: add a skeleton entry to a family's file.

The file is edited with ruamel.yaml's round-trip mode so that its comments,
order and formatting survive; the new entry is appended to ``metrics`` and
its ``TODO`` placeholders make ``validate`` fail until a contributor fills
them in (rule MR119), so a skeleton can never ship by accident.
"""

from __future__ import annotations

import io
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import LiteralScalarString

from metrics_registry.fileio import atomic_write_text
from metrics_registry.keys import template_problem
from metrics_registry.loader import load_file
from metrics_registry.registry import RegistryError

__all__ = ["ScaffoldError", "add_metric", "round_trip_yaml"]


class ScaffoldError(RegistryError):
    """The entry cannot be added; the message says why and what to do."""


def round_trip_yaml() -> YAML:
    """The YAML settings that reproduce the registry files byte for byte."""
    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    yaml.preserve_quotes = True
    return yaml


def _skeleton(key: str, *, classify: bool) -> CommentedMap:
    entry = CommentedMap()
    entry["key"] = key
    entry["category"] = "TODO-category"
    entry["title"] = "TODO title"
    entry["summary"] = "TODO one sentence that says what the number is."
    entry["details"] = LiteralScalarString(
        "TODO: what it means; how it is computed (estimator, direction, masking,\n"
        "what it is averaged over and across processes, sign); how to read it.\n"
    )
    aggregation = CommentedMap()
    aggregation["reduce"] = "mean"
    aggregation["over"] = "TODO what is reduced over"
    aggregation["across_processes"] = "gather"
    entry["aggregation"] = aggregation
    entry["unit"] = "TODO-unit"
    if classify:
        # computed from tensors? then validate asks for a reference and a worked example
        entry["computable"] = True
    entry["see_also"] = CommentedSeq()
    return entry


def add_metric(path: Path, key: str, *, backup: bool = True) -> int:
    """Append a skeleton for ``key`` to the registry file ``path``.

    Returns the line where the new entry starts. The file is rewritten
    atomically; the previous content is kept as ``<file>.bak`` unless
    ``backup`` is false.
    """
    problem = template_problem(key)
    if problem:
        raise ScaffoldError(f"'{key}' is not a valid key: {problem}")
    loaded = load_file(path)
    first = next((f for f in loaded.findings if f.is_error and f.rule in {"MR100", "MR101", "MR106"}), None)
    if first is not None or loaded.family is None:
        detail = first.format() if first else "its 'family' header is invalid"
        raise ScaffoldError(f"{path} cannot be edited safely; fix it first: {detail}")
    raw_metrics = loaded.raw.get("metrics") or []
    for item in raw_metrics:
        if isinstance(item, dict) and (key == item.get("key") or key in (item.get("aliases") or [])):
            raise ScaffoldError(
                f"'{key}' already exists in family '{loaded.family.id}' ({path}); edit that entry"
            )
    yaml = round_trip_yaml()
    text = path.read_text(encoding="utf-8")
    document = yaml.load(text)
    classify = any(isinstance(item, dict) and "computable" in item for item in raw_metrics)
    document["metrics"].append(_skeleton(key, classify=classify))
    out = io.StringIO()
    yaml.dump(document, out)
    new_text = out.getvalue()
    atomic_write_text(path, new_text, backup=backup)
    reloaded = yaml.load(new_text)
    line, _col = reloaded["metrics"].lc.item(len(reloaded["metrics"]) - 1)
    return line + 1

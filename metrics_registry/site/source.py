"""The reference implementation and worked examples of a metric, as code for its page.

Read statically (``ast``), like the registry's reference checks, so building
the site needs no torch: the page shows the function's source exactly as it
is in the package, and each worked example as a call a reader can paste.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from metrics_registry.models import WorkedExample
from metrics_registry.reference_checks import find_reference

__all__ = ["ReferenceSource", "example_code", "reference_source"]


@dataclass(frozen=True)
class ReferenceSource:
    module: str
    name: str
    code: str
    returns_mapping: bool


@lru_cache(maxsize=256)  # every reference module, for every language of a build
def _module(path: Path, mtime_ns: int) -> tuple[str, ast.Module]:
    """The text and tree of a reference module (``mtime_ns``: an edit while ``serve`` runs is read)."""
    text = path.read_text(encoding="utf-8")
    return text, ast.parse(text, filename=str(path))


def reference_source(reference: str) -> ReferenceSource | None:
    """The source of the function ``reference`` names, decorators included; ``None`` if not found."""
    target = find_reference(reference)
    if isinstance(target, str):
        return None
    name = reference.rsplit(".", 1)[1]
    text, tree = _module(target.path, target.path.stat().st_mtime_ns)
    for node in reversed(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            lines = text.splitlines()
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            code = "\n".join(lines[start - 1 : node.end_lineno])
            annotation = ast.unparse(node.returns) if node.returns else ""
            mapping = any(word in annotation for word in ("dict", "Mapping"))
            return ReferenceSource(target.module, name, code, mapping)
    return None


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _literal(value: Any) -> str:
    """A worked-example input as Python: lists become tensors, like the tests build them."""
    if isinstance(value, list):
        text = json.dumps(value).replace("true", "True").replace("false", "False").replace("null", "nan")
        leaves = _leaves(value)
        # the tests build float64 tensors from lists with any non-integer (examples.to_tensor)
        floats = any(leaf is None or isinstance(leaf, float) for leaf in leaves)
        return f"torch.tensor({text}, dtype=torch.float64)" if floats else f"torch.tensor({text})"
    return repr(value)


def example_code(source: ReferenceSource, example: WorkedExample) -> str:
    """A worked example as a runnable snippet ending with the expected value."""
    uses_nan = any(isinstance(v, list) and "null" in json.dumps(v) for v in example.inputs.values())
    lines = ["import torch"]
    if uses_nan:
        lines.append("from math import nan")
    lines += [f"from {source.module} import {source.name}", ""]
    arguments = [f"    {name}={_literal(value)}," for name, value in example.inputs.items()]
    lines += [f"result = {source.name}(", *arguments, ")"]
    expected = json.dumps(example.expected, ensure_ascii=False).replace("null", "nan")
    if example.output is None:
        lines.append(f"result  # {expected}")
    elif source.returns_mapping:
        lines.append(f'result["{example.output}"]  # {expected}')
    else:
        lines.append(f"result.{example.output}  # {expected}")
    return "\n".join(lines)

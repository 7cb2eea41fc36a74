"""The reference implementation and worked examples of a metric, as code for its page.

Read statically (``ast``), like the registry's reference checks, so building
the site needs no torch: the page shows the function's source exactly as it
is in the package, and each worked example as a call a reader can paste.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from metrics_registry.models import WorkedExample
from metrics_registry.reference_checks import find_reference, reference_module_file

__all__ = ["ReferenceSource", "example_code", "reference_source", "reference_sources"]


@dataclass(frozen=True)
class ReferenceSource:
    module: str
    name: str
    code: str
    returns_mapping: bool


@lru_cache(maxsize=256)  # every reference module, for every language of a build
def _lines(path: Path, mtime_ns: int) -> list[str]:
    """The lines of a reference module (``mtime_ns``: an edit while ``serve`` runs is read)."""
    return path.read_text(encoding="utf-8").splitlines()


def reference_source(reference: str) -> ReferenceSource | None:
    """The source of the function ``reference`` names, decorators included; ``None`` if not found."""
    target = find_reference(reference)  # parses the module once per version of it
    if isinstance(target, str) or target.lines is None:
        return None
    first, last = target.lines
    code = "\n".join(_lines(target.path, target.path.stat().st_mtime_ns)[first - 1 : last])
    mapping = any(word in target.returns for word in ("dict", "Mapping"))
    return ReferenceSource(target.module, reference.rsplit(".", 1)[1], code, mapping)


#: Reference modules larger than this are read every time rather than kept in the user cache.
_CACHED_MODULE_BYTES = 8 * 1024 * 1024


def reference_sources(references: Iterable[str]) -> Callable[[str], ReferenceSource | None]:
    """:func:`reference_source` for each of ``references``, looked up once for them all and kept in
    the user cache under the content of their modules; any other reference is looked up when asked.

    Every language of a build shows the same sources, and finding them parses each reference
    module (~80 ms for the built-in registry, per language); locating the modules is cheap.
    """
    from metrics_registry.cache import cache_key, memo

    names = sorted(set(references))
    files = sorted({path for name in names if (path := reference_module_file(name)) is not None})
    key = cache_key(files, _CACHED_MODULE_BYTES, purpose="reference sources|" + "\0".join(names))
    table = memo(key, lambda: {name: reference_source(name) for name in names})

    def lookup(reference: str) -> ReferenceSource | None:
        return table[reference] if reference in table else reference_source(reference)

    return lookup


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

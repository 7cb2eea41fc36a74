"""Checks that every computable metric names a reference implementation that exists (MR130-MR135).

A check of :mod:`metrics_registry.checks`, kept apart because it has its own
job: locating Python modules and reading their source, not comparing entries.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from metrics_registry.findings import Finding
from metrics_registry.loader import LoadedFile
from metrics_registry.models import Metric
from metrics_registry.registry import Registry

__all__ = [
    "ReferenceTarget",
    "check_references_implemented",
    "find_reference",
    "reference_coverage",
    "reference_module_file",
]

# A reference is checked without importing it: importing would load torch,
# which the registry, the CLI and the site do not need. The module is located
# with importlib's finders (parent packages are searched, not executed) and
# its source is parsed with ast to find the function and its parameters.


@dataclass(frozen=True)
class ReferenceTarget:
    """Where a dotted reference points: the module file and the function's parameters.

    ``parameters`` is ``None`` when the name is found but its signature cannot be
    read statically (a class, an assignment or a re-export). ``lines`` are the
    function's first (decorators included) and last lines in ``path``, and
    ``returns`` its return annotation, so the site shows its source without
    parsing the module again.
    """

    module: str
    path: Path
    parameters: tuple[str, ...] | None = None
    required: tuple[str, ...] = ()
    takes_any_keyword: bool = False
    lines: tuple[int, int] | None = None
    returns: str = ""


def _module_spec(
    parts: list[str], extra_paths: tuple[Path, ...] = ()
) -> tuple[importlib.machinery.ModuleSpec, int] | None:
    """The spec of the longest module prefix of ``parts`` and its length, without executing any module.

    The top-level package is looked up on ``sys.path``, then in ``extra_paths``
    (a project's own folder, where an extension keeps its reference module).
    """
    try:
        spec = importlib.util.find_spec(parts[0])
    except (ImportError, ValueError):
        spec = None
    if spec is None and extra_paths:
        spec = importlib.machinery.PathFinder.find_spec(parts[0], [str(p) for p in extra_paths])
    if spec is None:
        return None
    depth = 1
    while depth < len(parts) and spec.submodule_search_locations:
        name = ".".join(parts[: depth + 1])
        child = importlib.machinery.PathFinder.find_spec(name, list(spec.submodule_search_locations))
        if child is None:
            break
        spec, depth = child, depth + 1
    return spec, depth


@lru_cache(maxsize=256)  # more than the reference modules: none is parsed twice in a run
def _parse_module(path: Path, mtime: float) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None


def _target(node: ast.AST, module: str, path: Path) -> ReferenceTarget:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return ReferenceTarget(module, path)
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    with_default = len(args.defaults)
    required = [a.arg for a in positional[: len(positional) - with_default]]
    required += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    names = [a.arg for a in [*args.args, *args.kwonlyargs]]  # positional-only cannot be keywords
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return ReferenceTarget(
        module,
        path,
        tuple(names),
        tuple(required),
        args.kwarg is not None,
        (first, node.end_lineno or node.lineno),
        ast.unparse(node.returns) if node.returns else "",
    )


def _defines(node: ast.stmt, name: str) -> bool:
    """Whether the top-level statement ``node`` binds ``name``."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in node.names)
    return False


def _find_name(body: list[ast.stmt], name: str) -> ast.AST | None:
    """The last top-level statement of ``body`` that defines ``name``."""
    found = [node for node in body if _defines(node, name)]
    return found[-1] if found else None


def reference_module_file(reference: str) -> Path | None:
    """The Python file of the module ``reference`` (``package.module.function``) would be found in,
    located as :func:`find_reference` locates it (nothing executed); None when there is none."""
    located = _module_spec(reference.split("."))
    if located is None:
        return None
    origin = located[0].origin
    return Path(origin) if origin and origin.endswith(".py") else None


def find_reference(reference: str, extra_paths: tuple[Path, ...] = ()) -> ReferenceTarget | str:
    """Locate ``reference`` (``package.module.function``) without importing it.

    Returns the target, or a sentence saying what is wrong. Packages that are not
    installed are also looked for in ``extra_paths``.

    >>> find_reference("metrics_registry.checks.latex_problem").parameters
    ('formula',)
    >>> find_reference("metrics_registry.nowhere.f")
    "module 'metrics_registry.nowhere' cannot be found"
    """
    parts = reference.split(".")
    located = _module_spec(parts, extra_paths)
    if located is None:
        return f"module '{parts[0]}' cannot be found (is its package installed?)"
    spec, depth = located
    if depth == len(parts):
        return f"'{reference}' is a module; name the function in it"
    module = ".".join(parts[:depth])
    origin = Path(spec.origin) if spec.origin and spec.origin.endswith(".py") else None
    if origin is None:
        if depth < len(parts) - 1:
            return f"module '{'.'.join(parts[: depth + 1])}' cannot be found"
        return f"module '{module}' has no Python source to check"
    if depth < len(parts) - 1 and spec.submodule_search_locations:
        return f"module '{'.'.join(parts[: depth + 1])}' cannot be found"
    tree = _parse_module(origin, origin.stat().st_mtime)
    if tree is None:
        return f"module '{module}' ({origin}) cannot be parsed"
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for position, name in enumerate(parts[depth:]):
        node = _find_name(body, name)
        if node is None:
            return f"module '{module}' defines no '{'.'.join(parts[depth : depth + position + 1])}'"
        body = node.body if isinstance(node, ast.ClassDef) else []
    assert node is not None
    return _target(node, module, origin)


def check_references_implemented(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    """MR130-MR135: computable metrics have an importable reference and fitting worked examples."""
    for loaded in files:
        if loaded.family is None:
            continue
        declares = any(metric.computable is not None for _i, metric in loaded.metrics)
        for index, metric in loaded.metrics:
            yield from _reference_findings(loaded, index, metric, declares)


def _reference_findings(loaded: LoadedFile, index: int, metric: Metric, declares: bool) -> Iterator[Finding]:
    line = loaded.line_of(("metrics", index, "key"))
    if metric.computable is None and declares:
        yield Finding(
            "MR134",
            loaded.path,
            line,
            "the other entries of this family say whether they are computable, this one does not",
            "add 'computable: true' (with reference and examples) or 'computable: false'",
            metric.key,
            "computable",
        )
    if metric.computable is False and (metric.reference or metric.examples):
        yield Finding(
            "MR135",
            loaded.path,
            loaded.line_of(("metrics", index, "reference" if metric.reference else "examples")),
            "the entry is marked 'computable: false' but has a reference or worked examples",
            "set 'computable: true', or remove the reference and examples",
            metric.key,
            "computable",
        )
        return
    if metric.computable and not metric.reference:
        yield Finding(
            "MR130",
            loaded.path,
            line,
            "the metric is computable but names no reference implementation",
            "add 'reference: package.module.function' (see metrics_registry/reference/), or set"
            " 'computable: false' if the value is not computed from tensors",
            metric.key,
            "reference",
        )
    if (metric.computable or metric.reference) and not metric.examples:
        yield Finding(
            "MR131",
            loaded.path,
            line,
            "the metric has no worked example",
            "add 'examples:' with inputs and the expected value (the tests run them through the reference)",
            metric.key,
            "examples",
        )
    if not metric.reference:
        return
    target = find_reference(metric.reference, (Path.cwd(), loaded.path.resolve().parent))
    if isinstance(target, str):
        yield Finding(
            "MR132",
            loaded.path,
            loaded.line_of(("metrics", index, "reference")),
            f"reference '{metric.reference}': {target}",
            "correct the dotted path (package.module.function) or add the function",
            metric.key,
            "reference",
        )
        return
    if target.parameters is None:
        return
    for position, example in enumerate(metric.examples):
        unknown = [name for name in example.inputs if name not in target.parameters]
        missing = [name for name in target.required if name not in example.inputs]
        problems = []
        if unknown and not target.takes_any_keyword:
            problems.append(f"passes {', '.join(repr(n) for n in unknown)}, which it does not take")
        if missing:
            problems.append(f"leaves out the required {', '.join(repr(n) for n in missing)}")
        if problems:
            yield Finding(
                "MR133",
                loaded.path,
                loaded.line_of(("metrics", index, "examples", position)),
                f"example {position + 1} of '{metric.reference}' " + " and ".join(problems),
                f"use the parameters of the function: {', '.join(target.parameters)}",
                metric.key,
                f"examples[{position}].inputs",
            )


def reference_coverage(registry: Registry) -> dict[str, dict[str, int]]:
    """Per family: metrics, computable ones, those with a reference, an example, both; not computable; unset.

    ``validate --stats`` prints it; a family is fully covered when ``covered == computable``.
    """
    coverage: dict[str, dict[str, int]] = {}
    for family in registry.families:
        counts = dict.fromkeys(
            (
                "metrics",
                "computable",
                "with_reference",
                "with_example",
                "covered",
                "not_computable",
                "undeclared",
            ),
            0,
        )
        for entry in registry.in_family(family):
            metric = entry.metric
            counts["metrics"] += 1
            if metric.computable is None:
                counts["undeclared"] += 1
            elif not metric.computable:
                counts["not_computable"] += 1
            else:
                counts["computable"] += 1
                counts["with_reference"] += bool(metric.reference)
                counts["with_example"] += bool(metric.examples)
                counts["covered"] += bool(metric.reference and metric.examples)
        coverage[family] = counts
    return coverage

"""Checks that need more than one entry (or more than the schema).

Each check is a function with the same signature, taking the parsed files
and the registry built from the valid ones and yielding findings; the list
:data:`CHECKS` runs them in order.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from packaging.version import Version

from metrics_registry.findings import Finding
from metrics_registry.keys import Reference, template_problem
from metrics_registry.loader import LoadedFile
from metrics_registry.markup import check_markup
from metrics_registry.models import Metric
from metrics_registry.registry import Registry, anchor
from metrics_registry.semantic_checks import (
    check_concepts,
    check_condition_versions,
    check_known_issue_versions,
)

__all__ = ["CHECKS", "ReferenceTarget", "find_reference", "latex_problem", "reference_coverage", "run_checks"]

Check = Callable[[list[LoadedFile], Registry], Iterator[Finding]]


def _metrics(files: list[LoadedFile]) -> Iterator[tuple[LoadedFile, int, Metric]]:
    """Every valid metric of every file with a valid header, and its index in the file."""
    for loaded in files:
        if loaded.family is None:
            continue
        for index, metric in loaded.metrics:
            yield loaded, index, metric


def check_duplicate_families(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    seen: dict[str, LoadedFile] = {}
    for loaded in files:
        if loaded.family is None:
            continue
        family = loaded.family.id
        if family in seen:
            yield Finding(
                "MR111",
                loaded.path,
                loaded.lines.get(("family", "id")),
                f"family '{family}' is already defined in {seen[family].path}",
                "give this family another id, or move its metrics into the existing file",
                field="family.id",
            )
        else:
            seen[family] = loaded


def check_duplicate_keys(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded in files:
        if loaded.family is None:
            continue
        seen: dict[str, str] = {}
        for index, metric in loaded.metrics:
            names = [("key", metric.key)] + [(f"aliases[{i}]", a) for i, a in enumerate(metric.aliases)]
            for field, name in names:
                if name in seen:
                    loc = ("metrics", index, *(["key"] if field == "key" else ["aliases", int(field[8:-1])]))
                    yield Finding(
                        "MR110",
                        loaded.path,
                        loaded.line_of(loc),
                        f"'{name}' is already {seen[name]} in family '{loaded.family.id}'",
                        "merge the two entries (one key, the other as an alias) or correct the key",
                        metric.key,
                        field,
                    )
                else:
                    seen[name] = f"the {'key' if field == 'key' else 'alias'} of entry '{metric.key}'"


def check_anchors(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded in files:
        if loaded.family is None:
            continue
        seen: dict[str, str] = {}
        for index, metric in loaded.metrics:
            slug = anchor(metric.key)
            if slug in seen and seen[slug] != metric.key:
                yield Finding(
                    "MR118",
                    loaded.path,
                    loaded.line_of(("metrics", index, "key")),
                    f"'{metric.key}' and '{seen[slug]}' both give the page anchor '#{slug}'",
                    "rename one key; anchors must be unique so links land on the right metric",
                    metric.key,
                    "key",
                )
            seen.setdefault(slug, metric.key)


def check_templates(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded, index, metric in _metrics(files):
        names = [("key", metric.key, ("metrics", index, "key"))] + [
            (f"aliases[{i}]", alias, ("metrics", index, "aliases", i))
            for i, alias in enumerate(metric.aliases)
        ]
        for field, name, loc in names:
            problem = template_problem(name)
            if problem:
                yield Finding(
                    "MR113",
                    loaded.path,
                    loaded.line_of(loc),
                    f"malformed key '{name}': {problem}",
                    "write placeholders as '{lower_case_name}', e.g. 'rewards/{reward_func_name}/mean'"
                    if "{" in name or "}" in name
                    else "write the key as the trainer logs it, e.g. 'objective/kl'",
                    metric.key,
                    field,
                )


def _raw_keys(files: list[LoadedFile]) -> set[tuple[str, str]]:
    """(family, key) of every entry, valid or not, so that a reference to an
    entry with its own error is not reported a second time."""
    keys = set()
    for loaded in files:
        if loaded.family is None or not isinstance(loaded.raw, dict):
            continue
        for item in loaded.raw.get("metrics") or []:
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                keys.add((loaded.family.id, item["key"]))
    return keys


def check_references(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    existing = _raw_keys(files)
    for loaded, index, metric in _metrics(files):
        family = loaded.family.id
        for field in ("see_also", "replaces", "replaced_by"):
            for position, reference in enumerate(getattr(metric, field)):
                ref = Reference.parse(reference)
                loc = ("metrics", index, field, position)
                if ref.family and ref.family not in registry.families:
                    known = ", ".join(sorted(registry.families))
                    yield Finding(
                        "MR112",
                        loaded.path,
                        loaded.line_of(loc),
                        f"'{reference}' names family '{ref.family}', which is not loaded",
                        f"use one of the loaded families ({known}) or load the file that defines it",
                        metric.key,
                        f"{field}[{position}]",
                    )
                elif registry.resolve(reference, family) is None:
                    if (ref.family or family, ref.key) in existing:
                        continue  # the target entry is invalid and reported on its own
                    yield Finding(
                        "MR112",
                        loaded.path,
                        loaded.line_of(loc),
                        f"'{reference}' does not name a metric of family '{ref.family or family}'",
                        "correct the key (references are 'key' in the same family or 'family:key')",
                        metric.key,
                        f"{field}[{position}]",
                    )
                elif field == "see_also" and (ref.family or family) == family and ref.key == metric.key:
                    yield Finding(
                        "MR120",
                        loaded.path,
                        loaded.line_of(loc),
                        "the metric lists itself in see_also",
                        "remove the entry",
                        metric.key,
                        f"{field}[{position}]",
                    )


def check_replacement_symmetry(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded, index, metric in _metrics(files):
        family = loaded.family.id
        for field, inverse in (("replaced_by", "replaces"), ("replaces", "replaced_by")):
            for position, reference in enumerate(getattr(metric, field)):
                target = registry.resolve(reference, family)
                if target is None:
                    continue
                back = [registry.resolve(ref, target.family.id) for ref in getattr(target.metric, inverse)]
                if not any(e is not None and e.family.id == family and e.key == metric.key for e in back):
                    yield Finding(
                        "MR115",
                        loaded.path,
                        loaded.line_of(("metrics", index, field, position)),
                        f"'{metric.key}' says {field} '{reference}', but '{target.id}' does not list"
                        f" '{family}:{metric.key}' in its {inverse}",
                        f"add '{family}:{metric.key}' to {inverse} of '{target.id}'",
                        metric.key,
                        f"{field}[{position}]",
                    )


_LATEX_ESCAPED_BRACE = re.compile(r"\\[{}]")


def latex_problem(formula: str) -> str | None:
    r"""Describe an imbalance in a LaTeX formula, or ``None``.

    >>> latex_problem(r"\frac{1}{B}\sum_{b} x_b") is None
    True
    >>> latex_problem(r"\frac{1}{B")
    "1 '{' not closed"
    """
    text = _LATEX_ESCAPED_BRACE.sub("", formula)
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return "a '}' closes a group that was never opened"
    if depth:
        return f"{depth} '{{' not closed"
    lefts = len(re.findall(r"\\left\b", text))
    rights = len(re.findall(r"\\right\b", text))
    if lefts != rights:
        return f"{lefts} \\left but {rights} \\right"
    if "$" in formula.replace(r"\$", ""):
        return "the formula contains '$'; write it without math delimiters"
    return None


def _inline_math_problem(markdown: str) -> str | None:
    """Unpaired ``$`` in Markdown prose (code spans and blocks excluded)."""
    prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
    prose = re.sub(r"`[^`]*`", "", prose).replace(r"\$", "")
    if prose.count("$") % 2:
        return "an odd number of '$' math delimiters"
    for math in re.findall(r"\$\$?(.+?)\$\$?", prose, flags=re.S):
        problem = latex_problem(math)
        if problem:
            return f"inline math '{math.strip()[:40]}': {problem}"
    return None


def check_latex(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded, index, metric in _metrics(files):
        if metric.formula:
            problem = latex_problem(metric.formula)
            if problem:
                yield Finding(
                    "MR114",
                    loaded.path,
                    loaded.line_of(("metrics", index, "formula")),
                    f"formula does not balance: {problem}",
                    "balance every '{' with '}' and every \\left with \\right",
                    metric.key,
                    "formula",
                )
        for field in ("details", "docs_note"):
            text = getattr(metric, field)
            problem = _inline_math_problem(text) if text else None
            if problem:
                yield Finding(
                    "MR114",
                    loaded.path,
                    loaded.line_of(("metrics", index, field)),
                    f"math in {field}: {problem}",
                    "close every $...$ and balance its braces (escape a literal dollar as \\$)",
                    metric.key,
                    field,
                )


def check_versions(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded, index, metric in _metrics(files):
        family = loaded.family.versions
        own = metric.versions
        if own is None:
            continue
        too_early = Version(own.introduced) < Version(family.introduced)
        too_late = family.removed is not None and (
            own.removed is None or Version(own.removed) > Version(family.removed)
        )
        if too_early or too_late:
            yield Finding(
                "MR116",
                loaded.path,
                loaded.line_of(("metrics", index, "versions")),
                f"versions {own.introduced}..{own.removed or ''} fall outside the family's"
                f" {family.introduced}..{family.removed or ''}",
                "correct the metric's versions or widen the family's range",
                metric.key,
                "versions",
            )


def check_rule_ids(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded, index, metric in _metrics(files):
        seen: set[str] = set()
        for position, rule in enumerate(metric.healthy):
            if rule.id in seen:
                yield Finding(
                    "MR117",
                    loaded.path,
                    loaded.line_of(("metrics", index, "healthy", position)),
                    f"healthy rule id '{rule.id}' is used twice",
                    "give each rule its own id",
                    metric.key,
                    f"healthy[{position}].id",
                )
            seen.add(rule.id)


_TODO = re.compile(r"\bTODO\b")


def check_placeholders(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    for loaded, index, metric in _metrics(files):
        data = metric.model_dump(exclude_none=True)
        for field in ("title", "summary", "details", "formula", "source", "docs_note"):
            value = data.get(field)
            if isinstance(value, str) and _TODO.search(value):
                yield Finding(
                    "MR119",
                    loaded.path,
                    loaded.line_of(("metrics", index, field)),
                    f"'{field}' still holds TODO text from 'metrics-registry new'",
                    "write the real content (docs/en/contributing/adding-a-metric.md explains each field)",
                    metric.key,
                    field,
                )
        for position, rule in enumerate(metric.healthy):
            if _TODO.search(rule.suggests):
                yield Finding(
                    "MR119",
                    loaded.path,
                    loaded.line_of(("metrics", index, "healthy", position)),
                    "a healthy rule still holds TODO text",
                    "write what a violation suggests",
                    metric.key,
                    f"healthy[{position}].suggests",
                )


# ------------------------------------------------------------------ references
#
# A reference is checked without importing it: importing would load torch,
# which the registry, the CLI and the site do not need. The module is located
# with importlib's finders (parent packages are searched, not executed) and
# its source is parsed with ast to find the function and its parameters.


@dataclass(frozen=True)
class ReferenceTarget:
    """Where a dotted reference points: the module file and the function's parameters.

    ``parameters`` is ``None`` when the name is found but its signature cannot be
    read statically (a class, an assignment or a re-export).
    """

    module: str
    path: Path
    parameters: tuple[str, ...] | None = None
    required: tuple[str, ...] = ()
    takes_any_keyword: bool = False


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


@lru_cache(maxsize=64)
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
    return ReferenceTarget(module, path, tuple(names), tuple(required), args.kwarg is not None)


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


CHECKS: list[Check] = [
    check_duplicate_families,
    check_duplicate_keys,
    check_anchors,
    check_templates,
    check_references,
    check_replacement_symmetry,
    check_latex,
    check_versions,
    check_rule_ids,
    check_placeholders,
    check_references_implemented,
    check_markup,
    check_concepts,
    check_known_issue_versions,
    check_condition_versions,
]


def run_checks(files: list[LoadedFile], registry: Registry) -> list[Finding]:
    """Run every check in :data:`CHECKS`."""
    return [finding for check in CHECKS for finding in check(files, registry)]

"""Checks that need more than one entry (or more than the schema).

Each check is a function with the same signature, taking the parsed files
and the registry built from the valid ones and yielding findings; the list
:data:`CHECKS` runs them in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from packaging.version import Version

from metrics_registry.findings import Finding
from metrics_registry.keys import Reference, template_problem
from metrics_registry.loader import LoadedFile
from metrics_registry.markup import check_markup
from metrics_registry.models import Metric
from metrics_registry.reference_checks import check_references_implemented
from metrics_registry.registry import Registry, anchor
from metrics_registry.semantic_checks import (
    check_concepts,
    check_condition_versions,
    check_known_issue_versions,
)

__all__ = ["CHECKS", "latex_problem", "run_checks"]

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


def check_project_names(files: list[LoadedFile], registry: Registry) -> Iterator[Finding]:
    """The families of one project (``versions_of``) that name it agree on its ``project`` name."""
    named: dict[str, tuple[str, LoadedFile]] = {}
    for loaded in files:
        family = loaded.family
        if family is None or family.project is None:
            continue
        first = named.setdefault(family.versions_of, (family.project, loaded))
        if first[0] != family.project:
            yield Finding(
                "MR121",
                loaded.path,
                loaded.lines.get(("family", "project")),
                f"family '{family.id}' names the project '{family.versions_of}' '{family.project}',"
                f" and {first[1].path} names it '{first[0]}'",
                f"write project: {first[0]} (or leave it out: the other families name it)",
                field="family.project",
            )


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


CHECKS: list[Check] = [
    check_duplicate_families,
    check_project_names,
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

"""The closed list of concepts: the quantities metrics measure, across trainers.

A metric's ``concept`` names what it measures (``clip-fraction-low``,
``reference-kl``, ``response-length``...), so that keys of different
trainers that measure the same thing can be set side by side, and keys with
the same name that measure different things told apart. The list is data
(``metrics_registry/data/concepts/concepts.yaml``), not code: adding a
framework adds concepts by editing it. A concept may name a ``parent``
(``clip-fraction-low`` is a kind of ``clip-fraction``).

The file is read like a registry file (bounded, nothing executed) and its
problems are findings with lines (rule MR161); a metric naming a concept the
list does not hold is MR160 (:mod:`metrics_registry.semantic_checks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, ValidationError

from metrics_registry.findings import Finding
from metrics_registry.modelbase import Model
from metrics_registry.semantics import CONCEPT_ID_PATTERN

if TYPE_CHECKING:
    from metrics_registry.yamlread import Loc

__all__ = ["CONCEPTS_FILE", "Concept", "ConceptList", "builtin_concepts", "lineage", "load_concepts"]

#: Where the list lives, relative to the package.
CONCEPTS_FILE = "data/concepts/concepts.yaml"
_MAX_BYTES = 1024 * 1024


class Concept(Model):
    """One quantity that metrics of several trainers can measure."""

    id: Annotated[str, Field(pattern=CONCEPT_ID_PATTERN)] = Field(description="Kebab-case id.")
    title: Annotated[str, Field(min_length=1, max_length=80)] = Field(description="Short name.")
    summary: Annotated[str, Field(min_length=1, max_length=400)] = Field(
        description="What the quantity is, whichever trainer logs it (Markdown)."
    )
    parent: Annotated[str, Field(pattern=CONCEPT_ID_PATTERN)] | None = Field(
        default=None, description="A broader concept this one is a kind of."
    )


@dataclass
class ConceptList:
    """The concepts by id, where each is defined, and what is wrong with the file."""

    path: Path
    concepts: dict[str, Concept] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        """Whether the list could be read at all (checks of metric concepts need it)."""
        return bool(self.concepts)

    def lineage(self, concept_id: str) -> list[Concept]:
        """The concept and its parents, nearest first (cycles cut)."""
        return lineage(self.concepts, concept_id)


def lineage(concepts: Mapping[str, Concept], concept_id: str) -> list[Concept]:
    """The concept ``concept_id`` and its parents in ``concepts``, nearest first (a cycle is cut)."""
    out: list[Concept] = []
    current = concepts.get(concept_id)
    while current is not None and current not in out:
        out.append(current)
        current = concepts.get(current.parent) if current.parent else None
    return out


def _finding(path: Path, line: int | None, message: str, fix: str, field_name: str | None = None) -> Finding:
    return Finding("MR161", path, line, message, fix, field=field_name)


def _read(path: Path) -> tuple[Any, dict[Loc, int]] | Finding:
    # imported here: a command that reads the cached registry (explain) needs no YAML reader
    from metrics_registry.yamlread import DuplicateKeyError, TagError, TooBigError, YAMLError, read_yaml

    try:
        data = path.read_bytes()[: _MAX_BYTES + 1]
        if len(data) > _MAX_BYTES:
            return _finding(path, None, f"the file is over {_MAX_BYTES:,} bytes", "keep the list short")
        return read_yaml(data.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError) as error:
        return _finding(path, None, f"cannot read the concept list: {error}", "restore the file as UTF-8")
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        return _finding(path, line, "YAML syntax error", "correct the YAML at this line")
    except (DuplicateKeyError, TooBigError, TagError) as error:
        return _finding(path, getattr(error, "line", None), str(error), "write plain YAML data")


def _markup_findings(path: Path, concept: Concept, line_of: Callable[[str], int | None]) -> Iterator[Finding]:
    """MR150/MR151 in a concept's title and summary: they reach the concept pages, titles and navigation."""
    from metrics_registry.markup import FIXES, find_unsafe_markup

    for name in ("title", "summary"):
        for problem in find_unsafe_markup(getattr(concept, name)):
            message = f"concept '{concept.id}': {problem.describe()}"
            yield Finding(problem.rule, path, line_of(name), message, FIXES[problem.rule], field=name)


def load_concepts(path: Path) -> ConceptList:
    """Read and check a concept list; never raises for bad content."""
    result = ConceptList(path)
    read = _read(path)
    if isinstance(read, Finding):
        result.findings.append(read)
        return result
    raw, lines = read
    items = raw.get("concepts") if isinstance(raw, dict) else None
    if not isinstance(items, list) or not items:
        result.findings.append(
            _finding(
                path,
                1,
                "the file must be a mapping with a non-empty 'concepts' list",
                "see the file's header",
            )
        )
        return result
    for index, item in enumerate(items):
        line = lines.get(("concepts", index))
        try:
            concept = Concept.model_validate(item)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            field_line = lines.get(("concepts", index, *problem["loc"]), line)
            result.findings.append(
                _finding(
                    path,
                    field_line,
                    f"concept {index + 1}: '{where}': {problem['msg']}",
                    "give every concept an id (kebab-case), a title and a summary",
                    where,
                )
            )
            continue
        if concept.id in result.concepts:
            result.findings.append(
                _finding(path, line, f"concept '{concept.id}' is listed twice", "merge the two entries", "id")
            )
            continue
        result.concepts[concept.id] = concept
        result.lines[concept.id] = line or 1
        result.findings.extend(
            _markup_findings(path, concept, lambda name, i=index: lines.get(("concepts", i, name)))
        )
    for concept in result.concepts.values():
        line = result.lines[concept.id]
        if concept.parent is not None and concept.parent not in result.concepts:
            result.findings.append(
                _finding(
                    path,
                    line,
                    f"concept '{concept.id}' names the parent '{concept.parent}', which is not in the list",
                    "add the parent concept or correct the id",
                    "parent",
                )
            )
        elif concept.parent is not None and concept in result.lineage(concept.parent):
            result.findings.append(
                _finding(
                    path,
                    line,
                    f"concept '{concept.id}' is its own ancestor",
                    "break the cycle of parents",
                    "parent",
                )
            )
    return result


def builtin_concepts_path() -> Path:
    return Path(str(resources.files("metrics_registry") / CONCEPTS_FILE))


@cache
def builtin_concepts() -> ConceptList:
    """The package's concept list (read once)."""
    return load_concepts(builtin_concepts_path())

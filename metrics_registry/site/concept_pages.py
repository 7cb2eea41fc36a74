"""The concept pages: every framework's keys for one quantity side by side, and the index across frameworks.

A metric names the quantity it measures (``concept``, from
``metrics_registry/data/concepts/concepts.yaml``). For every concept that a
metric names (and the broader concepts above them) the site gets a page at
``concepts/<id>/`` with one table of every family's keys for it, what sets
them apart (the same key meaning something else elsewhere, different names
for the same quantity, families without one) and a *worked example*: one
batch of tensors fed at build time to each key's reference implementation
(:mod:`metrics_registry.reference.concept_example`), giving the number each
framework would log. ``concepts/index.md`` sets every concept against every
family.

Everything comes from the registry: a new family shows up in every table, and
in the worked example as soon as its reference functions declare their
adapters. The pages are generated, so the build's hook cleans them like any
page made from registry text (:mod:`metrics_registry.site.hooks`).
"""

from __future__ import annotations

import functools
import math
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from metrics_registry.concepts import Concept, lineage
from metrics_registry.links import family_markdown, metric_markdown, relative_link
from metrics_registry.models import FamilyInfo
from metrics_registry.registry import Entry, Registry

__all__ = [
    "CONCEPTS_FOLDER",
    "ConceptPage",
    "Row",
    "concept_link",
    "concept_pages",
    "example_numbers",
    "framework_label",
    "worked_examples",
    "write_concept_pages",
]

#: Where the pages go, below a language's docs folder (URLs ``concepts/<id>/``).
CONCEPTS_FOLDER = "concepts"
INDEX_PAGE = f"{CONCEPTS_FOLDER}/index.md"
#: Only this package's reference functions are run (see metrics_registry.reference.concept_example).
REFERENCE_PACKAGE = "metrics_registry.reference."


@dataclass(frozen=True)
class Row:
    """One key of a family for a concept, with the page it is documented on and its example value."""

    entry: Entry
    link: str
    value: float | None = None


@dataclass
class ConceptPage:
    """What the page of one concept shows."""

    concept: Concept
    rows: list[Row]
    parents: list[Concept]
    children: list[Concept]
    #: (key, entry elsewhere): the key of a row also names another quantity in another family.
    same_name: list[tuple[str, Row]] = field(default_factory=list)
    #: Families with a key for this concept, when they name it differently.
    names: dict[str, list[str]] = field(default_factory=dict)
    #: Families with no key for this concept or any narrower one.
    missing: list[FamilyInfo] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"{CONCEPTS_FOLDER}/{self.concept.id}.md"

    @property
    def examples(self) -> list[Row]:
        return [row for row in self.rows if row.value is not None]

    @property
    def rows_by_family(self) -> dict[str, list[Row]]:
        """The rows of each family with a key for this concept (the index's cells), in row order."""
        grouped: dict[str, list[Row]] = {}
        for row in self.rows:
            grouped.setdefault(row.entry.family.id, []).append(row)
        return grouped


def framework_label(family: FamilyInfo, title: str) -> str:
    """``TRL GRPO`` for a TRL family whose title does not say TRL, any other family by its title."""
    if family.versions_of != "trl" or "trl" in title.casefold():
        return title
    return f"TRL {title}"


def _metric_link(out: Path, entry: Entry, page: str) -> str:
    """Link from ``page`` to the entry's own page if the site has one, else to its family page's anchor."""
    own = metric_markdown(entry)
    if (out / own).is_file():
        return relative_link(own, page)
    return f"{relative_link(family_markdown(entry.family.id), page)}#{entry.anchor}"


def concept_link(concept_id: str, page: str) -> str:
    """Link from ``page`` (below the language folder) to the page of concept ``concept_id``."""
    return _concept_link_from(concept_id, posixpath.dirname(page) or ".")


@functools.lru_cache(maxsize=65536)  # every metric page of a folder links to the same concepts
def _concept_link_from(concept_id: str, folder: str) -> str:
    return posixpath.relpath(f"{CONCEPTS_FOLDER}/{concept_id}.md", folder)


def _output(entry: Entry) -> str | None:
    """The field of its reference's result that the key logs (from its worked examples)."""
    for example in entry.metric.examples:
        if example.output is not None:
            return example.output
    return None


def example_numbers(entry: Entry) -> float | None:
    """The number ``entry`` logs on the concept pages' example batch, or ``None`` (not computable here).

    Without torch (an optional extra) the pages are built without their worked examples.
    """
    try:
        from metrics_registry.reference.concept_example import example_value
    except ImportError:
        return None
    return example_value(entry.metric.reference, _output(entry), entry.metric.concept)


Call = tuple[str, "str | None", "str | None"]


def _call(entry: Entry) -> Call | None:
    reference = entry.metric.reference
    if not reference or not reference.startswith(REFERENCE_PACKAGE):
        return None
    return (reference, _output(entry), entry.metric.concept)


@dataclass(frozen=True)
class WorkedExamples:
    """Every key's number on the example batch, and the batch as the pages show it."""

    values: dict[Call, float | None]
    listing: str

    def number(self, entry: Entry) -> float | None:
        call = _call(entry)
        return self.values.get(call) if call is not None else None


def worked_examples(registry: Registry) -> WorkedExamples:
    """The worked examples of ``registry``'s keys, computed once and kept in the user's cache.

    Computing them imports torch (seconds); the cache key covers this
    package's code (the references and their adapters), torch's version and
    which reference, output and concept each key names, so a build whose
    references did not change reads them back without torch.
    """
    from importlib import metadata

    from metrics_registry import cache

    calls = sorted({call for entry in registry if (call := _call(entry)) is not None}, key=repr)
    if not calls:
        return WorkedExamples({}, "")
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch_version = "none"
    key = cache.cache_key([], 0, purpose=f"concept-examples|torch {torch_version}|{calls!r}")

    def compute() -> WorkedExamples:
        values = {call: _value(call) for call in calls}
        return WorkedExamples(values, batch_listing())

    return cache.memo(key, compute)


def _value(call: Call) -> float | None:
    try:
        from metrics_registry.reference.concept_example import example_value
    except ImportError:
        return None
    return example_value(*call)


def concept_pages(
    registry: Registry,
    link: Callable[[Entry, str], str],
    numbers: Callable[[Entry], float | None] = example_numbers,
) -> list[ConceptPage]:
    """A page for every concept a metric names, and for the broader concepts above those.

    ``link(entry, page)`` is the link from ``page`` to the entry's documentation;
    ``numbers(entry)`` its worked-example value.
    """
    concepts = registry.concepts
    named = {entry.metric.concept for entry in registry if entry.metric.concept in concepts}
    shown = {c.id for concept_id in named for c in lineage(concepts, concept_id)}
    order = {family_id: position for position, family_id in enumerate(registry.families)}
    by_name: dict[str, list[Entry]] = {}
    by_concept: dict[str, list[Entry]] = {}
    for entry in registry:
        for name in (entry.key, *entry.metric.aliases):
            by_name.setdefault(name, []).append(entry)
        by_concept.setdefault(entry.metric.concept, []).append(entry)
    # the families with a key for each concept; a family counts for the broader concepts above too
    having: dict[str, set[str]] = {}
    for concept_id, named_by in by_concept.items():
        for ancestor in lineage(concepts, concept_id):
            having.setdefault(ancestor.id, set()).update(e.family.id for e in named_by)
    pages = []
    for concept in concepts.values():
        if concept.id not in shown:
            continue
        path = f"{CONCEPTS_FOLDER}/{concept.id}.md"
        entries = sorted(by_concept.get(concept.id, []), key=lambda e: (order[e.family.id], e.key))
        rows = [Row(e, link(e, path), numbers(e)) for e in entries]
        page = ConceptPage(
            concept,
            rows,
            parents=lineage(concepts, concept.id)[1:],
            children=[c for c in concepts.values() if c.parent == concept.id and c.id in shown],
        )
        for row in rows:
            for name in (row.entry.key, *row.entry.metric.aliases):
                for other in by_name.get(name, []):
                    if other.family.id != row.entry.family.id and other.metric.concept != concept.id:
                        page.same_name.append((name, Row(other, link(other, path))))
        for row in rows:
            page.names.setdefault(row.entry.family.id, []).append(row.entry.key)
        if len(page.names) < 2 or len({tuple(keys) for keys in page.names.values()}) < 2:
            page.names = {}
        present = having.get(concept.id, set())
        page.missing = [family for family_id, family in registry.families.items() if family_id not in present]
        pages.append(page)
    return pages


#: The tensors of the example batch shown on the pages (``logits`` is left out: 120 numbers).
SHOWN = (
    "mask",
    "logprobs",
    "old_logprobs",
    "ref_logprobs",
    "sampling_logprobs",
    "rewards_per_func",
    "scores",
    "advantages",
    "values",
    "old_values",
    "returns",
    "completion_lengths",
    "prompt_lengths",
    "is_truncated",
)


def _values(tensor: object) -> str:
    items = tensor.tolist()  # type: ignore[attr-defined]

    def show(item: object) -> str:
        if isinstance(item, list):
            return "[" + ", ".join(show(x) for x in item) + "]"
        if isinstance(item, bool):
            return "1" if item else "0"
        return number(item) if isinstance(item, float) else str(item)

    return show(items)


def batch_listing() -> str:
    """The example batch as a Python session that rebuilds it and shows its tensors, per micro-batch."""
    try:
        from metrics_registry.reference import concept_example
    except ImportError:
        return ""
    batch = concept_example.example_batch()
    lines = [
        "```python",
        "from metrics_registry.reference.concept_example import example_batch, example_value",
        "",
        f"batch = example_batch()  # seed {batch.seed}",
    ]
    for index, tensors in enumerate(batch.micro_batches()):
        lines.append(f"# micro-batch {index}")
        for name in SHOWN:
            lines.append(f"batch.micro_batches()[{index}].{name:<18} # {_values(getattr(tensors, name))}")
    lines.append("```")
    return "\n".join(lines)


def number(value: float) -> str:
    """A logged value as the page prints it: six significant digits, ``NaN`` for not a number."""
    if math.isnan(value):
        return "NaN"
    text = f"{value:.6g}"
    return "0" if text == "-0" else text


def write_concept_pages(
    registry: Registry, out: Path, render: Callable[..., None], family_title: Callable[[FamilyInfo], str]
) -> list[ConceptPage]:
    """Render every concept page and the index with ``render(template, page, **context)``.

    ``family_title`` gives a family's title in the page's language. Call it
    after the pages of the metrics are written: links go to a metric's own
    page when the site has one.
    """
    examples = worked_examples(registry)
    pages = concept_pages(registry, lambda entry, page: _metric_link(out, entry, page), examples.number)
    if not pages:
        return pages
    frameworks = {
        family_id: framework_label(family, family_title(family))
        for family_id, family in registry.families.items()
    }
    by_id = {page.concept.id: page for page in pages}
    for page in pages:
        render(
            "concept.md.j2",
            page.path,
            concept_page=page,
            frameworks=frameworks,
            number=number,
            pages=by_id,
            batch_listing=lambda: examples.listing,
        )
    render("concepts-index.md.j2", INDEX_PAGE, pages=pages, frameworks=frameworks)
    return pages

"""Which fields of a registry file are translatable, and their message contexts.

The extractor (on the raw YAML) and :mod:`metrics_registry.i18n.translate`
(on the loaded models) walk the same fields with the same function, so a
context computed at extraction time is found again at render time.

A context is ``<family>:<key>|<field path>`` for a metric and
``<family>|<field>`` for the family header. List items are named by their
id where they have one, so reordering a list keeps the contexts:

- ``healthy[<rule id>].suggests``
- ``gated_by[<option>].note``
- ``meaning_depends_on[<option>].effect``
- ``reduction[<level>].note``
- ``changes[<version>].description``
- ``known_issues[<url>].description``
- ``examples[<index>].description`` (examples have no id)

Concepts (:mod:`metrics_registry.concepts`) have ``concept:<id>|title`` and
``concept:<id>|summary``.

A repeated name gets ``#2``, ``#3``... (``changes[1.0.0#2].description``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

__all__ = [
    "CONCEPT_FIELDS",
    "CONCEPT_OWNER",
    "FAMILY_FIELDS",
    "METRIC_FIELDS",
    "TextField",
    "concept_context",
    "concept_texts",
    "family_context",
    "family_texts",
    "metric_context",
    "metric_texts",
    "split_context",
]

FAMILY_FIELDS = ("title", "summary")
#: Scalar text fields of a metric, in page order.
METRIC_FIELDS = ("title", "summary", "details", "docs_note")
#: (list field, the item field naming it, the text field of the item).
_LIST_FIELDS = (
    ("healthy", "id", "suggests"),
    ("gated_by", "option", "note"),
    ("meaning_depends_on", "option", "effect"),
    ("reduction", "level", "note"),
    ("changes", "version", "description"),
    ("known_issues", "url", "description"),
    ("examples", None, "description"),
)
#: Text fields of a concept, in page order.
CONCEPT_FIELDS = ("title", "summary")
#: The "family" part of a concept's message context.
CONCEPT_OWNER = "concept"


class TextField(NamedTuple):
    """One translatable text: where it is in the data and its field path."""

    path: str  # e.g. "healthy[non-negative].suggests"
    loc: tuple[str | int, ...]  # e.g. ("healthy", 0, "suggests"), relative to the metric
    text: str


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def family_texts(family: Mapping[str, Any]) -> Iterator[TextField]:
    for name in FAMILY_FIELDS:
        if _is_text(family.get(name)):
            yield TextField(name, (name,), family[name])


def concept_texts(concept: Mapping[str, Any]) -> Iterator[TextField]:
    """The title and summary of one concept (a raw YAML mapping or ``model_dump()``)."""
    for name in CONCEPT_FIELDS:
        if _is_text(concept.get(name)):
            yield TextField(name, (name,), concept[name])


def metric_texts(metric: Mapping[str, Any]) -> Iterator[TextField]:
    """Every translatable text of one metric (a raw YAML mapping or ``model_dump()``)."""
    for name in ("title", "summary", "details"):
        if _is_text(metric.get(name)):
            yield TextField(name, (name,), metric[name])
    aggregation = metric.get("aggregation")
    if isinstance(aggregation, Mapping) and _is_text(aggregation.get("over")):
        yield TextField("aggregation.over", ("aggregation", "over"), aggregation["over"])
    for list_name, id_field, text_field in _LIST_FIELDS:
        items = metric.get(list_name)
        if not isinstance(items, list):
            continue
        seen: dict[str, int] = {}
        for index, item in enumerate(items):
            if not isinstance(item, Mapping) or not _is_text(item.get(text_field)):
                continue
            name = str(item.get(id_field)) if id_field and item.get(id_field) is not None else str(index)
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1:
                name = f"{name}#{seen[name]}"
            yield TextField(
                f"{list_name}[{name}].{text_field}", (list_name, index, text_field), item[text_field]
            )
    if _is_text(metric.get("docs_note")):
        yield TextField("docs_note", ("docs_note",), metric["docs_note"])


def metric_context(family_id: str, key: str, path: str) -> str:
    """``grpo:kl|summary``."""
    return f"{family_id}:{key}|{path}"


def concept_context(concept_id: str, path: str) -> str:
    """``concept:clip-fraction|title``."""
    return f"{CONCEPT_OWNER}:{concept_id}|{path}"


def family_context(family_id: str, path: str) -> str:
    """``grpo|summary``."""
    return f"{family_id}|{path}"


def split_context(context: str | None) -> tuple[str, str | None, str]:
    """``(family, key or None, field path)`` of a registry context.

    >>> split_context("grpo:rewards/{reward_func_name}/mean|healthy[finite].suggests")
    ('grpo', 'rewards/{reward_func_name}/mean', 'healthy[finite].suggests')
    >>> split_context("grpo|summary")
    ('grpo', None, 'summary')
    """
    if not context or "|" not in context:
        return ("ui", None, context or "")
    owner, path = context.split("|", 1)
    family, _, key = owner.partition(":")
    return (family, key or None, path)

"""Compare two registries: what was added, removed, renamed, deprecated, and which fields changed.

Metrics are matched by id (``family:key``). An old id missing from the new
registry is **renamed** rather than removed when the new registry says so:
an entry ``replaces`` it, the old entry's ``replaced_by`` names an entry
that is new, or an entry of the same family lists the old key among its
``aliases``. A metric present on both sides is **deprecated** when it gained
a ``replaced_by`` or a ``versions.removed``. **Changed** lists every
compared field (:data:`FIELDS`) whose value differs, for metrics on both
sides and for renamed pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from metrics_registry.keys import Reference
from metrics_registry.registry import Entry, Registry

__all__ = ["FIELDS", "FieldChange", "MetricDiff", "RegistryDiff", "compare"]

#: Compared fields, in report order: what a metric means and how it is computed first.
FIELDS = (
    "title",
    "summary",
    "details",
    "formula",
    "unit",
    "aggregation",
    "goal",
    "kind",
    "category",
    "concept",
    "reduction",
    "versions",
    "modes",
    "aliases",
    "healthy",
    "gated_by",
    "meaning_depends_on",
    "known_issues",
    "reference",
)
#: Fields whose values are long text (shown as a line diff).
TEXT_FIELDS = ("summary", "details", "formula", "title")


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: Any
    new: Any


@dataclass(frozen=True)
class MetricDiff:
    """One metric that differs between the two sides."""

    kind: Literal["added", "removed", "renamed", "deprecated", "changed"]
    id: str  # the new id (the old one for 'removed')
    old_id: str | None = None  # for 'renamed'
    via: str | None = None  # for 'renamed': replaces, replaced_by or alias
    successors: tuple[str, ...] = ()  # for 'deprecated'
    removed_in: str | None = None  # for 'deprecated'
    changes: tuple[FieldChange, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "id": self.id}
        if self.old_id is not None:
            data["old_id"] = self.old_id
        if self.via is not None:
            data["via"] = self.via
        if self.successors:
            data["successors"] = list(self.successors)
        if self.removed_in is not None:
            data["removed_in"] = self.removed_in
        if self.changes:
            data["changes"] = [{"field": c.field, "old": c.old, "new": c.new} for c in self.changes]
        return data


@dataclass
class RegistryDiff:
    old_label: str
    new_label: str
    families_added: list[str] = field(default_factory=list)
    families_removed: list[str] = field(default_factory=list)
    added: list[MetricDiff] = field(default_factory=list)
    removed: list[MetricDiff] = field(default_factory=list)
    renamed: list[MetricDiff] = field(default_factory=list)
    deprecated: list[MetricDiff] = field(default_factory=list)
    changed: list[MetricDiff] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (
            self.families_added
            or self.families_removed
            or self.added
            or self.removed
            or self.renamed
            or self.deprecated
            or self.changed
        )

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "removed": len(self.removed),
            "renamed": len(self.renamed),
            "deprecated": len(self.deprecated),
            "changed": len(self.changed),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "old": self.old_label,
            "new": self.new_label,
            "counts": self.counts(),
            "families_added": self.families_added,
            "families_removed": self.families_removed,
            **{
                name: [m.to_dict() for m in getattr(self, name)]
                for name in ("added", "removed", "renamed", "deprecated", "changed")
            },
        }


def _value(entry: Entry, name: str) -> Any:
    if name == "versions":
        return entry.versions.model_dump(mode="json")
    value = getattr(entry.metric, name)
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [v.model_dump(mode="json") if hasattr(v, "model_dump") else v for v in value]
    return getattr(value, "value", value)


def field_changes(old: Entry, new: Entry) -> tuple[FieldChange, ...]:
    changes = []
    for name in FIELDS:
        before, after = _value(old, name), _value(new, name)
        if before != after:
            changes.append(FieldChange(name, before, after))
    return tuple(changes)


def _refers_to(reference: str, from_family: str, target_id: str) -> bool:
    ref = Reference.parse(reference)
    return f"{ref.family or from_family}:{ref.key}" == target_id


def _rename_of(old: Entry, new_reg: Registry, added: set[str]) -> tuple[Entry, str] | None:
    """The entry of ``new_reg`` that ``old`` became, and which link says so."""
    for entry in new_reg:
        if any(_refers_to(r, entry.family.id, old.id) for r in entry.metric.replaces):
            return entry, "replaces"
    for reference in old.metric.replaced_by:
        target = new_reg.resolve(reference, old.family.id)
        if target is not None and target.id in added:
            return target, "replaced_by"
    for entry in new_reg:
        if entry.family.id == old.family.id and old.key in entry.metric.aliases:
            return entry, "alias"
    return None


def compare(old: Registry, new: Registry, old_label: str = "old", new_label: str = "new") -> RegistryDiff:
    """Everything that differs from ``old`` to ``new``."""
    diff = RegistryDiff(old_label, new_label)
    diff.families_added = sorted(set(new.families) - set(old.families))
    diff.families_removed = sorted(set(old.families) - set(new.families))
    old_by_id = {e.id: e for e in old}
    new_by_id = {e.id: e for e in new}
    added = set(new_by_id) - set(old_by_id)
    renamed_to: set[str] = set()
    for old_id in sorted(set(old_by_id) - set(new_by_id)):
        entry = old_by_id[old_id]
        found = _rename_of(entry, new, added)
        if found is None:
            diff.removed.append(MetricDiff("removed", old_id))
            continue
        target, via = found
        renamed_to.add(target.id)
        diff.renamed.append(
            MetricDiff("renamed", target.id, old_id=old_id, via=via, changes=field_changes(entry, target))
        )
    diff.added = [MetricDiff("added", i) for i in sorted(added - renamed_to)]
    for entry_id in sorted(set(old_by_id) & set(new_by_id)):
        before, after = old_by_id[entry_id], new_by_id[entry_id]
        gained = [r for r in after.metric.replaced_by if r not in before.metric.replaced_by]
        removed_in = after.versions.removed if before.versions.removed is None else None
        if (gained and not before.metric.replaced_by) or removed_in is not None:
            diff.deprecated.append(
                MetricDiff(
                    "deprecated", entry_id, successors=tuple(after.metric.replaced_by), removed_in=removed_in
                )
            )
        changes = field_changes(before, after)
        if changes:
            diff.changed.append(MetricDiff("changed", entry_id, changes=changes))
    return diff

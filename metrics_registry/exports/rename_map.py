"""The rename map: every old key with a successor, and the current key to use instead.

Generated from the registry's `replaced_by` and `replaces` links (either
side is enough), never written by hand. A chain of renames (A replaced by B,
B replaced by C) maps A straight to the current key C. Dashboards and log
parsers use it to migrate; `metrics-registry check-run` uses the same
links to name the successor of a legacy key in a run.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from metrics_registry.registry import Entry, Registry

__all__ = ["Rename", "current_successors", "export_rename_map", "renames"]

RENAME_MAP_VERSION = "1"


@dataclass(frozen=True)
class Rename:
    """`old` is succeeded by `new` (the current key, at the end of any chain)."""

    old: str
    old_id: str
    new: str
    new_id: str
    versions_of: str
    since: str  # first release that logs the successor
    until: str | None  # first release that no longer logs the old key (None: still logged)
    templated: bool
    same_key: bool  # the key stayed, its family (and meaning) changed

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["from"], data["to"] = data.pop("old"), data.pop("new")
        data["from_id"], data["to_id"] = data.pop("old_id"), data.pop("new_id")
        order = ("from", "to", "from_id", "to_id", "versions_of", "since", "until", "templated", "same_key")
        return {name: data[name] for name in order}


def _successors(registry: Registry) -> dict[str, list[Entry]]:
    """Direct successors of every entry, from both sides of the links."""
    found: dict[str, dict[str, Entry]] = {}
    for entry in registry:
        for reference in entry.metric.replaced_by:
            target = registry.resolve(reference, entry.family.id)
            if target is not None:
                found.setdefault(entry.id, {})[target.id] = target
        for reference in entry.metric.replaces:
            source = registry.resolve(reference, entry.family.id)
            if source is not None:
                found.setdefault(source.id, {})[entry.id] = entry
    return {old: list(new.values()) for old, new in found.items()}


def _current(entry: Entry, successors: dict[str, list[Entry]], seen: frozenset[str]) -> list[Entry]:
    """The entries at the end of `entry`'s rename chains (cycles stop where they loop)."""
    nexts = [s for s in successors.get(entry.id, []) if s.id not in seen]
    if not nexts:
        return [entry]
    out: list[Entry] = []
    for successor in nexts:
        out.extend(_current(successor, successors, seen | {successor.id}))
    return out


def current_successors(registry: Registry) -> dict[str, list[Entry]]:
    """`{old entry id: [current successor entries]}` for every entry that has a successor."""
    successors = _successors(registry)
    by_id = {entry.id: entry for entry in registry}
    out = {}
    for old_id in successors:
        current = [e for e in _current(by_id[old_id], successors, frozenset({old_id})) if e.id != old_id]
        if current:
            out[old_id] = list({e.id: e for e in current}.values())
    return out


def renames(registry: Registry) -> list[Rename]:
    """Every old key with its current successor(s), sorted by release, then key."""
    by_id = {entry.id: entry for entry in registry}
    out = []
    for old_id, current in current_successors(registry).items():
        old = by_id[old_id]
        for new in current:
            out.append(
                Rename(
                    old=old.key,
                    old_id=old.id,
                    new=new.key,
                    new_id=new.id,
                    versions_of=new.family.versions_of,
                    since=new.versions.introduced,
                    until=old.versions.removed,
                    templated=old.templated or new.templated,
                    same_key=old.key == new.key,
                )
            )
    from packaging.version import Version

    return sorted(out, key=lambda r: (r.versions_of, Version(r.since), r.old, r.old_id, r.new_id))


def export_rename_map(registry: Registry) -> str:
    """The rename map as JSON.

    `renames` lists every rename with its ids and releases; `by_version`
    groups them as `{versions_of: {release the successor appeared in: {old key:
    current key}}}` (a list of keys where one old key has several successors).
    """
    from metrics_registry import __version__

    items = renames(registry)
    by_version: dict[str, dict[str, dict[str, str | list[str]]]] = {}
    for rename in items:
        keys = by_version.setdefault(rename.versions_of, {}).setdefault(rename.since, {})
        previous = keys.get(rename.old)
        if previous is None:
            keys[rename.old] = rename.new
        elif isinstance(previous, list):
            if rename.new not in previous:
                previous.append(rename.new)
        elif previous != rename.new:
            keys[rename.old] = [previous, rename.new]
    document = {
        "schema_version": RENAME_MAP_VERSION,
        "generator": f"metrics-registry {__version__}",
        "renames": [rename.to_dict() for rename in items],
        "by_version": by_version,
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"

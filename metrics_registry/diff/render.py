"""A registry diff as text, Markdown or JSON."""

from __future__ import annotations

import difflib
import json
from typing import Any

from metrics_registry.diff.compare import TEXT_FIELDS, FieldChange, MetricDiff, RegistryDiff

__all__ = ["render_json", "render_markdown", "render_text"]

_SECTIONS = ("added", "removed", "renamed", "deprecated", "changed")


def _short(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _text_diff(change: FieldChange, context: int = 6) -> list[str]:
    """A word diff of a long text (``[-old-]{+new+}``, as ``git diff --word-diff``), one line per hunk.

    Words, not lines: a registry text is a paragraph, and one inserted word
    would otherwise re-wrap and mark every following line as changed.
    """
    before, after = (change.old or "").split(), (change.new or "").split()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    hunks = []
    for group in matcher.get_grouped_opcodes(context):
        parts = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                parts.append(" ".join(before[i1:i2]))
                continue
            if i2 > i1:
                parts.append("[-" + " ".join(before[i1:i2]) + "-]")
            if j2 > j1:
                parts.append("{+" + " ".join(after[j1:j2]) + "+}")
        first, last = group[0], group[-1]
        head = "… " if first[1] > 0 else ""
        tail = " …" if last[2] < len(before) else ""
        hunks.append(head + " ".join(p for p in parts if p) + tail)
    return hunks


def _change_lines(change: FieldChange) -> list[str]:
    if change.field in TEXT_FIELDS and isinstance(change.old or change.new, str):
        if change.field in ("formula", "title"):
            return [f"{change.field}: {change.old!s} -> {change.new!s}"]
        return [f"{change.field}:", *(f"  {hunk}" for hunk in _text_diff(change))]
    return [f"{change.field}: {_short(change.old)} -> {_short(change.new)}"]


def _headline(item: MetricDiff) -> str:
    if item.kind == "renamed":
        return f"{item.old_id} -> {item.id} (via {item.via})"
    if item.kind == "deprecated":
        parts = []
        if item.successors:
            parts.append(f"replaced by {', '.join(item.successors)}")
        if item.removed_in:
            parts.append(f"no longer logged from {item.removed_in}")
        return f"{item.id}: {'; '.join(parts)}"
    return item.id


def _summary(diff: RegistryDiff) -> str:
    counts = ", ".join(f"{n} {name}" for name, n in diff.counts().items())
    families = ""
    if diff.families_added:
        families += f"; families added: {', '.join(diff.families_added)}"
    if diff.families_removed:
        families += f"; families removed: {', '.join(diff.families_removed)}"
    return f"{counts}{families}"


def render_text(diff: RegistryDiff) -> str:
    marks = {"added": "+", "removed": "-", "renamed": "~", "deprecated": "!", "changed": "*"}
    out = [f"{diff.old_label} -> {diff.new_label}: {_summary(diff)}"]
    for section in _SECTIONS:
        items: list[MetricDiff] = getattr(diff, section)
        if not items:
            continue
        out += ["", f"{section.capitalize()}:"]
        for item in items:
            out.append(f"  {marks[section]} {_headline(item)}")
            if section in ("changed", "renamed"):
                out += [f"      {line}" for change in item.changes for line in _change_lines(change)]
    if diff.empty:
        out.append("no differences")
    return "\n".join(out) + "\n"


def render_markdown(diff: RegistryDiff) -> str:
    out = [f"# Registry changes: `{diff.old_label}` → `{diff.new_label}`", "", _summary(diff)]
    for section in _SECTIONS:
        items: list[MetricDiff] = getattr(diff, section)
        if not items:
            continue
        out += ["", f"## {section.capitalize()}", ""]
        for item in items:
            headline = _headline(item)
            out.append(f"- `{headline}`" if section in ("added", "removed") else f"- {headline}")
            if section in ("changed", "renamed") and item.changes:
                out += ["", "  ```text"]
                for change in item.changes:
                    out += [f"  {line}" for line in _change_lines(change)]
                out += ["  ```", ""]
    if diff.empty:
        out += ["", "No differences."]
    return "\n".join(out).rstrip("\n") + "\n"


def render_json(diff: RegistryDiff) -> str:
    return json.dumps(diff.to_dict(), ensure_ascii=False, indent=2) + "\n"

"""A Python module of key constants, so code that logs or reads metrics never misspells a key.

The module is generated, never edited: `metrics_registry/constants.py` is
this export of the built-in registry, and a test fails when it is out of
date. Constant names are `<FAMILY>_<KEY>` in upper case, every run of
other characters replaced by `_` (`grpo`'s `clip_ratio/low_mean` is
`GRPO_CLIP_RATIO_LOW_MEAN`); a name that two keys would share gets a
`_2` suffix on the second.
"""

from __future__ import annotations

import json
import re
import textwrap

from metrics_registry.registry import Entry, Registry

__all__ = ["REGENERATE", "constant_name", "export_python"]

#: The command that rewrites the committed module.
REGENERATE = "metrics-registry --no-config export --format python -o metrics_registry/constants.py"

_WIDTH = 110


def constant_name(entry: Entry) -> str:
    """`GRPO_CLIP_RATIO_LOW_MEAN` for `grpo:clip_ratio/low_mean`."""
    family = re.sub(r"[^A-Za-z0-9]+", "_", entry.family.id).strip("_")
    key = re.sub(r"[^A-Za-z0-9]+", "_", entry.key).strip("_")
    return f"{family}_{key}".upper()


def _comment(text: str) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), _WIDTH - 4, initial_indent="#: ", subsequent_indent="#: ")


def _literal(text: str) -> str:
    """A double-quoted Python string literal (the quoting `ruff format` keeps)."""
    return json.dumps(text)


def export_python(registry: Registry) -> str:
    """The source of a module with one constant per metric key."""
    names: dict[str, str] = {}
    blocks: list[str] = []
    for family_id, family in registry.families.items():
        entries = registry.in_family(family_id)
        lines = [
            f"# {family_id}: {family.trainer}, {entries[0].version_text() if entries else ''}".rstrip(", ")
        ]
        for entry in entries:
            name = base = constant_name(entry)
            counter = 2
            while name in names:
                name = f"{base}_{counter}"
                counter += 1
            names[name] = entry.id
            lines.append("")
            lines.extend(_comment(entry.metric.summary))
            successors = ", ".join(entry.metric.replaced_by)
            if successors:
                lines.extend(_comment(f"Legacy name, replaced by {successors}."))
            if entry.templated:
                lines.extend(_comment("Templated: fill the placeholders with str.format()."))
            assignment = f"{name}: Final = {_literal(entry.key)}"
            if len(assignment) > _WIDTH:
                assignment = f"{name}: Final = (\n    {_literal(entry.key)}\n)"
            lines.append(assignment)
        blocks.append("\n".join(lines))
    exported = "\n".join(f"    {_literal(name)}," for name in sorted(names))
    header = f'''"""Metric keys as constants, generated from the registry: do not edit.

Regenerate with ``{REGENERATE}``;
a test fails when this file is out of date. Each constant is ``<FAMILY>_<KEY>``;
templated keys are format strings, e.g.
``GRPO_REWARDS_REWARD_FUNC_NAME_MEAN.format(reward_func_name="accuracy_reward")``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
{exported}
]
'''
    return header + "\n\n" + "\n\n\n".join(blocks) + "\n"

"""Write the Markdown sources of the site from the registry.

Pages are generated before MkDocs runs (not inside a plugin): generated
files stay visible for debugging, and the same sources build with Zensical
later (see docs/en/contributing/site.md).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from metrics_registry.keys import Reference
from metrics_registry.models import ConstantRule, DirectionRule, RangeRule, SpikeRule
from metrics_registry.registry import Entry, Registry

__all__ = ["generate_pages"]


def _cell(text: str) -> str:
    """Make text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _rule_text(rule: object) -> str:
    if isinstance(rule, RangeRule):
        if rule.min is not None and rule.max is not None:
            return f"between {rule.min:g} and {rule.max:g}"
        return f"at least {rule.min:g}" if rule.min is not None else f"at most {rule.max:g}"
    if isinstance(rule, DirectionRule):
        return {
            "increase": "goes up over the run",
            "decrease": "goes down over the run",
            "stable": "stays level over the run",
        }[rule.direction]
    if isinstance(rule, SpikeRule):
        return f"no jump above {rule.factor:g}× the running median"
    if isinstance(rule, ConstantRule):
        return "not stuck" + ("" if rule.value is None else f" at {rule.value:g}")
    return "never NaN or infinite"


def _version_label(entry: Entry) -> str:
    versions = entry.versions
    who = "TRL" if entry.family.versions_of == "trl" else entry.family.versions_of
    if versions.removed:
        return f"{who} {versions.introduced}–{versions.removed}"
    return f"{who} ≥ {versions.introduced}"


def _environment(registry: Registry) -> Environment:
    env = Environment(
        loader=PackageLoader("metrics_registry", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown output; the registry text is Markdown by design
    )

    def link(reference: str, entry: Entry) -> str:
        target = registry.resolve(reference, entry.family.id)
        if target is None:
            return f"`{reference}`"
        label = str(Reference.parse(reference))
        page = "" if target.family.id == entry.family.id else f"{target.family.id}.md"
        return f"[`{label}`]({page}#{target.anchor})"

    env.filters["cell"] = _cell
    env.globals.update(link=link, rule_text=_rule_text, version_label=_version_label)
    return env


def _tidy(markdown: str) -> str:
    """Collapse the blank lines the template leaves between blocks.

    The template errs on the side of blank lines (a missing one glues a
    heading onto a table); this keeps exactly one between blocks, outside
    fenced code.
    """
    out: list[str] = []
    fenced = False
    blank = 0
    for line in markdown.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and not line.strip():
            blank += 1
            if blank > 1:
                continue
        else:
            blank = 0
        out.append(line)
    return "\n".join(out).strip("\n") + "\n"


def generate_pages(registry: Registry, docs_source: Path, out: Path) -> list[Path]:
    """Copy the hand-written pages of ``docs_source`` to ``out`` and add the generated ones."""
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(docs_source, out)
    env = _environment(registry)
    written = []
    reference = out / "reference"
    reference.mkdir(exist_ok=True)
    family_template = env.get_template("family.md.j2")
    for family_id, family in registry.families.items():
        entries = sorted(registry.in_family(family_id), key=lambda e: e.key)
        path = reference / f"{family_id}.md"
        page = family_template.render(family=family, entries=entries, source_name=entries[0].path.name)
        path.write_text(_tidy(page), encoding="utf-8")
        written.append(path)
    index = out / "metrics.md"
    index.write_text(
        env.get_template("index-of-metrics.md.j2").render(
            entries=sorted(registry, key=lambda e: (e.key, e.family.id))
        ),
        encoding="utf-8",
    )
    written.append(index)
    return written

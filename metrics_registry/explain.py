"""Terminal rendering of a metric for ``metrics-registry explain``."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from metrics_registry.describe import describe_rule
from metrics_registry.registry import Match, Registry
from metrics_registry.terminal import plain, printable

__all__ = ["render_match", "render_matches"]


def render_match(match: Match, registry: Registry) -> RenderableType:
    """A panel with everything the registry knows about one matched metric."""
    entry, metric = match.entry, match.entry.metric
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold cyan", no_wrap=True)
    facts.add_column()
    facts.add_row("key", plain(metric.key, style="bold"))
    if match.logged_key != metric.key:
        how = {
            "key": "exactly",
            "alias": "as an alias",
            "template": "as an instance of the templated key",
            "alias-template": "as an instance of a templated alias",
        }[match.how]
        note = f"'{match.logged_key}' matched {how}"
        if match.mode == "eval":
            note += f", logged during evaluation with the prefix '{entry.family.eval_prefix}'"
        if match.bindings:
            note += " (" + ", ".join(f"{k} = {v}" for k, v in match.bindings.items()) + ")"
        facts.add_row("matched", plain(note))
    facts.add_row(
        "family", plain(f"{entry.family.title} ({entry.family.id}), logged by {entry.family.trainer}")
    )
    facts.add_row("versions", plain(entry.version_text()))
    if metric.aliases:
        facts.add_row("aliases", plain(", ".join(metric.aliases)))
    facts.add_row("category", plain(metric.category))
    aggregation = metric.aggregation
    facts.add_row(
        "aggregation",
        plain(
            f"{aggregation.reduce} over {aggregation.over}; across processes: {aggregation.across_processes}"
        ),
    )
    facts.add_row("unit", plain(metric.unit))
    if metric.goal != "none":
        facts.add_row("goal", plain(metric.goal))
    if metric.crucial:
        facts.add_row("crucial", Text("yes: one of the values to watch first", style="bold yellow"))
    if metric.formula:
        facts.add_row("formula", plain(metric.formula, style="green"))
    for gate in metric.gated_by:
        facts.add_row(
            "logged when", plain(f"{gate.option} {gate.condition}" + (f" ({gate.note})" if gate.note else ""))
        )
    for label, refs in (
        ("replaces", metric.replaces),
        ("replaced by", metric.replaced_by),
        ("see also", metric.see_also),
    ):
        if refs:
            facts.add_row(label, plain(", ".join(refs)))
    if metric.source:
        facts.add_row("upstream", plain(metric.source))
    if metric.reference:
        facts.add_row("reference", plain(metric.reference))

    parts: list[RenderableType] = [plain(metric.summary, style="italic"), Text(), facts, Text()]
    parts.append(Markdown(printable(metric.details)))
    if metric.healthy:
        rules = Table(title="Healthy values", title_justify="left", show_lines=False, expand=True)
        rules.add_column("rule", no_wrap=True)
        rules.add_column("expects")
        rules.add_column("when violated")
        for rule in metric.healthy:
            rules.add_row(
                plain(f"{rule.id} ({rule.severity})"), plain(describe_rule(rule)), plain(rule.suggests)
            )
        parts.extend([Text(), rules])
    if metric.changes:
        parts.append(Text())
        parts.append(
            Markdown(
                "**Changes between releases**\n\n"
                + "\n".join(
                    f"- {change.version}: {printable(change.description)}" for change in metric.changes
                )
            )
        )
    if metric.docs_note:
        parts.append(Text())
        parts.append(Markdown("**What TRL's documentation says**\n\n" + printable(metric.docs_note)))
    return Panel(
        Group(*parts),
        title=plain(metric.title, style="bold"),
        title_align="left",
        subtitle=plain(entry.id),
        subtitle_align="right",
    )


def render_matches(matches: list[Match], registry: Registry, console: Console) -> None:
    """Print every match; when there are several, say how to choose one."""
    if len(matches) > 1:
        families = ", ".join(m.entry.family.id for m in matches)
        console.print(
            plain(
                f"'{matches[0].logged_key}' is logged by {len(matches)} families with different"
                f" meanings ({families}); pass --family or --trl-version to show one.",
                style="yellow",
            )
        )
    for match in matches:
        console.print(render_match(match, registry))

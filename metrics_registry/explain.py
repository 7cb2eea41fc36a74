"""Terminal rendering of a metric for ``metrics-registry explain``."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from metrics_registry.describe import describe_rule
from metrics_registry.registry import Match, Registry

__all__ = ["render_match", "render_matches"]


def render_match(match: Match, registry: Registry) -> RenderableType:
    """A panel with everything the registry knows about one matched metric."""
    entry, metric = match.entry, match.entry.metric
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold cyan", no_wrap=True)
    facts.add_column()
    facts.add_row("key", Text(metric.key, style="bold"))
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
        facts.add_row("matched", note)
    facts.add_row("family", f"{entry.family.title} ({entry.family.id}), logged by {entry.family.trainer}")
    facts.add_row("versions", entry.version_text())
    if metric.aliases:
        facts.add_row("aliases", ", ".join(metric.aliases))
    facts.add_row("category", metric.category)
    aggregation = metric.aggregation
    facts.add_row(
        "aggregation",
        f"{aggregation.reduce} over {aggregation.over}; across processes: {aggregation.across_processes}",
    )
    facts.add_row("unit", metric.unit)
    if metric.goal != "none":
        facts.add_row("goal", metric.goal)
    if metric.crucial:
        facts.add_row("crucial", Text("yes: one of the values to watch first", style="bold yellow"))
    if metric.formula:
        facts.add_row("formula", Text(metric.formula, style="green"))
    for gate in metric.gated_by:
        facts.add_row(
            "logged when", f"{gate.option} {gate.condition}" + (f" ({gate.note})" if gate.note else "")
        )
    for label, refs in (
        ("replaces", metric.replaces),
        ("replaced by", metric.replaced_by),
        ("see also", metric.see_also),
    ):
        if refs:
            facts.add_row(label, ", ".join(refs))
    if metric.source:
        facts.add_row("upstream", metric.source)
    if metric.reference:
        facts.add_row("reference", metric.reference)

    parts: list[RenderableType] = [Text(metric.summary, style="italic"), Text(), facts, Text()]
    parts.append(Markdown(metric.details))
    if metric.healthy:
        rules = Table(title="Healthy values", title_justify="left", show_lines=False, expand=True)
        rules.add_column("rule", no_wrap=True)
        rules.add_column("expects")
        rules.add_column("when violated")
        for rule in metric.healthy:
            rules.add_row(f"{rule.id} ({rule.severity})", describe_rule(rule), rule.suggests)
        parts.extend([Text(), rules])
    if metric.changes:
        parts.append(Text())
        parts.append(
            Markdown(
                "**Changes between releases**\n\n"
                + "\n".join(f"- {change.version}: {change.description}" for change in metric.changes)
            )
        )
    if metric.docs_note:
        parts.append(Text())
        parts.append(Markdown("**What TRL's documentation says**\n\n" + metric.docs_note))
    return Panel(
        Group(*parts),
        title=f"[bold]{metric.title}[/bold]",
        title_align="left",
        subtitle=entry.id,
        subtitle_align="right",
    )


def render_matches(matches: list[Match], registry: Registry, console: Console) -> None:
    """Print every match; when there are several, say how to choose one."""
    if len(matches) > 1:
        families = ", ".join(m.entry.family.id for m in matches)
        console.print(
            f"[yellow]'{matches[0].logged_key}' is logged by {len(matches)} families with different"
            f" meanings ({families}); pass --family or --trl-version to show one.[/yellow]"
        )
    for match in matches:
        console.print(render_match(match, registry))

"""Terminal rendering of a metric for ``metrics-registry explain``."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from metrics_registry.concepts import lineage
from metrics_registry.describe import (
    describe_issue_effect,
    describe_reduction_level,
    describe_reduction_op,
    describe_rule,
    describe_rule_conditions,
)
from metrics_registry.formulas import readable, readable_prose
from metrics_registry.registry import Entry, Match, Registry, logged_by, project_name
from metrics_registry.terminal import plain, printable

__all__ = ["ambiguity_notice", "explained_matches", "render_match", "render_matches", "unknown_key_message"]


def _facts(match: Match, registry: Registry) -> Table:
    """The two-column table of short facts at the top of the panel."""
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
    if metric.concept:
        facts.add_row("concept", plain(_concept_text(metric.concept, registry)))
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
        shown = readable(metric.formula)
        if shown is not None:
            facts.add_row("formula", plain(shown, style="green"))
        facts.add_row("LaTeX" if shown is not None else "formula", plain(metric.formula, style="green"))
    _meaning_rows(facts, entry)
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
    return facts


def _meaning_rows(facts: Table, entry: Entry) -> None:
    """Reduction stages, logging gates and the options that change the meaning."""
    metric = entry.metric
    if metric.reduction:
        stages = [
            f"{describe_reduction_level(step.level)}: {describe_reduction_op(step.reduce)}"
            for step in metric.reduction
        ]
        facts.add_row("reduction", plain(" → ".join(stages) + " (innermost first)"))
    for gate in metric.gated_by:
        facts.add_row(
            "logged only when",
            plain(f"{gate.option} {gate.condition}" + (f" ({gate.note})" if gate.note else "")),
        )
    for dependency in metric.meaning_depends_on:
        text = f"{dependency.option} {dependency.condition}: {dependency.effect}"
        facts.add_row("meaning changes", plain(" ".join(text.split())))


def render_match(match: Match, registry: Registry) -> RenderableType:
    """A panel with everything the registry knows about one matched metric."""
    entry, metric = match.entry, match.entry.metric
    parts: list[RenderableType] = [
        plain(metric.summary, style="italic"),
        Text(),
        _facts(match, registry),
        Text(),
    ]
    parts.append(Markdown(printable(readable_prose(metric.details))))
    if metric.healthy:
        rules = Table(title="Healthy values", title_justify="left", show_lines=False, expand=True)
        rules.add_column("rule", no_wrap=True)
        rules.add_column("expects")
        rules.add_column("when violated")
        for rule in metric.healthy:
            expects = describe_rule(rule)
            when = describe_rule_conditions(rule, who=_who(entry))
            rules.add_row(
                plain(f"{rule.id} ({rule.severity})"),
                plain(f"{expects} ({when})" if when else expects),
                plain(rule.suggests),
            )
        parts.extend([Text(), rules])
    if metric.known_issues:
        parts.extend([Text(), *_known_issues(entry)])
    if metric.changes:
        parts.append(Text())
        parts.append(
            Markdown(
                "**Changes between releases**\n\n"
                + "\n".join(
                    f"- {change.version}: {printable(readable_prose(change.description))}"
                    for change in metric.changes
                )
            )
        )
    if metric.docs_note:
        parts.append(Text())
        parts.append(
            Markdown("**What TRL's documentation says**\n\n" + printable(readable_prose(metric.docs_note)))
        )
    return Panel(
        Group(*parts),
        title=plain(metric.title, style="bold"),
        title_align="left",
        subtitle=plain(entry.id),
        subtitle_align="right",
    )


def _who(entry: Entry) -> str:
    return project_name(entry.family)


def _concept_text(concept_id: str, registry: Registry) -> str:
    """``clip-fraction-low: Clip fraction, low side (a kind of Clip fraction)``."""
    chain = lineage(registry.concepts, concept_id)
    if not chain:
        return concept_id
    text = f"{concept_id}: {chain[0].title}"
    return text + (f" (a kind of {chain[1].title})" if len(chain) > 1 else "")


def _known_issues(entry: Entry) -> list[RenderableType]:
    """One block per known issue: effect and releases, the description, conditions, fix and link."""
    out: list[RenderableType] = [Text("Known issues", style="bold red")]
    for issue in entry.metric.known_issues:
        head = f"{describe_issue_effect(issue.effect)} in {issue.affects.text(_who(entry))}"
        if issue.when:
            head += " with " + " and ".join(condition.text() for condition in issue.when)
        if issue.fixed_in:
            head += f"; fixed in {issue.fixed_in}"
        out.append(plain(f"- {head}", style="red"))
        out.append(Markdown(printable(readable_prose(issue.description))))
        # The link as plain text: a terminal makes it clickable; rich markup is never read from it.
        out.append(plain(f"  {issue.url}", style="blue underline"))
    return out


def explained_matches(
    registry: Registry, key: str, family: str | None, trl_version: str | None
) -> list[Match]:
    """What ``explain KEY`` shows: ``registry.find``, and the registry's own ``grpo:kl`` form."""
    matches = registry.find(key, family=family, trl_version=trl_version)
    named, _, rest = key.partition(":")
    if not matches and rest and named in registry.families and family in (None, named):
        # the registry's own reference form, 'grpo:kl', as see_also and the pages write it
        matches = registry.find(rest, family=named, trl_version=trl_version)
    return matches


def ambiguity_notice(matches: list[Match]) -> Text:
    """The line above several matches that says how to choose one."""
    frameworks = {m.entry.family.versions_of for m in matches}
    how = "--family or --trl-version" if frameworks == {"trl"} else "--family"
    return plain(
        f"'{matches[0].logged_key}' is logged by {len(matches)} families with different"
        f" meanings ({logged_by(matches)}); pass {how} to show one.",
        style="yellow",
    )


def render_matches(matches: list[Match], registry: Registry, console: Console) -> None:
    """Print every match; when there are several, say how to choose one."""
    if len(matches) > 1:
        console.print(ambiguity_notice(matches))
    for match in matches:
        console.print(render_match(match, registry))


def unknown_key_message(registry: Registry, key: str, family: str | None, trl_version: str | None) -> str:
    """Say that ``key`` is unknown, with the closest known keys."""
    import difflib

    from metrics_registry.keys import shown

    names = sorted({e.key for e in registry} | {a for e in registry for a in e.metric.aliases})
    # difflib is quadratic in the key's length: no suggestion for a key far longer than any known one
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6) if len(key) <= 200 else []
    scope = (f" in family '{shown(family)}'" if family else "") + (
        f" for TRL {trl_version}" if trl_version else ""
    )
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"no metric '{shown(key)}'{scope}{hint}"

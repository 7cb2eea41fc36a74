"""``metrics-registry diff OLD NEW``."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from metrics_registry.clierrors import user_errors
from metrics_registry.registry import RegistryError

__all__ = ["diff_command"]


@click.command(name="diff")
@click.argument("old")
@click.argument("new")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True
)
@click.option(
    "--exit-code", is_flag=True, help="Exit 1 when the registries differ (like git diff --exit-code)."
)
@user_errors(RegistryError)
def diff_command(old: str, new: str, fmt: str, exit_code: bool) -> None:
    """Compare two registries: added, removed, renamed, deprecated metrics and changed fields.

    OLD and NEW are registry YAML files, folders of them, or git revisions
    (HEAD~3, v1.0, or REV:path such as HEAD~3:metrics_registry/data).
    """
    from metrics_registry.diff.compare import compare
    from metrics_registry.diff.render import render_json, render_markdown, render_text
    from metrics_registry.diff.sources import load_source

    with tempfile.TemporaryDirectory(prefix="metrics-registry-diff-") as tmp:
        sides = [load_source(spec, Path(tmp) / side) for spec, side in ((old, "old"), (new, "new"))]
    for side in sides:
        if side.problems:
            first = side.problems[0].format()
            more = f" (and {len(side.problems) - 1} more)" if len(side.problems) > 1 else ""
            click.echo(
                f"metrics-registry: warning: {side.label}: entries this version cannot read are left out:"
                f" {first}{more}",
                err=True,
            )
    result = compare(sides[0].registry, sides[1].registry, old, new)
    render = {"text": render_text, "json": render_json, "markdown": render_markdown}[fmt]
    click.echo(render(result), nl=False)
    if exit_code and not result.empty:
        sys.exit(1)

"""The ``metrics-registry`` command.

Every subcommand turns the package's errors into one line on stderr and a
non-zero exit code (1: the input has problems, 2: the command was used
wrongly); a traceback means a bug in this tool.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from metrics_registry.clierrors import fail, release_number, user_errors

if TYPE_CHECKING:
    from rich.console import Console

    from metrics_registry.registry import Registry

__all__ = ["main"]


class _Context:
    def __init__(self, extra: tuple[Path, ...], use_config: bool) -> None:
        self.extra = extra
        self.use_config = use_config

    def validate(self, *, translations: bool = False) -> tuple[Registry, list]:
        """Validate the registry; with ``translations``, the project's text files and catalogs too."""
        from metrics_registry.project import validate_project

        return validate_project(self.extra, use_config=self.use_config, translations=translations)

    def load(self) -> Registry:
        from metrics_registry.api import load

        return load(self.extra, include_configured=self.use_config)


_user_errors = user_errors(
    "metrics_registry.registry:RegistryError",
    "metrics_registry.config:ConfigError",
    "metrics_registry.encoding.word_ngrams:WordModelError",
    "metrics_registry.encoding.domain:DomainModelError",
    "metrics_registry.i18n:I18nError",
)


class _LazyGroup(click.Group):
    """A group whose big subcommands are imported only when run (or listed by --help).

    ``metrics-registry explain`` need not import the encoding repairer, the
    translation tools or the log readers; this is click's documented pattern
    for lazily loaded subcommands.
    """

    #: command name -> "module:attribute"
    lazy_commands: dict[str, str] = {  # noqa: RUF012 - read-only table
        "check-run": "metrics_registry.runs.cli:check_run_command",
        "conform": "metrics_registry.conformance.cli:conform_command",
        "diff": "metrics_registry.diff.cli:diff_command",
        "fix-encoding": "metrics_registry.encoding.cli:fix_encoding",
        "i18n": "metrics_registry.i18n.cli:i18n_group",
        "watch": "metrics_registry.integrations.watch:watch_command",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy_commands.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        import importlib

        module_name, _, attribute = target.partition(":")
        return getattr(importlib.import_module(module_name), attribute)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
# the version is read from the installed metadata only when --version is given
@click.version_option(package_name="metrics-registry", prog_name="metrics-registry")
@click.option(
    "--registry",
    "extra",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Extra registry YAML file to load (repeatable), on top of the built-in families.",
)
@click.option(
    "--no-config",
    is_flag=True,
    help="Ignore [tool.metrics-registry] in pyproject.toml and METRICS_REGISTRY_PATH.",
)
@click.pass_context
def cli(ctx: click.Context, extra: tuple[Path, ...], no_config: bool) -> None:
    """Registry of the metrics RL trainers for language models log (TRL PPO, GRPO, ...)."""
    ctx.obj = _Context(extra, not no_config)


@cli.command(name="validate")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="text: one line per finding; json: the findings as data; github: GitHub Actions workflow"
    " annotations; sarif: a SARIF 2.1.0 log for code scanning (docs/en/tools/ci.md).",
)
@click.option("--strict", is_flag=True, help="Fail on warnings too.")
@click.option(
    "--stats", is_flag=True, help="Also print how many computable metrics have a reference and an example."
)
@click.pass_obj
@_user_errors
def validate_command(obj: _Context, fmt: str, strict: bool, stats: bool) -> None:
    """Check every registry file; exit 1 when there are errors."""
    registry, findings = obj.validate(translations=True)
    coverage = None
    if stats:
        from metrics_registry.reference_checks import reference_coverage

        coverage = reference_coverage(registry)
    errors = [f for f in findings if f.is_error]
    warnings = [f for f in findings if not f.is_error]
    if fmt in {"github", "sarif"}:
        from metrics_registry.annotations import finding_annotations
        from metrics_registry.reporting import render, site_url_from_env

        click.echo(render(fmt, finding_annotations(findings), site_url=site_url_from_env()), nl=False)  # type: ignore[arg-type]
    elif fmt == "json":
        click.echo(
            json.dumps(
                {
                    "metrics": len(registry),
                    "families": {fid: len(registry.in_family(fid)) for fid in registry.families},
                    "errors": len(errors),
                    "warnings": len(warnings),
                    "findings": [f.to_dict() for f in findings],
                    **({"coverage": coverage} if coverage is not None else {}),
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        for finding in findings:
            click.echo(finding.format(), err=False)
        counts = ", ".join(f"{fid} {len(registry.in_family(fid))}" for fid in registry.families)
        problems = f"{_count(len(errors), 'error')}, {_count(len(warnings), 'warning')}"
        click.echo(f"{len(registry)} metrics ({counts}); {problems}")
        if coverage is not None:
            _echo_coverage(coverage)
    if errors or (strict and warnings):
        sys.exit(1)


def _echo_coverage(coverage: dict[str, dict[str, int]]) -> None:
    """The ``--stats`` table: computable metrics with a reference and a worked example, per family."""

    def percent(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}%" if whole else "n/a"

    click.echo("reference coverage (computable metrics with a reference and a worked example):")
    rows = [
        *coverage.items(),
        ("total", {k: sum(c[k] for c in coverage.values()) for k in next(iter(coverage.values()), {})}),
    ]
    width = max(len(name) for name, _counts in rows)
    for name, c in rows:
        line = (
            f"  {name:<{width}}  {c['covered']}/{c['computable']} computable covered"
            f" ({percent(c['covered'], c['computable'])});"
            f" reference {c['with_reference']}, example {c['with_example']};"
            f" {c['not_computable']} not computable"
        )
        if c["undeclared"]:
            line += f", {c['undeclared']} not classified"
        click.echo(line)


@cli.command()
@click.argument("key")
@click.option("--family", help="Family id, when the key exists in several (e.g. ppo, legacy-ppo).")
@click.option("--trl-version", callback=release_number, help="TRL release the log comes from, e.g. 0.7.10.")
@click.pass_obj
@_user_errors
def explain(obj: _Context, key: str, family: str | None, trl_version: str | None) -> None:
    """Explain a logged KEY (aliases, legacy names, templated and eval_ keys; grpo:kl names a family's)."""
    from rich.console import Console

    from metrics_registry import explain_pack
    from metrics_registry.config import registry_paths
    from metrics_registry.rendered import output_key, render_kept

    console = Console(soft_wrap=False)
    files = registry_paths(obj.extra, include_configured=obj.use_config)
    kept = output_key(files, console, "explain", key, family, trl_version)
    loaded: list[Registry] = []
    render_kept(
        kept,
        console,
        lambda: _explain(
            obj, files, key=key, family=family, trl_version=trl_version, console=console, loaded=loaded
        ),
    )
    if loaded:  # the registry was loaded because no pack was kept: build it, the output is printed
        explain_pack.keep(files, loaded[0])


def _explain(
    obj: _Context,
    files: list[Path],
    *,
    key: str,
    family: str | None,
    trl_version: str | None,
    console: Console,
    loaded: list[Registry],
) -> bool:
    """Print what ``explain`` shows; True when the registry had no errors (the output may be kept).

    A registry without errors that had no pack is appended to ``loaded``.
    """
    from metrics_registry import explain_pack

    pack = explain_pack.read(files)
    shown = pack.lookup(key, family) if pack is not None and trl_version is None else None
    if shown is not None:
        for renderable in shown:
            console.print(renderable)
        return True

    from metrics_registry.explain import explained_matches, render_matches, unknown_key_message
    from metrics_registry.registry import UnknownMetricError

    registry, findings = obj.validate()
    errors = sum(1 for f in findings if f.is_error)
    if errors:
        click.echo(
            f"metrics-registry: warning: the registry has {_count(errors, 'error')}; run"
            " 'metrics-registry validate' (showing what loaded)",
            err=True,
        )
    elif pack is None:
        loaded.append(registry)
    matches = explained_matches(registry, key, family, trl_version)
    if not matches:
        raise UnknownMetricError(unknown_key_message(registry, key, family, trl_version))
    render_matches(matches, registry, console)
    return not errors


@cli.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "jsonschema", "rename-map", "python", "wandb"]),
    default="json",
    show_default=True,
    help="json: every metric, with vi/zh translations; jsonschema: its schema; rename-map: old key ->"
    " current key; python: a module of key constants; wandb: define_metric arguments.",
)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write to a file.")
@click.pass_obj
@_user_errors
def export(obj: _Context, fmt: str, output: Path | None) -> None:
    """Export the whole registry for other tools (docs/en/tools/exports.md)."""
    from metrics_registry.exports import EXPORTERS
    from metrics_registry.fileio import atomic_write_text

    text = EXPORTERS[fmt](obj.load())
    if output:
        atomic_write_text(output, text, backup=False)
    else:
        click.echo(text, nl=False)


@cli.command()
@click.option(
    "--kind",
    type=click.Choice(["export", "registry-file"]),
    default="export",
    show_default=True,
    help="'export': the JSON export; 'registry-file': the YAML files (for editors).",
)
def schema(kind: str) -> None:
    """Print a JSON Schema."""
    from metrics_registry.schema import schema_text

    click.echo(schema_text(kind), nl=False)  # type: ignore[arg-type]


@cli.command()
@click.argument("key")
@click.option("--family", required=True, help="Family id whose file gets the entry (e.g. grpo).")
@click.option("--no-backup", is_flag=True, help="Do not keep the previous file as <file>.bak.")
@click.pass_obj
@_user_errors
def new(obj: _Context, key: str, family: str, no_backup: bool) -> None:
    """Add a skeleton entry for KEY to the file of FAMILY, keeping its comments."""
    from metrics_registry.loader import load_file
    from metrics_registry.scaffold import add_metric

    candidates = {}
    from metrics_registry.api import registry_paths

    for path in registry_paths(obj.extra, include_configured=obj.use_config):
        loaded = load_file(path)
        if loaded.family is not None:
            candidates.setdefault(loaded.family.id, path)
    if family not in candidates:
        fail(f"unknown family '{family}' (known: {', '.join(sorted(candidates))})", 2)
    path = candidates[family]
    line = add_metric(path, key, backup=not no_backup)
    click.echo(f"{path}:{line}: added '{key}'; fill in the TODO fields, then run 'metrics-registry validate'")


@cli.command()
@click.option(
    "--output",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("site"),
    show_default=True,
    help="Folder for the built site.",
)
@click.option(
    "--lang",
    "langs",
    multiple=True,
    help="Build only this language (repeatable; default: en, vi and zh). For a quick preview.",
)
@click.option(
    "--site-url",
    help="URL the site is published at (default: site_url of mkdocs.yml); used in sitemaps and hreflang.",
)
@click.pass_obj
@_user_errors
def build(obj: _Context, output: Path, langs: tuple[str, ...], site_url: str | None) -> None:
    """Generate the pages from the registry and catalogs, and build the site with MkDocs.

    Every language is built in parallel with 'mkdocs build --strict': any
    MkDocs warning, and any broken link or anchor in the result, fails the
    build. Needs KaTeX from 'npm ci' (see README).
    """
    from metrics_registry.site.build import build_site
    from metrics_registry.site.languages import site_language

    for lang in langs:
        try:
            site_language(lang)
        except ValueError as error:
            fail(str(error), 2)
    report = build_site(obj.load(), output=output, languages=langs or None, site_url=site_url)
    click.echo(report)


@cli.command()
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.pass_obj
@_user_errors
def serve(obj: _Context, port: int) -> None:
    """Build the site, serve it on localhost and rebuild on edits."""
    from metrics_registry.site.serve import serve_site

    serve_site(obj.load, port=port)


def _count(number: int, noun: str) -> str:
    """``1 error``, ``2 errors``, ``0 errors``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def main() -> None:
    try:
        cli(prog_name="metrics-registry")
    except ModuleNotFoundError as error:
        from metrics_registry.extras import missing_extra_message

        message = missing_extra_message(error)
        if message is None:
            raise
        fail(message, 2)


if __name__ == "__main__":
    main()

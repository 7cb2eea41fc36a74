"""``metrics-registry check-run LOG...``: check real training logs against the registry.

Exit codes (for CI):

- 0: no finding at or above ``--fail-on`` (default ``error``);
- 1: at least one finding at or above ``--fail-on``;
- 2: the command was used wrongly (unknown option, missing file, unknown family);
- 3: the check could not run (a log cannot be read, TensorBoard is not
  installed, the registry does not load).
"""

from __future__ import annotations

import io
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from metrics_registry.clierrors import fail, release_number
from metrics_registry.links import SITE_URL_ENV
from metrics_registry.locate import published_site_url

if TYPE_CHECKING:
    from metrics_registry.registry import Registry
    from metrics_registry.runs.check import CheckOptions, RunReport
    from metrics_registry.runs.log import RunLog

__all__ = ["EXIT_CANNOT_CHECK", "EXIT_FINDINGS", "EXIT_USAGE", "check_run_command"]

EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_CANNOT_CHECK = 3


def _progress(stack: ExitStack) -> Any:
    """A rich progress display on stderr when it is a terminal, else ``None``."""
    from rich.console import Console

    errors = Console(stderr=True)
    if not errors.is_terminal:
        return None
    from rich.progress import Progress

    return stack.enter_context(Progress(console=errors, transient=True))


_CONFIG_VALUE_MAX = 200
_CONFIG_ITEMS_MAX = 50


def _config(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> dict[str, object]:
    """``--config NAME=VALUE`` (repeatable): configuration values the run used; usage errors exit 2."""
    import re

    from metrics_registry.conditions import OPTION_PATTERN, parse_config_value
    from metrics_registry.terminal import CONTROL_CHARACTERS, printable

    if len(values) > _CONFIG_ITEMS_MAX:
        raise click.BadParameter(f"at most {_CONFIG_ITEMS_MAX} values; give those the checks need")
    config: dict[str, object] = {}
    for item in values:
        name, sep, value = item.partition("=")
        shown = printable(item[:60]) + ("…" if len(item) > 60 else "")
        if not sep or not re.match(OPTION_PATTERN, name.strip()):
            raise click.BadParameter(
                f"'{shown}' is not NAME=VALUE with a config field name, e.g. num_mini_batches=2"
            )
        if len(value) > _CONFIG_VALUE_MAX or CONTROL_CHARACTERS.search(value):
            raise click.BadParameter(
                f"the value of '{name.strip()}' is longer than {_CONFIG_VALUE_MAX} characters or holds a"
                " control character; give the value as the config file has it"
            )
        config[name.strip()] = parse_config_value(value)
    return config


def _read_logs(logs: tuple[Path, ...], input_format: str, progress: Any) -> list[RunLog]:
    from metrics_registry.runs.readers import read_log

    runs = []
    for path in logs:
        reading = progress.add_task(f"reading {path.name}", total=None) if progress else None

        def advance(done: int, total: int, task: Any = reading) -> None:
            if progress is not None:
                progress.update(task, completed=done, total=total or None)

        fmt = None if input_format == "auto" else input_format
        runs.extend(read_log(path, fmt, advance))  # type: ignore[arg-type]
    return runs


def _check_runs(
    runs: list[RunLog], registry: Registry, options: CheckOptions, progress: Any
) -> list[RunReport]:
    from metrics_registry.runs.check import check_run

    reports = []
    for run in runs:
        on_series = None
        if progress is not None:
            checking = progress.add_task(f"checking {run.name}", total=len(run.logged_keys()))

            def on_series(_key: str, task: Any = checking) -> None:
                progress.advance(task)

        reports.append(check_run(run, registry, options, on_series))
    return reports


@click.command(name="check-run")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@click.option(
    "--input-format",
    type=click.Choice(
        ["auto", "trainer-state", "tensorboard", "wandb-csv", "wandb-jsonl", "verl-jsonl", "verl-console"]
    ),
    default="auto",
    show_default=True,
    help="Format of the logs; 'auto' tells from the name and the first line (.json, .csv, .jsonl, .log,"
    " event files, folders).",
)
@click.option(
    "--framework",
    help="Framework that wrote the logs (e.g. trl, verl), when its keys do not tell; default: detected.",
)
@click.option("--family", help="Family of the run (e.g. grpo, ppo, legacy-ppo), when keys are ambiguous.")
@click.option(
    "--version",
    "version",
    callback=release_number,
    help="Release of the run's framework (the one given or detected) that wrote the logs, e.g. 0.7.10.",
)
@click.option(
    "--trl-version",
    callback=release_number,
    help="TRL release that wrote the logs, e.g. 0.7.10 (the same as --framework trl --version).",
)
@click.option(
    "--config",
    "config",
    multiple=True,
    callback=_config,
    metavar="NAME=VALUE",
    help="A configuration value the run used, e.g. num_mini_batches=2 (repeatable). Rules that do not"
    " hold for it are skipped, and known issues it avoids are not reported.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown", "github", "sarif"]),
    default="text",
    show_default=True,
    help="text: a report for a terminal; json: data; markdown: a report to publish; github: GitHub"
    " Actions workflow annotations; sarif: a SARIF 2.1.0 log for code scanning.",
)
@click.option("--lang", type=click.Choice(["en", "vi", "zh"]), default="en", show_default=True)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning"]),
    default="error",
    show_default=True,
    help="Exit 1 when a finding of this severity or worse is found.",
)
@click.option(
    "--site-url",
    envvar=SITE_URL_ENV,
    default="",
    help=(
        "Base URL of the documentation site for the links "
        f"(env {SITE_URL_ENV}; default: site_url of the project's mkdocs.yml)."
    ),
)
@click.option(
    "-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write the report to a file."
)
@click.pass_obj
def check_run_command(
    obj: Any,
    *,
    logs: tuple[Path, ...],
    input_format: str,
    framework: str | None,
    family: str | None,
    version: str | None,
    trl_version: str | None,
    config: dict[str, object],
    fmt: str,
    lang: str,
    fail_on: str,
    site_url: str,
    output: Path | None,
) -> None:
    """Check training logs (trainer_state.json, TensorBoard, W&B, verl's loggers) against the registry.

    Identifies every logged key, names unknown and legacy keys, and evaluates the
    registry's healthy rules over each series (docs/en/tools/check-run.md). Exit
    codes: 0 healthy, 1 findings at or above --fail-on, 2 wrong usage, 3 a log or
    the registry cannot be read.
    """
    from rich.console import Console

    from metrics_registry.fileio import atomic_write_text
    from metrics_registry.registry import RegistryError
    from metrics_registry.runs.check import SEVERITIES
    from metrics_registry.runs.locale import Localizer
    from metrics_registry.runs.log import LogError
    from metrics_registry.runs.render import render_json, render_markdown, render_text

    with ExitStack() as stack:
        progress = _progress(stack)
        try:
            runs = _read_logs(logs, input_format, progress)
        except LogError as error:
            fail(str(error), EXIT_CANNOT_CHECK)
        except OSError as error:
            fail(f"{error.filename or ''}: {error.strerror or error}", EXIT_CANNOT_CHECK)
        try:
            registry = obj.load()
        except RegistryError as error:
            fail(str(error), EXIT_CANNOT_CHECK)
        options = _options(
            registry,
            framework=framework,
            family=family,
            version=version,
            trl_version=trl_version,
            config=config,
        )
        reports = _check_runs(runs, registry, options, progress)
    site_url = site_url or published_site_url()
    loc = Localizer(lang, site_url=site_url)
    if fmt == "json":
        text: str | None = render_json(reports, loc)
    elif fmt == "markdown":
        text = render_markdown(reports, loc)
    elif fmt in {"github", "sarif"}:
        from metrics_registry.reporting import render
        from metrics_registry.runs.annotations import run_annotations

        text = render(fmt, run_annotations(reports, loc), site_url=site_url)  # type: ignore[arg-type]
    else:
        text = None
    if output is not None:
        if text is None:
            console = Console(record=True, file=io.StringIO(), width=100)
            render_text(reports, loc, console)
            text = "".join(line.rstrip() + "\n" for line in console.export_text().splitlines())
        atomic_write_text(output, _encodable(text), backup=False)
    elif text is not None:
        click.echo(_encodable(text), nl=False)
    else:
        render_text(reports, loc, Console(soft_wrap=False))
    for warning in loc.warnings:
        click.echo(f"metrics-registry: warning: {warning}", err=True)
    threshold = SEVERITIES.index(fail_on)  # type: ignore[arg-type]
    if any(SEVERITIES.index(f.severity) <= threshold for report in reports for f in report.findings):
        sys.exit(EXIT_FINDINGS)


def _options(
    registry: Registry,
    *,
    framework: str | None,
    family: str | None,
    version: str | None,
    trl_version: str | None,
    config: dict[str, object],
) -> CheckOptions:
    """The options from --framework, --family, --version and --trl-version; usage errors exit 2."""
    from metrics_registry.runs.check import CheckOptions
    from metrics_registry.runs.detect import frameworks, resolve_framework
    from metrics_registry.terminal import printable

    label = registry.framework_label
    if family is not None and family not in registry.families:
        fail(
            f"unknown family '{printable(family)}' (known: {', '.join(sorted(registry.families))})",
            EXIT_USAGE,
        )
    chosen = None
    if framework is not None:
        chosen = resolve_framework(registry, framework)
        if chosen is None:
            known = ", ".join(label(name) for name in frameworks(registry))
            fail(f"unknown framework '{printable(framework)}' (known: {known})", EXIT_USAGE)
    if family is not None:
        of_family = registry.families[family].versions_of
        if chosen is not None and chosen != of_family:
            fail(
                f"family '{family}' is {label(of_family)}'s, not {label(chosen)}'s;"
                " give one of --family and --framework",
                EXIT_USAGE,
            )
        chosen = of_family
    if trl_version is not None:
        if version is not None:
            fail(
                "give one of --version and --trl-version (--trl-version X is --framework trl --version X)",
                EXIT_USAGE,
            )
        if chosen is not None and chosen != "trl":
            fail(
                f"--trl-version is a TRL release, and the run is {label(chosen)}'s; use --version",
                EXIT_USAGE,
            )
        return CheckOptions(family, trl_version, config=config, framework=chosen)
    return CheckOptions(family, config=config, framework=chosen, version=version)


def _encodable(text: str) -> str:
    r"""``text`` with lone surrogates (a log key read from JSON's ``"\ud800"``) written as that escape.

    Such a key cannot be written as UTF-8; in JSON output the escape is the same key again.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")

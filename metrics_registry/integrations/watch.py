"""``metrics-registry watch PATH``: check a run's log while the run writes it.

The log (``trainer_state.json`` or an output folder, a TensorBoard folder,
W&B JSON lines) is read by a follower
(:mod:`metrics_registry.integrations.follow`) each time the file watcher
(``watchdog``) reports a change, and at least every
:data:`POLL_SECONDS` in case a change goes unreported (network file
systems); every new record goes to a
:class:`~metrics_registry.integrations.monitor.HealthMonitor` per run, and
every new finding is printed at once: above a status line on a terminal,
as plain lines otherwise.

The watch ends when the run ends (the trainer's last step or its
end-of-training summary), after ``--until-idle`` seconds without a new
record, or on Ctrl-C; then it prints the counts of the final report (the
report ``check-run`` would print for the log as written), writes it with
``-o``, and exits as ``check-run`` does: 0 healthy, 1 findings at or above
``--fail-on``, 2 wrong usage, 3 the log or the registry cannot be read.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from metrics_registry.clierrors import fail, release_number
from metrics_registry.integrations.follow import Follower, Record
from metrics_registry.integrations.monitor import HealthMonitor
from metrics_registry.links import SITE_URL_ENV
from metrics_registry.runs.check import SEVERITIES, RunFinding, RunReport
from metrics_registry.runs.cli import EXIT_CANNOT_CHECK, EXIT_FINDINGS, EXIT_USAGE
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.wording import LOG_KINDS, counts_text, describe, severity_label
from metrics_registry.terminal import plain, printable

__all__ = ["POLL_SECONDS", "watch_command"]

#: The longest wait between two looks at the log, whatever the file watcher reports.
POLL_SECONDS = 1.0

#: Changes worth a look (not our own opening and reading of the log).
_CHANGES = frozenset({"created", "modified", "moved", "closed", "deleted"})


def _observer(follower: Follower, changed: threading.Event) -> Any:
    """A started watchdog observer that sets ``changed`` on every change to the log's folder."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in _CHANGES:
                changed.set()

    folder, recursive = follower.watched
    observer = Observer()
    observer.schedule(Handler(), str(folder), recursive=recursive)
    observer.daemon = True
    observer.start()
    return observer


class _View:
    """Findings as they come: above a rich status line on a terminal, else one plain line each."""

    def __init__(self, console: Console, loc: Localizer, path: Path, stack: ExitStack) -> None:
        self.console, self.loc, self.path = console, loc, path
        self.live: Any = None
        if console.is_terminal:
            from rich.live import Live

            self.live = stack.enter_context(Live(console=console, transient=True, refresh_per_second=4))

    def finding(self, finding: RunFinding, run: str | None) -> None:
        if self.live is not None:
            from metrics_registry.runs.render import print_finding

            if run is not None:
                self.console.print(plain(f"[{run}]", style="dim"))
            print_finding(finding, self.loc, self.console)
            return
        label = severity_label(finding.severity, self.loc).upper()
        rule = finding.rule_id or finding.kind
        where = f"[{run}] " if run is not None else ""
        self.console.print(plain(f"{where}{label} {finding.key} {rule}: {describe(finding, self.loc)}"))

    def notice(self, message: str, run: str | None) -> None:
        """A line about the watch itself, not a finding of the report."""
        where = f"[{run}] " if run is not None else ""
        self.console.print(plain(f"{where}{message}", style="yellow"))

    def status(self, records: int, step: float | None, waiting: str | None) -> None:
        if self.live is None:
            return
        _ = self.loc.gettext
        line = _("watching %(path)s: %(records)s records, last step %(step)s; Ctrl-C to stop") % {
            "path": printable(str(self.path)),
            "records": self.loc.step(records),
            "step": self.loc.step(step) if step is not None else "–",
        }
        text = Text(line, style="dim")
        if waiting:
            text.append("\n" + _("waiting: %(reason)s") % {"reason": printable(waiting)}, style="yellow")
        self.live.update(text)


class _Watch:
    """The monitors of the runs in the log, fed from the follower."""

    def __init__(
        self, follower: Follower, new_monitor: Callable[[str | None], HealthMonitor], view: _View
    ) -> None:
        self.follower, self.new_monitor, self.view = follower, new_monitor, view
        self.monitors: dict[str | None, HealthMonitor] = {}
        self.last_step: float | None = None
        self.told_ambiguous: set[str | None] = set()  # runs already told to pass --family

    def feed(self, records: list[Record]) -> None:
        for record in records:
            monitor = self.monitor(record.run)
            if record.hf_prefixed:
                monitor.hf_prefixed = True
            for finding in monitor.observe(record.step, record.values, record.time):
                self.view.finding(finding, record.run)
            self.last_step = record.step
            if record.run not in self.told_ambiguous and monitor.waiting_for_family:
                self.told_ambiguous.add(record.run)
                waiting = RunFinding("nothing-checked", "info", None, nothing="ambiguous")
                self.view.notice(describe(waiting, self.view.loc), record.run)

    def conclude(self, why: str) -> list[RunReport]:
        """The final reports, after saying why the watch ended and what only the end shows."""
        view, loc = self.view, self.view.loc
        for run, problem in self.follower.problems:
            self.monitor(run).add_problem(problem)
        runs = sorted(self.monitors, key=lambda r: r or "")
        for run in runs:  # what only the whole log shows: a trend judged on every point
            for finding in self.monitors[run].finish():
                view.finding(finding, run)
        reports = [self.monitors[run].report() for run in runs]
        view.console.print(plain(f"metrics-registry watch: {why}", style="bold"))
        for report in reports:
            for finding in report.findings:
                if finding.kind in LOG_KINDS:  # damage, nothing checked: said once, at the end
                    label = severity_label(finding.severity, loc).upper()
                    view.console.print(plain(f"{label} {describe(finding, loc)}"))
            counts = counts_text(report.count("error"), report.count("warning"), report.count("info"), loc)
            view.console.print(plain(f"{report.log.name}: {counts}"))
        return reports

    def monitor(self, run: str | None) -> HealthMonitor:
        monitor = self.monitors.get(run)
        if monitor is None:
            monitor = self.monitors[run] = self.new_monitor(run)
        return monitor

    def follow(self, until_idle: float | None, changed: threading.Event) -> str:
        """Feed what comes until the run ends, it is idle, or Ctrl-C; say which."""
        _ = self.view.loc.gettext
        last_record = time.monotonic()
        try:
            while True:
                changed.clear()
                records = self.follower.poll()
                self.feed(records)
                now = time.monotonic()
                if records:
                    last_record = now
                self.view.status(self.follower.records_read, self.last_step, self.follower.waiting)
                if self.follower.ended:
                    return _("the run ended")
                wait = POLL_SECONDS
                if until_idle is not None:
                    idle = now - last_record
                    if idle >= until_idle:
                        return _("no new record for %(seconds)s s") % {
                            "seconds": self.view.loc.number(until_idle)
                        }
                    wait = min(wait, until_idle - idle)
                changed.wait(wait)
        except KeyboardInterrupt:
            return _("stopped (Ctrl-C)")


def _seconds(_ctx: click.Context, _param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise click.BadParameter("give a number of seconds, 0 or more")
    return value


def _output_format(_ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    if value is not None and value.suffix.lower() not in (".json", ".md", ".markdown"):
        raise click.BadParameter(f"{value}: name the report .json or .md (the suffix says the format)")
    return value


@click.command(name="watch")
@click.argument("path", type=click.Path(path_type=Path, exists=True))
@click.option(
    "--input-format",
    type=click.Choice(["auto", "trainer-state", "tensorboard", "wandb-jsonl"]),
    default="auto",
    show_default=True,
    help="Format of the log; 'auto' tells from the name or what the folder holds.",
)
@click.option("--family", help="Family of the run (e.g. grpo, ppo, legacy-ppo), when keys are ambiguous.")
@click.option("--trl-version", callback=release_number, help="TRL release that writes the log, e.g. 0.7.10.")
@click.option("--lang", type=click.Choice(["en", "vi", "zh"]), default="en", show_default=True)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning"]),
    default="error",
    show_default=True,
    help="Exit 1 when the final report has a finding of this severity or worse.",
)
@click.option(
    "--until-idle",
    type=float,
    callback=_seconds,
    metavar="SECONDS",
    help="End after this many seconds without a new record (default: when the run ends, or Ctrl-C).",
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
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    callback=_output_format,
    help="Write the final report to a file: .json or .md.",
)
@click.pass_obj
def watch_command(
    obj: Any,
    *,
    path: Path,
    input_format: str,
    family: str | None,
    trl_version: str | None,
    lang: str,
    fail_on: str,
    until_idle: float | None,
    site_url: str,
    output: Path | None,
) -> None:
    """Check a run's log while it is written (trainer_state.json or output folder, TensorBoard, JSON lines).

    Prints each finding as it appears, ends when the run ends, after
    --until-idle seconds without a new record, or on Ctrl-C, and exits as
    check-run does: 0 healthy, 1 findings at or above --fail-on, 2 wrong
    usage, 3 the log or the registry cannot be read.
    """
    from metrics_registry.fileio import atomic_write_text
    from metrics_registry.integrations.follow import follower_for
    from metrics_registry.registry import RegistryError
    from metrics_registry.runs.log import LogError
    from metrics_registry.runs.render import render_json, render_markdown

    try:
        import watchdog  # noqa: F401
    except ImportError:
        fail(
            "watch needs watchdog: pip install 'metrics-registry[live]' (or pip install watchdog)",
            EXIT_CANNOT_CHECK,
        )
    try:
        registry = obj.load()
    except RegistryError as error:
        fail(str(error), EXIT_CANNOT_CHECK)
    if family is not None and family not in registry.families:
        fail(f"unknown family '{family}' (known: {', '.join(sorted(registry.families))})", EXIT_USAGE)
    from metrics_registry.locate import published_site_url

    loc = Localizer(lang, site_url=site_url or published_site_url())  # as check-run's links
    console = Console(soft_wrap=not sys.stdout.isatty())
    try:
        follower = follower_for(path, None if input_format == "auto" else input_format)  # type: ignore[arg-type]
    except LogError as error:
        fail(str(error), EXIT_CANNOT_CHECK)

    def new_monitor(run: str | None) -> HealthMonitor:
        return HealthMonitor(
            registry, family=family, trl_version=trl_version, source=path, log_format=follower.format, run=run
        )

    changed = threading.Event()
    with ExitStack() as stack:
        watch = _Watch(follower, new_monitor, _View(console, loc, path, stack))
        try:
            observer = _observer(follower, changed)
            stack.callback(observer.join, 5)
            stack.callback(observer.stop)
            why = watch.follow(until_idle, changed)
            watch.feed(follower.finish())
        except LogError as error:
            fail(str(error), EXIT_CANNOT_CHECK)
        except OSError as error:
            fail(f"{error.filename or path}: {error.strerror or error}", EXIT_CANNOT_CHECK)
    reports = watch.conclude(why)
    if output is not None:
        render = render_json if output.suffix.lower() == ".json" else render_markdown
        try:
            atomic_write_text(output, render(reports, loc), backup=False)
        except OSError as error:  # fileio's WriteRefused (exit 2) and WriteError name the path
            fail(str(error), getattr(error, "exit_code", 1))
    for warning in loc.warnings:
        click.echo(f"metrics-registry: warning: {warning}", err=True)
    threshold = SEVERITIES.index(fail_on)  # type: ignore[arg-type]
    if any(SEVERITIES.index(f.severity) <= threshold for report in reports for f in report.findings):
        sys.exit(EXIT_FINDINGS)

"""``HealthCheckCallback``: the registry's health checks inside ``transformers.Trainer`` and TRL's trainers.

::

    from metrics_registry.integrations.transformers import HealthCheckCallback

    trainer = GRPOTrainer(..., callbacks=[HealthCheckCallback(lang="vi", stop_on="error")])
    trainer.train()

At every ``on_log`` the logged metrics go to a
:class:`~metrics_registry.integrations.monitor.HealthMonitor`; each new
finding is printed once (rich, in ``lang``), raised as a ``wandb.alert``
when a W&B run is active, and with ``stop_on`` set, a finding that severe
or worse stops the training (``control.should_training_stop``, the
Trainer ends after the current step and still saves as configured). At
``on_train_end`` the report is written as ``health-report.json`` and
``health-report.md`` in ``args.output_dir``, next to the checkpoints.

Under distributed training every process runs the checks (they all log
the same gathered metrics, so they all stop at the same step); only the
main process prints, alerts and writes.

transformers is imported here, and only here: the rest of the package
does not need it.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.text import Text

try:
    from transformers import TrainerCallback
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "metrics_registry.integrations.transformers needs transformers: pip install transformers"
    ) from error

from metrics_registry.integrations.monitor import HealthMonitor, at_least
from metrics_registry.registry import Registry
from metrics_registry.runs.check import RunFinding
from metrics_registry.runs.locale import LANGUAGES, Localizer
from metrics_registry.runs.render import print_finding
from metrics_registry.runs.rules import Thresholds
from metrics_registry.runs.wording import describe, expected, severity_label
from metrics_registry.terminal import plain

__all__ = ["HealthCheckCallback"]

log = logging.getLogger(__name__)

StopOn = Literal["error", "warning"]
_STOP_ON = ("error", "warning")


class HealthCheckCallback(TrainerCallback):  # type: ignore[misc]
    """Check the run's metrics against the registry while it trains.

    ``lang`` (``en``, ``vi``, ``zh``) is the language of the printed findings
    and of the report. ``stop_on`` (``"error"`` or ``"warning"``; ``None``,
    the default, never stops) stops the training at the first finding that
    severe or worse. ``report_dir`` overrides where the report goes
    (default: ``args.output_dir``); ``wandb_alerts=False`` keeps W&B quiet.
    ``registry``, ``family``, ``trl_version`` and ``thresholds`` are
    :class:`~metrics_registry.integrations.monitor.HealthMonitor`'s.
    """

    def __init__(
        self,
        *,
        lang: str = "en",
        stop_on: StopOn | None = None,
        registry: Registry | None = None,
        family: str | None = None,
        trl_version: str | None = None,
        thresholds: Thresholds | None = None,
        report_dir: str | Path | None = None,
        wandb_alerts: bool = True,
        site_url: str = "",
        console: Console | None = None,
    ) -> None:
        if stop_on is not None and stop_on not in _STOP_ON:
            raise ValueError(f"stop_on must be one of {', '.join(_STOP_ON)} or None, not {stop_on!r}")
        if lang not in LANGUAGES:
            raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}, not {lang!r}")
        self.monitor = HealthMonitor(registry, family=family, trl_version=trl_version, thresholds=thresholds)
        self.lang, self.site_url = lang, site_url
        self.loc = Localizer(lang, site_url=site_url)
        self.stop_on: StopOn | None = stop_on
        self.report_dir = Path(report_dir) if report_dir is not None else None
        self.wandb_alerts = wandb_alerts
        self.console = console or Console()
        #: The finding that stopped the training, if one did.
        self.stopped_by: RunFinding | None = None
        #: Where the report was written, once the training ended.
        self.report_paths: tuple[Path, Path] | None = None
        self._warned = False

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.monitor.source = Path(self.report_dir or args.output_dir or ".")
        for warning in self.loc.warnings:  # a catalog that cannot be read: say so once, up front
            log.warning("%s", warning)

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        if not logs:
            return
        found = self.monitor.observe(state.global_step, logs, time.time())
        main = getattr(state, "is_world_process_zero", True)
        for finding in found:
            if main:
                self._print(finding)
                self._alert(finding)
            if self.stop_on is not None and self.stopped_by is None and at_least(finding, self.stop_on):
                self.stopped_by = finding
                control.should_training_stop = True
                if main:
                    self._print_stop(finding, state.global_step)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not getattr(state, "is_world_process_zero", True):
            return
        for finding in self.monitor.finish():  # a trend only the whole run shows
            self._print(finding)
            self._alert(finding)
        folder = self.report_dir or Path(args.output_dir or ".")
        json_path, markdown_path, warnings = self.monitor.write_report(
            folder, lang=self.lang, site_url=self.site_url
        )
        self.report_paths = (json_path, markdown_path)
        for warning in warnings:
            log.warning("%s", warning)
        _ = self.loc.gettext
        text = _("metrics-registry: health report written to %(json)s and %(markdown)s") % {
            "json": json_path,
            "markdown": markdown_path,
        }
        self.console.print(plain(text, style="dim"))

    def _print(self, finding: RunFinding) -> None:
        print_finding(finding, self.loc, self.console)

    def _print_stop(self, finding: RunFinding, step: int) -> None:
        _ = self.loc.gettext
        text = _("metrics-registry: stopping the training at step %(step)s: %(name)s broke %(rule)s") % {
            "step": self.loc.step(step),
            "name": finding.key,
            "rule": finding.rule_id or finding.kind,
        }
        self.console.print(Text.assemble(plain(text, style="bold red")))

    def _alert(self, finding: RunFinding) -> None:
        """``wandb.alert`` when a W&B run is active.

        wandb is looked up among the imported modules, never imported: a run
        is active only if the training script (or transformers' W&B
        callback) imported it already.
        """
        wandb = sys.modules.get("wandb")
        if not self.wandb_alerts or wandb is None or getattr(wandb, "run", None) is None:
            return
        loc = self.loc
        _ = loc.gettext
        label = severity_label(finding.severity, loc).upper()
        title = f"metrics-registry: {label} {finding.key} ({finding.rule_id or finding.kind})"
        lines = [describe(finding, loc)]
        entry = finding.entry
        if finding.rule is not None and entry is not None:
            lines += [f"{_('expected')}: {expected(finding.rule, loc)}", loc.suggests(entry, finding.rule)]
        if entry is not None:
            lines.append(loc.url(entry))
        try:
            wandb.alert(
                title=title, text="\n".join(lines), level="ERROR" if finding.severity == "error" else "WARN"
            )
        except Exception as error:  # an alert must never break the training (offline, rate limits...)
            if not self._warned:
                self._warned = True
                log.warning("metrics-registry: wandb.alert failed (%s); findings are still printed", error)

"""Check real training logs against the registry (``metrics-registry check-run``).

Read a log (:func:`~metrics_registry.runs.readers.read_log`), check each run
(:func:`~metrics_registry.runs.check.check_run`), render the report
(:mod:`~metrics_registry.runs.render`)::

    from metrics_registry import load
    from metrics_registry.runs import check_run, read_log

    registry = load()
    for run in read_log(Path("output/checkpoint-500/trainer_state.json")):
        report = check_run(run, registry)
        for finding in report.findings:
            print(finding.severity, finding.key, finding.rule_id, finding.step)

How each kind of healthy rule is judged over a series is documented in
:mod:`metrics_registry.runs.rules`.
"""

from __future__ import annotations

from metrics_registry.runs.check import CheckOptions, RunFinding, RunReport, check_run
from metrics_registry.runs.log import LogError, Point, ReadProblem, RunLog
from metrics_registry.runs.readers import detect_format, read_log
from metrics_registry.runs.rules import Thresholds, Violation, evaluate

__all__ = [
    "CheckOptions",
    "LogError",
    "Point",
    "ReadProblem",
    "RunFinding",
    "RunLog",
    "RunReport",
    "Thresholds",
    "Violation",
    "check_run",
    "detect_format",
    "evaluate",
    "read_log",
]

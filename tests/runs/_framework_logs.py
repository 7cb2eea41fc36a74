"""Logs written the way verl, OpenRLHF and NeMo-RL write them, for the check-run tests (not a test module).

Each writer repeats the few lines of the framework's own logger, cited as
``path:line@commit`` (read with ``git show <commit>:<path>`` in the
framework's repository), so a test reads what a real run leaves on disk,
tracker prefixes included:

=====================  ===================================================
kind                   what is written
=====================  ===================================================
``verl-jsonl``         verl's ``FileLogger``: ``{"step", "data"}`` per line
``verl-console``       verl's ``LocalLogger`` lines behind Ray's prefix,
                       among other output
``verl-tensorboard``   verl's TensorBoard adapter: keys as logged
``openrlhf-wandb``     OpenRLHF's ``WandbLogger``: ``train/`` keys and
                       ``train/global_step``, as W&B's history file
``openrlhf-tensorboard``  OpenRLHF's ``TensorboardLogger``: ``train/`` keys
``nemo-rl-tensorboard``   NeMo-RL's ``TensorboardLogger``: ``<prefix>/`` keys
``nemo-rl-wandb``      NeMo-RL's ``WandbLogger``: ``<prefix>/`` keys,
                       ``_step`` = the step
=====================  ===================================================

For end-to-end tests once a framework's family is in the registry, write a
log of its real keys and check it in one call::

    report = check_framework_log("verl-jsonl", tmp_path, {"actor/entropy": [0.5] * 20}, registry)
    assert_detected(report, "verl", "verl")

Series are keyed by the name the trainer puts in its metrics dict (before any
tracker prefix) and hold one value per step (NaN allowed).
"""

from __future__ import annotations

import json
import math
import pprint
from collections.abc import Callable
from pathlib import Path

from metrics_registry.registry import Registry
from metrics_registry.runs import CheckOptions, RunReport, check_run, read_log

__all__ = [
    "NEMO_RL_COMMIT",
    "OPENRLHF_COMMIT",
    "VERL_COMMIT",
    "WRITERS",
    "assert_detected",
    "check_framework_log",
]

VERL_COMMIT = "1dda039"
OPENRLHF_COMMIT = "3c3be623"
NEMO_RL_COMMIT = "7ea279ab"

Series = dict[str, list[float]]
T0 = 1_700_000_000.0


def _rows(series: Series) -> list[tuple[int, dict[str, float]]]:
    """``(step, metrics)`` per step, from 1, as a training loop builds its metrics dict."""
    length = max(len(values) for values in series.values())
    return [(i + 1, {k: v[i] for k, v in series.items() if i < len(v)}) for i in range(length)]


# ---------------------------------------------------------------- verl


def write_verl_jsonl(path: Path, series: Series) -> Path:
    """verl's file logger (``trainer.logger=['file']``)."""
    import numpy as np
    import orjson

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fp:
        for step, metrics in _rows(series):
            # verl's metrics are NumPy scalars (reduce_metrics: np.mean)
            data = {key: np.float64(value) for key, value in metrics.items()}
            # verl/utils/tracking.py:434-435@1dda039 (FileLogger.log); orjson writes NaN as null
            data = {"step": step, "data": data}
            fp.write(orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")
    return path


def concat_dict_to_str(dict: dict, step: int) -> str:
    """verl/utils/logger/aggregate_logger.py:26-32@1dda039, as written there."""
    import numbers

    output = [f"step:{step}"]
    for k, v in dict.items():
        if isinstance(v, numbers.Number):
            output.append(f"{k}:{pprint.pformat(v)}")
    output_str = " - ".join(output)
    return output_str


#: What else a verl console log holds: Ray's and vLLM's lines, the progress bar.
_CONSOLE_NOISE = (
    "\x1b[36m(TaskRunner pid=4242)\x1b[0m INFO 11-25 10:00:00 [llm_engine.py:431] init engine took 12.3 s",
    "Training Progress:  10%|█         | 1/10 [00:05<00:45,  5.00s/it]",
    "\x1b[36m(WorkerDict pid=4343)\x1b[0m [rank0]: kv cache usage 0.12",
)


def write_verl_console(path: Path, series: Series, *, ray_prefix: bool = True) -> Path:
    """verl's console logger output (``trainer.logger=['console']``), captured with ``tee``.

    ``LocalLogger.log`` prints ``concat_dict_to_str(data, step)``
    (verl/utils/logger/aggregate_logger.py:49-51@1dda039); the trainer runs in
    Ray's ``TaskRunner`` actor, whose output Ray prefixes in colour.
    """
    import numpy as np

    lines = []
    for step, metrics in _rows(series):
        lines.append(_CONSOLE_NOISE[step % len(_CONSOLE_NOISE)])
        data = {key: np.float64(value) for key, value in metrics.items()}
        line = concat_dict_to_str(data, step=step)
        lines.append(("\x1b[36m(TaskRunner pid=4242)\x1b[0m " if ray_prefix else "") + line)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _summary_writer(folder: Path):
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(log_dir=str(folder))


def write_verl_tensorboard(folder: Path, series: Series) -> Path:
    """verl's TensorBoard adapter: verl/utils/tracking.py:452-454@1dda039 (keys as logged)."""
    writer = _summary_writer(folder)
    for step, data in _rows(series):
        for key in data:
            writer.add_scalar(key, data[key], step)
    writer.close()
    return folder


# ---------------------------------------------------------------- OpenRLHF


def _wandb_history(path: Path, rows: list[dict[str, object]], steps: list[int] | None = None) -> Path:
    """W&B's history file (``files/wandb-history.jsonl``): each ``log`` call plus W&B's own keys."""
    lines = []
    for counter, row in enumerate(rows):
        step = steps[counter] if steps is not None else counter
        lines.append({**row, "_step": step, "_runtime": 5.0 * counter, "_timestamp": T0 + 5.0 * counter})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def write_openrlhf_wandb(path: Path, series: Series) -> Path:
    """OpenRLHF's ``WandbLogger.log_train`` (openrlhf/utils/logging_utils.py:97-99@3c3be623)."""
    rows = []
    for global_step, logs_dict in _rows(series):
        metrics = {k: v for k, v in logs_dict.items() if v is not None}
        logs = {"train/%s" % k: v for k, v in {**metrics, "global_step": global_step}.items()}  # noqa: UP031
        rows.append(logs)
    return _wandb_history(path, rows)


def write_openrlhf_tensorboard(folder: Path, series: Series) -> Path:
    """OpenRLHF's ``TensorboardLogger.log_train`` (openrlhf/utils/logging_utils.py:122-130@3c3be623)."""
    writer = _summary_writer(folder)
    for global_step, logs_dict in _rows(series):
        for k, v in logs_dict.items():
            if v is not None:
                writer.add_scalar(f"train/{k}", v, global_step)
    writer.close()
    return folder


# ---------------------------------------------------------------- NeMo-RL


def write_nemo_rl_tensorboard(folder: Path, series: Series, *, prefix: str = "train") -> Path:
    """NeMo-RL's ``TensorboardLogger.log_metrics`` (nemo_rl/utils/logger.py:174-187@7ea279ab)."""
    writer = _summary_writer(folder)
    for step, metrics in _rows(series):
        for name, value in metrics.items():
            if prefix:
                name = f"{prefix}/{name}"  # noqa: PLW2901 (as NeMo-RL writes it)
            writer.add_scalar(name, value, step)
    writer.close()
    return folder


def write_nemo_rl_wandb(path: Path, series: Series, *, prefix: str = "train") -> Path:
    """NeMo-RL's ``WandbLogger.log_metrics`` (nemo_rl/utils/logger.py:375-390@7ea279ab)."""
    rows, steps = [], []
    for step, metrics in _rows(series):
        if prefix:
            metrics = {f"{prefix}/{k}": v for k, v in metrics.items()}  # noqa: PLW2901
        rows.append(metrics)
        steps.append(step)
    return _wandb_history(path, rows, steps)


Writer = Callable[[Path, Series], Path]

#: kind -> (writer, file or folder name to write under the test's folder)
WRITERS: dict[str, tuple[Writer, str]] = {
    "verl-jsonl": (write_verl_jsonl, "verl_project/experiment.jsonl"),
    "verl-console": (write_verl_console, "train.log"),
    "verl-tensorboard": (write_verl_tensorboard, "tensorboard_log/verl_project/experiment"),
    "openrlhf-wandb": (write_openrlhf_wandb, "wandb/run-1/files/wandb-history.jsonl"),
    "openrlhf-tensorboard": (write_openrlhf_tensorboard, "logs/run_name"),
    "nemo-rl-tensorboard": (write_nemo_rl_tensorboard, "logs/exp_001/tensorboard"),
    "nemo-rl-wandb": (write_nemo_rl_wandb, "logs/exp_001/wandb/files/wandb-history.jsonl"),
}


def check_framework_log(
    kind: str, folder: Path, series: Series, registry: Registry, **options: object
) -> RunReport:
    """Write ``series`` as ``kind`` (see :data:`WRITERS`) under ``folder``, read it back and check it.

    ``options`` are :class:`CheckOptions` fields (``framework="verl"``, ``version="0.5.0"``...).
    """
    writer, name = WRITERS[kind]
    written = writer(folder / name, series)
    (run,) = read_log(written)
    return check_run(run, registry, CheckOptions(**options))  # type: ignore[arg-type]


def assert_detected(
    report: RunReport, framework: str, family: str | None = None, how: tuple[str, ...] = ("detected",)
) -> None:
    """The report names ``framework`` (and ``family``), told ``how``, and the evidence is one of its keys."""
    detection = report.detection
    assert detection is not None
    assert (detection.how, detection.framework) in {(h, framework) for h in how}, detection
    if family is not None:
        assert detection.family == family, detection
    evidence = detection.evidence
    assert evidence is None or evidence in report.keys, evidence


def nan_at(values: list[float], index: int) -> list[float]:
    """``values`` with a NaN at ``index`` (a diverged step)."""
    return [math.nan if i == index else v for i, v in enumerate(values)]

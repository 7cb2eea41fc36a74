"""TensorBoard event files, read with TensorBoard's own ``EventAccumulator``.

TensorBoard is an optional dependency (the ``runs`` extra). Every folder
that holds ``events.out.tfevents.*`` files is one run. Scalars come from
``SummaryWriter.add_scalar`` (simple values) and from TF2's
``tf.summary.scalar`` (tensors of the ``scalars`` plugin); histogram tags
are listed as non-scalar keys. transformers' ``TensorBoardCallback`` writes
every key through ``rewrite_logs`` (``loss`` -> ``train/loss``,
``eval_loss`` -> ``eval/loss``) at ``state.global_step``.

Every event file is walked record by record first
(:mod:`~metrics_registry.runs.readers.event_records`), because the
accumulator passes over damage in silence: a file whose first record does
not pass is not an event file (:class:`LogError`); a file damaged further
on is read up to the damage and its run gets a ``stopped``
:class:`ReadProblem` (byte, record, reason); empty files hold nothing.
"""

from __future__ import annotations

from pathlib import Path

from metrics_registry.runs.log import LogError, ReadProblem, RunLog
from metrics_registry.runs.readers.event_records import scan_event_file

__all__ = ["EVENT_FILE_PREFIX", "INSTALL_HINT", "event_folders", "read_tensorboard"]

EVENT_FILE_PREFIX = "events.out.tfevents"
INSTALL_HINT = "pip install 'metrics-registry[runs]' (or pip install tensorboard)"


def event_folders(path: Path) -> list[Path]:
    """The folders at or below ``path`` that hold event files (``path`` itself for a file)."""
    if path.is_file():
        return [path]
    return sorted({p.parent for p in path.rglob(f"{EVENT_FILE_PREFIX}*") if p.is_file()})


def _event_files(folder: Path) -> list[Path]:
    """The event files the accumulator reads for ``folder`` (``folder`` itself for a file)."""
    from tensorboard.backend.event_processing.io_wrapper import IsTensorFlowEventsFile

    if folder.is_file():
        return [folder]
    files = sorted(p for p in folder.iterdir() if IsTensorFlowEventsFile(str(p)) and not p.is_dir())
    for file in files:
        if not file.is_file():  # the accumulator would open it and wait for a writer forever
            raise LogError(
                f"{file}: not a regular file (a device, a pipe or a socket); remove it from the logging_dir"
            )
    return files


def _check_records(folder: Path) -> list[ReadProblem]:
    """Where each event file of ``folder`` stops early; a :class:`LogError` when none can be read."""
    problems = []
    records = 0
    for file in _event_files(folder):
        scan = scan_event_file(file)
        records += scan.records
        if scan.complete:
            continue
        if scan.records == 0:
            raise LogError(
                f"{file}: not a TensorBoard event file (record 1 at byte 0: {scan.reason});"
                " pass the event files a SummaryWriter wrote, or remove this one"
            )
        problems.append(
            ReadProblem(
                "stopped",
                file,
                scan.reason or "",
                scan.good_bytes,
                record=scan.records + 1,
                read=scan.records,
            )
        )
    if records == 0:
        raise LogError(
            f"{folder}: holds no records (the event files are empty); pass the logging_dir of a run"
        )
    return problems


def read_tensorboard(path: Path) -> list[RunLog]:
    try:
        from tensorboard.backend.event_processing import event_accumulator
        from tensorboard.util import tensor_util
    except ImportError as error:
        raise LogError(f"{path}: reading TensorBoard logs needs TensorBoard: {INSTALL_HINT}") from error
    folders = event_folders(path)
    if not folders:
        raise LogError(
            f"{path}: no TensorBoard event files ({EVENT_FILE_PREFIX}.*) in this folder or below;"
            " pass the logging_dir of the run"
        )
    runs = []
    for folder in folders:
        problems = _check_records(folder)
        accumulator = event_accumulator.EventAccumulator(
            str(folder),
            size_guidance={
                event_accumulator.SCALARS: 0,  # 0: keep every point
                event_accumulator.TENSORS: 0,
                event_accumulator.HISTOGRAMS: 1,
            },
        )
        try:
            accumulator.Reload()
        except Exception as error:  # TensorBoard raises its own (and protobuf's) errors on damaged files
            raise LogError(f"{folder}: cannot read the event files ({error}); are they complete?") from error
        name = None
        if path.is_dir() and folder != path:
            name = folder.relative_to(path).as_posix()
        run = RunLog(source=path, format="tensorboard", run=name, problems=problems)
        tags = accumulator.Tags()
        for tag in tags.get("scalars", []):
            for event in accumulator.Scalars(tag):
                run.add(tag, event.step, float(event.value), event.wall_time)
        for tag in tags.get("tensors", []):
            plugin = accumulator.SummaryMetadata(tag).plugin_data.plugin_name
            if plugin != "scalars":
                if plugin in ("histograms", "distributions"):
                    run.non_scalar.add(tag)
                continue
            for event in accumulator.Tensors(tag):
                array = tensor_util.make_ndarray(event.tensor_proto)
                if array.size == 1:
                    run.add(tag, event.step, float(array.reshape(-1)[0]), event.wall_time)
        run.non_scalar.update(tags.get("histograms", []))
        runs.append(run)
    return runs

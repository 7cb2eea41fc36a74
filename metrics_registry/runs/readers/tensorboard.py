"""TensorBoard event files, read with TensorBoard's own ``EventAccumulator``.

TensorBoard is an optional dependency (the ``runs`` extra). Every folder
that holds ``events.out.tfevents.*`` files is one run. Scalars come from
``SummaryWriter.add_scalar`` (simple values) and from TF2's
``tf.summary.scalar`` (tensors of the ``scalars`` plugin); histogram tags
are listed as non-scalar keys. transformers' ``TensorBoardCallback`` writes
every key through ``rewrite_logs`` (``loss`` -> ``train/loss``,
``eval_loss`` -> ``eval/loss``) at ``state.global_step``.
"""

from __future__ import annotations

from pathlib import Path

from metrics_registry.runs.log import LogError, RunLog

__all__ = ["EVENT_FILE_PREFIX", "INSTALL_HINT", "event_folders", "read_tensorboard"]

EVENT_FILE_PREFIX = "events.out.tfevents"
INSTALL_HINT = "pip install 'metrics-registry[runs]' (or pip install tensorboard)"


def event_folders(path: Path) -> list[Path]:
    """The folders at or below ``path`` that hold event files (``path`` itself for a file)."""
    if path.is_file():
        return [path]
    return sorted({p.parent for p in path.rglob(f"{EVENT_FILE_PREFIX}*") if p.is_file()})


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
        run = RunLog(source=path, format="tensorboard", run=name)
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

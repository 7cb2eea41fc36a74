"""Follow a TensorBoard folder while ``SummaryWriter`` appends to its event files.

``check-run`` reads event files with TensorBoard's ``EventAccumulator``,
which reads everything again on every ``Reload``. Following needs the
records added since the last look, so each file keeps its own record
reader (TensorBoard's pure-Python ``PyRecordReader``, the one
:mod:`~metrics_registry.runs.readers.event_records` walks files with),
which resumes where it stopped: a record cut by a write in progress
("truncated record") is read again at the next look; a record that fails
its CRC is damage, and that file is read no further (a
``stopped`` problem, as ``check-run`` reports it). Scalars are taken as the
accumulator takes them: ``simple_value`` (``add_scalar``), or one-element
tensors of the ``scalars`` plugin (TF2 ``tf.summary.scalar``; the plugin is
named in the first value of each tag only); histograms are non-scalar keys.

Every folder holding event files is a run, named by its path below the
watched folder, as ``check-run`` names them; new files and folders are
picked up as they appear. The log has ended when every run in it has
logged transformers' end-of-training summary (``train/train_runtime``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from metrics_registry.integrations.follow import END_KEYS, Follower, Record
from metrics_registry.runs.log import LogError, ReadProblem
from metrics_registry.runs.readers.event_records import FRAMING, loss_reason
from metrics_registry.runs.readers.tensorboard import EVENT_FILE_PREFIX, INSTALL_HINT

__all__ = ["TensorBoardFollower"]

#: Keys transformers' TensorBoard callback always writes.
_HF_MARKERS = frozenset({"train/epoch", "train/global_step"})


class _EventFile:
    """One event file, read a record at a time from where the last look stopped."""

    def __init__(self, path: Path, run: str | None) -> None:
        from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import PyRecordReader_New

        self.path, self.run = path, run
        self.reader: Any = PyRecordReader_New(str(path))
        self.records = 0
        self.offset = 0  # where the next record starts
        self.cut: str | None = None  # a record still being written
        self.damage: str | None = None  # a record that will never read: this file is read no further
        self.plugins: dict[str, str] = {}  # tag -> plugin, from the first value of each tag

    def read(self) -> list[Any]:
        """The events added since the last call."""
        from tensorboard.compat.proto import event_pb2
        from tensorboard.compat.tensorflow_stub import errors

        events = []
        while self.damage is None:
            try:
                self.reader.GetNext()
            except errors.OutOfRangeError:  # between two records: nothing more yet
                self.cut = None
                break
            except errors.DataLossError as error:
                reason = loss_reason(str(error.message), self.path)
                if "truncated record" in reason:
                    self.cut = reason  # read again from the same record next time
                else:
                    self.damage = reason
                break
            except (MemoryError, OverflowError):
                self.damage = "a record length larger than the file"
                break
            data = self.reader.record()
            try:
                event = event_pb2.Event.FromString(data)
            except Exception:  # protobuf's DecodeError: the CRCs passed, the data is no event
                self.damage = "a record that is not a TensorBoard event"
                break
            self.records += 1
            self.offset += FRAMING + len(data)
            events.append(event)
        if self.damage is not None and self.records == 0:
            raise LogError(
                f"{self.path}: not a TensorBoard event file (record 1 at byte 0: {self.damage});"
                " pass the event files a SummaryWriter wrote, or remove this one"
            )
        return events

    def values(self, event: Any) -> dict[str, float | None]:
        from tensorboard.util import tensor_util

        values: dict[str, float | None] = {}
        for value in event.summary.value:
            if value.HasField("metadata") and value.metadata.plugin_data.plugin_name:
                self.plugins.setdefault(value.tag, value.metadata.plugin_data.plugin_name)
            kind = value.WhichOneof("value")
            if kind == "simple_value":
                values[value.tag] = float(value.simple_value)
            elif kind == "histo":
                values[value.tag] = None
            elif kind == "tensor":
                plugin = self.plugins.get(value.tag)
                if plugin in ("histograms", "distributions"):
                    values[value.tag] = None
                elif plugin == "scalars":
                    array = tensor_util.make_ndarray(value.tensor)
                    if array.size == 1:
                        values[value.tag] = float(array.reshape(-1)[0])
        return values

    def close(self) -> None:
        self.reader.file_handle.close()


class TensorBoardFollower(Follower):
    """A folder of event files (or one file) that ``SummaryWriter`` appends to."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "tensorboard")
        try:
            import tensorboard  # noqa: F401
        except ImportError as error:
            raise LogError(f"{path}: reading TensorBoard logs needs TensorBoard: {INSTALL_HINT}") from error
        self._files: dict[Path, _EventFile] = {}
        self._hf: set[str | None] = set()  # runs whose keys transformers rewrote
        self._ended: set[str | None] = set()

    def _discover(self) -> None:
        found = [self.path] if self.path.is_file() else sorted(self.path.rglob(f"{EVENT_FILE_PREFIX}*"))
        for file in found:
            if file in self._files or file.is_dir():
                continue
            if not file.is_file():  # a FIFO would make the reader wait for a writer forever
                raise LogError(
                    f"{file}: not a regular file (a device, a pipe or a socket);"
                    " remove it from the logging_dir"
                )
            folder = file.parent
            run = (
                None
                if self.path.is_file() or folder == self.path
                else folder.relative_to(self.path).as_posix()
            )
            self._files[file] = _EventFile(file, run)

    def poll(self) -> list[Record]:
        self._discover()
        records = []
        for file in self._files.values():
            for event in file.read():
                values = file.values(event)
                if not values:
                    continue
                if _HF_MARKERS.intersection(values):
                    self._hf.add(file.run)
                records.append(Record(event.step, values, event.wall_time, file.run, file.run in self._hf))
        self.records_read += len(records)
        waiting = [f"{file.path}: {file.cut}" for file in self._files.values() if file.cut]
        self.waiting = waiting[0] if waiting else None
        self._ended.update(record.run for record in records if END_KEYS.intersection(record.values))
        runs = {file.run for file in self._files.values()}
        self.ended = bool(runs) and runs <= self._ended
        return records

    def finish(self) -> list[Record]:
        records = self.poll()
        for file in self._files.values():
            reason = file.damage or file.cut
            if reason is not None:
                problem = ReadProblem(
                    "stopped", file.path, reason, file.offset, record=file.records + 1, read=file.records
                )
                self.problems.append((file.run, problem))
            file.close()
        if not any(file.records for file in self._files.values()):
            raise LogError(f"{self.path}: holds no records (no event was written while it was watched)")
        return records

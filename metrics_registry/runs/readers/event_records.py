"""How far a TensorBoard event file is readable, record by record.

An event file is a TFRecord file: each record is its length (8 bytes), a
masked CRC-32C of the length (4), the data (a serialized ``Event``) and a
masked CRC-32C of the data (4). TensorBoard's ``EventAccumulator`` stops
at the first record that is cut or fails its CRC, and says so only in a
debug log line: a damaged file reads as a shorter healthy one, and random
bytes read as an empty run. So every file is first walked with
TensorBoard's own record reader (the pure-Python one TensorBoard uses
without TensorFlow, which checks both CRCs and raises ``DataLossError``),
counting records and bytes, to know where it stopped and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["FRAMING", "RecordScan", "loss_reason", "scan_event_file"]

#: Length, its CRC, and the data's CRC around each record's data.
FRAMING = 8 + 4 + 4


@dataclass(frozen=True)
class RecordScan:
    """What walking one event file found."""

    path: Path
    records: int  # good records, from the start
    good_bytes: int  # where the first bad record starts (the file size when all are good)
    reason: str | None = None  # why the walk stopped early; None when it reached the end

    @property
    def complete(self) -> bool:
        return self.reason is None


def loss_reason(message: str, path: Path) -> str:
    """TensorBoard's message without the file name it starts with."""
    text = message.replace(str(path), "").strip()
    return text.removeprefix("has ").strip() or "damaged record"


def scan_event_file(path: Path) -> RecordScan:
    """Walk ``path`` record by record; stop at the first record that does not pass."""
    from tensorboard.compat.tensorflow_stub import errors
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import PyRecordReader_New

    reader = PyRecordReader_New(str(path))
    records = offset = 0
    try:
        while True:
            try:
                reader.GetNext()
            except errors.OutOfRangeError:  # the end of the file, between two records
                return RecordScan(path, records, offset)
            except errors.DataLossError as error:
                return RecordScan(path, records, offset, loss_reason(str(error.message), path))
            except (MemoryError, OverflowError):  # a damaged length asks for more than memory holds
                return RecordScan(path, records, offset, "a record length larger than the file")
            records += 1
            offset += FRAMING + len(reader.record())
    finally:
        reader.file_handle.close()

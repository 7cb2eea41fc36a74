"""Damaged TensorBoard event files: never read as a shorter healthy run, never as an empty one.

The files are written by the real ``SummaryWriter``, then damaged the way a
crash or a bad disk does it: cut in the middle of a record, one byte of a
record flipped, random bytes, nothing at all.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import _runlogs as logs
import pytest

from metrics_registry.runs import LogError, read_log
from metrics_registry.runs.readers.event_records import scan_event_file

#: length (8), masked CRC of the length (4), data, masked CRC of the data (4)
FRAMING = 16


def event_file(folder: Path) -> Path:
    logs.write_tensorboard(folder, {"kl": [0.02] * len(logs.STEPS), "loss": [0.5] * len(logs.STEPS)})
    (path,) = folder.glob("events.out.tfevents.*")
    return path


def record_starts(data: bytes) -> list[int]:
    """Where each record starts, from the lengths in the framing."""
    starts, offset = [], 0
    while offset < len(data):
        starts.append(offset)
        (length,) = struct.unpack_from("<Q", data, offset)
        offset += FRAMING + length
    assert offset == len(data)
    return starts


def test_a_whole_file_is_complete(tmp_path: Path) -> None:
    path = event_file(tmp_path / "run")
    scan = scan_event_file(path)
    assert scan.complete and scan.reason is None
    assert scan.records == len(record_starts(path.read_bytes()))
    assert scan.good_bytes == path.stat().st_size


def test_a_cut_file_stops_at_the_cut_record(tmp_path: Path) -> None:
    path = event_file(tmp_path / "run")
    data = path.read_bytes()
    starts = record_starts(data)
    path.write_bytes(data[: starts[40] + 20])  # killed while writing record 41
    scan = scan_event_file(path)
    assert (scan.records, scan.good_bytes) == (40, starts[40])
    assert scan.reason is not None and "truncated" in scan.reason
    (run,) = read_log(path.parent)
    (problem,) = run.problems
    assert (problem.kind, problem.byte, problem.record, problem.read) == ("stopped", starts[40], 41, 40)
    assert problem.file == path
    # the records before the cut are read, none after
    assert max(p.step for p in run.series["train/kl"]) < max(logs.STEPS)


def test_a_flipped_byte_fails_the_crc_and_stops_there(tmp_path: Path) -> None:
    path = event_file(tmp_path / "run")
    data = bytearray(path.read_bytes())
    starts = record_starts(bytes(data))
    data[starts[30] + 12 + 3] ^= 0xFF  # in the data of record 31
    path.write_bytes(bytes(data))
    scan = scan_event_file(path)
    assert (scan.records, scan.good_bytes) == (30, starts[30])
    assert scan.reason is not None and "crc" in scan.reason
    assert str(path) not in scan.reason  # the file is named once, by the finding
    (run,) = read_log(path)
    assert [(p.kind, p.record) for p in run.problems] == [("stopped", 31)]


def test_a_length_asking_for_more_than_memory_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    """A damaged length whose own CRC still passes (2**62 bytes) must not be allocated."""
    path = event_file(tmp_path / "run")
    data = path.read_bytes()
    starts = record_starts(data)
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c

    huge = struct.pack("<Q", 2**62)
    header = huge + struct.pack("<I", masked_crc32c(huge))
    path.write_bytes(data[: starts[5]] + header + b"\0" * 64)
    scan = scan_event_file(path)
    assert (scan.records, scan.good_bytes) == (5, starts[5])
    assert scan.reason == "a record length larger than the file"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (random.Random(14).randbytes(3000), r"not a TensorBoard event file \(record 1 at byte 0: "),
        (b"", r"holds no records \(the event files are empty\)"),
    ],
    ids=["random-bytes", "empty"],
)
def test_a_folder_with_nothing_readable_is_an_error(tmp_path: Path, content: bytes, message: str) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "events.out.tfevents.1700000000.host").write_bytes(content)
    with pytest.raises(LogError, match=message):
        read_log(folder)


def test_a_pipe_among_the_event_files_is_refused_not_waited_on(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    event_file(folder)
    os.mkfifo(folder / "events.out.tfevents.1700000001.host")
    with pytest.raises(LogError, match=r"events\.out\.tfevents\.1700000001\.host: not a regular file"):
        read_log(folder)

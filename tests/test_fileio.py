"""Atomic writes keep the old content recoverable, write through links, and refuse devices."""

from __future__ import annotations

import ast
import logging
import os
import stat
import sys
from pathlib import Path

import pytest

from metrics_registry import fileio
from metrics_registry.fileio import WriteError, WriteRefused, atomic_write, atomic_write_text


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _fail_fsync_call(monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """Make the ``number``-th ``os.fsync`` of a file (1-based) fail as a full disk does."""
    real = os.fsync
    calls = []

    def fsync(fd: int) -> None:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            calls.append(fd)
            if len(calls) == number:
                raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr(fileio.os, "fsync", fsync)


def test_write_and_backup(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    assert atomic_write_text(path, "one\n") is None
    backup = atomic_write_text(path, "two\n")
    assert path.read_text() == "two\n"
    assert backup == tmp_path / "a.yaml.bak" and backup.read_text() == "one\n"


def test_an_earlier_backup_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("one\n")
    (tmp_path / "a.yaml.bak").write_text("older\n")
    assert atomic_write(path, "two\n", backup=True) == tmp_path / "a.yaml.bak.1"
    assert atomic_write(path, "three\n", backup=True) == tmp_path / "a.yaml.bak.2"
    assert (tmp_path / "a.yaml.bak").read_text() == "older\n"
    assert (tmp_path / "a.yaml.bak.1").read_text() == "one\n"
    assert (tmp_path / "a.yaml.bak.2").read_text() == "two\n"
    assert _names(tmp_path) == ["a.yaml", "a.yaml.bak", "a.yaml.bak.1", "a.yaml.bak.2"]


def test_bytes_and_text_are_written_as_given(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    atomic_write(path, "é\r\n")
    assert path.read_bytes() == "é\r\n".encode()
    atomic_write(path, b"\x00\xff")
    assert path.read_bytes() == b"\x00\xff"


def test_failure_leaves_the_original_and_names_the_given_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("original\n")
    _fail_fsync_call(monkeypatch, 1)
    with pytest.raises(WriteError, match="No space left on device") as caught:
        atomic_write_text(path, "new\n", backup=False)
    assert caught.value.filename == str(path)
    assert ".tmp" not in str(caught.value)
    assert path.read_text() == "original\n"
    assert _names(tmp_path) == ["a.yaml"]  # no temp file left


def test_mode_is_kept_and_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("one\n")
    path.chmod(0o640)
    atomic_write(path, "two\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    umask = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.yaml", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.yaml").stat().st_mode) == 0o644


def test_a_symlink_is_written_through_and_kept(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "notes.md"
    target.write_text("old\n")
    link = tmp_path / "notes.md"
    link.symlink_to(Path("real") / "notes.md")
    backup = atomic_write(link, "new\n", backup=True)
    assert link.is_symlink() and link.readlink() == Path("real") / "notes.md"
    assert target.read_text() == "new\n"
    assert backup == tmp_path / "notes.md.bak" and backup.read_text() == "old\n"
    assert _names(tmp_path / "real") == ["notes.md"]  # the temporary file was in the target's folder


def test_a_dangling_symlink_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "elsewhere" / "x.json")
    with pytest.raises(WriteRefused, match="symbolic link") as caught:
        atomic_write(link, "{}")
    assert caught.value.exit_code == 2 and caught.value.filename == str(link)
    assert _names(tmp_path) == ["out.json"] and link.is_symlink()


def test_a_fifo_is_refused_and_left_alone(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(WriteRefused, match=r"FIFO .*not a regular file"):
        atomic_write(fifo, "data", backup=True)  # would hang if it opened the FIFO
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert _names(tmp_path) == ["pipe"]


def test_a_device_is_refused(tmp_path: Path) -> None:
    before = Path("/dev/null").stat()
    with pytest.raises(WriteRefused, match="/dev/null: is a character device"):
        atomic_write("/dev/null", "data")
    link = tmp_path / "null"
    link.symlink_to("/dev/null")  # a link to a device is refused too, naming both
    with pytest.raises(WriteRefused, match=r"null: is a character device \(/dev/null\)"):
        atomic_write(link, "data")
    after = Path("/dev/null").stat()
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WriteRefused, match="is a directory"):
        atomic_write(tmp_path, "data")
    assert _names(tmp_path) == []


def test_a_missing_folder_names_the_folder_given(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "dir" / "x.json"
    with pytest.raises(WriteRefused) as caught:
        atomic_write(path, "{}")
    assert str(caught.value) == f"{path}: folder {path.parent} does not exist; create it first"
    assert _names(tmp_path) == []


def test_a_hard_linked_file_is_rewritten_in_place(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    other = tmp_path / "b.md"
    os.link(path, other)
    inode = path.stat().st_ino
    backup = atomic_write(path, "new and longer\n", backup=True)
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert other.read_text() == "new and longer\n"
    assert backup is not None and backup.read_text() == "old\n"
    atomic_write(path, "x")  # shorter: the rest is cut
    assert other.read_text() == "x"
    assert _names(tmp_path) == ["a.md", "a.md.bak", "b.md"]


def test_a_failed_in_place_write_puts_the_old_content_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.md"
    path.write_text("old\n")
    os.link(path, tmp_path / "b.md")
    _fail_fsync_call(monkeypatch, 2)  # the first fsync is the safety copy's, the second the file's
    with pytest.raises(WriteError, match=r"a\.md: cannot write: No space left on device"):
        atomic_write(path, "new\n")
    assert (tmp_path / "b.md").read_text() == "old\n"
    assert _names(tmp_path) == ["a.md", "b.md"]


def test_stale_temporaries_are_reported_not_deleted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("one\n")
    stale = tmp_path / ".a.yaml.k3j9x0_q.tmp"  # as a killed write leaves it
    stale.write_text("half")
    unrelated = tmp_path / ".b.yaml.k3j9x0_q.tmp"
    unrelated.write_text("other")
    with caplog.at_level(logging.WARNING, logger="metrics_registry.fileio"):
        atomic_write(path, "two\n")
    assert fileio.stale_temporaries(path) == [stale]
    assert [record.getMessage() for record in caplog.records] == [
        f"{path}: 1 temporary file(s) left by an interrupted write (they may hold an older or newer"
        f" version; check, then delete them): {stale}"
    ]
    assert stale.read_text() == "half" and unrelated.exists()


def test_fileio_imports_only_the_standard_library() -> None:
    """The encoding subpackage may import fileio because fileio pulls in nothing of the package."""
    tree = ast.parse(Path(fileio.__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.partition(".")[0]
            assert top == "__future__" or top in sys.stdlib_module_names, f"fileio imports {name}"

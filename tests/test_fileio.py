"""Atomic writes keep the old content recoverable and never leave half a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry import fileio
from metrics_registry.fileio import atomic_write_text


def test_write_and_backup(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    assert atomic_write_text(path, "one\n") is None
    backup = atomic_write_text(path, "two\n")
    assert path.read_text() == "two\n"
    assert backup is not None and backup.read_text() == "one\n"


def test_failure_leaves_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("original\n")

    def explode(_fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(fileio.os, "fsync", explode)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(path, "new\n", backup=False)
    assert path.read_text() == "original\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]  # no temp file left

"""Atomic writes that keep what they replace.

A tool that rewrites a contributor's file must never leave it half written
(a crash, a full disk) and must let them get the old version back.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["atomic_write_text"]


def atomic_write_text(path: Path, text: str, *, backup: bool = True) -> Path | None:
    """Write ``text`` to ``path`` atomically; return the backup path, if any.

    The new content goes to a temporary file in the same directory, is
    flushed to disk, and then replaces ``path`` in one ``os.replace``. With
    ``backup`` the previous content is first copied to ``<path>.bak``.
    """
    path = Path(path)
    backup_path: Path | None = None
    if backup and path.exists():
        backup_path = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup_path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            shutil.copymode(path, tmp_name)
        else:  # mkstemp makes the file private; a new file gets the usual permissions instead
            umask = os.umask(0)
            os.umask(umask)
            Path(tmp_name).chmod(0o666 & ~umask)
        Path(tmp_name).replace(path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return backup_path

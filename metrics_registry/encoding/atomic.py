"""Replacing a file without ever leaving it half written, and keeping the old bytes.

(The rest of the package has its own helper; this subpackage stays standalone.)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["replace_file"]


def _backup_path(path: Path) -> Path:
    """``<name>.bak``, or ``<name>.bak.1``, ``.bak.2``... so that no earlier backup is overwritten."""
    candidate = path.with_name(path.name + ".bak")
    number = 0
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.bak.{number}")
    return candidate


def _write_temp(directory: Path, name: str, data: bytes) -> Path:
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return Path(temp)


def replace_file(path: Path, data: bytes, *, backup: bool = True) -> Path | None:
    """Write ``data`` to ``path`` in one ``os.replace``; first copy the old bytes aside unless told not to.

    Both the backup and the new content are written to temporary files in
    the same folder and renamed into place, so a crash leaves either the old
    file or the new one, and never overwrites an earlier backup.
    """
    path = Path(path)
    backup_path = None
    if backup:
        backup_path = _backup_path(path)
        temp = _write_temp(path.parent, path.name, path.read_bytes())
        shutil.copystat(path, temp)
        temp.replace(backup_path)
    temp = _write_temp(path.parent, path.name, data)
    try:
        shutil.copymode(path, temp)
        temp.replace(path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return backup_path

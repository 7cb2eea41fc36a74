"""The files ``fix-encoding`` reads when it is given a folder, as ruff and black walk theirs.

Text files by name (:data:`TEXT_SUFFIXES`), in sorted order, skipping the
folders no one wants rewritten or checked (:data:`SKIPPED_FOLDERS`).
Symbolic links are not followed, neither to folders (a loop, or a walk out
of the tree) nor to files (``--in-place`` would write outside the folder);
a link named on the command line is still read, as before. Anything but a
regular file (a FIFO, a device) is left out too: reading one could hang.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = ["SKIPPED_FOLDERS", "TEXT_SUFFIXES", "WalkError", "is_folder", "text_files"]

#: Pages, catalogs, registry files, plain text. JSON is left out: its text is
#: often escaped (``\\u00c3``), where mojibake does not show, and what a
#: project keeps in JSON is mostly generated (lock files, data).
TEXT_SUFFIXES = frozenset({".md", ".po", ".pot", ".yaml", ".yml", ".txt"})
#: Version control, dependencies, virtual environments, built sites.
SKIPPED_FOLDERS = frozenset({".git", "node_modules", ".venv", "site"})


class WalkError(OSError):
    """A folder could not be listed."""


def _raise(error: OSError) -> None:
    raise WalkError(error.errno, error.strerror, error.filename)


def text_files(folder: str) -> Iterator[str]:
    """The text files under ``folder`` (paths joined to it), sorted, folder by folder."""
    for top, folders, files in os.walk(folder, onerror=_raise, followlinks=False):
        folders[:] = sorted(name for name in folders if name not in SKIPPED_FOLDERS)
        for name in sorted(files):
            path = Path(top, name)
            if path.suffix.lower() not in TEXT_SUFFIXES:
                continue
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue  # gone since the folder was listed
            if stat.S_ISREG(mode):
                yield str(path)


def is_folder(path: str) -> bool:
    """``path`` names a folder (through a symlink too, as on the command line)."""
    return path != "-" and Path(path).is_dir()

"""The package's one way to write a file: atomically, through links, keeping what it replaces.

A tool that rewrites a contributor's file must never leave it half written
(a crash, a full disk, ``kill -9``), must not turn their symlink into a
copy or write over a device, and must let them get the old version back.
Every command that writes a file the user named (``export -o``,
``fix-encoding --in-place``, ``new``, the ``i18n`` commands, ``check-run -o``)
goes through :func:`atomic_write`.

This module imports only the standard library, so that the standalone
``metrics_registry.encoding`` subpackage can use it too (the one import it
is allowed from the rest of the package; tests/encoding checks that).

Decisions, and why:

* **Symlinks** are written through: the link's target gets the new content
  and the link stays a link. A dangling link is refused (as ``cp`` does):
  creating a file wherever a planted link points is not what the user asked.
* **Anything but a regular file** (a directory, FIFO, device, socket) is
  refused before anything is written: ``-o /dev/full`` run as root used to
  replace the device node.
* **Hard links** (``st_nlink > 1``): replacing by rename would give this name
  a new inode and silently leave the other names with the old content. Like
  vim (``backupcopy=auto``) and Emacs (``backup-by-copying-when-linked``),
  the file is then rewritten in place, after its old content has been
  copied to a temporary file next to it; a crash mid-write leaves that copy,
  which the next write reports, so nothing is lost either way.
* **Backups** are ``<name>.bak``, then ``.bak.1``, ``.bak.2``...: an earlier
  backup is never overwritten. They go next to the path the user gave.
* **Stale temporaries** (``.NAME.XXXXXXXX.tmp`` left by a killed write) are
  reported as a warning naming them, never deleted: a name pattern does not
  prove a file is ours, and the copy made for a hard-linked file may be the
  only copy of the old content.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import stat
from pathlib import Path

__all__ = [
    "WriteError",
    "WriteRefused",
    "atomic_write",
    "atomic_write_text",
    "stale_temporaries",
]

log = logging.getLogger(__name__)

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


class WriteError(OSError):
    """Writing failed; the message names the path the caller gave, never a temporary file."""

    exit_code = 1

    def __init__(self, path: str | os.PathLike[str], reason: str, code: int = 0) -> None:
        super().__init__(code, reason, os.fspath(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class WriteRefused(WriteError):
    """The path is not something this tool writes to (nothing was touched): a usage error."""

    exit_code = 2


def _kind(mode: int) -> str:
    kinds = {
        stat.S_ISDIR: "a directory",
        stat.S_ISFIFO: "a FIFO (named pipe)",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), "not a regular file")


def _target(given: Path) -> tuple[Path, os.stat_result | None]:
    """The real file to write for ``given`` (links resolved) and its stat, or refuse."""
    real = Path(os.path.realpath(given))
    if given.is_symlink() and not os.path.lexists(real):
        raise WriteRefused(given, f"is a symbolic link to {given.readlink()}, which does not exist")
    if not real.parent.is_dir():
        raise WriteRefused(given, f"folder {given.parent} does not exist; create it first")
    try:
        info = real.stat()
    except FileNotFoundError:
        return real, None
    except OSError as error:
        raise WriteError(given, f"cannot write: {error.strerror or error}", error.errno or 0) from error
    if not stat.S_ISREG(info.st_mode):
        shown = f" ({real})" if real != given.absolute() else ""
        raise WriteRefused(given, f"is {_kind(info.st_mode)}{shown}, not a regular file; nothing written")
    return real, info


def stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Temporary files an interrupted write of ``path`` left in its folder, oldest first."""
    real = Path(os.path.realpath(path))
    pattern = re.compile(rf"\.{re.escape(real.name)}\.[a-z0-9_]{{8}}\.tmp")
    try:
        found = [p for p in real.parent.iterdir() if pattern.fullmatch(p.name)]
    except OSError:
        return []
    return sorted(found, key=lambda p: (p.lstat().st_mtime, p.name))


def _new_temp(folder: Path, name: str, mode: int) -> tuple[Path, int]:
    """Create ``.NAME.XXXXXXXX.tmp`` in ``folder`` (the kernel applies the umask to ``mode``)."""
    while True:
        temp = folder / f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return temp, os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode
            )
        except FileExistsError:
            continue


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable; some systems cannot open a folder, and then it is only less durable."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _copy_to_temp(source: Path, folder: Path, name: str) -> Path:
    """A fsynced copy of ``source`` as a new temporary file in ``folder``, with its mode and times."""
    info = source.stat()
    temp, fd = _new_temp(folder, name, 0o600)
    try:
        _write_all(fd, source.read_bytes())
    except BaseException:
        os.close(fd)
        temp.unlink(missing_ok=True)
        raise
    os.close(fd)
    try:
        os.utime(temp, ns=(info.st_atime_ns, info.st_mtime_ns))
        temp.chmod(stat.S_IMODE(info.st_mode))
    except OSError:
        pass  # a backup with other times or mode still holds every byte
    return temp


def _backup(given: Path, real: Path) -> Path:
    """Copy ``real`` to the first free ``<given>.bak``, ``.bak.1``... next to ``given``."""
    temp = _copy_to_temp(real, given.parent, given.name)
    number = 0
    try:
        while True:
            candidate = given.with_name(given.name + (f".bak.{number}" if number else ".bak"))
            try:
                os.link(temp, candidate)  # publishes the whole copy, and never over an existing file
                return candidate
            except FileExistsError:
                number += 1
            except OSError:  # a file system without hard links
                if os.path.lexists(candidate):
                    number += 1
                    continue
                temp.replace(candidate)
                return candidate
    finally:
        temp.unlink(missing_ok=True)


def _replace(real: Path, data: bytes, info: os.stat_result | None) -> None:
    temp, fd = _new_temp(real.parent, real.name, 0o600 if info else 0o666)
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        if info is not None:
            temp.chmod(stat.S_IMODE(info.st_mode))
            if hasattr(os, "geteuid") and os.geteuid() == 0 and (info.st_uid, info.st_gid) != (0, 0):
                os.chown(temp, info.st_uid, info.st_gid)  # root rewriting a user's file keeps it theirs
        temp.replace(real)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_folder(real.parent)


def _write_in_place(given: Path, real: Path, data: bytes) -> None:
    """Rewrite a hard-linked file itself, so that every name of it sees the new content."""
    safety = _copy_to_temp(real, real.parent, real.name)
    try:
        handle = real.open("r+b")
    except BaseException:
        safety.unlink(missing_ok=True)
        raise
    with handle:
        try:
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        except OSError as error:
            try:  # put the old bytes back; they take no more room than they did
                handle.seek(0)
                handle.write(safety.read_bytes())
                handle.truncate()
                handle.flush()
            except OSError:
                reason = error.strerror or str(error)
                raise WriteError(
                    given, f"cannot write ({reason}); its previous content is in {safety}", error.errno or 0
                ) from error
            safety.unlink(missing_ok=True)
            raise
    safety.unlink(missing_ok=True)


def atomic_write(
    path: str | os.PathLike[str], data: bytes | str, *, backup: bool = False, encoding: str = "utf-8"
) -> Path | None:
    """Write ``data`` to ``path`` so that it holds either its old content or the new; return the backup.

    The new content goes to a temporary file in the target's real folder,
    is fsynced, gets the old file's mode, and replaces the file in one
    ``os.replace``. See the module docstring for links, devices, hard links
    and backups. Raises :class:`WriteRefused` (nothing touched) or
    :class:`WriteError`, both naming ``path`` as given.
    """
    given = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else data
    real, info = _target(given)
    stale = stale_temporaries(real)
    if stale:
        log.warning(
            "%s: %d temporary file(s) left by an interrupted write (they may hold an older or newer"
            " version; check, then delete them): %s",
            given,
            len(stale),
            ", ".join(str(p) for p in stale),
        )
    try:
        backup_path = _backup(given, real) if backup and info is not None else None
        if info is not None and info.st_nlink > 1:
            _write_in_place(given, real, payload)
        else:
            _replace(real, payload, info)
    except WriteError:
        raise
    except OSError as error:
        raise WriteError(given, f"cannot write: {error.strerror or error}", error.errno or 0) from error
    return backup_path


def atomic_write_text(path: str | os.PathLike[str], text: str, *, backup: bool = True) -> Path | None:
    """:func:`atomic_write` of UTF-8 ``text`` (newlines as given), keeping a backup by default."""
    return atomic_write(path, text, backup=backup)

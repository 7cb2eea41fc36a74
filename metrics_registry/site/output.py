"""Where ``build`` puts the site: built aside, swapped in by rename, never over a folder it did not make.

``build --output DIR`` used to delete DIR first, unconditionally: ``--output .``
in a clone deleted the whole checkout, and a build killed half way left a
site without its pages. Now:

* the site is built in a sibling folder ``.NAME.building-XXXXXXXX`` carrying
  the marker file :data:`MARKER`, then swapped with the old site in one
  step (``renameat2(RENAME_EXCHANGE)`` on Linux; elsewhere two renames, and a
  build killed between them is undone by the next one), and only then is the
  old site deleted. A build killed at any moment leaves the previous site
  whole at its path;
* a folder is only ever deleted when it carries the marker. The output is
  refused (nothing touched, exit 2) when it is the project root or holds
  it, holds the work folder or ``.git``, or already exists with files and no
  marker;
* sibling folders left by a killed build carry the marker and are deleted by
  the next build, unless their marker is still locked by a running build;
* the work folder's ``docs/``, whose language folders every build deletes
  and writes again, carries the marker too (:func:`claim_work`);
* :func:`build_lock` serialises builds that share a work folder (``build``
  and ``serve``'s rebuilds raced on ``build/docs``);
* ``METRICS_REGISTRY_KILL_AT=<point>`` makes a build kill itself with
  SIGKILL at one of :data:`KILL_POINTS`, so that tests/site/test_build_kill.py
  can kill a real build exactly where timing cannot reach.

POSIX only (``fcntl``), as is the rest of the tool chain the site uses.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import secrets
import shutil
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from metrics_registry.registry import RegistryError

__all__ = [
    "KILL_POINTS",
    "MARKER",
    "OutputRefused",
    "Staging",
    "build_lock",
    "check_output",
    "claim_work",
    "clean_stale",
    "publishing",
]

#: The file that says "this folder was made by ``metrics-registry build``; it may be replaced".
MARKER = ".metrics-registry-site"
_MARKER_TEXT = (
    "This folder was made by 'metrics-registry build'. The next build replaces it whole,\n"
    "files added by hand included. Delete this file to keep the folder from being replaced.\n"
)
_WORK_MARKER_TEXT = (
    "This folder was made by 'metrics-registry build': every build deletes its language\n"
    "folders and generates them again. Delete this file to keep the build from doing so.\n"
)
_BUILDING = "building"
_OLD = "old"

#: Where ``METRICS_REGISTRY_KILL_AT`` may stop a build: the site is staged whole (links
#: checked, not yet swapped in); the new site is swapped in and the old one not yet deleted.
KILL_POINTS = ("staged", "swapped")


def _kill_point(name: str) -> None:
    """Test hook: die here, as ``kill -9`` would, when ``METRICS_REGISTRY_KILL_AT`` names this point."""
    if os.environ.get("METRICS_REGISTRY_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


class OutputRefused(RegistryError):
    """The output folder is not one the build may replace; nothing was touched."""

    exit_code = 2


def _is_ours(folder: Path) -> bool:
    return (folder / MARKER).is_file() and not (folder / MARKER).is_symlink()


def check_output(output: Path, *, root: Path | None = None, work: Path | None = None) -> None:
    """Raise :class:`OutputRefused` unless ``output`` (absolute, resolved) may be replaced by a build."""

    def refuse(why: str) -> None:
        raise OutputRefused(f"refusing to build into {output}: {why}; choose another --output (e.g. site)")

    if root is not None and root.is_relative_to(output):
        refuse("it is the project root" if root == output else f"it holds the project root {root}")
    if work is not None and work.is_relative_to(output):
        refuse(f"it holds the build's work folder {work}")
    if work is not None and output.is_relative_to(work):
        refuse(f"it is inside the build's work folder {work}")
    if not os.path.lexists(output):
        return
    if not output.is_dir():
        refuse("it is not a folder")
    if os.path.lexists(output / ".git"):
        refuse("it holds .git (a repository)")
    if not _is_ours(output) and any(output.iterdir()):
        refuse(
            f"it has files this tool did not write (no {MARKER} marker; "
            "a site built by an older version: delete it yourself)"
        )


def _older_build_made(work: Path, entry: Path) -> bool:
    """Whether ``entry`` is a language folder an older build left unmarked in ``work/docs``.

    Those builds wrote ``work/mkdocs.<lang>.yml`` (JSON) next to it, naming it
    as ``docs_dir``: proof enough that the folder is the build's own.
    """
    config = work / f"mkdocs.{entry.name}.yml"
    if entry.is_symlink() or not entry.is_dir() or not config.is_file():
        return False
    try:
        settings = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(settings, dict) and settings.get("docs_dir") == f"docs/{entry.name}"


def claim_work(work: Path) -> Path:
    """``work/docs``, where each language's Markdown is deleted and generated again, once it is ours.

    A missing or empty folder gets the marker; so does one that an older
    build left (see :func:`_older_build_made`). Anything else is refused.
    """
    docs = work / "docs"
    if _is_ours(docs):
        return docs
    if os.path.lexists(docs) and (docs.is_symlink() or not docs.is_dir()):
        raise OutputRefused(f"refusing to generate pages into {docs}: it is not a folder; move it away")
    if docs.is_dir() and not all(_older_build_made(work, entry) for entry in docs.iterdir()):
        raise OutputRefused(
            f"refusing to generate pages into {docs}: it has files this tool did not write"
            f" (no {MARKER} marker); move them away"
        )
    docs.mkdir(parents=True, exist_ok=True)
    (docs / MARKER).write_text(_WORK_MARKER_TEXT, encoding="utf-8")
    return docs


def _remove_ours(folder: Path) -> None:
    """Delete a marked folder, the marker last: killed half way, it is still marked for the next build."""
    for child in folder.iterdir():
        if child.name != MARKER:
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    (folder / MARKER).unlink()
    folder.rmdir()


def _locked(marker: Path) -> bool:
    """Whether a running build holds ``marker``'s lock."""
    try:
        fd = os.open(marker, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases the lock if it was taken
    return False


def _siblings(output: Path) -> Iterator[tuple[str, Path]]:
    prefix = f".{output.name}."
    for path in sorted(output.parent.iterdir()):
        kind, dash, _ = path.name.removeprefix(prefix).partition("-")
        if path.name.startswith(prefix) and dash and kind in (_BUILDING, _OLD) and not path.is_symlink():
            yield kind, path


def clean_stale(output: Path) -> list[Path]:
    """Delete what killed builds left next to ``output``; put back an old site a killed swap moved aside.

    Only folders carrying an unlocked marker are touched. Returns the
    folders deleted or restored.
    """
    handled = []
    for kind, path in _siblings(output):
        if not path.is_dir() or not _is_ours(path) or _locked(path / MARKER):
            continue
        if kind == _OLD and not os.path.lexists(output):
            path.rename(output)  # killed between the two renames of a swap: the old site goes back
        else:
            _remove_ours(path)
        handled.append(path)
    return handled


@contextmanager
def build_lock(work: Path) -> Iterator[int]:
    """Hold ``work/.lock`` (``flock``) for a whole build; wait, saying so, while another build holds it.

    Yields the lock's file descriptor: MkDocs runs in child processes that
    get it too (``pass_fds``), so that a build killed while they run keeps
    the lock until they are done, and the next build waits for them.
    """
    work.mkdir(parents=True, exist_ok=True)
    fd = os.open(work / ".lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another build using {work} to finish ...", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two existing paths in one step; False where the system cannot.

    Python has no binding for Linux's ``renameat2(RENAME_EXCHANGE)`` and no
    library offers one, hence ctypes: it is the only way to replace a
    non-empty folder with no moment at which neither version is in place.
    """
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:  # a C library older than glibc 2.28
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # a file system without it
        return False
    raise OSError(code, os.strerror(code), str(second))


def _fresh_sibling(output: Path, kind: str) -> Path:
    """A new, empty folder ``.NAME.KIND-XXXXXXXX`` next to ``output`` (the umask applies, unlike mkdtemp)."""
    while True:
        path = output.parent / f".{output.name}.{kind}-{secrets.token_hex(4)}"
        try:
            path.mkdir(0o777)
            return path
        except FileExistsError:
            continue


def _swap(stage: Path, output: Path) -> None:
    """Put ``stage`` at ``output``; delete what was there (ours, or an empty folder)."""
    if not os.path.lexists(output):
        stage.rename(output)
        return
    if _exchange(stage, output):
        old = stage
    else:
        old = output.parent / f".{output.name}.{_OLD}-{secrets.token_hex(4)}"
        output.rename(old)  # killed right here: clean_stale() of the next build puts it back
        stage.rename(output)
    _kill_point("swapped")
    if _is_ours(old):
        _remove_ours(old)
    else:
        old.rmdir()  # the empty folder that was there; rmdir refuses if it is not empty


@dataclass(frozen=True)
class Staging:
    """The folder a build writes to, and the descriptor of its locked marker (for ``pass_fds``)."""

    path: Path
    lock_fd: int


@contextmanager
def publishing(output: Path) -> Iterator[Staging]:
    """Yield an empty folder to build the site in; swap it in at ``output`` when the block succeeds.

    On an error the folder is deleted and ``output`` is left as it was.
    Call under :func:`build_lock`, after :func:`check_output`.
    """
    output.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(output)
    stage = _fresh_sibling(output, _BUILDING)
    marker = os.open(stage / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        fcntl.flock(marker, fcntl.LOCK_EX)  # tells clean_stale() of a concurrent build we are alive
        os.write(marker, _MARKER_TEXT.encode())
        yield Staging(stage, marker)
        _kill_point("staged")
        check_output(output)  # again: the folder may have changed during the build
        _swap(stage, output)
    except BaseException:
        with suppress(OSError):  # the error that brought us here is the one to report
            _remove_ours(stage)
        raise
    finally:
        os.close(marker)

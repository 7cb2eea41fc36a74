"""The validated registry, kept between runs so that a command that only reads starts at once.

``validate`` of the built-in families costs a few hundred milliseconds and
grows with every family; ``explain``, ``export`` or ``load()`` in a training
script would pay it on every call. The result of :func:`metrics_registry.api.validate`
(the registry and its findings) is stored under a key made of:

- the content of every registry file, with its resolved path (findings name it);
- this package's code (size and modification time of each module, so an
  edited checkout never reads results computed by older code; a new release
  installs new files), and the version of Python. (Not the
  package's version: reading it costs ``importlib.metadata``, ~15 ms, on every
  command, and the code's fingerprint changes with every release anyway.)
- the installed libraries of :data:`FINGERPRINTED_LIBRARIES` (their files' size and time): entries
  hold pydantic objects and Babel catalogs, rendered output is rich's, packaging orders releases.

Any change gives a new key; nothing is ever invalidated in place.

Besides values (pickles), a command may keep its rendered output as text
(:func:`read_text`, :func:`write_text`; see :mod:`metrics_registry.rendered`),
as ``man`` keeps preformatted pages.

Where: ``$METRICS_REGISTRY_CACHE`` (a folder; ``off`` disables the cache),
else ``$XDG_CACHE_HOME/metrics-registry``, else ``~/.cache/metrics-registry``.

Safety: entries are pickles, which are code, like Python's own ``__pycache__``:
an entry is read only from a folder the current user owns and nobody else
may write to (mode 0700 when the cache creates it), and only when the file
is owned by the user and not writable by others. An unreadable, truncated or
foreign entry is ignored and recomputed. Entries are written through
:func:`metrics_registry.fileio.atomic_write`, so two runs writing the same
key at once each leave a whole file. Files that are not regular files, or
larger than the loader reads, are never cached (the loader reports them).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = [
    "CACHE_ENV",
    "FINGERPRINTED_LIBRARIES",
    "cache_folder",
    "cache_key",
    "libraries_fingerprint",
    "memo",
    "read",
    "read_text",
    "write",
    "write_text",
]

CACHE_ENV = "METRICS_REGISTRY_CACHE"
_FORMAT = b"metrics-registry cache 1"
_PACKAGE = Path(__file__).resolve().parent
#: Entries kept; the oldest beyond this are deleted when a new one is written.
KEEP_ENTRIES = 64
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.(pickle|txt)")


def cache_folder() -> Path | None:
    """Where entries live, or None when the cache is off."""
    value = os.environ.get(CACHE_ENV, "")
    if value.lower() == "off":
        return None
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "metrics-registry"


@functools.cache
def _code_fingerprint() -> bytes:
    digest = hashlib.sha256()
    for root, folders, files in os.walk(_PACKAGE):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".yaml", ".json", ".gz", ".j2")):  # code, data, templates
                status = (Path(root) / name).stat()
                digest.update(f"{root}/{name}:{status.st_size}:{status.st_mtime_ns}\n".encode())
    return digest.digest()


#: The installed packages whose files :func:`libraries_fingerprint` covers (metrics_registry_zh_models:
#: the repaired extension notes depend on its counts).
FINGERPRINTED_LIBRARIES = (
    "pydantic",
    "pydantic_core",
    "rich",
    "babel",
    "packaging",
    "metrics_registry_zh_models",
)


@functools.cache
def libraries_fingerprint() -> bytes:
    """The installed :data:`FINGERPRINTED_LIBRARIES`: pickles hold their classes, rendered text their
    output (packaging orders releases: validation, rename maps). Read from their files' size and
    time (``find_spec`` locates a package without importing it: importing pydantic to read its
    version would cost a read-only command ~50 ms). Once per process."""
    import importlib.util

    digest = hashlib.sha256()
    for name in FINGERPRINTED_LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # a finder may refuse rather than answer None
            spec = None
        for folder in (spec.submodule_search_locations or []) if spec else []:
            for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                if entry.is_file():
                    status = entry.stat()
                    digest.update(f"{name}/{entry.name}:{status.st_size}:{status.st_mtime_ns}\n".encode())
    return digest.digest()


def cache_key(paths: Iterable[Path], max_bytes: int, purpose: str = "registry") -> str | None:
    """The key for checking ``paths`` for ``purpose``, or None when one of them must not be cached."""
    digest = hashlib.sha256(_FORMAT)
    digest.update(f"{purpose}|{sys.version}".encode())
    digest.update(_code_fingerprint())
    digest.update(libraries_fingerprint())
    for path in paths:
        try:
            status = Path(path).stat()
            if not stat.S_ISREG(status.st_mode) or status.st_size > max_bytes:
                return None
            content = Path(path).read_bytes()
        except OSError:
            return None  # the loader reports it
        digest.update(f"\0{Path(path).resolve()}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def _owned_and_private(status: os.stat_result) -> bool:
    if not hasattr(os, "getuid"):  # no POSIX owners (Windows): the user's profile folder
        return True
    return status.st_uid == os.getuid() and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _folder(create: bool) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    try:
        if create:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _owned_and_private(folder.stat()):
            return None
    except OSError:
        return None
    return folder


def memo(key: str | None, compute: Callable[[], T]) -> T:
    """``compute()``, read from the cache under ``key`` when there (None: not cacheable)."""
    if key is None:
        return compute()
    hit = read(key)
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    value = compute()
    write(key, value)
    return value


def read(key: str) -> Any | None:
    """The stored value for ``key``, or None (absent, damaged, or not safely ours)."""
    folder = _folder(create=False)
    if folder is None:
        return None
    entry = folder / f"{key}.pickle"
    try:
        with entry.open("rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode) or not _owned_and_private(
                os.fstat(handle.fileno())
            ):
                return None
            return pickle.load(handle)  # our own private folder: see the module docstring
    except Exception:  # a truncated or foreign entry is a miss, never an error
        return None


def read_text(key: str) -> str | None:
    """The stored text for ``key`` (an output kept by :func:`write_text`), or None."""
    folder = _folder(create=False)
    if folder is None:
        return None
    try:
        with (folder / f"{key}.txt").open("rb") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode) or not _owned_and_private(status):
                return None
            return handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def write_text(key: str, text: str) -> None:
    """Store ``text`` under ``key``, as :func:`write` does for values."""
    from metrics_registry.fileio import atomic_write

    folder = _folder(create=True)
    if folder is None:
        return
    try:
        atomic_write(folder / f"{key}.txt", text.encode("utf-8"))
        _prune(folder)
    except Exception:  # a full disk or a read-only home must not fail the command
        return


def write(key: str, value: Any) -> None:
    """Store ``value`` under ``key``; a cache that cannot be written is silently skipped."""
    from metrics_registry.fileio import atomic_write

    folder = _folder(create=True)
    if folder is None:
        return
    try:
        atomic_write(folder / f"{key}.pickle", pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        _prune(folder)
    except Exception:  # a full disk or a read-only home must not fail the command
        return


def _prune(folder: Path, keep: int | None = None) -> None:
    """Delete all but the ``keep`` (default :data:`KEEP_ENTRIES`) newest entries this module named."""
    keep = KEEP_ENTRIES if keep is None else keep
    entries = [entry for entry in folder.iterdir() if _ENTRY_NAME.fullmatch(entry.name)]
    if len(entries) <= keep:
        return
    entries.sort(key=lambda entry: entry.stat().st_mtime_ns, reverse=True)
    for entry in entries[keep:]:
        entry.unlink(missing_ok=True)

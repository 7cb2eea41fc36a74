"""Reuse a language's generated Markdown when nothing it is made from has changed.

Generating one language's pages (Jinja over every metric, the catalogs, the
hand-written pages' headings) costs a few seconds of one core, before and
beside MkDocs; a build whose inputs did not change since the last one writes
the same bytes again. So each language folder of the work folder gets a
stamp (:data:`STAMP`) recording:

- the key of its inputs (:func:`generation_key`): the registry's content
  (:func:`registry_digest`), the language, this package's files (code and
  templates, by size and modification time, as :mod:`metrics_registry.cache`
  fingerprints its code), the versions of the libraries that write the pages,
  and the content of the project's ``docs/``, ``i18n/`` and ``mkdocs.yml``,
  and of the KaTeX that is copied in (by size and time: npm installs it);
- a digest of the folder as generated (every file's path, size and
  modification time), so a folder edited or damaged since is generated again;
- what the build needs from the generation (the trusted pages, the count).

Anything unreadable or different is a miss: the folder is generated from
scratch, as it always was. Written by hand: build tools that do this
(make, Sphinx's environment pickle) track their own inputs, not ours.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from metrics_registry.registry import Registry

__all__ = ["STAMP", "generation_key", "inputs_digest", "record", "registry_digest", "reusable"]

#: The stamp file in a generated language folder (MkDocs skips dot files).
STAMP = ".mr-generated.json"
_FORMAT = 1
_PACKAGE = Path(__file__).resolve().parents[1]
#: The libraries whose output lands in the generated Markdown.
#: The distributions whose version (or absence) changes the generated pages: torch computes the
#: concepts' worked examples (left out without it), pylatexenc the formulas' plain text.
_LIBRARIES = ("jinja2", "babel", "pyyaml", "markdown-it-py", "pydantic", "pylatexenc", "torch")


def _canonical(value: Any) -> Any:
    """``value`` as JSON data with sets sorted: a set's order changes with the process's hash seed."""
    if isinstance(value, BaseModel):
        return {name: _canonical(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, Mapping):
        return {str(key): _canonical(item) for key, item in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(item) for item in value), key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if isinstance(value, Enum):
        return _canonical(value.value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "__dataclass_fields__"):
        return {name: _canonical(getattr(value, name)) for name in value.__dataclass_fields__}
    return str(value)  # paths and the like


def registry_digest(registry: Registry) -> str:
    """A digest of everything the pages show of ``registry``, the same in every process: from the
    files it was loaded from when known (``Registry.source_key``: their content, this package's
    code), else from every metric (40 ms for the built-in registry, on the build's serial start)."""
    if registry.source_key is not None:
        return hashlib.sha256(f"registry files\0{registry.source_key}".encode()).hexdigest()
    data = {
        "families": _canonical(registry.families),
        "entries": [[_canonical(e.metric), e.family.id, str(e.path), e.line] for e in registry],
        "concepts": _canonical(registry.concepts),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def _files(folder: Path) -> Iterable[Path]:
    for root, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(names):
            yield Path(root) / name


def _stat_digest(folder: Path, digest: Any, skip: str | None = None) -> None:
    if not folder.is_dir():
        digest.update(f"{folder}: none\n".encode())
        return
    for path in _files(folder):
        if path.name == skip:
            continue
        status = path.stat()
        digest.update(
            f"{path.relative_to(folder).as_posix()}:{status.st_size}:{status.st_mtime_ns}\n".encode()
        )


def _content_digest(paths: Iterable[Path], root: Path, digest: Any) -> None:
    for path in paths:
        digest.update(f"\0{path.relative_to(root).as_posix()}\0".encode())
        digest.update(path.read_bytes() if path.is_file() else b"\0none")


@cache
def _code_and_libraries() -> bytes:
    from importlib import metadata  # versions without importing (torch would take seconds)

    digest = hashlib.sha256()
    _stat_digest(_PACKAGE, digest)
    # the Chinese counts the notes' repair mixes in are among these (found, not imported: importing
    # metrics_registry.encoding cost the serial start of every build 50 ms)
    from metrics_registry.cache import libraries_fingerprint

    digest.update(libraries_fingerprint())
    for name in _LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{name}={version}\n".encode())
    return digest.digest()


def inputs_digest(registry_hash: str, root: Path, katex: Path) -> str:
    """A digest of what every language's pages are made from (read once per build, not per language)."""
    digest = hashlib.sha256(f"generated pages {_FORMAT}\0{registry_hash}\0".encode())
    digest.update(_code_and_libraries())
    _content_digest([root / "mkdocs.yml"], root, digest)
    for folder in ("docs", "i18n"):
        _content_digest(list(_files(root / folder)), root, digest)
    _stat_digest(katex, digest)
    return digest.hexdigest()


def generation_key(inputs: str, lang: str) -> str:
    """The key of one language's generated pages: the build's :func:`inputs_digest` and the language."""
    return hashlib.sha256(f"{inputs}\0{lang}".encode()).hexdigest()


def _tree_digest(out: Path) -> str:
    digest = hashlib.sha256()
    _stat_digest(out, digest, skip=STAMP)
    return digest.hexdigest()


def reusable(out: Path, key: str) -> dict[str, Any] | None:
    """What :func:`record` kept for ``out`` when it was generated for ``key`` and is untouched since."""
    try:
        stamp = json.loads((out / STAMP).read_text(encoding="utf-8"))
        if not isinstance(stamp, dict) or stamp.get("key") != key or stamp.get("tree") != _tree_digest(out):
            return None
        kept = stamp.get("kept")
        return kept if isinstance(kept, dict) else None
    except (OSError, ValueError):
        return None


def record(out: Path, key: str, kept: dict[str, Any]) -> None:
    """Stamp ``out``, just generated for ``key``, with ``kept`` (JSON data the build reads back)."""
    from metrics_registry.fileio import atomic_write_text

    stamp = {"format": _FORMAT, "key": key, "tree": _tree_digest(out), "kept": kept}
    atomic_write_text(out / STAMP, json.dumps(stamp, ensure_ascii=False), backup=False)

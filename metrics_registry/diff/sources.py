"""Where the two sides of ``metrics-registry diff`` come from: files, folders or git revisions.

A side is, in order of trial:

- a registry YAML file, or a folder whose ``*.yaml`` files are read;
- ``REV:PATH``, a file or folder as git revision ``REV`` had it (``PATH``
  as git reads it: from the repository root, or from the current folder
  when it starts with ``./``);
- ``REV`` alone (``HEAD~3``, a tag, a commit): the registry files of the
  project in the current folder at that revision, i.e.
  ``metrics_registry/data/*.yaml`` when the revision has it, plus the
  ``extra-registries`` its ``pyproject.toml`` configured.

Git content is read with ``git show``/``git ls-tree`` into a temporary
folder, so the loader (and its line numbers) work unchanged. Only the given
files are loaded: the installed package's built-in families are not added.
"""

from __future__ import annotations

import subprocess
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from metrics_registry.api import validate
from metrics_registry.findings import Finding
from metrics_registry.registry import Registry, RegistryError

__all__ = ["DiffSourceError", "RegistrySource", "load_source"]

#: Loader rules whose findings mean an entry (or a whole file) could not be read.
_UNREADABLE = {"MR100", "MR101", "MR102", "MR103", "MR104", "MR106"}
_DATA_DIR = "metrics_registry/data"


class DiffSourceError(RegistryError):
    """A side of the diff cannot be read; the message says what was tried."""


@dataclass
class RegistrySource:
    """One side of the diff, loaded."""

    label: str
    registry: Registry
    #: Problems that left entries out (a file or entry the current format cannot read).
    problems: list[Finding] = field(default_factory=list)


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError as error:
        raise DiffSourceError("git is not installed; pass registry files or folders instead") from error


def _yaml_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".yaml", ".yml"))


def _git_tree_files(revision: str, path: str, cwd: Path) -> list[str]:
    """The registry files at ``revision:path`` (a blob, or the YAML files of a tree); [] when absent."""
    kind = _git(["cat-file", "-t", f"{revision}:{path}"], cwd)
    if kind.returncode != 0:
        return []
    if kind.stdout.strip() == b"blob":
        return [path]
    listing = _git(["ls-tree", "--name-only", f"{revision}:{path}"], cwd)
    names = listing.stdout.decode("utf-8", "replace").splitlines()
    base = PurePosixPath(path)
    return [str(base / name) for name in sorted(names) if name.endswith((".yaml", ".yml"))]


def _configured(revision: str, cwd: Path) -> list[str]:
    """``extra-registries`` of ``./pyproject.toml`` at ``revision`` (paths relative to it)."""
    shown = _git(["show", f"{revision}:./pyproject.toml"], cwd)
    if shown.returncode != 0:
        return []
    try:
        table = tomllib.loads(shown.stdout.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise DiffSourceError(f"{revision}:pyproject.toml: invalid TOML ({error})") from error
    extras = table.get("tool", {}).get("metrics-registry", {}).get("extra-registries", [])
    return [f"./{item}" for item in extras if isinstance(item, str)]


def _from_git(spec: str, cwd: Path, workdir: Path) -> dict[Path, str]:
    """Write the files of ``spec`` under ``workdir``: ``{written path: 'REV:path'}``."""
    check = _git(["rev-parse", "--verify", "--quiet", f"{spec.split(':', 1)[0]}^{{commit}}"], cwd)
    if check.returncode != 0:
        raise DiffSourceError(
            f"'{spec}' is neither a file or folder nor a git revision here ({cwd}); pass a registry"
            " YAML file, a folder of them, or a revision such as HEAD~3 or v1.0:metrics_registry/data"
        )
    revision, sep, path = spec.partition(":")
    wanted = [path] if sep else [f"./{_DATA_DIR}", *_configured(revision, cwd)]
    files = [name for item in wanted for name in _git_tree_files(revision, item, cwd)]
    if not files:
        where = path if sep else f"./{_DATA_DIR} or the configured extra-registries"
        raise DiffSourceError(f"{spec}: no registry YAML files at {where} in revision {revision}")
    written: dict[Path, str] = {}
    for name in files:
        shown = _git(["show", f"{revision}:{name}"], cwd)
        if shown.returncode != 0:
            message = shown.stderr.decode("utf-8", "replace").strip()
            raise DiffSourceError(f"{revision}:{name}: git show failed ({message})")
        target = workdir / PurePosixPath(name.removeprefix("./"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shown.stdout)
        written[target.resolve()] = f"{revision}:{name.removeprefix('./')}"
    return written


def load_source(spec: str, workdir: Path, cwd: Path | None = None) -> RegistrySource:
    """Load one side; git content goes under ``workdir`` (a fresh, empty folder)."""
    cwd = cwd or Path.cwd()
    path = Path(spec) if Path(spec).is_absolute() else cwd / spec
    display: dict[Path, str] = {}
    if path.is_dir():
        files = _yaml_files(path)
        if not files:
            raise DiffSourceError(f"{spec}: no *.yaml files in this folder")
    elif path.is_file():
        files = [path]
    else:
        display = _from_git(spec, cwd, workdir)
        files = list(display)
    registry, findings = validate(files, builtin=False)
    problems = [
        replace(f, file=Path(display.get(f.file, str(f.file))))
        for f in findings
        if f.is_error and f.rule in _UNREADABLE
    ]
    return RegistrySource(spec, registry, problems)

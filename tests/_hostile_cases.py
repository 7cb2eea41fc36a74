"""Hostile-input cases as data: read ``tests/fixtures/hostile/*/cases.toml`` and run one.

Shared by ``tests/test_hostile.py`` (asserts) and ``benchmarks/hostile.py``
(prints how long each case takes). The format is described in
``tests/fixtures/hostile/README.md``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HOSTILE = Path(__file__).resolve().parent / "fixtures" / "hostile"
ROOT = HOSTILE.parents[2]
HANG_GUARD_SECONDS = 30.0

__all__ = ["HOSTILE", "Case", "Outcome", "load_cases", "run_case", "snapshot"]


@dataclass(frozen=True)
class Case:
    """One hostile input and what the command must do with it."""

    folder: str
    name: str
    args: tuple[str, ...]
    exit: int
    file: str = ""
    output_contains: tuple[str, ...] = ()
    output_excludes: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    stdin_file: str = ""
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""  # a subfolder of the copy to run in (a mini project with its own pyproject.toml)

    @property
    def id(self) -> str:
        return f"{self.folder}/{self.name}"


@dataclass(frozen=True)
class Outcome:
    returncode: int | None  # None: killed by the hang guard
    output: str
    seconds: float
    before: dict[str, str]
    after: dict[str, str]


def load_cases(root: Path = HOSTILE) -> list[Case]:
    """Every case of every class folder, in a stable order."""
    cases = []
    for listing in sorted(root.glob("*/cases.toml")):
        data = tomllib.loads(listing.read_text(encoding="utf-8"))
        for item in data.get("case", []):
            cases.append(
                Case(
                    folder=listing.parent.name,
                    name=item["name"],
                    args=tuple(item["args"]),
                    exit=item["exit"],
                    file=item.get("file", ""),
                    output_contains=tuple(item.get("output_contains", ())),
                    output_excludes=tuple(item.get("output_excludes", ())),
                    writes=tuple(item.get("writes", ())),
                    stdin_file=item.get("stdin_file", ""),
                    env=dict(item.get("env", {})),
                    cwd=item.get("cwd", ""),
                )
            )
    return cases


def snapshot(folder: Path) -> dict[str, str]:
    """Relative path -> what it is (a content hash, or the link target / kind for non-regular files)."""
    state = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink():
            state[relative] = f"symlink -> {path.readlink()}"
        elif path.is_file():
            state[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            state[relative] = "dir"
        else:
            state[relative] = "special"
    return state


def _copy(source: Path, target: Path) -> None:
    # symlinks stay symlinks (a case may be about writing through one)
    shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns("cases.toml"))


def run_case(case: Case, work: Path) -> Outcome:
    """Copy the case's folder into ``work`` and run the command there, as a user would."""
    folder = work / case.folder
    _copy(HOSTILE / case.folder, folder)
    args = [arg.replace("{file}", str(folder / case.file)).replace("{dir}", str(folder)) for arg in case.args]
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **case.env}
    env.pop("METRICS_REGISTRY_PATH", None)
    # the package under test, wherever the command runs from
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    stdin = (folder / case.stdin_file).read_bytes() if case.stdin_file else b""
    before = snapshot(folder)
    started = time.perf_counter()
    try:
        process = subprocess.run(
            [sys.executable, "-m", "metrics_registry.cli", *args],
            cwd=folder / case.cwd,
            input=stdin,
            capture_output=True,
            env=env,
            timeout=HANG_GUARD_SECONDS,
            check=False,
        )
        returncode: int | None = process.returncode
        output = (process.stdout + process.stderr).decode("utf-8", "replace")
    except subprocess.TimeoutExpired as expired:
        returncode = None
        output = ((expired.stdout or b"") + (expired.stderr or b"")).decode("utf-8", "replace")
    seconds = time.perf_counter() - started
    return Outcome(returncode, output, seconds, before, snapshot(folder))

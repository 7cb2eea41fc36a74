"""Hostile file cases (issue 14, classes 2 and 3) that a CLI run over the fixture folder cannot express.

The input files live in tests/fixtures/hostile/files/ with the other cases;
here: where the backup of a write through a symlink goes, a FIFO and folders
holding ``.git`` (git cannot store either), hard links and a temporary file
left by a killed write.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "hostile" / "files"
REPAIRED = "# Nhật ký\n\nCác giá trị của phần thưởng (reward) được ghi lại.\n"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("METRICS_REGISTRY_PATH", None)
    return subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,  # a write that opened the FIFO would hang here
    )


@pytest.fixture
def case(tmp_path: Path) -> Path:
    """A copy of the fixture folder, its symlinks kept as links."""
    copy = tmp_path / "case"
    shutil.copytree(FIXTURES, copy, symlinks=True)
    assert (copy / "link.json").is_symlink() and (copy / "notes-link.md").is_symlink()
    return copy


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_fix_encoding_in_place_repairs_the_target_and_keeps_the_link(case: Path) -> None:
    original = (case / "real" / "notes.md").read_bytes()
    result = run("fix-encoding", "--in-place", "notes-link.md", cwd=case)
    assert result.returncode == 0, result.stderr
    link = case / "notes-link.md"
    assert link.is_symlink() and link.readlink() == Path("real/notes.md")
    assert (case / "real" / "notes.md").read_text(encoding="utf-8") == REPAIRED
    assert (case / "notes-link.md.bak").read_bytes() == original  # next to the name given
    assert "original kept as notes-link.md.bak" in result.stderr


def test_fix_encoding_in_place_keeps_hard_links(case: Path) -> None:
    notes = case / "real" / "notes.md"
    other = case / "other-name.md"
    os.link(notes, other)
    result = run("fix-encoding", "--in-place", "--no-backup", "real/notes.md", cwd=case)
    assert result.returncode == 0, result.stderr
    assert other.read_text(encoding="utf-8") == REPAIRED  # the other name sees the repair too
    assert notes.samefile(other)
    assert sorted(p.name for p in notes.parent.iterdir()) == ["notes.md"]


def test_a_temporary_file_left_by_a_killed_write_is_reported(case: Path) -> None:
    stale = case / "real" / ".notes.md.k3j9x0_q.tmp"  # what a write killed before its rename leaves
    stale.write_text("half a file")
    result = run("fix-encoding", "--in-place", "--no-backup", "notes-link.md", cwd=case)
    assert result.returncode == 0, result.stderr
    assert "1 temporary file(s) left by an interrupted write" in result.stderr
    assert str(stale) in result.stderr
    assert stale.read_text() == "half a file"  # reported, never deleted: it may be the only copy


def test_export_to_a_fifo_is_refused_and_the_fifo_left_alone(case: Path) -> None:
    os.mkfifo(case / "pipe")
    result = run("export", "-o", "pipe", cwd=case)
    assert result.returncode == 2
    assert "metrics-registry: error: pipe: is a FIFO (named pipe), not a regular file" in result.stderr
    assert stat.S_ISFIFO((case / "pipe").lstat().st_mode)


def test_build_refuses_a_folder_holding_git_and_deletes_nothing(case: Path) -> None:
    repo = case / "clone"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "README.md").write_text("work\n")
    before = _tree(case)
    result = run("build", "--output", "clone", cwd=case)
    assert result.returncode == 2
    assert f"refusing to build into {repo}: it holds .git (a repository)" in result.stderr
    assert _tree(case) == before
    assert sorted(p.name for p in case.iterdir() if p.name.startswith(".")) == []  # no staging folder


def test_build_refuses_a_clone_it_is_run_in_with_output_dot(case: Path) -> None:
    """The reported disaster: ``build --output .`` in a clone deleted the checkout, ``.git`` included."""
    (case / ".git").mkdir()
    (case / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    before = _tree(case)
    result = run("build", "--output", ".", cwd=case)
    assert result.returncode == 2
    assert f"refusing to build into {case}: it is the project root" in result.stderr
    assert _tree(case) == before
    assert sorted(p.name for p in case.parent.iterdir()) == ["case"]  # no staging folder next to it


def test_build_refuses_an_empty_folder_holding_only_git(case: Path) -> None:
    """``.git`` alone makes the folder non-empty, but it is refused by name, before the marker rule."""
    (case / "bare" / ".git").mkdir(parents=True)
    result = run("build", "--output", "bare", cwd=case)
    assert result.returncode == 2 and "it holds .git" in result.stderr
    assert (case / "bare" / ".git").is_dir()

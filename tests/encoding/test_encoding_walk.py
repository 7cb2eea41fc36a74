"""fix-encoding given a folder: the text files under it, never a link, a FIFO or a skipped folder."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from metrics_registry.encoding.cli import fix_encoding
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.walk import SKIPPED_FOLDERS, TEXT_SUFFIXES, text_files

CLEAN = "# Nhật ký\n\n训练过程 and tiếng Việt.\n"
DAMAGED = mojibake(CLEAN, "cp1252")


def run(*args: str):
    group = click.Group()
    group.add_command(fix_encoding, name="fix-encoding")
    return CliRunner().invoke(group, ["fix-encoding", *args])


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name in ("b.md", "a.PO", "c.pot", "d.yaml", "e.yml", "f.txt", "sub/deep/g.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(DAMAGED, encoding="utf-8")
    for skipped in SKIPPED_FOLDERS:
        (root / skipped).mkdir()
        (root / skipped / "x.md").write_text(DAMAGED, encoding="utf-8")
    (root / "docs" / "site").mkdir(parents=True)  # skipped at any depth, as ruff does
    (root / "docs" / "site" / "y.md").write_text(DAMAGED, encoding="utf-8")
    (root / "code.py").write_text(f"# {DAMAGED}", encoding="utf-8")
    (root / "data.json").write_text('{"a": 1}', encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.md").write_text(DAMAGED, encoding="utf-8")
    (root / "linked-folder").symlink_to(outside)
    (root / "linked.md").symlink_to(outside / "o.md")
    os.mkfifo(root / "pipe.md")  # reading it would wait forever
    return root


def test_the_text_files_in_order(tree: Path) -> None:
    found = [Path(p).relative_to(tree).as_posix() for p in text_files(str(tree))]
    assert found == ["a.PO", "b.md", "c.pot", "d.yaml", "e.yml", "f.txt", "sub/deep/g.md"]
    assert {Path(p).suffix.lower() for p in found} <= TEXT_SUFFIXES


def test_check_walks_the_folder(tree: Path) -> None:
    result = run("--check", str(tree))
    assert result.exit_code == 1
    damaged = [line.split(":", 1)[0] for line in result.stdout.splitlines()]
    names = ["a.PO", "b.md", "c.pot", "d.yaml", "e.yml", "f.txt", "sub/deep/g.md"]
    assert list(dict.fromkeys(damaged)) == [str(tree / name) for name in names]
    assert not any(
        part in line for line in result.stdout.splitlines() for part in ("outside", "linked", "pipe")
    )


def test_in_place_over_a_folder_touches_only_its_text_files(tree: Path, tmp_path: Path) -> None:
    result = run("--in-place", str(tree))
    assert result.exit_code == 0, result.output
    assert (tree / "b.md").read_text(encoding="utf-8") == CLEAN
    assert (tree / "b.md.bak").read_text(encoding="utf-8") == DAMAGED
    for untouched in [*(tree / s / "x.md" for s in SKIPPED_FOLDERS), tmp_path / "outside" / "o.md"]:
        assert untouched.read_text(encoding="utf-8") == DAMAGED
    assert (tree / "linked.md").is_symlink()
    assert (tree / "code.py").read_text(encoding="utf-8") == f"# {DAMAGED}"
    assert run("--check", str(tree)).exit_code == 0


def test_a_folder_to_stdout_is_wrong_usage(tree: Path) -> None:
    result = run(str(tree))
    assert result.exit_code == 2
    assert f"{tree} is a folder: give --in-place, --check, --diff" in result.output


def test_an_empty_folder_is_said(tmp_path: Path) -> None:
    result = run("--check", str(tmp_path))
    assert result.exit_code == 0
    assert f"{tmp_path}: no text file in this folder" in result.output


def test_an_unreadable_file_does_not_stop_the_walk(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "b.md").write_text(DAMAGED, encoding="utf-8")
    result = run("--check", str(tmp_path))
    assert result.exit_code == 1
    assert f"{tmp_path / 'a.txt'}: not UTF-8 text (byte 3)" in result.output
    assert f"{tmp_path / 'b.md'}:" in result.stdout
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "latin.txt").write_bytes(b"caf\xe9")
    assert run("--check", str(clean)).exit_code == 1, "a file that cannot be checked fails the check"

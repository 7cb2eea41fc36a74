"""The fix-encoding command: stdout, --check, --diff, --in-place with backups, stdin."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from metrics_registry.encoding.cli import fix_encoding
from metrics_registry.encoding.damage import mojibake

CLEAN = "# Nhật ký\n\n训练过程 and tiếng Việt.\n"
DAMAGED = mojibake(CLEAN, "cp1254", lossy=True)


@pytest.fixture
def damaged_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.md"
    path.write_bytes(DAMAGED.encode("utf-8"))
    return path


def run(*args: str, stdin: bytes | None = None):
    group = click.Group()
    group.add_command(fix_encoding, name="fix-encoding")
    return CliRunner().invoke(group, ["fix-encoding", *args], input=stdin)


def test_repair_to_stdout(damaged_file: Path) -> None:
    result = run(str(damaged_file))
    assert result.exit_code == 0
    assert result.stdout_bytes == CLEAN.encode("utf-8")
    assert damaged_file.read_text(encoding="utf-8") == DAMAGED


def test_stdin_to_stdout() -> None:
    result = run("-", stdin=DAMAGED.encode("utf-8"))
    assert result.exit_code == 0
    assert result.stdout_bytes == CLEAN.encode("utf-8")


def test_check_lists_findings_and_exits_1(damaged_file: Path) -> None:
    result = run("--check", str(damaged_file))
    assert result.exit_code == 1
    assert f"{damaged_file}:3:1: lost-bytes" in result.stdout


def test_check_clean_file_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "clean.md"
    path.write_text(CLEAN, encoding="utf-8")
    result = run("--check", str(path))
    assert (result.exit_code, result.stdout) == (0, "")


def test_diff(damaged_file: Path) -> None:
    result = run("--diff", str(damaged_file))
    assert result.exit_code == 0
    assert "+训练过程 and tiếng Việt." in result.stdout
    assert result.stdout.startswith("--- a/")


def test_in_place_keeps_an_exact_backup(damaged_file: Path) -> None:
    original = damaged_file.read_bytes()
    result = run("--in-place", str(damaged_file))
    assert result.exit_code == 0, result.output
    assert damaged_file.read_text(encoding="utf-8") == CLEAN
    backup = damaged_file.with_name("notes.md.bak")
    assert backup.read_bytes() == original
    # A second run changes nothing and leaves the first backup alone.
    assert run("--in-place", str(damaged_file)).exit_code == 0
    assert backup.read_bytes() == original
    assert not damaged_file.with_name("notes.md.bak.1").exists()


def test_in_place_never_overwrites_a_backup(damaged_file: Path) -> None:
    older = damaged_file.with_name("notes.md.bak")
    older.write_bytes(b"an older backup")
    assert run("-i", str(damaged_file)).exit_code == 0
    assert older.read_bytes() == b"an older backup"
    assert damaged_file.with_name("notes.md.bak.1").read_bytes() == DAMAGED.encode("utf-8")


def test_in_place_no_backup(damaged_file: Path) -> None:
    assert run("--in-place", "--no-backup", str(damaged_file)).exit_code == 0
    assert damaged_file.read_text(encoding="utf-8") == CLEAN
    assert sorted(p.name for p in damaged_file.parent.iterdir()) == ["notes.md"]


def test_in_place_failure_leaves_the_file_whole(damaged_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash while writing (here: a full disk) keeps the original and leaves no temporary file."""
    import os

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    result = run("--in-place", "--no-backup", str(damaged_file))
    assert result.exit_code == 1
    assert "No space left on device" in result.stderr
    assert damaged_file.read_text(encoding="utf-8") == DAMAGED
    assert sorted(p.name for p in damaged_file.parent.iterdir()) == ["notes.md"]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--check", "--in-place", "x.md"], 2, "cannot be combined"),
        (["--in-place", "-"], 2, "cannot rewrite stdin"),
        (["--no-backup", "x.md"], 2, "only makes sense"),
        (["a.md", "b.md"], 2, "several files"),
        (["missing.md"], 1, "missing.md"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], code: int, message: str) -> None:
    result = run(*args)
    assert result.exit_code == code
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_non_utf8_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("café".encode("latin-1"))
    result = run(str(path))
    assert result.exit_code == 1
    assert "not UTF-8" in result.stderr


@pytest.mark.system("libime-data-language-model")
def test_context_files_add_their_words(tmp_path: Path) -> None:
    """词元 ("token") is rare in general text; a sibling page that uses it settles the lost byte."""
    sentence = "被裁剪的词元越来越多。\n"
    damaged = tmp_path / "damaged.md"
    damaged.write_bytes(mojibake(sentence, "cp1254", lossy=True).encode("utf-8"))
    sibling = tmp_path / "glossary.md"
    sibling.write_text("# 词元\n\n词元数量按词元计算。每个词元对应一个编号。\n", encoding="utf-8")
    result = run("--context", str(sibling), str(damaged))
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == sentence.encode("utf-8")


def test_a_missing_context_file_is_named(damaged_file: Path, tmp_path: Path) -> None:
    result = run("--context", str(tmp_path / "nowhere.md"), str(damaged_file))
    assert result.exit_code == 1
    assert "nowhere.md" in result.stderr and "Traceback" not in result.output


def test_a_bad_model_setting_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """METRICS_REGISTRY_ZH_LM naming no file stops the repair of Chinese with the fix, not a traceback."""
    monkeypatch.setenv("METRICS_REGISTRY_ZH_LM", str(tmp_path / "missing.lm"))
    damaged = tmp_path / "zh.md"
    damaged.write_bytes(mojibake("训练过程中的奖励。\n", "cp1254", lossy=True).encode("utf-8"))
    result = run(str(damaged))
    assert result.exit_code == 1
    assert "missing.lm: no such file" in result.stderr and "'off'" in result.stderr
    assert "Traceback" not in result.output

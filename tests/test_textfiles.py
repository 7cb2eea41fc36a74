"""validate reports mojibake in registry YAML, catalogs and docs pages (rule MR140)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from metrics_registry.textfiles import check_text_files

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
DAMAGED = "Ti\u00e1\u00ba\u00bfng Vi\u00e1\u00bb\u2021t"  # "Tiếng Việt" read as Windows-1252


def test_damaged_yaml_line_is_reported_with_its_repair(tmp_path: Path) -> None:
    text = (FIXTURES / "registry" / "valid.yaml").read_text(encoding="utf-8")
    path = tmp_path / "toy.yaml"
    path.write_text(text.replace("A KL estimate used by the tests.", f"A KL estimate in {DAMAGED}."), "utf-8")
    line = next(n for n, row in enumerate(path.read_text("utf-8").splitlines(), 1) if DAMAGED in row)
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "250"}
    result = subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", "--no-config", "--registry", str(path), "validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 1
    assert f"{path}:{line}: error MR140 mojibake" in result.stdout
    assert "replace it with 'ế'" in result.stdout and "replace it with 'ệ'" in result.stdout


def test_catalogs_and_pages_are_scanned_outside_code(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        f"# Title\n\n`{DAMAGED}` is an example.\n\n```\n{DAMAGED}\n```\n\nBut {DAMAGED} here.\n\n"
        f"    {DAMAGED} in an indented block\n\n| `{DAMAGED}` | in a table |\n| --- | --- |\n",
        "utf-8",
    )
    catalog = tmp_path / "ui.po"
    catalog.write_text(f'msgid "Vietnamese"\nmsgstr "{DAMAGED}"\n', encoding="utf-8")
    found = check_text_files([page, catalog])
    assert {(f.file.name, f.line, f.rule) for f in found} == {("page.md", 9, "MR140"), ("ui.po", 2, "MR140")}


def test_the_project_is_clean() -> None:
    from metrics_registry.api import registry_paths
    from metrics_registry.textfiles import project_text_files

    files = [*registry_paths(include_configured=True), *project_text_files(ROOT)]
    assert len(files) > 10
    assert check_text_files(files) == []


def test_the_damaged_seed_would_be_caught(tmp_path: Path) -> None:
    seed = next((FIXTURES / "encoding").glob("*mojibake*"))
    copy = tmp_path / "notes.md"
    shutil.copy(seed, copy)
    assert len(check_text_files([copy])) > 50

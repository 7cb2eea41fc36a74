"""``new``: the skeleton lands in the right file, comments and order survive."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from metrics_registry import validate
from metrics_registry.scaffold import ScaffoldError, add_metric


@pytest.fixture
def family_file(tmp_path: Path, valid_file: Path) -> Path:
    path = tmp_path / "toy.yaml"
    shutil.copy(valid_file, path)
    return path


def test_new_appends_and_keeps_everything_else(family_file: Path) -> None:
    before = family_file.read_text(encoding="utf-8")
    line = add_metric(family_file, "toy/new_metric")
    after = family_file.read_text(encoding="utf-8")
    assert after.startswith(before)  # comments, order, quoting: byte for byte
    assert after.splitlines()[line - 1] == "  - key: toy/new_metric"
    backup = family_file.with_name("toy.yaml.bak")
    assert backup.read_text(encoding="utf-8") == before


def test_skeleton_fails_validation_until_filled_in(family_file: Path) -> None:
    add_metric(family_file, "toy/new_metric")
    _registry, findings = validate([family_file], builtin=False)
    assert {f.key for f in findings} == {"toy/new_metric"}
    assert all(f.is_error for f in findings)


def test_filled_in_skeleton_still_flags_todo_text(family_file: Path) -> None:
    add_metric(family_file, "toy/new_metric", backup=False)
    text = family_file.read_text(encoding="utf-8")
    text = text.replace("TODO-category", "kl").replace("TODO-unit", "nats")
    family_file.write_text(text, encoding="utf-8")
    _registry, findings = validate([family_file], builtin=False)
    assert {f.rule for f in findings} == {"MR119"}


def test_existing_key_or_alias_is_refused(family_file: Path) -> None:
    before = family_file.read_text(encoding="utf-8")
    with pytest.raises(ScaffoldError, match="already exists"):
        add_metric(family_file, "toy/kl_alias")
    with pytest.raises(ScaffoldError, match="not a valid key"):
        add_metric(family_file, "toy/{Bad")
    assert family_file.read_text(encoding="utf-8") == before
    assert not family_file.with_name("toy.yaml.bak").exists()


def test_broken_yaml_is_not_rewritten(tmp_path: Path) -> None:
    broken = tmp_path / "b.yaml"
    shutil.copy(Path(__file__).parent / "fixtures" / "broken" / "yaml_syntax.yaml", broken)
    with pytest.raises(ScaffoldError, match="fix it first"):
        add_metric(broken, "x/y")


def test_family_that_classifies_metrics_gets_computable(tmp_path: Path) -> None:
    from metrics_registry.config import builtin_paths

    grpo = next(p for p in builtin_paths() if p.name == "grpo.yaml")
    copy = tmp_path / "grpo.yaml"
    shutil.copy(grpo, copy)
    line = add_metric(copy, "completions/new_stat", backup=False)
    block = copy.read_text(encoding="utf-8").splitlines()[line - 1 :]
    assert "    computable: true" in block  # so validate asks for a reference and an example

"""Cross-entry checks that need more than one file or entry."""

from __future__ import annotations

from pathlib import Path

from metrics_registry import validate
from metrics_registry.checks import latex_problem


def _variant(tmp_path: Path, valid_file: Path, name: str, old: str, new: str) -> Path:
    text = valid_file.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_same_key_in_two_families_is_allowed(tmp_path: Path, valid_file: Path) -> None:
    other = _variant(tmp_path, valid_file, "other.yaml", "id: toy\n", "id: toy-two\n")
    registry, findings = validate([valid_file, other], builtin=False)
    assert findings == []
    assert len(registry.find("toy/kl")) == 2


def test_duplicate_family(tmp_path: Path, valid_file: Path) -> None:
    copy = _variant(tmp_path, valid_file, "copy.yaml", "title: Toy trainer", "title: Toy copy")
    _registry, findings = validate([valid_file, copy], builtin=False)
    assert [(f.rule, f.file, f.line) for f in findings] == [("MR111", copy, 5)]


def test_one_sided_replacement_is_a_warning(tmp_path: Path, valid_file: Path) -> None:
    legacy = _variant(tmp_path, valid_file, "legacy.yaml", "id: toy\n", "id: toy-old\n")
    legacy = _variant(
        tmp_path,
        legacy,
        "legacy.yaml",
        "    see_also:\n      - toy/reward",
        "    replaced_by:\n      - toy:toy/kl\n    see_also:\n      - toy/reward",
    )
    _registry, findings = validate([valid_file, legacy], builtin=False)
    assert [(f.rule, f.severity, f.key) for f in findings] == [("MR115", "warning", "toy/kl")]
    assert "add 'toy-old:toy/kl' to replaces of 'toy:toy/kl'" in findings[0].fix


def test_versions_outside_family(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(tmp_path, valid_file, "v.yaml", 'introduced: "1.1"', 'introduced: "0.5"')
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.line) for f in findings] == [("MR116", 48)]


def test_duplicate_rule_id_and_self_reference(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(tmp_path, valid_file, "r.yaml", "      - id: finite\n", "      - id: non-negative\n")
    path = _variant(tmp_path, path, "r.yaml", "      - toy/kl\n", "      - toy/reward/{name}/mean\n")
    _registry, findings = validate([path], builtin=False)
    assert sorted((f.rule, f.line) for f in findings) == [("MR117", 35), ("MR120", 61)]


def test_anchor_collision(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(
        tmp_path, valid_file, "a.yaml", "  - key: toy/reward/{name}/mean  # templated", "  - key: toy-kl"
    )
    path = _variant(tmp_path, path, "a.yaml", "      - toy/reward/{name}/mean\n", "      - toy-kl\n")
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.key) for f in findings] == [("MR118", "toy-kl")]


def test_latex_problem() -> None:
    assert latex_problem(r"\left( x \right)") is None
    assert latex_problem(r"\{ x \}") is None
    assert latex_problem("x}") == "a '}' closes a group that was never opened"
    assert latex_problem(r"\left( x") == "1 \\left but 0 \\right"
    assert "without math delimiters" in latex_problem("$x$")

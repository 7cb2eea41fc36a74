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


def test_a_new_framework_is_named_by_its_family_file(tmp_path: Path, valid_file: Path) -> None:
    """A fourth framework is data: its family file spells the project's name, no code does."""
    roll = _variant(
        tmp_path, valid_file, "roll.yaml", "  eval_prefix: eval_\n", "  versions_of: roll\n  project: ROLL\n"
    )
    registry, findings = validate([roll], builtin=False)
    assert findings == []
    assert registry.framework_label("roll") == "ROLL"
    entry = registry.lookup("toy/kl").entry
    assert entry.version_text() == "ROLL 1.0 and later"
    unnamed = _variant(
        tmp_path, valid_file, "unnamed.yaml", "  eval_prefix: eval_\n", "  versions_of: roll\n"
    )
    registry, _ = validate([unnamed], builtin=False)
    assert registry.framework_label("roll") == "roll"  # the id, until a family names it


def test_families_of_one_project_agree_on_its_name(tmp_path: Path, valid_file: Path) -> None:
    first = _variant(
        tmp_path, valid_file, "a.yaml", "  eval_prefix: eval_\n", "  versions_of: roll\n  project: ROLL\n"
    )
    second = _variant(tmp_path, first, "b.yaml", "id: toy\n", "id: toy-two\n")
    second.write_text(
        second.read_text(encoding="utf-8").replace("project: ROLL", "project: Roll"), encoding="utf-8"
    )
    _registry, findings = validate([first, second], builtin=False)
    assert [(f.rule, f.file, f.line, f.field) for f in findings] == [("MR121", second, 10, "family.project")]
    assert "write project: ROLL" in findings[0].fix


def test_a_project_name_is_plain_text(tmp_path: Path, valid_file: Path) -> None:
    for name in ("'<b>ROLL</b>'", "'[ROLL](javascript:alert(1))'", "'ROLL '", "''"):
        bad = _variant(tmp_path, valid_file, "bad.yaml", "  eval_prefix: eval_\n", f"  project: {name}\n")
        _registry, findings = validate([bad], builtin=False)
        assert "MR104" in [f.rule for f in findings], name

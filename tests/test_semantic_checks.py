"""Validation of concepts, known issues and rule conditions in registry files, with lines."""

from __future__ import annotations

from pathlib import Path

from metrics_registry import validate


def _variant(tmp_path: Path, valid_file: Path, old: str, new: str) -> Path:
    text = valid_file.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _line(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_the_fixture_uses_every_new_field_cleanly(valid_file: Path) -> None:
    registry, findings = validate([valid_file], builtin=False)
    assert findings == []
    metric = registry.lookup("toy/reward/a/mean").entry.metric
    assert metric.concept == "raw-reward"
    assert metric.known_issues[0].when[0].text() == "num_workers > 1"
    assert metric.healthy[0].applies_when is not None and metric.healthy[0].except_when is not None


def test_unknown_concept(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(tmp_path, valid_file, "concept: raw-reward", "concept: raw-rewards")
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.line, f.key, f.field) for f in findings] == [
        ("MR160", _line(path, "concept: raw-rewards"), "toy/reward/{name}/mean", "concept")
    ]
    assert "did you mean 'raw-reward'?" in findings[0].fix


def test_a_concept_id_that_is_no_id_is_an_invalid_value(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(tmp_path, valid_file, "concept: raw-reward", 'concept: "<script>alert(1)</script>"')
    _registry, findings = validate([path], builtin=False)
    line = _line(path, "concept: ")
    assert ("MR104", line) in [(f.rule, f.line) for f in findings]
    assert {f.rule for f in findings} <= {"MR104", "MR150"}  # the markup check sees the tags as well


def test_known_issue_link_must_be_https(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(tmp_path, valid_file, "url: https://example.org/toy/issues/1", "url: javascript:alert(1)")
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.line, f.field) for f in findings] == [
        ("MR104", _line(path, "url: javascript"), "known_issues[0].url")
    ]
    assert "https://" in findings[0].message


def test_known_issue_outside_the_metric_releases(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(
        tmp_path,
        valid_file,
        'affects: {introduced: "1.1", removed: "1.3"}',
        'affects: {introduced: "0.1", removed: "0.3"}',
    )
    path = _variant(tmp_path, path, 'fixed_in: "1.3"', 'fixed_in: "0.3"')
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.severity, f.line) for f in findings] == [("MR162", "warning", _line(path, "affects:"))]


def test_rule_condition_outside_the_metric_releases(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(
        tmp_path, valid_file, 'versions: {introduced: "1.2"}', 'versions: {introduced: "0.2", removed: "0.5"}'
    )
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.field) for f in findings] == [("MR162", "healthy[0].applies_when.versions")]
    assert findings[0].line == _line(path, 'versions: {introduced: "0.2"')


def test_typos_in_new_fields_name_the_right_field(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(tmp_path, valid_file, "        effect: inflated", "        efect: inflated")
    _registry, findings = validate([path], builtin=False)
    unknown = [f for f in findings if f.rule == "MR102"]
    assert [(f.line, f.field) for f in unknown] == [(_line(path, "efect:"), "known_issues[0].efect")]
    assert "did you mean 'effect'?" in unknown[0].fix
    path = _variant(
        tmp_path, valid_file, "            - {option: scale, op:", "            - {opton: scale, op:"
    )
    _registry, findings = validate([path], builtin=False)
    assert any(f.rule == "MR102" and "did you mean 'option'?" in f.fix for f in findings)


def test_bad_condition_operator_is_an_invalid_value(tmp_path: Path, valid_file: Path) -> None:
    path = _variant(
        tmp_path,
        valid_file,
        '{option: num_workers, op: ">", value: 1}',
        '{option: num_workers, op: ">", value: [1, 2]}',
    )
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.line) for f in findings] == [("MR104", _line(path, "option: num_workers"))]


def test_shipped_registry_has_no_finding_of_these_rules() -> None:
    _registry, findings = validate()
    assert [f for f in findings if f.rule in {"MR160", "MR161", "MR162"}] == []

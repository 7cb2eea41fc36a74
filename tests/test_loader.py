"""The loader and checks on real broken files: each finding's rule, file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry import validate
from metrics_registry.loader import load_file

BROKEN = Path(__file__).parent / "fixtures" / "broken"

# file -> (rule, line, metric key, field) of the finding the damage must produce
EXPECTED = {
    "yaml_syntax.yaml": ("MR100", 5, None, None),
    "duplicate_field.yaml": ("MR101", 5, None, None),
    "python_tag.yaml": ("MR100", 2, None, None),
    "no_modeline.yaml": ("MR105", 1, None, None),
    "unknown_field.yaml": ("MR102", 27, "toy/kl", "crucal"),
    "missing_field.yaml": ("MR103", 13, "toy/kl", "title"),
    "invalid_enum.yaml": ("MR104", 26, "toy/kl", "unit"),
    "two_sentences.yaml": ("MR104", 18, "toy/kl", "summary"),
    "bad_rule.yaml": ("MR104", 31, "toy/kl", "healthy[0]"),
    "bad_versions.yaml": ("MR104", 48, "toy/reward/{name}/mean", "versions"),
    "duplicate_key.yaml": ("MR110", 47, "toy/kl", "key"),
    "duplicate_alias.yaml": ("MR110", 49, "toy/reward/{name}/mean", "aliases[0]"),
    "dangling_see_also.yaml": ("MR112", 46, "toy/kl", "see_also[0]"),
    "dangling_family.yaml": ("MR112", 61, "toy/reward/{name}/mean", "see_also[0]"),
    "dangling_replaced_by.yaml": ("MR112", 46, "toy/kl", "replaced_by[0]"),
    "malformed_template.yaml": ("MR113", 47, "toy/reward/{Reward Name/mean", "key"),
    "unbalanced_latex.yaml": ("MR114", 21, "toy/kl", "formula"),
    "unbalanced_inline_math.yaml": ("MR114", 19, "toy/kl", "details"),
    "todo_left.yaml": ("MR119", 53, "toy/reward/{name}/mean", "details"),
}


def test_every_broken_fixture_has_an_expectation() -> None:
    assert sorted(p.name for p in BROKEN.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_reports_rule_file_and_line(name: str) -> None:
    rule, line, key, field = EXPECTED[name]
    path = BROKEN / name
    _registry, findings = validate([path], builtin=False)
    matching = [f for f in findings if f.rule == rule]
    assert matching, f"{name}: expected {rule}, got {[f.format() for f in findings]}"
    finding = matching[0]
    assert finding.file == path.resolve()
    assert finding.line == line
    assert finding.key == key
    assert finding.field == field
    assert finding.is_error
    assert finding.fix  # every finding says how to fix it
    assert f"{path.resolve()}:{line}" in finding.format()


def test_valid_fixture_has_no_findings(valid_file: Path) -> None:
    registry, findings = validate([valid_file], builtin=False)
    assert findings == []
    assert [e.key for e in registry] == ["toy/kl", "toy/reward/{name}/mean"]


def test_unknown_field_suggests_the_closest_name() -> None:
    _registry, findings = validate([BROKEN / "unknown_field.yaml"], builtin=False)
    assert "did you mean 'crucial'?" in findings[0].fix


def test_python_tag_is_never_executed(tmp_path: Path) -> None:
    marker = Path("/tmp/metrics-registry-pwned")
    marker.unlink(missing_ok=True)
    loaded = load_file(BROKEN / "python_tag.yaml")
    assert loaded.raw is None
    assert not marker.exists()


def test_one_broken_entry_does_not_hide_its_family() -> None:
    # The invalid 'toy/kl' is reported once; the other entry still loads and
    # its reference to the broken one is not reported a second time.
    registry, findings = validate([BROKEN / "invalid_enum.yaml"], builtin=False)
    assert [e.key for e in registry] == ["toy/reward/{name}/mean"]
    assert [f.rule for f in findings] == ["MR104"]


def test_unreadable_file_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("family: caf\xe9\n".encode("latin-1"))
    loaded = load_file(path)
    assert [f.rule for f in loaded.findings] == ["MR106"]
    missing = load_file(tmp_path / "nope.yaml")
    assert [f.rule for f in missing.findings] == ["MR106"]


def test_empty_metrics_list(tmp_path: Path, valid_file: Path) -> None:
    text = valid_file.read_text(encoding="utf-8")
    path = tmp_path / "empty.yaml"
    path.write_text(text[: text.index("metrics:")] + "metrics: []\n", encoding="utf-8")
    loaded = load_file(path)
    assert [(f.rule, f.field) for f in loaded.findings] == [("MR104", "metrics")]


def test_byte_order_mark_is_not_text(tmp_path: Path, valid_file: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + valid_file.read_bytes())
    assert load_file(path).findings == []


def test_aliases_used_sparingly_still_load(tmp_path: Path, valid_file: Path) -> None:
    # an anchor reused a few times is legitimate YAML; only runaway expansion is refused
    text = valid_file.read_text(encoding="utf-8")
    text = text.replace("modes: [train, eval]", "modes: &both [train, eval]", 1)
    text = text.replace("    unit: reward\n", "    unit: reward\n    modes: *both\n", 1)
    path = tmp_path / "anchors.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_file(path)
    assert loaded.findings == []
    assert [metric.modes for _, metric in loaded.metrics][1] == ["train", "eval"]


@pytest.mark.parametrize("depth", [64, 65])
def test_nesting_limit_is_exact(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("family: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n", encoding="utf-8")
    rules = {f.rule for f in load_file(path).findings}
    assert ("MR107" in rules) == (depth > 64)


def test_oversized_file_is_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from metrics_registry import loader

    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.yaml"
    path.write_text("family: x\n" * 20, encoding="utf-8")
    [finding] = load_file(path).findings
    assert finding.rule == "MR107"
    assert "over the limit of 100" in finding.message

"""`metrics-registry i18n domain-model`: the encoding repair's word counts follow the translations."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from metrics_registry.cli import cli
from metrics_registry.encoding.domain import DomainModel
from metrics_registry.i18n.field_counts import field_counts, write_field_counts

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_counts_follow_the_translations() -> None:
    result = CliRunner().invoke(cli, ["i18n", "domain-model", "--check", "--root", str(ROOT)])
    assert result.exit_code == 0, result.output


def test_a_new_translation_changes_the_counts_and_check_says_so(project: Path, tmp_path: Path) -> None:
    catalog = project / "i18n" / "zh" / "LC_MESSAGES" / "ui.po"
    before = field_counts(project)
    text = catalog.read_text(encoding="utf-8")
    catalog.write_text(text + '\nmsgid "Tokens"\nmsgstr "蝌蚪蝌蚪蝌蚪"\n', encoding="utf-8")
    after = field_counts(project)
    assert before.unigrams["蝌蚪"] == 0 and after.unigrams["蝌蚪"] == 3
    assert after.bigrams[("蝌蚪", "蝌蚪")] == 2

    target = tmp_path / "zh-domain.json"
    assert write_field_counts(project, target) == (target, True)
    assert write_field_counts(project, target) == (target, False)  # nothing to do the second time
    assert DomainModel.read(target).unigrams == after.unigrams


def test_fuzzy_translations_are_left_out(project: Path) -> None:
    catalog = project / "i18n" / "zh" / "LC_MESSAGES" / "ui.po"
    text = catalog.read_text(encoding="utf-8")
    catalog.write_text(text + '\n#, fuzzy\nmsgid "Stale"\nmsgstr "鸵鸟鸵鸟"\n', encoding="utf-8")
    assert "鸵鸟" not in field_counts(project).unigrams


def test_the_encoding_page_is_not_the_fields_prose(project: Path) -> None:
    """It quotes the readings the repair must avoid (位于 for 低于) as examples."""
    pages = project / "docs" / "zh" / "tools"
    pages.mkdir(parents=True, exist_ok=True)
    (pages / "repairing-encoding.md").write_text("# 修复\n\n鸵鸟不是蝌蚪。\n", encoding="utf-8")
    (pages / "other.md").write_text("# 其他\n\n蝌蚪游泳。\n", encoding="utf-8")
    counts = field_counts(project)
    assert counts.unigrams["蝌蚪"] == 1 and counts.unigrams["鸵鸟"] == 0

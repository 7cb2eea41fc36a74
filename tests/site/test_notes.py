"""An extension's damaged notes become a page: repaired by the encoding module at build time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from metrics_registry import Registry
from metrics_registry.encoding import word_ngrams
from metrics_registry.site.generate import generate_pages
from metrics_registry.site.notes import find_notes, shift_headings
from metrics_registry.textfiles import check_text_files

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "tests" / "fixtures" / "encoding" / "training-logs-enhancements.zh.mojibake.md"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "docs" / "en").mkdir(parents=True)
    (project / "docs" / "en" / "index.md").write_text("# Home\n", encoding="utf-8")
    notes = project / "extensions" / "notes"
    notes.mkdir(parents=True)
    shutil.copy(SEED, notes / "multiturn-grpo.zh.damaged.md")
    (notes / "multiturn-grpo.en.md").write_text("# Training logs\n\nEnglish notes.\n", encoding="utf-8")
    return project


def test_notes_are_repaired_and_their_reconstructions_listed(project: Path) -> None:
    (notes,) = find_notes(project)
    assert notes.family == "multiturn-grpo" and notes.original_lang == "zh"
    assert "本文档总结了对 GRPO 训练过程日志输出的增强功能" in notes.original
    assert 150 <= len(notes.spots) <= 200  # about 180 characters lost a byte (seeds/README.md)
    assert notes.text("en") == ("# Training logs\n\nEnglish notes.\n", True)
    assert notes.text("vi") == (notes.original, False)


def test_pages_in_each_language(project: Path, registry: Registry, tmp_path: Path) -> None:
    pages = {}
    for lang in ("zh", "en", "vi"):
        generate_pages(registry, project, tmp_path / lang, lang=lang)
        pages[lang] = tmp_path / lang / "notes" / "multiturn-grpo.md"
    zh = pages["zh"].read_text(encoding="utf-8")
    assert "## Training Logs Enhancements" in zh  # the notes' title sits under the page's
    assert check_text_files([pages["zh"]]) == []  # no mojibake left
    assert zh.count("\n| ") > 150  # one row per reconstructed character, plus the header
    assert "English notes." in pages["en"].read_text(encoding="utf-8")
    vi = pages["vi"].read_text(encoding="utf-8")
    assert "!!! warning" in vi and "本文档总结了" in vi  # no Vietnamese notes: the original, announced


def test_shift_headings_leaves_code_alone() -> None:
    text = "# Title\n\n```\n# not a heading\n```\n\n## Sub\n"
    assert shift_headings(text) == "## Title\n\n```\n# not a heading\n```\n\n### Sub\n"


@pytest.mark.system("libime-data-language-model")
def test_the_page_says_whether_the_word_model_weighed_the_lines(
    project: Path, registry: Registry, tmp_path: Path
) -> None:
    """Readers learn how far to trust the reconstructed characters: with the second pass or without."""
    generate_pages(registry, project, tmp_path / "with", lang="en")
    with word_ngrams.using(None):
        (notes,) = find_notes(project)
        generate_pages(registry, project, tmp_path / "without", lang="en")
    assert not notes.word_model
    page = "notes/multiturn-grpo.md"
    assert "weighed the whole line again" in (tmp_path / "with" / page).read_text(encoding="utf-8")
    assert "lacked the model" in (tmp_path / "without" / page).read_text(encoding="utf-8")
    assert find_notes(project)[0].word_model  # the model is installed for the tests (README)


def test_the_repair_is_kept_between_builds_and_redone_for_an_edited_file(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metrics_registry.site import notes as notes_module

    monkeypatch.setenv("METRICS_REGISTRY_CACHE", str(tmp_path / "cache"))
    (first,) = find_notes(project)
    notes_module._repair.cache_clear()  # a new build process: only the user's cache remains

    def no_repair(text: str) -> None:
        raise AssertionError("repaired again")

    monkeypatch.setattr(notes_module, "repair_with_findings", no_repair)
    (again,) = find_notes(project)
    assert (again.original, again.findings) == (first.original, first.findings)
    damaged = project / "extensions" / "notes" / "multiturn-grpo.zh.damaged.md"
    damaged.write_text(damaged.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    notes_module._repair.cache_clear()
    with pytest.raises(AssertionError, match="repaired again"):
        find_notes(project)

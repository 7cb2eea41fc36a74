"""Hand-written pages: revision markers, stamp, status and the notices on the site."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics_registry import Registry
from metrics_registry.cli import cli
from metrics_registry.i18n import I18nError
from metrics_registry.i18n.catalogs import status
from metrics_registry.i18n.pages import page_states, read_revision, revision_of, stamp
from metrics_registry.site.generate import generate_pages

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def docs_project(tmp_path: Path) -> Path:
    """English pages, a current Vietnamese translation of one and none of the other."""
    project = tmp_path / "project"
    (project / "i18n" / "vi" / "LC_MESSAGES").mkdir(parents=True)
    (project / "i18n" / "babel.cfg").write_text("", encoding="utf-8")
    english = project / "docs" / "en"
    (english / "contributing").mkdir(parents=True)
    (english / "index.md").write_text("# Home\n\nWelcome.\n", encoding="utf-8")
    (english / "contributing" / "translating.md").write_text("# Translating\n\nHow.\n", encoding="utf-8")
    vietnamese = project / "docs" / "vi"
    vietnamese.mkdir(parents=True)
    (vietnamese / "index.md").write_text("# Trang chủ\n\nChào mừng.\n", encoding="utf-8")
    stamp(vietnamese / "index.md", project)
    return project


def test_revision_is_the_git_blob_id(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Tiêu đề\n\nnội dung\n", encoding="utf-8")
    git = subprocess.run(["git", "hash-object", str(page)], capture_output=True, text=True, check=True)
    assert revision_of(page) == git.stdout.strip()


def test_stamp_records_the_revision_and_keeps_the_rest(docs_project: Path) -> None:
    page = docs_project / "docs" / "vi" / "index.md"
    text = page.read_text(encoding="utf-8")
    assert text.startswith("---\nsource_revision: ")
    assert text.endswith("# Trang chủ\n\nChào mừng.\n")
    assert read_revision(page) == revision_of(docs_project / "docs" / "en" / "index.md")
    assert page.with_name("index.md.bak").read_text(encoding="utf-8") == "# Trang chủ\n\nChào mừng.\n"
    stamp(page, docs_project)  # again: front matter updated in place, not duplicated
    assert page.read_text(encoding="utf-8").count("source_revision") == 1


def test_stamp_refuses_pages_without_an_english_original(docs_project: Path) -> None:
    orphan = docs_project / "docs" / "vi" / "orphan.md"
    orphan.write_text("# ?\n", encoding="utf-8")
    with pytest.raises(I18nError, match=r"no English page docs/en/orphan\.md"):
        stamp(orphan, docs_project)
    with pytest.raises(I18nError, match="not in docs/en/"):
        stamp(docs_project / "docs" / "en" / "index.md", docs_project)


def test_editing_the_english_makes_the_translation_outdated(docs_project: Path) -> None:
    states = {s.page: s.state for s in page_states(docs_project, "vi")}
    assert states == {"index.md": "translated", "contributing/translating.md": "missing"}
    english = docs_project / "docs" / "en" / "index.md"
    english.write_text("# Home\n\nWelcome, reader.\n", encoding="utf-8")
    states = {s.page: s.state for s in page_states(docs_project, "vi")}
    assert states["index.md"] == "fuzzy"
    pages = status(docs_project, ["vi"], templates={"registry": [], "ui": []})["vi"]["pages"]
    assert (pages.translated, pages.fuzzy, pages.missing) == (0, 1, 1)
    assert pages.fuzzy_contexts == ["docs/vi/index.md"]
    result = CliRunner().invoke(cli, ["i18n", "pages", "--root", str(docs_project), "--lang", "vi"])
    assert "vi  outdated    docs/vi/index.md" in result.output
    assert "vi  missing     docs/vi/contributing/translating.md" in result.output


def test_site_shows_outdated_and_missing_pages_with_a_notice(
    docs_project: Path, registry: Registry, tmp_path: Path
) -> None:
    (docs_project / "docs" / "en" / "index.md").write_text("# Home\n\nChanged.\n", encoding="utf-8")
    out = tmp_path / "vi"
    generate_pages(registry, docs_project, out, lang="vi")
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "Chào mừng." in index  # the translation, under a notice
    assert index.index("# Trang chủ") < index.index("!!! warning") < index.index("Chào mừng.")
    guide = (out / "contributing" / "translating.md").read_text(encoding="utf-8")
    assert "How." in guide and "!!! warning" in guide
    assert "](translating.md)" in guide  # the help link is relative to the page
    english = tmp_path / "en"
    generate_pages(registry, docs_project, english)
    assert "!!! warning" not in (english / "index.md").read_text(encoding="utf-8")

"""Catalogs applied to the registry and to the generated Markdown."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from metrics_registry import Registry
from metrics_registry.fileio import atomic_write_text
from metrics_registry.i18n.catalogs import read_catalog, render_po
from metrics_registry.i18n.translate import translate_registry
from metrics_registry.site.generate import generate_pages

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project's catalogs and docs where one Chinese entry and one label are untranslated."""
    shutil.copytree(ROOT / "i18n", tmp_path / "i18n")
    shutil.copytree(ROOT / "docs" / "en", tmp_path / "docs" / "en")
    for domain, context, msgid in (
        ("registry", "grpo:kl|details", None),
        ("ui", None, "Aggregation"),
    ):
        path = tmp_path / "i18n" / "zh" / "LC_MESSAGES" / f"{domain}.po"
        catalog = read_catalog(path)
        for message in catalog:
            if (context and message.context == context) or (msgid and message.id == msgid):
                message.string = ""
        atomic_write_text(path, render_po(catalog), backup=False)
    return tmp_path


def test_translate_registry_gives_text_and_status(registry: Registry, project: Path) -> None:
    zh = translate_registry(registry, "zh", project)
    kl = zh["grpo:kl"]
    assert kl["summary"].status == "translated" and "KL 散度" in kl["summary"].text
    assert kl["details"].status == "missing" and kl["details"].text == kl["details"].english
    assert any(path.startswith("healthy[") for path in kl)
    assert zh["grpo"]["title"].english == "GRPO"


def test_generated_chinese_page_translates_and_marks_fallbacks(registry: Registry, project: Path) -> None:
    generate_pages(registry, project, project / "zh", lang="zh")
    zh = translate_registry(registry, "zh", project)["grpo:kl"]
    page = (project / "zh" / "reference" / "grpo" / "kl.md").read_text(encoding="utf-8")
    kl = page.split("{ #kl }")[1]
    assert f"**{zh['title'].text}。** {zh['summary'].text}" in kl  # Chinese full stop, from the catalog
    assert '!!! warning "尚未翻译"' in kl  # the details are not translated in this copy
    assert zh["details"].english in kl
    assert "[帮助翻译](../../contributing/translating.md)" in kl
    # the label that fell back is in English (with the page's own colon), and announced once under the title
    assert "**Aggregation：**" in kl
    assert page.count('!!! info "') == 1


def test_english_pages_have_no_notices(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "en")
    reference = tmp_path / "en" / "reference"
    pages = [reference / "grpo.md", *(reference / "grpo").glob("*.md")]
    page = "\n".join(path.read_text(encoding="utf-8") for path in pages)
    assert "!!! warning" not in page and "!!! info" not in page
    assert "**Healthy values**" in page and "**Aggregation:**" in page


def test_ui_gettext_remembers_a_fallback_each_time_it_is_asked() -> None:
    """Lookups are kept per message; the fallbacks a page used are still recorded for every page."""
    from babel.messages.catalog import Catalog

    from metrics_registry.i18n.translate import UiTranslations

    catalog = Catalog(locale="vi")
    catalog.add("Home", "Trang chủ")
    catalog.add("Stale", "Cũ", flags=["fuzzy"])
    ui = UiTranslations("vi", catalog)
    for _ in range(2):  # the second page asks again, after the first page's notice cleared the list
        assert ui.gettext("Home") == "Trang chủ"
        assert ui.gettext("Stale") == "Stale"
        assert ui.gettext("Absent") == "Absent"
        assert ui.fallbacks == {"Stale": "fuzzy", "Absent": "missing"}
        ui.fallbacks.clear()

"""Catalogs applied to the registry and to the generated Markdown."""

from __future__ import annotations

from pathlib import Path

from metrics_registry import Registry
from metrics_registry.i18n.translate import translate_registry
from metrics_registry.site.generate import generate_pages

ROOT = Path(__file__).resolve().parents[2]


def test_translate_registry_gives_text_and_status(registry: Registry) -> None:
    zh = translate_registry(registry, "zh", ROOT)
    kl = zh["grpo:kl"]
    assert kl["summary"].status == "translated" and "KL 散度" in kl["summary"].text
    assert kl["details"].status == "missing" and kl["details"].text == kl["details"].english
    assert any(path.startswith("healthy[") for path in kl)
    assert zh["grpo"]["title"].english == "GRPO"


def test_generated_chinese_page_translates_and_marks_fallbacks(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT / "docs" / "en", tmp_path / "zh", lang="zh", i18n_root=ROOT)
    page = (tmp_path / "zh" / "reference" / "grpo.md").read_text(encoding="utf-8")
    kl = page.split("{ #kl }")[1].split("\n## ")[0]
    assert "**相对参考模型的 KL 散度.**" in kl
    assert '!!! warning "尚未翻译"' in kl  # details are not translated yet
    assert "[帮助翻译](../contributing/translating.md)" in kl
    assert "**聚合方式:**" in kl
    # UI strings that fell back are announced once, under the title
    assert page.count('!!! info "Some labels on this page are not translated yet') == 1


def test_english_pages_have_no_notices(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT / "docs" / "en", tmp_path / "en")
    page = (tmp_path / "en" / "reference" / "grpo.md").read_text(encoding="utf-8")
    assert "!!! warning" not in page and "!!! info" not in page
    assert "**Healthy values**" in page and "**Aggregation:**" in page

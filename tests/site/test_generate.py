"""Generated Markdown: one section per metric, with its anchor and facts."""

from __future__ import annotations

from pathlib import Path

from metrics_registry import Registry
from metrics_registry.site.generate import generate_pages

ROOT = Path(__file__).resolve().parents[2]


def test_family_page_sections(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "en")
    page = (tmp_path / "en" / "reference" / "grpo.md").read_text(encoding="utf-8")
    assert "## `kl` { #kl }" in page
    assert "`beta != 0.0`" in page or "beta" in page
    for entry in registry.in_family("grpo"):
        assert f"{{ #{entry.anchor} }}" in page
        assert entry.metric.summary in page


def test_cross_family_links_point_to_the_other_page(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "en")
    page = (tmp_path / "en" / "reference" / "legacy-ppo.md").read_text(encoding="utf-8")
    assert "(ppo.md#objective-kl)" in page


def test_chinese_pages_use_chinese_punctuation(registry: Registry, tmp_path: Path) -> None:
    """Labels, rule lines, lists and titles take the language's punctuation from the catalogs:
    "上游：", "（警告）：", "。", "、", never the ASCII the English template would put there."""
    generate_pages(registry, ROOT, tmp_path / "zh", lang="zh")
    page = (tmp_path / "zh" / "reference" / "grpo.md").read_text(encoding="utf-8")
    assert "**上游：**" in page and "**上游:**" not in page
    assert "（警告）：" in page and "(警告):" not in page
    assert "**仅在以下情况记录：**" in page
    titles = [line for line in page.splitlines() if line.startswith("**") and line.count("**") >= 2]
    assert titles and not any(line.split("**")[1].endswith(".") for line in titles)
    generate_pages(registry, ROOT, tmp_path / "en")
    english = (tmp_path / "en" / "reference" / "grpo.md").read_text(encoding="utf-8")
    assert "**Upstream:**" in english and "(warning): " in english

"""Generated Markdown: one section per metric, with its anchor and facts."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from metrics_registry import Registry
from metrics_registry.site.generate import front_matter, generate_pages
from metrics_registry.site.headings import find_headings

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
    assert "**记录条件：**" in page
    titles = [line for line in page.splitlines() if line.startswith("**") and line.count("**") >= 2]
    assert titles and not any(line.split("**")[1].endswith(".") for line in titles)
    generate_pages(registry, ROOT, tmp_path / "en")
    english = (tmp_path / "en" / "reference" / "grpo.md").read_text(encoding="utf-8")
    assert "**Upstream:**" in english and "(warning): " in english


def _front_matter(page: str) -> dict[str, object]:
    _, block, _ = page.split("---\n", 2)
    data = yaml.safe_load(block)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("lang", ["en", "vi", "zh"])
def test_titles_with_a_colon_make_valid_front_matter(registry: Registry, tmp_path: Path, lang: str) -> None:
    """The notes' title holds ": " (the bug printed the front matter as a heading); it is written by YAML."""
    generate_pages(registry, ROOT, tmp_path / lang, lang=lang)
    for page in (tmp_path / lang).rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        if not text.startswith("---\n"):
            continue
        meta = _front_matter(text)
        title = meta.get("title")
        if title is not None:  # a generated page: its title is its first heading
            heading = next(line for line in text.splitlines() if line.startswith("# "))
            assert heading.startswith(f"# {title} {{ #"), (page, title, heading)
    notes = _front_matter((tmp_path / lang / "notes" / "multiturn-grpo.md").read_text(encoding="utf-8"))
    assert (": " if lang != "zh" else "：") in str(notes["title"])


@pytest.mark.parametrize(
    "title",
    ["GRPO: notes", "a # comment?", "'quoted' \"twice\"", "line\n---\nbreak", "- [x] {y}: z", "yes", "1.10"],
)
def test_front_matter_keeps_any_title(title: str) -> None:
    text = front_matter(title=title)
    assert text.startswith("---\n") and text.endswith("\n---")
    assert yaml.safe_load(text.strip("-\n")) == {"title": title}


def test_chinese_titles_take_no_space_after_a_full_width_bracket(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "zh", lang="zh")
    titles = [
        _front_matter(page.read_text(encoding="utf-8"))["title"]
        for page in (tmp_path / "zh" / "reference").glob("*.md")
    ]
    bracketed = [str(title) for title in titles if "）" in str(title)]
    assert bracketed  # the legacy and multi-turn families have one
    assert not [title for title in bracketed if "） " in title or " （" in title]


def test_the_api_page_says_it_is_in_english(registry: Registry, tmp_path: Path) -> None:
    notices = {}
    for lang in ("en", "vi", "zh"):
        generate_pages(registry, ROOT, tmp_path / lang, lang=lang)
        page = (tmp_path / lang / "api.md").read_text(encoding="utf-8")
        notices[lang] = page.split("\n# ", 1)[1].split(":::", 1)[0]
    assert "!!! info" not in notices["en"]
    assert '!!! info "Bằng tiếng Anh"' in notices["vi"] and "docstring" in notices["vi"]
    assert '!!! info "英文内容"' in notices["zh"] and "文档字符串" in notices["zh"]


def test_hand_written_pages_share_their_heading_ids(registry: Registry, tmp_path: Path) -> None:
    ids = {}
    for lang in ("en", "vi", "zh"):
        generate_pages(registry, ROOT, tmp_path / lang, lang=lang)
        ids[lang] = {
            page.relative_to(tmp_path / lang).as_posix(): [
                h.explicit_id for h in find_headings(page.read_text(encoding="utf-8"))
            ]
            for page in (tmp_path / lang).rglob("*.md")
        }
    assert ids["en"]["tools/check-run.md"][:3] == [
        "checking-a-training-run",
        "what-it-reads",
        "how-keys-are-identified",
    ]
    for page, english in ids["en"].items():
        assert None not in english, page
        assert ids["vi"][page] == english == ids["zh"][page], page

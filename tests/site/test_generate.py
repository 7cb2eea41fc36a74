"""Generated Markdown: a page per metric, with its anchor and facts, and each family's index."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from metrics_registry import Registry
from metrics_registry.links import metric_markdown
from metrics_registry.site.generate import front_matter, generate_pages
from metrics_registry.site.headings import find_headings

ROOT = Path(__file__).resolve().parents[2]


def _metric_pages(docs: Path, family: str) -> str:
    """Every metric page of a family, one after the other (in key order)."""
    pages = sorted((docs / "reference" / family).glob("*.md"))
    return "\n".join(page.read_text(encoding="utf-8") for page in pages)


def test_every_metric_has_its_page_and_a_row_of_its_family_index(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "en")
    index = (tmp_path / "en" / "reference" / "grpo.md").read_text(encoding="utf-8")
    kl = (tmp_path / "en" / "reference" / "grpo" / "kl.md").read_text(encoding="utf-8")
    assert "# `kl` { #kl }" in kl and "`beta != 0.0`" in kl
    assert "[GRPO metrics](../grpo.md)" in kl  # back to the index
    entries = list(registry.in_family("grpo"))
    assert len(list((tmp_path / "en" / "reference" / "grpo").glob("*.md"))) == len(entries)
    for entry in entries:
        page = (tmp_path / "en" / metric_markdown(entry)).read_text(encoding="utf-8")
        assert f"{{ #{entry.anchor} }}" in page.split("\n# ", 1)[1].split("\n", 1)[0]
        assert entry.metric.summary in page
        # the old section's id, on the row's link to the page (old #anchor links land on it)
        link = f"[`{entry.key}`]({metric_markdown(entry).removeprefix('reference/')})"
        assert f"{link}{{ #{entry.anchor} .mr-metric-link }}" in index
        assert entry.metric.summary not in index  # the index is a table of titles, not the texts
    assert '<div class="mr-family-index" markdown data-search-exclude>' in index


def test_cross_family_links_point_to_the_other_page(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "en")
    assert "(../ppo/objective-kl.md)" in _metric_pages(tmp_path / "en", "legacy-ppo")
    guide = (tmp_path / "en" / "reading-a-run.md").read_text(encoding="utf-8")
    assert "(reference/grpo/kl.md)" in guide and "reference/grpo.md#" not in guide


def test_chinese_pages_use_chinese_punctuation(registry: Registry, tmp_path: Path) -> None:
    """Labels, rule lines, lists and titles take the language's punctuation from the catalogs:
    "上游：", "（警告）：", "。", "、", never the ASCII the English template would put there."""
    generate_pages(registry, ROOT, tmp_path / "zh", lang="zh")
    page = _metric_pages(tmp_path / "zh", "grpo")
    assert "**上游：**" in page and "**上游:**" not in page
    assert "（警告）：" in page and "(警告):" not in page
    assert "**仅在以下情况记录：**" in page
    titles = [line for line in page.splitlines() if line.startswith("**") and line.count("**") >= 2]
    assert titles and not any(line.split("**")[1].endswith(".") for line in titles)
    generate_pages(registry, ROOT, tmp_path / "en")
    english = _metric_pages(tmp_path / "en", "grpo")
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
            if page.parent.parent.name == "reference":  # a metric's page: "kl (GRPO)" over `kl`
                key = heading.split("`")[1]
                assert str(title).startswith(key), (page, title, heading)
            else:
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


def _section(docs: Path, registry: Registry, family: str, key: str) -> str:
    """The Markdown of the page of ``key``."""
    entry = registry.lookup(key, family=family).entry
    assert entry is not None
    return (docs / metric_markdown(entry)).read_text(encoding="utf-8")


def test_meaning_known_issues_reduction_and_concept_on_the_page(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "en")
    en = tmp_path / "en"
    ratio = _section(en, registry, "ppo", "val/ratio")
    assert '!!! bug "Known issue: the value is deflated in TRL ≥ 0.17.0, < 1.13.0"' in ratio
    assert "    Only with `num_mini_batches > 1` and `gradient_accumulation_steps > 1`." in ratio
    assert "[Tracker](https://github.com/huggingface/trl/pull/2531)" in ratio
    assert "**Concept:** *[Probability ratio](../../concepts/probability-ratio.md)*: " in ratio
    assert "1. *micro-batch*: mean. Plain mean over every response position, padding included." in ratio
    assert "2. *processes (ranks)*: gathered, reduced at a later stage." in ratio
    assert (
        "- *between 0.8 and 1.2* (not when TRL ≥ 0.17.0, < 1.13.0 and `num_mini_batches > 1` and"
        " `gradient_accumulation_steps > 1`) (warning):" in ratio
    )
    assert "Logged only when" not in ratio  # the old num_mini_batches "gate" is gone
    kl = _section(en, registry, "ppo", "objective/kl")
    assert "**What the value means depends on**" in kl
    assert '- `kl_estimator == "k3"`: Switches the per-token estimator' in kl
    assert "**Logged only when:**" not in kl
    assert "**Logged only when:** `beta != 0.0`" in _section(en, registry, "grpo", "kl")
    low = _section(en, registry, "grpo", "clip_ratio/low_mean")
    assert (
        "**Concept:** *[Clip fraction, low side](../../concepts/clip-fraction-low.md)*"
        " (a kind of *Clip fraction*): " in low
    )
    clip = _section(en, registry, "grpo", "clip_ratio")
    assert "Fixed in 0.17.0. [Tracker](https://github.com/huggingface/trl/issues/3032)" in clip


def test_new_blocks_are_translated(registry: Registry, tmp_path: Path) -> None:
    generate_pages(registry, ROOT, tmp_path / "zh", lang="zh")
    ratio = _section(tmp_path / "zh", registry, "ppo", "val/ratio")
    assert '!!! bug "已知问题：在 TRL ≥ 0.17.0, < 1.13.0 中数值偏低"' in ratio
    assert "**概念：** *[概率比率](../../concepts/probability-ratio.md)*：" in ratio
    assert "仅在 `num_mini_batches > 1` 且 `gradient_accumulation_steps > 1` 时出现。" in ratio
    assert "**归约过程（由内向外）**" in ratio
    assert "Known issue" not in ratio and "Reduction" not in ratio and "Not translated yet" not in ratio
    generate_pages(registry, ROOT, tmp_path / "vi", lang="vi")
    kl = _section(tmp_path / "vi", registry, "ppo", "objective/kl")
    assert "**Ý nghĩa của giá trị phụ thuộc vào**" in kl and "Chưa được dịch" not in kl


def test_fixture_family_renders_conditions_and_issue_details(valid_file: Path, tmp_path: Path) -> None:
    import metrics_registry

    toy = metrics_registry.load([valid_file])
    generate_pages(toy, ROOT, tmp_path / "en")
    page = _metric_pages(tmp_path / "en", "toy")
    assert "(only when TRL ≥ 1.2; not when `scale == True`)" in page
    assert '!!! bug "Known issue: the value is inflated in TRL ≥ 1.1, < 1.3"' in page
    assert "Only with `num_workers > 1`. Fixed in 1.3. [Tracker](https://example.org/toy/issues/1)" in page
    assert "2. *processes (ranks)*: token-weighted mean. Sums and counts added over processes." in page

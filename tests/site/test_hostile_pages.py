"""Hostile inputs of the page generator (tests/fixtures/hostile/pages/): a family title that YAML
front matter would read as syntax, and extension notes with odd headings and lists."""

from __future__ import annotations

import shutil
from pathlib import Path

import markdown
import pytest
import yaml

import metrics_registry
from metrics_registry.links import metric_markdown
from metrics_registry.site.generate import generate_pages
from metrics_registry.site.headings import find_headings

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "pages"
TITLE = "- Evil: \"quoted\" 'twice' # not a comment --- {x: [y]}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("hostile-pages")
    project = base / "project"
    shutil.copytree(CASES / "project", project)
    registry = metrics_registry.load([project / "extensions" / "hostile.yaml"])
    out = {}
    for lang in ("en", "vi"):
        generate_pages(registry, project, base / lang, lang=lang)
        out[lang] = base / lang
    return out


def _front_matter(page: Path) -> dict[str, object]:
    _, block, _ = page.read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(block)


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_title_stays_text(pages: dict[str, Path], lang: str) -> None:
    assert _front_matter(pages[lang] / "reference" / "hostile-title.md")["title"] == f"{TITLE} metrics"
    assert _front_matter(pages[lang] / "notes" / "hostile-title.md") == {"title": f"{TITLE}: source notes"}


def test_every_heading_of_the_notes_gets_a_unique_id(pages: dict[str, Path]) -> None:
    for lang in ("en", "vi"):
        headings = find_headings((pages[lang] / "notes" / "hostile-title.md").read_text(encoding="utf-8"))
        ids = [heading.explicit_id for heading in headings if heading.text]  # "#" alone has no text
        assert None not in ids and len(set(ids)) == len(ids), lang
    vi = (pages["vi"] / "notes" / "hostile-title.md").read_text(encoding="utf-8")
    assert len(find_headings(vi)) > 2000
    assert "- level 199" in vi  # the list nested 200 deep is kept, whatever its layout


def test_odd_lists_and_headings_render(pages: dict[str, Path]) -> None:
    text = (pages["en"] / "notes" / "hostile-title.md").read_text(encoding="utf-8")
    html = markdown.markdown(text.split("---\n", 2)[2], extensions=["attr_list", "toc", "fenced_code"])
    assert "<li>one</li>" in html and "<li>nested by three spaces" in html
    assert "# not a heading\n- not a list item" in html  # the fenced code, as it was
    assert 'id="same"' in html and 'id="same_1"' in html
    assert 'id="ends-with-hashes"' in html and "##</h" not in html


def test_keys_that_cannot_name_a_page_get_one_of_their_own(pages: dict[str, Path]) -> None:
    """``index`` would overwrite the family index's page; ``-.-`` has an empty anchor."""
    registry = metrics_registry.load([CASES / "project" / "extensions" / "hostile.yaml"])
    entries = {entry.key: entry for entry in registry.in_family("hostile-title")}
    assert entries["-.-"].anchor == ""
    for lang in ("en", "vi"):
        folder = pages[lang] / "reference" / "hostile-title"
        names = sorted(path.name for path in folder.glob("*.md"))
        assert len(names) == len(entries) and "index.md" not in names, names
        assert "index-.md" in names and "evil-metric.md" in names
        for entry in entries.values():
            page = (pages[lang] / metric_markdown(entry)).read_text(encoding="utf-8")
            assert f"# `{entry.key}`" in page
        index = (pages[lang] / "reference" / "hostile-title.md").read_text(encoding="utf-8")
        html = markdown.markdown(index.split("---\n", 2)[2], extensions=["attr_list", "tables", "md_in_html"])
        table = html[html.index("<table>") : html.index("</table>")]
        assert 'id=""' not in table and "{" not in table  # no empty id, no attribute list left as text
        for entry in entries.values():
            assert f'href="{metric_markdown(entry).removeprefix("reference/")}"' in table

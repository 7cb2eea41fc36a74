"""A real MkDocs build of the site from the registry."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from xml.etree import ElementTree

import material as mkdocs_material
import pytest

from metrics_registry import Registry
from metrics_registry.links import metric_page
from metrics_registry.site.build import BuildError, build_site
from metrics_registry.site.search import MATERIAL_LUNR_VI

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("en", "vi", "zh")
SITEMAP = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}


def test_every_metric_has_its_page_and_its_old_anchor_on_its_family_index(
    site: Path, registry: Registry
) -> None:
    """reference/<family>/#<anchor> (the old section) lands on the row that links to the page."""
    for family in registry.families:
        html = (site / "en" / "reference" / family / "index.html").read_text(encoding="utf-8")
        links = re.findall(r'<a class="mr-metric-link" href="([^"]+)" id="([^"]+)"', html)
        rows = {anchor: href for href, anchor in links}
        for entry in registry.in_family(family):
            assert rows.get(entry.anchor) == metric_page(entry).removeprefix(f"reference/{family}/"), entry.id
            page = (site / "en" / metric_page(entry) / "index.html").read_text(encoding="utf-8")
            assert f'<h1 id="{entry.anchor}">' in page, entry.id
        assert "<h2 " not in html.split("<article", 1)[1].split("</article>")[0]  # no sections left


def test_family_page_has_its_summary_table(site: Path) -> None:
    html = (site / "en" / "reference" / "ppo" / "index.html").read_text(encoding="utf-8")
    assert "<table>" in html
    assert "| Key |" not in html  # a table that failed to render shows its pipes


def test_index_lists_every_metric(site: Path, registry: Registry) -> None:
    html = (site / "en" / "metrics" / "index.html").read_text(encoding="utf-8")
    for entry in registry:
        assert f'href="../{metric_page(entry)}"' in html


def test_machine_readable_files_are_published(site: Path, registry: Registry) -> None:
    exported = json.loads((site / "metrics.json").read_text(encoding="utf-8"))
    assert len(exported["metrics"]) == len(registry)
    assert json.loads((site / "schema.json").read_text(encoding="utf-8"))["title"]
    root = (site / "index.html").read_text(encoding="utf-8")
    assert '<a href="vi/" hreflang="vi">' in root and '<a href="zh/" hreflang="zh-Hans">' in root
    for lang in LANGUAGES:  # also next to each language's pages, which link to them
        assert json.loads((site / lang / "metrics.json").read_text(encoding="utf-8")) == exported


def test_every_export_is_published(site: Path, registry: Registry) -> None:
    rename_map = json.loads((site / "rename-map.json").read_text(encoding="utf-8"))
    assert rename_map
    wandb = json.loads((site / "wandb-define-metric.json").read_text(encoding="utf-8"))
    assert wandb
    namespace: dict[str, object] = {}
    exec(compile((site / "metrics_registry_keys.py").read_text(encoding="utf-8"), "keys", "exec"), namespace)
    assert len([name for name in namespace if name.isupper()]) > 50
    exported = json.loads((site / "metrics.json").read_text(encoding="utf-8"))
    kl = next(m for m in exported["metrics"] if m["id"] == "grpo:kl")
    assert kl["translations"]["zh"]["summary"]["status"] == "translated"


def test_no_request_to_google_fonts(site: Path) -> None:
    html = (site / "en" / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" not in html


def test_every_language_has_every_page(site: Path) -> None:
    pages = {
        lang: {p.relative_to(site / lang) for p in (site / lang).rglob("index.html")} for lang in LANGUAGES
    }
    assert pages["en"] == pages["vi"] == pages["zh"]
    assert len(pages["en"]) > 10


def test_pages_declare_their_language_and_page_level_alternates(site: Path, base_url: str) -> None:
    """hreflang alternates live in the sitemaps: a <link rel="alternate"> in a page makes Material
    fetch a sitemap.xml next to it, which does not exist (the failed requests of issue 19)."""
    for lang, hreflang in (("en", "en"), ("vi", "vi"), ("zh", "zh")):
        html = (site / lang / "reference" / "grpo" / "index.html").read_text(encoding="utf-8")
        assert f'<html lang="{hreflang}"' in html
        assert '<link rel="alternate"' not in html.split("</head>")[0]
        # the switcher goes to the same page in the other language
        assert 'href="../../../zh/reference/grpo/" hreflang="zh-Hans"' in html
        sitemap = ElementTree.parse(site / lang / "sitemap.xml").getroot()
        urls = sitemap.findall("sm:url", SITEMAP)
        assert len(urls) == len(list((site / lang).rglob("index.html")))
        for url in urls:
            page = url.findtext("sm:loc", namespaces=SITEMAP).removeprefix(f"{base_url}{lang}/")
            links = {link.get("hreflang"): link.get("href") for link in url.findall("xhtml:link", SITEMAP)}
            assert links == {
                "en": f"{base_url}en/{page}",
                "vi": f"{base_url}vi/{page}",
                "zh-Hans": f"{base_url}zh/{page}",
                "x-default": f"{base_url}en/{page}",
            }


def test_each_language_has_its_404_page_and_sitemap(site: Path, base_url: str) -> None:
    for lang in LANGUAGES:
        assert f'<html lang="{lang}"' in (site / lang / "404.html").read_text(encoding="utf-8")
        sitemap = (site / lang / "sitemap.xml").read_text(encoding="utf-8")
        assert f"<loc>{base_url}{lang}/reference/grpo/</loc>" in sitemap
    index = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert all(f"<loc>{base_url}{lang}/sitemap.xml</loc>" in index for lang in LANGUAGES)
    assert "404.html" in (site / "404.html").read_text(encoding="utf-8")


def test_no_page_loads_anything_from_another_host(site: Path, base_url: str) -> None:
    loaded = re.compile(r'<(?:script|link|img|iframe)\b[^>]*?\b(?:src|href)="(https?://[^"]+)"')
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        for url in loaded.findall(html):
            assert url.startswith(base_url), f"{path.relative_to(site)} loads {url}"


def test_formulas_come_with_a_local_katex(site: Path) -> None:
    for lang in LANGUAGES:
        assert (site / lang / "assets" / "katex" / "katex.min.js").exists()
        assert any((site / lang / "assets" / "katex" / "fonts").glob("*.woff2"))
        html = (site / lang / "reference" / "ppo" / "objective-kl" / "index.html").read_text(encoding="utf-8")
        assert 'src="../../../assets/katex/katex.min.js"' in html
        assert '<div class="arithmatex">' in html


def test_vietnamese_search_loads_the_folding_wrapper(site: Path) -> None:
    """Material's search worker loads lunr/min/lunr.<lang>.min.js: for Vietnamese, the project's
    wrapper (diacritics folded), with Material's own file next to it."""
    index = json.loads((site / "vi" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert index["config"]["lang"] == ["vi"]
    lunr = site / "vi" / "assets" / "javascripts" / "lunr" / "min"
    assert (lunr / "lunr.vi.min.js").read_bytes() == (
        ROOT / "docs" / MATERIAL_LUNR_VI.parent / "lunr.vi.min.js"
    ).read_bytes()
    material = Path(mkdocs_material.__file__).parent / "templates" / "assets" / "javascripts" / "lunr" / "min"
    assert (site / "vi" / MATERIAL_LUNR_VI).read_bytes() == (material / "lunr.vi.min.js").read_bytes()
    assert "lunr.vi.material.min.js" in (lunr / "lunr.vi.min.js").read_text(encoding="utf-8")


def test_chinese_search_index_is_segmented(site: Path) -> None:
    index = json.loads((site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert r"\u200b" in index["config"]["separator"]  # jieba's segments are split on zero-width spaces
    assert any("\u200b熵" in doc["text"] or "熵\u200b" in doc["text"] for doc in index["docs"])


def test_metric_sections_show_reference_source_and_worked_example(site: Path) -> None:
    page = site / "en" / "reference" / "grpo" / "completions-mean_length" / "index.html"
    html = page.read_text(encoding="utf-8")
    section = html.split('id="completions-mean_length"')[1].split("</article>")[0]
    assert "Reference implementation" in section and "completion_length_stats" in section
    assert "Worked example" in section and "25.0" in section
    assert 'href="../../../api/#metrics_registry.reference.lengths.completion_length_stats"' in section
    api = (site / "en" / "api" / "index.html").read_text(encoding="utf-8")
    assert 'id="metrics_registry.reference.lengths.completion_length_stats"' in api


def test_guides_are_generated_in_every_language(site: Path, registry: Registry) -> None:
    crucial = [e for e in registry if e.metric.crucial]
    for lang in LANGUAGES:
        guide = (site / lang / "reading-a-run" / "index.html").read_text(encoding="utf-8")
        assert all(f'id="{e.family.id}-{e.anchor}"' in guide for e in crucial)
        names = (site / lang / "legacy-names" / "index.html").read_text(encoding="utf-8")
        assert "ppo/policy/approxkl" in names and "policy/approxkl_avg" in names


def test_broken_link_fails_the_build(registry: Registry, tmp_path: Path) -> None:
    project = _project_skeleton(tmp_path)
    (project / "docs" / "en" / "index.md").write_text("# Home\n\n[gone](nowhere.md)\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"nowhere\.md"):
        build_site(
            registry, output=tmp_path / "out", project_root=project, work=tmp_path / "work", languages=("en",)
        )


def _project_skeleton(tmp_path: Path) -> Path:
    """A project with the real config, theme and assets but its own pages."""
    project = tmp_path / "project"
    (project / "docs" / "en" / "contributing").mkdir(parents=True)
    for name in ("mkdocs.yml", "package.json"):
        shutil.copy2(ROOT / name, project / name)
    for folder in ("docs/overrides", "docs/assets"):
        shutil.copytree(ROOT / folder, project / folder)
    (project / "node_modules").symlink_to(ROOT / "node_modules")
    return project


def test_a_build_without_torch_says_what_it_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from metrics_registry.site.build import BuildReport, build_notes

    assert build_notes() == ()  # the test environment has torch: nothing left out
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch could not be imported
    notes = build_notes()
    assert len(notes) == 1
    assert "no worked examples" in notes[0]
    assert "[docs,torch]" in notes[0]
    report = BuildReport(Path("site"), 1.0, 2.0, 0.5, 10, ("en",), notes=notes)
    assert str(report).splitlines()[1].startswith("note: torch is not installed")

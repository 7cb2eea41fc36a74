"""A real MkDocs build of the site from the registry."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from metrics_registry import Registry
from metrics_registry.site.build import BuildError, build_site

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(registry: Registry, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("site")
    build_site(registry, output=base / "out", project_root=ROOT, work=base / "work")
    return base / "out"


def test_every_metric_has_its_anchor_on_its_family_page(site: Path, registry: Registry) -> None:
    for family in registry.families:
        html = (site / "en" / "reference" / family / "index.html").read_text(encoding="utf-8")
        ids = set(re.findall(r'<h2 id="([^"]+)"', html))
        missing = [e.anchor for e in registry.in_family(family) if e.anchor not in ids]
        assert not missing, f"{family}: no anchor for {missing}"


def test_family_page_has_its_summary_table(site: Path) -> None:
    html = (site / "en" / "reference" / "ppo" / "index.html").read_text(encoding="utf-8")
    assert "<table>" in html
    assert "| Key |" not in html  # a table that failed to render shows its pipes


def test_index_lists_every_metric(site: Path, registry: Registry) -> None:
    html = (site / "en" / "metrics" / "index.html").read_text(encoding="utf-8")
    for entry in registry:
        assert f"#{entry.anchor}" in html


def test_machine_readable_files_are_published(site: Path, registry: Registry) -> None:
    exported = json.loads((site / "metrics.json").read_text(encoding="utf-8"))
    assert len(exported["metrics"]) == len(registry)
    assert json.loads((site / "schema.json").read_text(encoding="utf-8"))["title"]
    assert "url=en/" in (site / "index.html").read_text(encoding="utf-8")


def test_no_request_to_google_fonts(site: Path) -> None:
    html = (site / "en" / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" not in html


def test_broken_link_fails_the_build(registry: Registry, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "docs" / "en" / "contributing").mkdir(parents=True)
    (project / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    (project / "docs" / "en" / "index.md").write_text("# Home\n\n[gone](nowhere.md)\n", encoding="utf-8")
    with pytest.raises(BuildError, match="nowhere.md"):
        build_site(registry, output=tmp_path / "out", project_root=project, work=tmp_path / "work")

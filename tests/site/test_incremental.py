"""A language's generated Markdown is reused only when nothing it is made from has changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import metrics_registry
from metrics_registry import Registry
from metrics_registry.site.build import build_site
from metrics_registry.site.incremental import (
    STAMP,
    generation_key,
    inputs_digest,
    record,
    registry_digest,
    reusable,
)

ROOT = Path(__file__).resolve().parents[2]
OPENRLHF = ROOT / "metrics_registry" / "data" / "openrlhf.yaml"


@pytest.fixture(scope="module")
def small_registry() -> Registry:
    """One family that stands alone (no references to others): a build of it takes seconds."""
    return metrics_registry.load([OPENRLHF], builtin=False)


def test_the_registry_digest_is_the_same_in_every_process() -> None:
    code = (
        "import metrics_registry; from metrics_registry.site.incremental import registry_digest; "
        "print(registry_digest(metrics_registry.load()))"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1


def test_the_registry_digest_sees_a_changed_text(small_registry: Registry) -> None:
    entry = small_registry.entries[0]
    changed = Registry(
        small_registry.families,
        [
            type(entry)(
                entry.metric.model_copy(update={"summary": "Changed."}), entry.family, entry.path, entry.line
            ),
            *small_registry.entries[1:],
        ],
        small_registry.concepts,
    )
    assert registry_digest(changed) != registry_digest(small_registry)


def test_a_loaded_registry_is_named_by_its_files(tmp_path: Path) -> None:
    """A registry from validate() is digested from its files' cache key: an edited file is a new digest."""
    family = tmp_path / "openrlhf.yaml"
    text = OPENRLHF.read_text(encoding="utf-8")
    family.write_text(text, encoding="utf-8")
    first = metrics_registry.load([family], builtin=False)
    assert first.source_key is not None
    family.write_text(text.replace("summary: The PPO", "summary: Edited, the PPO", 1), encoding="utf-8")
    edited = metrics_registry.load([family], builtin=False)
    assert registry_digest(edited) != registry_digest(first)
    assert registry_digest(metrics_registry.load([family], builtin=False)) == registry_digest(edited)


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for name in ("mkdocs.yml", "package.json"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, project / name)
    for folder in ("docs/overrides", "docs/assets"):
        shutil.copytree(ROOT / folder, project / folder)
    (project / "docs" / "en").mkdir(parents=True)
    (project / "docs" / "en" / "index.md").write_text("# Home\n\nFirst text.\n", encoding="utf-8")
    # the reference pages link to the API page's entries of the family's references
    (project / "docs" / "en" / "api.md").write_text(
        "# API\n\n::: metrics_registry.reference.openrlhf\n    options:\n      show_submodules: true\n",
        encoding="utf-8",
    )
    (project / "node_modules").symlink_to(ROOT / "node_modules")
    return project


def _key(registry_hash: str, project: Path, lang: str, katex: Path) -> str:
    return generation_key(inputs_digest(registry_hash, project, katex), lang)


def test_the_key_changes_with_each_input(tmp_path: Path) -> None:
    project = _project(tmp_path)
    katex = project / "node_modules" / "katex" / "dist"
    key = _key("registry", project, "en", katex)
    assert _key("registry", project, "en", katex) == key
    assert _key("another registry", project, "en", katex) != key
    assert _key("registry", project, "vi", katex) != key
    page = project / "docs" / "en" / "index.md"
    page.write_text("# Home\n\nSecond text.\n", encoding="utf-8")
    edited = _key("registry", project, "en", katex)
    assert edited != key
    (project / "i18n" / "vi").mkdir(parents=True)
    (project / "i18n" / "vi" / "ui.po").write_text('msgid ""\nmsgstr ""\n', encoding="utf-8")
    assert _key("registry", project, "en", katex) != edited


def test_installing_torch_generates_the_pages_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without torch the concepts' worked examples are left out: installing it must not reuse those pages."""
    from importlib import metadata

    from metrics_registry.site import incremental

    project = _project(tmp_path)
    katex = project / "node_modules" / "katex" / "dist"
    real_version = metadata.version

    def torch_as(installed: str | None) -> str:
        def version(name: str) -> str:
            if name != "torch":
                return real_version(name)
            if installed is None:
                raise metadata.PackageNotFoundError(name)
            return installed

        monkeypatch.setattr(metadata, "version", version)
        incremental._code_and_libraries.cache_clear()
        return _key("registry", project, "en", katex)

    try:
        assert torch_as(None) != torch_as("2.13.0+cpu") != torch_as("2.14.0")
    finally:
        incremental._code_and_libraries.cache_clear()


def test_a_folder_touched_since_it_was_generated_is_not_reused(tmp_path: Path) -> None:
    out = tmp_path / "docs" / "en"
    out.mkdir(parents=True)
    (out / "page.md").write_text("generated\n", encoding="utf-8")
    record(out, "key", {"pages": 1})
    assert reusable(out, "key") == {"pages": 1}
    assert reusable(out, "another key") is None
    (out / "page.md").write_text("edited by hand\n", encoding="utf-8")
    assert reusable(out, "key") is None
    record(out, "key", {"pages": 1})
    (out / "extra.md").write_text("added\n", encoding="utf-8")
    assert reusable(out, "key") is None
    (out / "extra.md").unlink()
    assert reusable(out, "key") == {"pages": 1}
    for damaged in ("{not json", json.dumps(["a list"]), json.dumps({"key": "key", "tree": 1})):
        (out / STAMP).write_text(damaged, encoding="utf-8")
        assert reusable(out, "key") is None
    (out / STAMP).unlink()
    assert reusable(out, "key") is None


def test_a_second_build_reuses_the_pages_and_an_edit_is_built(
    small_registry: Registry, tmp_path: Path
) -> None:
    project = _project(tmp_path)

    def build() -> tuple[float, int, str]:
        report = build_site(
            small_registry,
            output=tmp_path / "out",
            project_root=project,
            work=tmp_path / "work",
            languages=("en",),
        )
        home = (tmp_path / "out" / "en" / "index.html").read_text(encoding="utf-8")
        return report.seconds_generate, report.pages, home

    first, pages, home = build()
    assert "First text." in home
    assert (tmp_path / "work" / "docs" / "en" / STAMP).is_file()
    again, pages_again, home_again = build()
    assert pages_again == pages
    assert again < first / 3
    assert "First text." in home_again
    assert not (tmp_path / "out" / "en" / STAMP).exists()  # a dot file: MkDocs does not publish it
    (project / "docs" / "en" / "index.md").write_text("# Home\n\nSecond text.\n", encoding="utf-8")
    _, _, edited = build()
    assert "Second text." in edited and "First text." not in edited

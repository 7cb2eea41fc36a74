"""The shared shape of a finding, and the subpackage's promise to import only the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import metrics_registry.reporting
from metrics_registry.reporting import RuleInfo, help_uri, site_url_from_env
from metrics_registry.reporting.annotation import display_path, relative_uri

PACKAGE = Path(metrics_registry.reporting.__file__).parent


def test_imports_only_the_standard_library_and_itself() -> None:
    """So that the standalone encoding subpackage may use it (tests/encoding/test_encoding_standalone.py)."""
    for module in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if name.startswith("metrics_registry"):
                    assert name.startswith("metrics_registry.reporting"), f"{module.name} imports {name}"
                else:
                    assert top in sys.stdlib_module_names or top == "__future__", (
                        f"{module.name} imports {name}"
                    )


def test_relative_uri_inside_and_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert relative_uri(Path("docs/a.md")) == ("docs/a.md", True)
    assert relative_uri(tmp_path / "docs" / "a.md") == ("docs/a.md", True)
    assert relative_uri(Path("../x.md")) == ((tmp_path.parent / "x.md").as_uri(), False)
    assert display_path(Path("./docs//a.md")) == "docs/a.md"
    assert display_path(Path("../x.md")) == (tmp_path.parent / "x.md").as_posix()


def test_a_symlinked_folder_keeps_the_name_the_user_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "docs").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path / "project")
    assert display_path(Path("docs/a.md")) == "docs/a.md"
    assert relative_uri(Path("docs/a.md")) == ("docs/a.md", True)


def test_help_uri_joins_the_site_url(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = RuleInfo("x", "x", "d", "en/tools/ci/")
    assert help_uri(rule, "https://example.org") == "https://example.org/en/tools/ci/"
    assert help_uri(rule, "http://127.0.0.1:8000/") == "http://127.0.0.1:8000/en/tools/ci/"
    assert help_uri(RuleInfo("x", "x", "d"), "https://example.org") is None
    monkeypatch.setenv("METRICS_REGISTRY_SITE_URL", "https://example.org/m")
    assert site_url_from_env() == "https://example.org/m"
    monkeypatch.delenv("METRICS_REGISTRY_SITE_URL")
    assert site_url_from_env() == ""

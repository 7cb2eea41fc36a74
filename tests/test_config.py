"""Extra registries from pyproject.toml and the environment (the extension path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry import load
from metrics_registry.config import ENV_VAR, ConfigError, configured_paths


def test_pyproject_extra_registries(
    tmp_path: Path, valid_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.metrics-registry]\nextra-registries = ["{valid_file}"]\n', encoding="utf-8"
    )
    nested = tmp_path / "src" / "pkg"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert configured_paths() == [valid_file]
    registry = load(include_configured=True)
    assert "toy" in registry.families
    assert "toy" not in load().families  # a library call reads no configuration unless asked


def test_environment_variable(tmp_path: Path, valid_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENV_VAR, str(valid_file))
    assert configured_paths() == [valid_file]


def test_bad_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.metrics-registry]\nextra-registries = "x.yaml"\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="must be a list of paths"):
        configured_paths()


def test_this_repository_loads_the_extension_through_its_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert "multiturn-grpo" in load(include_configured=True).families

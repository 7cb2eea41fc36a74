"""The public API other tools import."""

from __future__ import annotations

import subprocess
import sys

import pytest

import metrics_registry


def test_public_names_are_exported() -> None:
    for name in metrics_registry.__all__:
        assert hasattr(metrics_registry, name), name
    assert {"load", "validate", "Registry", "Metric", "anchor", "AmbiguousMetricError"} <= set(
        metrics_registry.__all__
    )


def test_import_needs_neither_torch_nor_mkdocs() -> None:
    code = (
        "import sys, metrics_registry; metrics_registry.load();"
        "import metrics_registry.cli, metrics_registry.exports;"
        "bad = sorted(m for m in ('torch', 'mkdocs', 'material') if m in sys.modules);"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_load_raises_with_every_finding(tmp_path) -> None:
    from pathlib import Path

    import pytest

    broken = Path(__file__).parent / "fixtures" / "broken" / "unknown_field.yaml"
    with pytest.raises(metrics_registry.InvalidRegistryError) as error:
        metrics_registry.load([broken])
    assert [f.rule for f in error.value.findings] == ["MR102"]
    assert "MR102" in str(error.value)


def test_load_takes_one_path_as_a_string(tmp_path) -> None:
    from pathlib import Path

    valid = Path(__file__).parent / "fixtures" / "registry" / "valid.yaml"
    registry = metrics_registry.load(str(valid))
    assert "toy" in registry.families
    assert "toy" in metrics_registry.load(valid).families


def test_unknown_release_number_is_a_clear_error() -> None:
    from metrics_registry.registry import InvalidVersionError

    with pytest.raises(InvalidVersionError, match="'x' is not a release number"):
        metrics_registry.load().find("objective/kl", trl_version="x")

"""The public API other tools import."""

from __future__ import annotations

import subprocess
import sys

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

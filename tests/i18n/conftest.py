"""A temporary copy of the project (registry, templates, catalogs) to run the i18n commands on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Copy of everything ``i18n/babel.cfg`` reads, plus the real catalogs and glossary."""
    dest = tmp_path / "project"
    shutil.copytree(ROOT / "i18n", dest / "i18n", ignore=shutil.ignore_patterns("*.mo", "*.bak"))
    for folder, pattern in (
        ("metrics_registry/data", "*.yaml"),
        ("metrics_registry/data/concepts", "*.yaml"),
        ("extensions", "*.yaml"),
        ("metrics_registry/templates", "*.j2"),
        ("metrics_registry/site", "*.py"),
        ("metrics_registry/i18n", "*.py"),
        ("metrics_registry/schema", "*.json"),
        ("metrics_registry", "describe.py"),
    ):
        (dest / folder).mkdir(parents=True, exist_ok=True)
        for path in (ROOT / folder).glob(pattern):
            shutil.copy2(path, dest / folder / path.name)
    return dest

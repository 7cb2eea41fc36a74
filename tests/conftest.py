"""Shared fixtures: paths of the test data and the real, shipped registry."""

from __future__ import annotations

from pathlib import Path

import pytest

import metrics_registry

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def registry() -> metrics_registry.Registry:
    """The registry as this repository configures it (four families)."""
    return metrics_registry.load([ROOT / "extensions" / "multiturn_grpo.yaml"])


@pytest.fixture
def valid_file() -> Path:
    return FIXTURES / "registry" / "valid.yaml"

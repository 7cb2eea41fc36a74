"""Shared fixtures: paths of the test data and the real, shipped registry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _system import require_system

import metrics_registry

# Every test sees the registry computed afresh (tests of the cache turn it on
# for themselves, in a temporary folder); subprocesses inherit this.
os.environ["METRICS_REGISTRY_CACHE"] = "off"

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def registry() -> metrics_registry.Registry:
    """The registry as this repository configures it (four families)."""
    return metrics_registry.load([ROOT / "extensions" / "multiturn_grpo.yaml"])


@pytest.fixture
def valid_file() -> Path:
    return FIXTURES / "registry" / "valid.yaml"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "system(package): the test needs a Debian package (see tests/_system.py)",
    )


@pytest.fixture(autouse=True)
def _system_packages(request: pytest.FixtureRequest) -> None:
    """Skip, naming the package, when a system package is missing; in CI (CI=true) fail instead."""
    for marker in request.node.iter_markers("system"):
        require_system(marker.args[0])


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave the test folders' conftest.py out of --doctest-modules (they hold no doctests).

    Each folder's conftest.py is a module named ``conftest``; collected as a doctest module
    when pytest is given several folders, it met another folder's under that name
    ("import file mismatch"). pytest still loads every one of them as a conftest.
    """
    return True if collection_path.name == "conftest.py" else None

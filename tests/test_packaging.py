"""What a user of the library gets from pip: type hints, the data files, one version, true metadata."""

from __future__ import annotations

import email
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest
import trove_classifiers
from packaging.specifiers import SpecifierSet

import metrics_registry

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def test_one_version() -> None:
    """pyproject.toml holds the version; the package and the command read it from the installed metadata."""
    assert "version" not in PROJECT.get("dynamic", [])
    assert metrics_registry.__version__ == version("metrics-registry") == PROJECT["version"]
    init = (ROOT / "metrics_registry" / "__init__.py").read_text(encoding="utf-8")
    assert not re.search(r"__version__\s*=\s*[\"']\d+\.\d+", init), "no second, hand-written version"
    result = subprocess.run(
        [sys.executable, "-m", "metrics_registry.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == f"metrics-registry, version {PROJECT['version']}"


def test_requires_python_is_true() -> None:
    requires = SpecifierSet(PROJECT["requires-python"])
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in requires
    assert "3.10" not in requires, "the code uses tomllib, enum.StrEnum and datetime.UTC (3.11)"
    assert PYPROJECT["tool"]["ruff"]["target-version"] == "py311"
    listed = [
        c.rsplit(" :: ", 1)[1]
        for c in PROJECT["classifiers"]
        if c.startswith("Programming Language :: Python :: 3.")
    ]
    assert listed and all(python in requires for python in listed)


def test_classifiers_are_real_ones() -> None:
    unknown = [c for c in PROJECT["classifiers"] if c not in trove_classifiers.classifiers]
    assert not unknown
    assert "Typing :: Typed" in PROJECT["classifiers"]


def test_the_package_is_typed() -> None:
    assert (ROOT / "metrics_registry" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["metrics_registry"]


def _package_data(source: Path) -> set[str]:
    """Every file the package-data patterns of pyproject.toml name in ``source``."""
    files = set()
    for pattern in PYPROJECT["tool"]["setuptools"]["package-data"]["metrics_registry"]:
        for path in (source / "metrics_registry").glob(pattern):
            if path.is_file():
                files.add(path.relative_to(source).as_posix())
    return files


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """A wheel built by pip from a copy of the sources (a build writes next to them), offline."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "metrics_registry", source / "metrics_registry", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(work / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = (work / "dist").glob("metrics_registry-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_ships_py_typed_and_the_data(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert "metrics_registry/py.typed" in names
    data = _package_data(ROOT)
    assert {"metrics_registry/data/grpo.yaml", "metrics_registry/schema/registry-file.schema.json"} <= data
    assert any(name.startswith("metrics_registry/templates/") for name in data)
    # the encoding repairer's Chinese counts are a distribution of their own (packages/zh-models)
    assert not any(name.endswith(".json.gz") for name in names)
    assert data <= names, sorted(data - names)
    assert "metrics_registry/reporting/sarif.py" in names
    assert not any(name.startswith("tests/") for name in names)


def test_the_wheel_metadata(wheel: zipfile.ZipFile) -> None:
    (metadata_name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    metadata = email.message_from_bytes(wheel.read(metadata_name))
    assert metadata["Name"] == "metrics-registry"
    assert metadata["Version"] == PROJECT["version"]
    assert metadata["Requires-Python"] == PROJECT["requires-python"]
    assert sorted(metadata.get_all("Classifier")) == sorted(PROJECT["classifiers"])
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    assert "metrics-registry = metrics_registry.cli:main" in wheel.read(entry_points).decode()


def test_the_chinese_counts_ship_in_their_own_distribution(tmp_path: Path) -> None:
    """packages/zh-models: a wheel of its own with both counts, which the encoding extra requires,
    and which the repairer finds where it is installed."""
    from metrics_registry.encoding import domain

    companion = ROOT / "packages" / "zh-models"
    source = tmp_path / "source"
    shutil.copytree(companion, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run(
        [*command, "-q", "-w", str(tmp_path / "dist"), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = (tmp_path / "dist").glob("metrics_registry_zh_models-*.whl")
    names = set(zipfile.ZipFile(built).namelist())
    assert {
        "metrics_registry_zh_models/zh-domain.json.gz",
        "metrics_registry_zh_models/zh-messages.json.gz",
    } <= names
    encoding = PROJECT["optional-dependencies"]["encoding"]
    assert any(r.startswith("metrics-registry-zh-models") for r in encoding), encoding
    assert not any(r.startswith("metrics-registry-zh-models") for r in PROJECT["dependencies"])
    assert domain.BUNDLED.is_file() and domain.MESSAGES.is_file()
    assert domain.MODELS.parent.name == "zh-models" or "site-packages" in domain.MODELS.parts

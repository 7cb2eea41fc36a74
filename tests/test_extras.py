"""The core install works without any extra, and a command that needs one names it.

The core closure is small (pyproject.toml); these tests run the CLI in a
subprocess where every extra's modules are made unimportable (a meta path
finder that refuses them), which is what a `pip install metrics-registry`
without extras gives.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import metrics_registry
from metrics_registry.extras import EXTRA_OF, USERS_OWN

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(metrics_registry.__file__).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

# Runs the CLI with the extras' modules unimportable.
_WITHOUT_EXTRAS = """
import sys
from importlib.abc import MetaPathFinder

BLOCKED = {blocked!r}

class Refuse(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
sys.argv = ["metrics-registry", *{args!r}]
from metrics_registry.cli import main
main()
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package alone, as a wheel installs it: no checkout (catalogs, docs) around it."""
    site = tmp_path_factory.mktemp("site-packages")
    shutil.copytree(PACKAGE, site / "metrics_registry", ignore=shutil.ignore_patterns("__pycache__"))
    return site


def _run_without_extras(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = _WITHOUT_EXTRAS.format(blocked=sorted(EXTRA_OF), args=list(args))
    environment = {**os.environ, "PYTHONPATH": str(site), "METRICS_REGISTRY_CACHE": "off"}
    return subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env=environment,
    )


def _imported_modules() -> set[str]:
    names: set[str] = set()
    for module in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.partition(".")[0])
    return names


def test_every_third_party_import_is_core_or_has_an_extra() -> None:
    core = {Requirement(r).name.lower().replace("-", "_") for r in PYPROJECT["dependencies"]}
    core |= {"yaml", "_yaml", "markdown_it"}  # the modules of pyyaml and markdown-it-py
    extras = PYPROJECT["optional-dependencies"]
    stdlib = set(sys.stdlib_module_names) | {"metrics_registry", "__future__"}
    for name in sorted(_imported_modules() - stdlib):
        if name in core or name in USERS_OWN:
            continue
        assert name in EXTRA_OF, f"{name} is imported but is neither a core dependency nor in extras.EXTRA_OF"
        assert EXTRA_OF[name] in extras, (
            f"extras.EXTRA_OF names '{EXTRA_OF[name]}', not an extra of pyproject"
        )


def test_core_commands_work_without_any_extra(installed: Path, tmp_path: Path) -> None:
    log = tmp_path / "trainer_state.json"
    log.write_text(json.dumps({"log_history": [{"step": 1, "kl": 0.1}, {"step": 2, "kl": -0.5}]}))
    for args in (
        ["explain", "objective/kl"],
        ["--no-config", "validate"],
        ["export", "--format", "json", "-o", str(tmp_path / "out.json")],
        ["check-run", str(log), "--family", "grpo"],
    ):
        done = _run_without_extras(installed, tmp_path, *args)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert "needs" not in done.stderr, (args, done.stderr)
    assert json.loads((tmp_path / "out.json").read_text())["metrics"]
    report = _run_without_extras(installed, tmp_path, "check-run", str(log), "--family", "grpo")
    assert report.returncode == 1 and "kl" in report.stdout  # a negative KL is a finding, in English


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["new", "--family", "grpo", "x/y"], "author"),
        (["i18n", "status"], "i18n"),
        (["build"], "docs"),
        (["check-run", "{log}", "--family", "grpo", "--lang", "vi"], "i18n"),
    ],
)
def test_a_command_that_needs_an_extra_names_it(
    installed: Path, tmp_path: Path, args: list[str], extra: str
) -> None:
    log = tmp_path / "trainer_state.json"
    log.write_text(json.dumps({"log_history": [{"step": 1, "kl": 0.1}]}))
    done = _run_without_extras(installed, tmp_path, *(a.replace("{log}", str(log)) for a in args))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"pip install 'metrics-registry[{extra}]'" in done.stderr

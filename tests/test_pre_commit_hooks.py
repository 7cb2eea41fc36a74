"""The hooks of .pre-commit-hooks.yaml, run as pre-commit runs them, on real broken and clean files.

pre-commit runs a hook's ``entry`` split like a shell would, then its
``args``, then (unless ``pass_filenames: false``) the staged files that
match ``files``/``types``, from the repository's root; a hook no staged file
matches is skipped. This test reads the hook definitions from the file, so
it breaks when they change. (``pre-commit try-repo`` is not used: it
installs the repository with pip into a fresh environment, which needs a
network.)
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
HOOKS = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}


def _is_text(path: Path) -> bool:
    """pre-commit's ``text`` tag (identify): no NUL byte in the first kilobyte... roughly; enough here."""
    return b"\x00" not in path.read_bytes()[:1024]


def _matches(hook: dict, name: str, project: Path) -> bool:
    if not re.search(hook.get("files", ""), name) or re.search(hook.get("exclude", "^$"), name):
        return False
    types = set(hook.get("types", ["file"]))
    return "text" not in types or _is_text(project / name)


def _executable(name: str) -> str:
    """The console script pip installed next to this Python (pyproject's [project.scripts])."""
    script = Path(sys.executable).parent / name
    if not script.exists():
        pytest.fail(f"{script} is missing: install this project (pip install -e .) to test its hooks")
    return str(script)


def run_hook(hook_id: str, project: Path, staged: list[str]) -> subprocess.CompletedProcess[str] | None:
    """Run ``hook_id`` on ``staged`` in ``project`` as pre-commit would; ``None`` when it is skipped."""
    hook = HOOKS[hook_id]
    files = [name for name in staged if _matches(hook, name, project)]
    if not files and not hook.get("always_run", False):
        return None
    command = shlex.split(hook["entry"])
    command[0] = _executable(command[0])
    command += hook.get("args", [])
    if hook.get("pass_filenames", True):
        command += files
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}  # this checkout, not another install
    env.pop("METRICS_REGISTRY_PATH", None)
    return subprocess.run(
        command, cwd=project, capture_output=True, text=True, env=env, check=False, timeout=300
    )


def test_the_hooks_are_declared_for_pre_commit() -> None:
    assert set(HOOKS) == {"metrics-registry-validate", "metrics-registry-encoding"}
    for hook in HOOKS.values():
        assert hook["language"] == "python"
        assert shlex.split(hook["entry"])[0] == "metrics-registry"
        assert hook["name"] and hook["description"]
        re.compile(hook["files"])
    assert HOOKS["metrics-registry-validate"]["pass_filenames"] is False
    assert HOOKS["metrics-registry-encoding"].get("pass_filenames", True) is True


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with its own registry file (valid), a catalog and a page, as a user's repository."""
    root = tmp_path / "repo"
    (root / "registry").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.metrics-registry]\nextra-registries = ["registry/toy.yaml"]\n', encoding="utf-8"
    )
    shutil.copy(FIXTURES / "registry" / "valid.yaml", root / "registry" / "toy.yaml")
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# Toy\n\nTiếng Việt và 中文.\n", encoding="utf-8")
    (root / "train.py").write_text("print('hi')\n", encoding="utf-8")
    return root


def test_validate_passes_on_a_clean_project(project: Path) -> None:
    result = run_hook("metrics-registry-validate", project, ["registry/toy.yaml"])
    assert result is not None
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors" in result.stdout


def test_validate_fails_on_a_broken_registry_file(project: Path) -> None:
    shutil.copy(FIXTURES / "broken" / "unknown_field.yaml", project / "registry" / "toy.yaml")
    result = run_hook("metrics-registry-validate", project, ["registry/toy.yaml"])
    assert result is not None
    assert result.returncode == 1
    assert "error MR102 unknown-field" in result.stdout
    assert "Traceback" not in result.stderr


def test_validate_fails_on_a_broken_catalog(project: Path) -> None:
    catalog = project / "i18n" / "vi" / "LC_MESSAGES" / "registry.po"
    catalog.parent.mkdir(parents=True)
    shutil.copy(
        FIXTURES / "hostile" / "catalogs" / "not-utf8" / "i18n" / "vi" / "LC_MESSAGES" / "registry.po",
        catalog,
    )
    result = run_hook("metrics-registry-validate", project, ["i18n/vi/LC_MESSAGES/registry.po"])
    assert result is not None
    assert result.returncode == 1
    assert "registry.po:6: error I18N200" in result.stdout


def test_validate_is_skipped_when_nothing_it_reads_is_staged(project: Path) -> None:
    assert run_hook("metrics-registry-validate", project, ["train.py"]) is None


def test_encoding_passes_clean_staged_files(project: Path) -> None:
    result = run_hook(
        "metrics-registry-encoding", project, ["docs/index.md", "registry/toy.yaml", "train.py"]
    )
    assert result is not None
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_encoding_fails_on_a_staged_mojibake_page(project: Path) -> None:
    shutil.copy(
        FIXTURES / "encoding" / "training-logs-enhancements.zh.mojibake.md", project / "docs" / "zh.md"
    )
    staged = ["docs/index.md", "docs/zh.md", "train.py"]
    result = run_hook("metrics-registry-encoding", project, staged)
    assert result is not None
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith("docs/zh.md:") for line in lines)
    assert "train.py" not in result.stdout + result.stderr


def test_encoding_is_skipped_for_files_it_does_not_read(project: Path) -> None:
    assert run_hook("metrics-registry-encoding", project, ["train.py"]) is None

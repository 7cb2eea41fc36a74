"""The encoding subpackage stands alone: it imports nothing else of metrics_registry.

Three exceptions, each importing only the standard library at import time: ``metrics_registry.fileio``,
the package's single atomic-write helper (tests/test_fileio.py checks that), so
that fix-encoding --in-place writes files the way every other command does; and
``metrics_registry.reporting``, the CI formats (tests/reporting checks that), so
that ``fix-encoding --check --format github|sarif`` reports as ``validate`` does; and
``metrics_registry.cache``, the private on-disk cache, so that the Chinese tables derived
from jieba and wordfreq (:mod:`metrics_registry.encoding.chinese_tables`) are built once
per install, with the same safety rules as the registry's cache.

Besides, ``metrics_registry_zh_models`` is not part of this package but the companion
distribution (packages/zh-models) that carries the Chinese word counts: a data folder and
its path, nothing else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import metrics_registry.encoding

PACKAGE = Path(metrics_registry.encoding.__file__).parent
ALLOWED = (
    "metrics_registry.fileio",
    "metrics_registry.reporting",
    "metrics_registry.cache",
    "metrics_registry_zh_models",
)


def test_imports_stay_inside_the_subpackage() -> None:
    for module in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.startswith("metrics_registry") and not name.startswith(ALLOWED):
                    assert name.startswith("metrics_registry.encoding"), f"{module.name} imports {name}"

"""The encoding subpackage stands alone: it imports nothing else of metrics_registry.

One exception: ``metrics_registry.fileio``, the package's single atomic-write
helper, which imports only the standard library (tests/test_fileio.py checks
that), so that fix-encoding --in-place writes files the way every other
command does.
"""

from __future__ import annotations

import ast
from pathlib import Path

import metrics_registry.encoding

PACKAGE = Path(metrics_registry.encoding.__file__).parent
ALLOWED = "metrics_registry.fileio"


def test_imports_stay_inside_the_subpackage() -> None:
    for module in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.startswith("metrics_registry") and name != ALLOWED:
                    assert name.startswith("metrics_registry.encoding"), f"{module.name} imports {name}"

"""The encoding subpackage stands alone: it imports nothing else of metrics_registry."""

from __future__ import annotations

import ast
from pathlib import Path

import metrics_registry.encoding

PACKAGE = Path(metrics_registry.encoding.__file__).parent


def test_imports_stay_inside_the_subpackage() -> None:
    for module in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.startswith("metrics_registry"):
                    assert name.startswith("metrics_registry.encoding"), f"{module.name} imports {name}"

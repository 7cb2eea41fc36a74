"""``metrics-registry explain`` in a new process that says whether it imported the models (pydantic)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from metrics_registry.cli import main
try:
    main()
except SystemExit:
    print("pydantic imported:", "pydantic" in sys.modules, file=sys.stderr)
    raise
"""


def explain(
    cache: Path | str, *arguments: str, columns: int = 100, before: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run ``explain`` with the cache folder ``cache`` (or ``off``) at a terminal width of ``columns``."""
    environment = {**os.environ, "METRICS_REGISTRY_CACHE": str(cache), "COLUMNS": str(columns)}
    environment.pop("FORCE_COLOR", None)
    return subprocess.run(
        [sys.executable, "-c", PROBE, *before, "explain", *arguments],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )

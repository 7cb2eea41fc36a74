"""``serve`` on a busy port fails at once, naming the port, before building anything (issue 14, class 8).

It used to build the whole site for 44 s, then fail with
``error: : Address already in use``. The project it runs in is the hostile
``files`` fixture (a project root that cannot even be built): had the command
started a build, it would have created the work folder or a staging folder.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "files"


def test_a_busy_port_fails_before_building(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(FIXTURES, project, symlinks=True)
    shutil.rmtree(project / "build")  # the fixture's own notes there: a build would start by refusing them
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("METRICS_REGISTRY_PATH", None)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "metrics_registry.cli", "serve", "--port", str(port)],
            cwd=project,
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=60,  # a hang guard: it must not serve on, or build, after failing to listen
        )
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"metrics-registry: error: port {port} is in use; pass --port N" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "build").exists() and not (project / "site").exists()  # nothing was built
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]  # no staging folder either

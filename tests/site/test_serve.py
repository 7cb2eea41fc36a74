"""``serve``: a busy port fails at once, naming the port, before building anything (issue 14, class 8);
an edit rebuilds only the language it touches and reloads the open page (issue 18).

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
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from metrics_registry.site.serve import languages_to_rebuild

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "hostile" / "files"


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


def test_an_edit_rebuilds_only_its_language() -> None:
    root = Path("/project")
    assert languages_to_rebuild(root, [root / "docs/vi/index.md"]) == ("vi",)
    assert languages_to_rebuild(root, [root / "docs/vi"]) == ("vi",)  # the folder of an edited page
    assert languages_to_rebuild(root, [root / "i18n/zh/LC_MESSAGES/ui.po", root / "docs/vi/a.md"]) == (
        "vi",
        "zh",
    )
    assert languages_to_rebuild(root, [root / "i18n/registry.pot"]) is None  # every language
    assert languages_to_rebuild(root, [root / "metrics_registry/data/grpo.yaml"]) is None
    assert languages_to_rebuild(root, [root / "mkdocs.yml"]) is None
    styles = root / "metrics_registry/site/static/stylesheets/registry.css"
    assert languages_to_rebuild(root, [styles]) is None  # the generated pages' styles: every language
    assert languages_to_rebuild(root, [root / "README.md", Path("/elsewhere/x.md")]) == ()


def _project(tmp_path: Path) -> Path:
    """A copy of what the site is built from (the registry comes with the package)."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("docs", "i18n", "extensions"):
        shutil.copytree(ROOT / name, project / name)
    for name in ("mkdocs.yml", "pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, project / name)
    (project / "node_modules").symlink_to(ROOT / "node_modules")
    return project


def _serve(project: Path, *arguments: str) -> tuple[subprocess.Popen[str], list[str]]:
    """``python ARGUMENTS`` (a serve) started in ``project``, and the list its output lines fill."""
    env = {**os.environ, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    env.pop("METRICS_REGISTRY_PATH", None)
    server = subprocess.Popen(
        [sys.executable, *arguments],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    lines: list[str] = []
    output = server.stdout
    assert output is not None
    threading.Thread(target=lambda: lines.extend(iter(output.readline, "")), daemon=True).start()
    return server, lines


def _get(url: str, timeout: float = 60) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8")


def test_serve_rebuilds_the_edited_language_and_reloads_the_page(tmp_path: Path) -> None:
    if not (ROOT / "node_modules" / "katex").is_dir():
        pytest.fail("KaTeX is missing: run `npm ci` (README)")
    project = _project(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server, lines = _serve(project, "-m", "metrics_registry.cli", "serve", "--port", str(port))
    try:
        deadline = time.monotonic() + 900
        while not any(line.startswith("serving ") for line in lines):
            assert server.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            time.sleep(0.5)
        base = f"http://127.0.0.1:{port}"
        page = _get(f"{base}/vi/")
        assert '<script src="/__reload.js"></script>' in page
        assert "__reload.js" not in (project / "site" / "vi" / "index.html").read_text(encoding="utf-8")
        reloaded: list[str] = []

        def wait_for_the_next_build() -> None:  # as the page's script does: ask again until it comes
            while time.monotonic() < deadline and (not reloaded or reloaded[-1] == "0"):
                reloaded.append(_get(f"{base}/__reload?build=0", 60))

        waiting = threading.Thread(target=wait_for_the_next_build)
        waiting.start()
        english_before = (project / "site" / "en" / "index.html").stat().st_ino
        index = project / "docs" / "vi" / "index.md"
        index.write_text(
            index.read_text(encoding="utf-8") + "\n\nĐoạn mới cho bài kiểm tra serve.\n", encoding="utf-8"
        )
        waiting.join(timeout=600)
        assert reloaded[-1] == "1", "".join(lines)
        assert "Đoạn mới cho bài kiểm tra serve." in _get(f"{base}/vi/")
        while len([line for line in lines if line.startswith("built ")]) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)  # the report is printed before the page is told; the pipe may lag
        rebuilt = [line for line in lines if line.startswith("built ")]
        assert rebuilt[-1].startswith("built vi ("), rebuilt  # only the edited language
        assert (project / "site" / "en" / "index.html").stat().st_ino == english_before  # kept, not rebuilt
        assert "<html" in _get(f"{base}/en/")  # English still served
    finally:
        server.terminate()
        server.wait(timeout=30)


#: ``serve`` whose registry loader edits a Vietnamese page the first time it is called, that is,
#: while the first build runs (before ``serving`` is printed).
_EDIT_DURING_FIRST_BUILD = """
import sys
from pathlib import Path

from metrics_registry import load as load_registry
from metrics_registry.site.serve import serve_site

calls = []


def load():
    if not calls:
        page = Path("docs/vi/index.md")
        text = page.read_text(encoding="utf-8") + "\\n\\nSửa trong lúc build đầu tiên.\\n"
        page.write_text(text, encoding="utf-8")
    calls.append(1)
    return load_registry(include_configured=True)  # as the command loads it


serve_site(load, port=int(sys.argv[1]))
"""


def test_an_edit_made_during_the_first_build_is_rebuilt(tmp_path: Path) -> None:
    project = _project(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server, lines = _serve(project, "-c", _EDIT_DURING_FIRST_BUILD, str(port))
    try:
        deadline = time.monotonic() + 900
        while len([line for line in lines if line.startswith("built ")]) < 2:
            assert server.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)  # never rebuilt: the edit was missed
            time.sleep(0.5)
        assert [line for line in lines if line.startswith("built ")][1].startswith("built vi ("), lines
        assert "Sửa trong lúc build đầu tiên." in _get(f"http://127.0.0.1:{port}/vi/")
    finally:
        server.terminate()
        server.wait(timeout=30)

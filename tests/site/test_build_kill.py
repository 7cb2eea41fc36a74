"""Real builds killed with SIGKILL, and two builds at once: the previous site always stays whole.

Issue 14, class 2: a build killed half way used to leave a site without
``index.html``, and two builds (or ``serve``'s rebuild and a build) raced on
the work folder. Each build here is the real command, one language
(``--lang en``) to keep it to about 20 s; the module runs six of them.

Kill points: while the pages are generated and while MkDocs writes, found by
watching the staging folder fill up; then the two moments timing cannot
reach, through the build's own hook (``METRICS_REGISTRY_KILL_AT``): the new
site staged whole but not swapped in, and swapped in with the old one not
yet deleted. Only the build process is killed, not its MkDocs children, as
the OOM killer does.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from metrics_registry.site.output import KILL_POINTS, MARKER, clean_stale

ROOT = Path(__file__).resolve().parents[2]
OLD_URL = "http://old.example/"  # the old site differs from the new one in every page's links


def _build(output: Path, *extra: str, kill_at: str = "") -> subprocess.Popen[str]:
    # SOURCE_DATE_EPOCH: two builds of the same site are byte for byte the same (sitemap.xml.gz)
    env = {**os.environ, "NO_COLOR": "1", "SOURCE_DATE_EPOCH": "1700000000"}
    env.pop("METRICS_REGISTRY_PATH", None)
    if kill_at:
        assert kill_at in KILL_POINTS
        env["METRICS_REGISTRY_KILL_AT"] = kill_at
    command = ["build", "--lang", "en", "--output", str(output), *extra]
    return subprocess.Popen(
        [sys.executable, "-m", "metrics_registry.cli", *command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    return out + err


def _killed_by_its_hook(process: subprocess.Popen[str]) -> None:
    _, err = process.communicate(timeout=600)
    assert process.returncode == -signal.SIGKILL, f"the kill point was never reached: {err}"


def _hashes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _kill_when(process: subprocess.Popen[str], reached: Callable[[], bool], then: float = 0.0) -> None:
    deadline = time.monotonic() + 600
    while not reached():
        assert process.poll() is None, "the build ended before the kill point"
        assert time.monotonic() < deadline, "the kill point never came"
        time.sleep(0.005)
    time.sleep(then)
    process.send_signal(signal.SIGKILL)
    process.communicate()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The old site, made by two builds started at once into the same folder; their logs."""
    output = tmp_path_factory.mktemp("kill") / "site"
    first, second = _build(output, "--site-url", OLD_URL), _build(output, "--site-url", OLD_URL)
    return output, [_finish(first), _finish(second)]


def test_two_builds_at_once_take_turns(built: tuple[Path, list[str]]) -> None:
    output, logs = built
    assert sum("waiting for another build" in log for log in logs) == 1
    assert {"index.html", "en/index.html", "en/reference/grpo/index.html"} <= _hashes(output).keys()
    assert sorted(p.name for p in output.parent.iterdir()) == ["site"]


def test_a_build_killed_at_any_moment_leaves_a_whole_site(built: tuple[Path, list[str]]) -> None:
    output, _ = built
    old = _hashes(output)

    def staged(name: str) -> Callable[[], bool]:
        return lambda: any(output.parent.glob(f".site.building-*/{name}"))

    for moment, reached, then in (
        ("while generating the pages", staged(MARKER), 0.5),
        ("while MkDocs writes", staged("en"), 0.0),
    ):
        _kill_when(_build(output), reached, then)
        assert _hashes(output) == old, f"killed {moment}: the previous site changed"

    _killed_by_its_hook(_build(output, kill_at="staged"))
    assert _hashes(output) == old, "killed with the new site staged: the previous site changed"
    # the next build cleaned up after the two killed before; this one left its whole new site aside
    [aside] = [p for p in output.parent.iterdir() if p != output]
    new = _hashes(aside)
    assert new != old and "en/reference/grpo/index.html" in new

    _killed_by_its_hook(_build(output, kill_at="swapped"))
    assert _hashes(output) == new, "killed right after the swap: the new site is not whole"
    assert not aside.exists()
    [old_aside] = [p for p in output.parent.iterdir() if p != output]
    assert _hashes(old_aside) == old  # not deleted yet, and marked: the next build deletes it

    assert clean_stale(output) == [old_aside]  # what the next build does first
    assert sorted(p.name for p in output.parent.iterdir()) == ["site"]
    assert _hashes(output) == new

"""Languages' processes forked from the build's: only where that is safe, and with the same
outcome as a new interpreter's (pages, MkDocs' exit code, a generation error raised again).

The forks run in a fresh interpreter (the test process runs other tests' threads, and a
process with threads is never forked); the script prints what happened as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from metrics_registry.site.language_fork import can_fork

ROOT = Path(__file__).resolve().parents[2]

linux_only = pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(), reason="forks only where /proc counts the threads"
)

_SCRIPT = """
import json, sys, traceback
from concurrent.futures import Future
from pathlib import Path
import metrics_registry
from metrics_registry.site.build import data_files
from metrics_registry.site.language_build import BuildJob, run_language
from metrics_registry.site.language_fork import can_fork, start_forked

root, work, case = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
registry = metrics_registry.load([root / "extensions" / "multiturn_grpo.yaml"])
if case == "broken":  # the language's folder is a file: generating its pages fails
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "en").write_text("not a folder", encoding="utf-8")
job = BuildJob(registry=registry, root=root, work=work, output=work / "site", listed=("en",),
               base_url="http://127.0.0.1:8000/", inputs="inputs", reused={})
outcome = {"can_fork": can_fork(1, None)}
process = start_forked(job, ["en"], ())[0]
data: Future[bytes] = Future()
data.set_result(json.dumps(data_files(registry, root)).encode())
try:
    run = run_language(process, work, "en", data)
    outcome.update(code=run.code, pages=run.pages, log=run.log[-2000:])
except Exception as error:
    outcome.update(error=type(error).__name__, filename=str(getattr(error, "filename", None)),
                   cause=str(error.__cause__))
outcome["pickled_job"] = (work / "build-job.pickle").exists()
print(json.dumps(outcome))
"""


def _fork_one_language(work: Path, case: str) -> dict[str, object]:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(ROOT), str(work), case],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_process_running_another_thread_is_not_forked() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork(1, None)
    finally:
        stop.set()
        thread.join()


def test_languages_that_start_later_are_not_forked() -> None:
    """With fewer languages at once than languages, some would start from the build's threads."""
    assert not can_fork(3, 1)


@linux_only
def test_a_forked_language_generates_and_builds_its_pages(tmp_path: Path) -> None:
    outcome = _fork_one_language(tmp_path, "fine")
    assert outcome["can_fork"] is True  # a fresh interpreter runs no other thread
    assert outcome["code"] == 0, outcome["log"]
    assert isinstance(outcome["pages"], int) and outcome["pages"] > 100
    assert (tmp_path / "site" / "en" / "index.html").is_file()
    assert (tmp_path / "docs" / "en" / "index.md").is_file()
    assert outcome["pickled_job"] is False  # the forked process has the job in memory


@linux_only
def test_a_failure_in_a_forked_language_is_raised_again_by_the_build(tmp_path: Path) -> None:
    outcome = _fork_one_language(tmp_path, "broken")
    assert outcome["error"] == "NotADirectoryError"
    assert Path(str(outcome["filename"])).name == "en"
    assert "prepare_language" in str(outcome["cause"])  # where it failed, in the forked process
    assert (tmp_path / "docs" / "en").read_text(encoding="utf-8") == "not a folder"  # nothing lost

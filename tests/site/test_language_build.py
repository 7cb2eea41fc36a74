"""One language built in a process of its own (a new interpreter): what it hands back to the
build, and its failures.

The whole build through these processes is tested by test_build.py (a real MkDocs build); the
forked processes by test_language_fork.py.
"""

from __future__ import annotations

import pickle
from concurrent.futures import Future
from pathlib import Path

import pytest

from metrics_registry import Registry
from metrics_registry.registry import RegistryError
from metrics_registry.site.language_build import (
    BuildJob,
    _record_failure,
    run_language,
    start_spawned,
    write_job,
)

ROOT = Path(__file__).resolve().parents[2]


def _job(registry: Registry, work: Path) -> BuildJob:
    return BuildJob(
        registry=registry,
        root=ROOT,
        work=work,
        output=work / "site",
        listed=("en",),
        base_url="http://127.0.0.1:8000/",
        inputs="inputs",
        reused={},
    )


def _no_data() -> Future[bytes]:
    future: Future[bytes] = Future()
    future.set_result(b"{}")
    return future


def test_a_failure_while_generating_is_raised_again_by_the_build(registry: Registry, tmp_path: Path) -> None:
    """The language's process cannot write its pages (its folder is a file): the build raises the
    same error, naming the path, with the process's traceback as its cause."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "en").write_text("not a folder", encoding="utf-8")
    job_path = write_job(_job(registry, tmp_path))
    with pytest.raises(NotADirectoryError) as raised:
        run_language(start_spawned(job_path, "en", ()), tmp_path, "en", _no_data())
    assert raised.value.filename is not None
    assert Path(raised.value.filename).name == "en"
    assert "prepare_language" in str(raised.value.__cause__)  # where it failed, in the other process
    assert (tmp_path / "docs" / "en").read_text(encoding="utf-8") == "not a folder"  # nothing lost


class _Unpicklable(Exception):
    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("cannot pickle")


def test_an_exception_that_does_not_pickle_comes_back_as_its_message(tmp_path: Path) -> None:
    path = tmp_path / "language-en.error"
    _record_failure(path, _Unpicklable("the reason"))
    error, where = pickle.loads(path.read_bytes())
    assert isinstance(error, RegistryError)
    assert str(error) == "_Unpicklable: the reason"
    assert "_Unpicklable" in where


def test_the_job_is_written_whole_into_the_work_folder(registry: Registry, tmp_path: Path) -> None:
    path = write_job(_job(registry, tmp_path))
    assert path.parent == tmp_path
    job = pickle.loads(path.read_bytes())
    assert len(job.registry) == len(registry)
    assert job.listed == ("en",)

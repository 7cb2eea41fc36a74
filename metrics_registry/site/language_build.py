"""One language of the site, built in a process of its own: its Markdown generated (or reused),
its MkDocs config written, then MkDocs run by that same process.

Why a process per language from the start: generating a language's pages is
seconds of one core's Python (Jinja over every metric), and MkDocs runs in a
process of its own anyway. When the parent generated the languages one after
the other and started each MkDocs as soon as its pages were ready, a core sat
idle while the first language was generated, and the last language's MkDocs
ran alone at the end (on two cores, about 7% of the build's wall time at ten
times the registry: ``benchmarks/build_site.py``). With one process per
language from the first second, every core stays busy; the parent meanwhile
makes the registry's data files, which a language that generates its pages
reads from its standard input when it needs them (no process waits on a file).

The parent (:func:`run_language`) writes one job (:class:`BuildJob`: the
registry and the build's settings) into the build's work folder as a pickle,
and runs :func:`main` in a new Python process for each language. A
pickle is code: the work folder is the build's own (claimed and locked by
:mod:`metrics_registry.site.output`), and only this package reads it back, the
way :mod:`metrics_registry.cache` reads its pickles. The child writes what
the parent needs (how many pages, when they were ready) next to the job, or,
when generating fails, the exception, which the parent raises again; then it
becomes ``python -m mkdocs build --strict`` (``exec``: a fresh interpreter, the
same process), whose exit code and output are the child's.

Where it is safe, the language's process is a ``fork()`` of this one instead:
:mod:`metrics_registry.site.language_fork`.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from metrics_registry.fileio import atomic_write, atomic_write_text
from metrics_registry.registry import Registry, RegistryError

__all__ = [
    "BuildJob",
    "LanguageProcess",
    "LanguageRun",
    "prepare_or_record",
    "run_language",
    "start_spawned",
    "write_job",
]

_JOB = "build-job.pickle"
#: The language's process (not ``-m``: its classes stay this module's, as the job was pickled).
_CHILD = "import sys; from metrics_registry.site.language_build import main; main(sys.argv[1:])"


@dataclass(frozen=True)
class BuildJob:
    """What every language's process needs to build its part of the site."""

    registry: Registry
    root: Path
    work: Path
    output: Path
    #: The languages the site lists (its language switcher), built now or kept from before.
    listed: tuple[str, ...]
    base_url: str
    #: The digest of everything the generated pages are made from (:mod:`.incremental`).
    inputs: str
    #: Per language whose generated Markdown is reused: what its generation recorded.
    reused: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class LanguageRun:
    """What one language's process did: MkDocs' exit code and output, and the times."""

    code: int
    log: str
    seconds: float
    pages: int
    #: When its pages were ready (``time.time()``): the generation's share of the wall time.
    ready_at: float


class _ChildTraceback(Exception):
    """Where an exception raised in a language's process came from (its traceback, as text)."""


def write_job(job: BuildJob) -> Path:
    """Pickle ``job`` into its work folder for the languages' processes; return its path."""
    path = job.work / _JOB
    atomic_write(path, pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
    return path


def result_path(work: Path, lang: str, kind: str) -> Path:
    return work / f"language-{lang}.{kind}"


class LanguageProcess(Protocol):
    """What :func:`run_language` needs of a language's process (:class:`subprocess.Popen` has it)."""

    returncode: int | None

    def communicate(self, input: bytes) -> tuple[bytes, Any]: ...

    def kill(self) -> None: ...

    def wait(self) -> int: ...


def environment() -> dict[str, str]:
    # no --quiet for MkDocs: it only counts the warnings it logs, so quiet would hide them
    return {**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1"}


def mkdocs_command(config: Path) -> list[str]:
    return [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)]


def start_spawned(job_path: Path, lang: str, locks: tuple[int, ...]) -> LanguageProcess:
    """``lang``'s process as a new interpreter, which reads the job pickled at ``job_path``."""
    for kind in ("json", "error"):
        result_path(job_path.parent, lang, kind).unlink(missing_ok=True)
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(job_path), lang],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=environment(),
        pass_fds=locks,  # MkDocs holds the build's locks too: see output.build_lock()
    )


def run_language(process: LanguageProcess, work: Path, lang: str, data: Future[bytes]) -> LanguageRun:
    """Wait for ``lang``'s process, giving it the data files (JSON) once ``data`` resolves.

    Raises what generating the language's pages raised in that process.
    """
    started = time.perf_counter()
    try:
        # a language that reuses its pages never reads its input: the pipe is closed unread
        output, _ = process.communicate(data.result())
    except BaseException:
        process.kill()
        process.wait()
        raise
    seconds = time.perf_counter() - started
    _raise_failure(result_path(work, lang, "error"))
    try:
        result = json.loads(result_path(work, lang, "json").read_text(encoding="utf-8"))
    except (OSError, ValueError):  # the process died before its pages were ready: MkDocs' log says why
        result = {"pages": 0, "ready_at": time.time()}
    log = output.decode("utf-8", errors="replace")
    assert process.returncode is not None  # communicate() waited for it
    return LanguageRun(process.returncode, log, seconds, int(result["pages"]), float(result["ready_at"]))


def _raise_failure(path: Path) -> None:
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return
    error, where = pickle.loads(blob)  # written by _record_failure, in the build's own work folder
    raise error from _ChildTraceback(where)


def _record_failure(path: Path, error: Exception) -> None:
    """Keep ``error`` for the parent: itself when it pickles, else a :class:`RegistryError` saying it."""
    where = "".join(traceback.format_exception(error))
    try:
        blob = pickle.dumps((error, where))
        pickle.loads(blob)  # an exception that pickles may still fail to come back
    except Exception:  # any: it is carried over as text
        blob = pickle.dumps((RegistryError(f"{type(error).__name__}: {error}"), where))
    atomic_write(path, blob)


def prepare_language(job: BuildJob, lang: str, read_data: Callable[[], dict[str, str]]) -> Path:
    """Generate (or reuse) ``lang``'s Markdown and write its MkDocs config; return the config's path."""
    from metrics_registry.i18n.translate import UiTranslations, load_catalog
    from metrics_registry.site.language_config import mkdocs_config, navigation

    docs = job.work / "docs" / lang
    kept = job.reused.get(lang)
    if kept is None:  # the generator's imports only when it runs
        from metrics_registry.site.assets import copy_assets
        from metrics_registry.site.generate import generate_pages
        from metrics_registry.site.incremental import generation_key, record

        written = generate_pages(job.registry, job.root, docs, lang=lang)
        copy_assets(job.root, docs)
        data = read_data()
        for name, text in data.items():  # next to the pages that link to them
            (docs / name).write_text(text, encoding="utf-8")
        kept = {"pages": len(written), "trusted": sorted(written.trusted), "data": sorted(data)}
        record(docs, generation_key(job.inputs, lang), kept)
    ready_at = time.time()
    ui = UiTranslations(lang, load_catalog(job.root, lang, "ui")) if lang != "en" else None
    gettext = ui.gettext if ui else (lambda message: message)
    config = mkdocs_config(
        job.root,
        job.work,
        docs=docs,
        output=job.output,
        lang=lang,
        codes=job.listed,
        base_url=job.base_url,
        nav=navigation(job.registry, docs, gettext),
        gettext=gettext,
        trusted=frozenset(kept["trusted"]),
    )
    path = job.work / f"mkdocs.{lang}.yml"
    path.write_text(json.dumps(config, ensure_ascii=False, indent=2), encoding="utf-8")
    result = {"pages": int(kept["pages"]), "ready_at": ready_at}
    atomic_write_text(result_path(job.work, lang, "json"), json.dumps(result))
    return path


def prepare_or_record(job: BuildJob, lang: str, read_data: Callable[[], dict[str, str]]) -> Path | None:
    """:func:`prepare_language`, its failure kept for the build (then ``None``)."""
    try:
        return prepare_language(job, lang, read_data)
    except Exception as error:  # carried to the parent, which raises it
        _record_failure(result_path(job.work, lang, "error"), error)
        return None


def main(arguments: list[str]) -> None:
    """The spawned language's process: prepare its pages and config, then run ``mkdocs build --strict``."""
    job_path, lang = Path(arguments[0]), arguments[1]
    with job_path.open("rb") as handle:
        job: BuildJob = pickle.load(handle)  # the build's own work folder: see the module docstring
    config = prepare_or_record(job, lang, lambda: json.loads(sys.stdin.buffer.read()))
    if config is None:
        sys.exit(1)
    # MkDocs runs in a fresh interpreter, exactly as plain MkDocs does (without the generation's
    # modules and objects; measured: no difference in the build's CPU at 1x, so this is for
    # sameness, not speed).
    # The process stays the same (its pipes, the build's locks): POSIX, as the whole build is.
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, mkdocs_command(config), environment())

"""A language's process forked from the build's (``fork()``), where that is safe.

A forked process starts with the registry and the page generator already in
memory: it neither imports the package nor reads the pickled job back, as a
new interpreter does (:func:`metrics_registry.site.language_build.start_spawned`;
about half a second of a core per language on the real registry, more on a
larger one). It then does what a spawned one does: generates its pages
(:func:`~metrics_registry.site.language_build.prepare_language`) and becomes
``python -m mkdocs build`` (``exec``).

Safe means: on Linux, with the build's process running no other thread
(counted by the kernel, so the native threads of a library count too), and
every language starting at once (the build's default), so that every fork
happens before the build starts a thread of its own. Elsewhere (``serve``'s
rebuilds, which run beside its server's threads; a build limited to fewer
parallel languages) the languages are spawned.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from metrics_registry.site.language_build import (
    BuildJob,
    LanguageProcess,
    environment,
    mkdocs_command,
    prepare_or_record,
    result_path,
)

__all__ = ["can_fork", "start_forked"]


def can_fork(languages: int, jobs: int | None) -> bool:
    """Whether the languages' processes may be forked from this one (see the module docstring)."""
    if jobs is not None and jobs < languages:
        return False  # some would start later, from the build's threads
    try:
        # every thread, also those Python never made
        return sum(1 for _ in Path("/proc/self/task").iterdir()) == 1
    except OSError:  # no /proc: not Linux
        return False


def start_forked(job: BuildJob, langs: Sequence[str], locks: tuple[int, ...]) -> list[LanguageProcess]:
    """Fork one process per language of ``langs`` from this one (only when :func:`can_fork`)."""
    if any(lang not in job.reused for lang in langs):  # imported once here rather than in each
        import metrics_registry.site.generate  # noqa: F401
    sys.stdout.flush()  # nothing buffered here may be written twice
    sys.stderr.flush()
    gc.freeze()  # a collection in a child would touch (and so copy) every object inherited
    ours: list[int] = []  # this process's ends of the pipes, closed in every later child
    processes: list[LanguageProcess] = []
    try:
        for lang in langs:
            for kind in ("json", "error"):
                result_path(job.work, lang, kind).unlink(missing_ok=True)
            stdin_read, stdin_write = os.pipe()
            stdout_read, stdout_write = os.pipe()
            pid = os.fork()
            if pid == 0:
                _forked_child(job, lang, (stdin_read, stdout_write), locks, [*ours, stdin_write, stdout_read])
            os.close(stdin_read)
            os.close(stdout_write)
            ours += [stdin_write, stdout_read]
            processes.append(_Forked(pid, stdin_write, stdout_read))
    except BaseException:  # a fork failed (no memory, too many processes): none is left behind
        for process in processes:
            process.kill()
            process.wait()
        raise
    finally:
        gc.unfreeze()
    return processes


def _forked_child(
    job: BuildJob, lang: str, pipes: tuple[int, int], locks: tuple[int, ...], inherited: list[int]
) -> NoReturn:
    """The forked language's process: never returns into the build's code (its exit is ``_exit``)."""
    try:
        for fd in inherited:  # another language's pipes stay open only in the build itself
            os.close(fd)
        stdin, stdout = pipes
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        os.dup2(stdout, 2)
        os.close(stdin)
        os.close(stdout)
        config = prepare_or_record(job, lang, lambda: json.loads(_read_all(0)))
        if config is None:
            os._exit(1)
        for fd in locks:  # MkDocs holds the build's locks too: see output.build_lock()
            os.set_inheritable(fd, True)
        os.execve(sys.executable, mkdocs_command(config), environment())
    except BaseException:  # an interrupt, or exec failing: the exit code says it
        os._exit(1)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


class _Forked:
    """A forked language's process, as much of :class:`subprocess.Popen` as :func:`run_language` uses."""

    def __init__(self, pid: int, stdin: int, stdout: int) -> None:
        self.pid = pid
        self._open = {"stdin": stdin, "stdout": stdout}  # this process's ends of its pipes
        self.returncode: int | None = None
        self._writer: threading.Thread | None = None  # it closes the input when done

    def communicate(self, input: bytes) -> tuple[bytes, None]:
        # written from a thread while the output is read here: the process may write before it reads
        self._writer = threading.Thread(target=self._write, args=(input,), daemon=True)
        self._writer.start()
        output = _read_all(self._open["stdout"])
        self._writer.join()
        self.wait()
        return output, None

    def _write(self, data: bytes) -> None:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._open["stdin"], view) :]
        except BrokenPipeError:  # it stopped before reading (a failure, or nothing to read)
            pass
        finally:
            self._close("stdin")

    def _close(self, end: str) -> None:
        fd = self._open.pop(end, None)
        if fd is not None:
            os.close(fd)

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # it ended already
                os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        self._close("stdout")
        if self._writer is None:  # never given its input (the build stopped first)
            self._close("stdin")
        return self.returncode

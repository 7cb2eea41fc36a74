"""``metrics-registry build``: generate the pages, then run MkDocs per language.

One process per language, all in parallel, generates its pages and runs MkDocs
with a small generated config that INHERITs the repository's ``mkdocs.yml``
(:mod:`metrics_registry.site.language_build`); the research behind this
choice is summarised in docs/en/contributing/site.md. After MkDocs, the
build adds what MkDocs does not make: the root pages (language chooser,
404, sitemap index), the machine-readable registry, and a link check over
every language.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from metrics_registry.cache import memo
from metrics_registry.registry import Registry, RegistryError
from metrics_registry.schema import schema_text
from metrics_registry.site.assets import katex_dist
from metrics_registry.site.incremental import generation_key, inputs_digest, registry_digest, reusable
from metrics_registry.site.language_build import (
    BuildJob,
    LanguageProcess,
    LanguageRun,
    run_language,
    start_spawned,
    write_job,
)
from metrics_registry.site.language_config import published_url
from metrics_registry.site.language_fork import can_fork, start_forked
from metrics_registry.site.languages import SITE_LANGUAGES
from metrics_registry.site.linkcheck import Page, check_links, scan_folder
from metrics_registry.site.output import OutputRefused, build_lock, check_output, claim_work, publishing
from metrics_registry.site.rootpages import write_root_pages

__all__ = ["BuildError", "BuildReport", "OutputRefused", "build_site", "data_files", "find_project_root"]


class BuildError(RegistryError):
    """The site could not be built; the message carries MkDocs' complaint."""


@dataclass
class BuildReport:
    """What a build did and where its time went: generating the pages (until every language's
    were ready: they are generated side by side), MkDocs beyond that, and the steps after
    MkDocs (root pages, link check)."""

    output: Path
    seconds_generate: float
    seconds_mkdocs: float
    seconds_finish: float
    pages: int
    languages: tuple[str, ...]
    seconds_per_language: dict[str, float] = field(default_factory=dict)
    #: What the reader of the build's output should know (a part left out, and how to get it).
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = (
            f"built {', '.join(self.languages)} ({self.pages} pages) into {self.output} "
            f"(generation {self.seconds_generate:.2f} s, MkDocs {self.seconds_mkdocs:.2f} s more, "
            f"checks {self.seconds_finish:.2f} s)"
        )
        return "\n".join([text, *(f"note: {note}" for note in self.notes)])


def build_notes() -> tuple[str, ...]:
    """What this machine leaves out of the site: the concept pages' worked examples need torch."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return (
            "torch is not installed: the concept pages have no worked examples; install it with "
            "pip install -e ./packages/zh-models -e '.[docs,torch]' -c constraints/test.txt (the CPU wheel) "
            "and build again",
        )
    return ()


def find_project_root(start: Path | None = None) -> Path:
    """The nearest folder with ``mkdocs.yml`` and ``docs/``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file() and (folder / "docs").is_dir():
            return folder
    raise BuildError(
        f"no mkdocs.yml with a docs/ folder in {here} or above; run the command from the repository"
    )


def data_files(registry: Registry, root: Path | None = None) -> dict[str, str]:
    """The registry as data, published at stable URLs next to the pages (every export format)."""
    from metrics_registry.exports import EXPORTERS, FILE_NAMES, export_json

    files = {FILE_NAMES[name]: export(registry) for name, export in EXPORTERS.items() if name != "json"}
    # the translations come from this project's catalogs, wherever the command runs
    has_catalogs = root is not None and (root / "i18n").is_dir()
    files[FILE_NAMES["json"]] = export_json(registry, i18n_root=root if has_catalogs else None)
    files["registry-file.schema.json"] = schema_text("registry-file")
    return files


def build_site(
    registry: Registry,
    *,
    output: Path,
    project_root: Path | None = None,
    work: Path | None = None,
    languages: tuple[str, ...] | None = None,
    site_url: str | None = None,
    jobs: int | None = None,
    reuse: bool = False,
) -> BuildReport:
    """Generate every language's pages and build them; raise :class:`BuildError` on any warning.

    With ``reuse``, the languages not in ``languages`` that the current site at ``output`` holds
    are kept as they are (hard-linked into the new site), so ``serve`` rebuilds only the
    languages an edit touched; the language switcher and root pages still list every language.

    ``work`` holds the generated Markdown and configs (``build/`` of the
    project by default; not committed). ``jobs`` MkDocs builds run at once
    (default: one per language). The site is built next to ``output`` and
    swapped in whole; an ``output`` this tool did not make is refused with
    :class:`OutputRefused` (see :mod:`metrics_registry.site.output`).
    """
    root = (project_root or find_project_root()).resolve()
    output = (output if output.is_absolute() else Path.cwd() / output).resolve()
    work = (work or root / "build").resolve()
    check_output(output, root=root, work=work)
    claim_work(work)  # its language folders are deleted and generated again
    built = languages or tuple(language.code for language in SITE_LANGUAGES)
    kept = tuple(
        language.code
        for language in SITE_LANGUAGES
        if reuse and language.code not in built and (output / language.code / "index.html").is_file()
    )
    with build_lock(work) as lock_fd, publishing(output) as stage:
        locks = (lock_fd, stage.lock_fd)  # MkDocs holds them too: see build_lock()
        for code in kept:  # the previous build's files are never written again: links are safe
            shutil.copytree(output / code, stage.path / code, copy_function=os.link)
        report = _build(registry, stage.path, root, work, (built, kept), site_url, jobs, locks)
    report.output = output
    return report


def _finish_mkdocs(
    futures: list[Future[LanguageRun]], codes: tuple[str, ...], output: Path
) -> tuple[list[LanguageRun], dict[str, Page]]:
    """Each language's run, and its pages read for the link check as soon as MkDocs wrote
    them, while the other languages are still being built (a core is free as soon as one
    language is done)."""
    language = dict(zip(futures, codes, strict=True))
    scanned: dict[str, Page] = {}
    for future in as_completed(futures):
        if future.exception() is None and future.result().code == 0:
            scanned.update(scan_folder(output, language[future]))
    return [future.result() for future in futures], scanned


def _data_for(job: BuildJob, codes: tuple[str, ...]) -> dict[str, str]:
    """The registry's data files: made again when a language is generated, else read back."""
    if not codes or any(lang not in job.reused for lang in codes):
        # the same inputs give the same files: job.inputs covers the registry, the catalogs, this
        # package's code and the libraries that write them (babel and pyyaml by version)
        key = hashlib.sha256(f"site data files\0{job.inputs}".encode()).hexdigest()
        return memo(key, lambda: data_files(job.registry, job.root))
    docs = job.work / "docs" / codes[0]
    return {name: (docs / name).read_text(encoding="utf-8") for name in job.reused[codes[0]]["data"]}


def _build(  # noqa: PLR0917 (build_site's arguments, passed on)
    registry: Registry,
    output: Path,
    root: Path,
    work: Path,
    languages: tuple[tuple[str, ...], tuple[str, ...]],
    site_url: str | None,
    jobs: int | None,
    locks: tuple[int, ...],
) -> BuildReport:
    """The build itself, into ``output`` (a fresh folder that :func:`build_site` swaps in);
    ``languages`` are the ones to build and the ones already there (kept from the previous site).

    Every language is built in a process of its own, all at once (its pages generated, then
    MkDocs: :mod:`metrics_registry.site.language_build`), while this one makes the data files.
    """
    codes, kept = languages
    started, began_at = time.perf_counter(), time.time()
    inputs = inputs_digest(registry_digest(registry), root, katex_dist(root))
    reused = {
        lang: record
        for lang in codes
        if (record := reusable(work / "docs" / lang, generation_key(inputs, lang))) is not None
    }
    job = BuildJob(
        registry=registry,
        root=root,
        work=work,
        output=output,
        listed=tuple(language.code for language in SITE_LANGUAGES if language.code in codes + kept),
        base_url=published_url(root, site_url),
        inputs=inputs,
        reused=reused,
    )
    if can_fork(len(codes), jobs):  # before this build starts any thread
        forked = dict(zip(codes, start_forked(job, codes, locks), strict=True))
        start: Callable[[str], LanguageProcess] = forked.__getitem__
    else:
        job_path = write_job(job)
        start = partial(start_spawned, job_path, locks=locks)
    data_json: Future[bytes] = Future()
    reused_input: Future[bytes] = Future()
    reused_input.set_result(b"")

    def run(lang: str) -> LanguageRun:
        return run_language(start(lang), work, lang, reused_input if lang in reused else data_json)

    with ThreadPoolExecutor(max_workers=jobs or len(codes)) as pool:
        futures = [pool.submit(run, lang) for lang in codes]
        try:
            data = _data_for(job, codes)
        except BaseException as error:  # the languages waiting for the data stop
            data_json.set_exception(error)
            raise
        data_json.set_result(json.dumps(data, ensure_ascii=False).encode("utf-8"))
        results, scanned = _finish_mkdocs(futures, codes, output)
    for lang, run in zip(codes, results, strict=True):
        if run.code != 0:
            lines = [line for line in run.log.splitlines() if line.strip()]
            problems = [line for line in lines if line.startswith(("WARNING", "ERROR"))] or lines[-5:]
            raise BuildError(f"MkDocs failed for mkdocs.{lang}.yml: " + " | ".join(problems[:10]))
    built = time.perf_counter()
    ready = max((run.ready_at for run in results), default=began_at) - began_at
    generating = min(max(ready, 0.0), built - started)
    write_root_pages(output, job.listed, data, job.base_url)
    problems = check_links(output, scanned=scanned)
    if problems:
        shown = "\n  ".join(str(problem) for problem in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise BuildError(f"broken links in the built site ({len(problems)}):\n  {shown}{more}")
    done = time.perf_counter()
    return BuildReport(
        output,
        generating,
        built - started - generating,
        done - built,
        sum(run.pages for run in results),
        codes,
        {lang: run.seconds for lang, run in zip(codes, results, strict=True)},
        build_notes(),
    )

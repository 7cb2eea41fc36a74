"""``metrics-registry build``: generate the pages, then run MkDocs per language.

One MkDocs build per language (a small generated config that INHERITs the
repository's ``mkdocs.yml``), run in parallel; the research behind this
choice is summarised in docs/en/contributing/site.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from metrics_registry.export import export_json
from metrics_registry.fileio import atomic_write_text
from metrics_registry.registry import Registry, RegistryError
from metrics_registry.schema import schema_text
from metrics_registry.site.generate import generate_pages

__all__ = ["LANGUAGES", "BuildError", "build_site", "find_project_root"]

LANGUAGES = ("en",)

_ROOT_INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>RL metrics registry</title>
<meta http-equiv="refresh" content="0; url=en/">
<link rel="canonical" href="en/"></head>
<body><p><a href="en/">English</a></p></body></html>
"""


class BuildError(RegistryError):
    """The site could not be built; the message carries MkDocs' complaint."""


@dataclass
class BuildReport:
    output: Path
    seconds_generate: float
    seconds_mkdocs: float
    pages: int

    def __str__(self) -> str:
        return (
            f"built {self.pages} generated pages into {self.output} "
            f"(generation {self.seconds_generate:.2f} s, MkDocs {self.seconds_mkdocs:.2f} s)"
        )


def find_project_root(start: Path | None = None) -> Path:
    """The nearest folder with ``mkdocs.yml`` and ``docs/``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "mkdocs.yml").is_file() and (folder / "docs").is_dir():
            return folder
    raise BuildError(
        f"no mkdocs.yml with a docs/ folder in {here} or above; run the command from the repository"
    )


def _nav(registry: Registry, docs: Path) -> list[object]:
    reference = [{family.title: f"reference/{fid}.md"} for fid, family in registry.families.items()]
    contributing = sorted(p.relative_to(docs).as_posix() for p in (docs / "contributing").glob("*.md"))
    return [
        {"Home": "index.md"},
        {"All metrics": "metrics.md"},
        {"Reference": reference},
        {"Contributing": contributing},
    ]


def _mkdocs(config: Path) -> tuple[int, str]:
    process = subprocess.run(
        # no --quiet: MkDocs only counts the warnings it logs, so quiet would hide them from --strict
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    return process.returncode, process.stderr + process.stdout


def build_site(
    registry: Registry, *, output: Path, project_root: Path | None = None, work: Path | None = None
) -> BuildReport:
    """Generate every language's pages and build them; raise :class:`BuildError` on any warning.

    ``work`` holds the generated Markdown and configs (``build/`` of the
    project by default; not committed).
    """
    root = project_root or find_project_root()
    output = output if output.is_absolute() else Path.cwd() / output
    work = work or root / "build"
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    configs = []
    pages = 0
    for language in LANGUAGES:
        docs = work / "docs" / language
        pages += len(generate_pages(registry, root / "docs" / language, docs))
        # the machine-readable registry, next to the pages that link to it
        (docs / "metrics.json").write_text(export_json(registry), encoding="utf-8")
        (docs / "schema.json").write_text(schema_text("export"), encoding="utf-8")
        config = {
            "INHERIT": os.path.relpath(root / "mkdocs.yml", work),
            "docs_dir": os.path.relpath(docs, work),
            "site_dir": str(output / language),
            "theme": {"name": "material", "language": language},
            "nav": _nav(registry, docs),
        }
        path = work / f"mkdocs.{language}.yml"
        # JSON is valid YAML, and needs no YAML writer in the core package.
        path.write_text(json.dumps(config, ensure_ascii=False, indent=2), encoding="utf-8")
        configs.append(path)
    generated = time.perf_counter()
    if output.exists():
        shutil.rmtree(output)
    with ThreadPoolExecutor(max_workers=len(configs)) as pool:
        results = list(pool.map(_mkdocs, configs))
    for config, (code, log) in zip(configs, results, strict=True):
        if code != 0:
            lines = [line for line in log.splitlines() if line.strip()]
            problems = [line for line in lines if line.startswith(("WARNING", "ERROR"))] or lines[-5:]
            raise BuildError(f"MkDocs failed for {config.name}: " + " | ".join(problems[:10]))
    output.mkdir(parents=True, exist_ok=True)
    atomic_write_text(output / "index.html", _ROOT_INDEX, backup=False)
    atomic_write_text(output / "metrics.json", export_json(registry), backup=False)
    atomic_write_text(output / "schema.json", schema_text("export"), backup=False)
    atomic_write_text(output / "registry-file.schema.json", schema_text("registry-file"), backup=False)
    done = time.perf_counter()
    return BuildReport(output, generated - started, done - generated, pages)

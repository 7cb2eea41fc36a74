"""``metrics-registry build``: generate the pages, then run MkDocs per language.

One MkDocs build per language (a small generated config that INHERITs the
repository's ``mkdocs.yml``), run in parallel; the research behind this
choice is summarised in docs/en/contributing/site.md. After MkDocs, the
build adds what MkDocs does not make: the root pages (language chooser,
404, sitemap index), the machine-readable registry, and a link check over
every language.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from metrics_registry.links import family_markdown
from metrics_registry.registry import Registry, RegistryError
from metrics_registry.schema import schema_text
from metrics_registry.site import hooks
from metrics_registry.site.assets import copy_assets, katex_dist
from metrics_registry.site.generate import generate_pages
from metrics_registry.site.incremental import generation_key, inputs_digest, record, registry_digest, reusable
from metrics_registry.site.languages import DEFAULT_LANGUAGE, SITE_LANGUAGES
from metrics_registry.site.linkcheck import Page, check_links, scan_folder
from metrics_registry.site.output import OutputRefused, build_lock, check_output, claim_work, publishing
from metrics_registry.site.rootpages import write_root_pages
from metrics_registry.site.sanitize import clean_text
from metrics_registry.site.theme import theme_settings

__all__ = ["BuildError", "BuildReport", "OutputRefused", "build_site", "data_files", "find_project_root"]


#: The metric pages (``reference/<family>/<slug>.md``), as a gitignore pattern for MkDocs' ``not_in_nav``.
METRIC_PAGES = "/reference/*/*.md"


class BuildError(RegistryError):
    """The site could not be built; the message carries MkDocs' complaint."""


@dataclass
class BuildReport:
    """What a build did and where its time went: generating the pages (summed over languages),
    waiting for MkDocs beyond that (its builds overlap the generation of the next language), and
    the steps after MkDocs (root pages, link check)."""

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
            "pip install -e '.[docs,torch]' -c constraints/test.txt (the CPU wheel) and build again",
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


def _nav(registry: Registry, docs: Path, gettext: Callable[[str], str]) -> list[object]:
    """The navigation, with section titles in the page's language (page titles come from the pages).

    The titles come from a catalog and the theme writes them as HTML: plain text only.
    """

    def _(message: str) -> str:
        return clean_text(gettext(message))

    def pages(folder: str) -> list[str]:
        return sorted(p.relative_to(docs).as_posix() for p in (docs / folder).glob("*.md"))

    reference: list[object] = [family_markdown(family_id) for family_id in registry.families]
    reference += pages("notes")
    if (docs / "api.md").exists():
        reference.append("api.md")
    nav: list[object] = [
        {_("Home"): "index.md"},
        {_("Guides"): ["reading-a-run.md", "legacy-names.md", "metrics.md"]},
        {_("Reference"): reference},
    ]
    # the index, then one page per concept in the concept list's order (site/concept_pages.py)
    concepts = [f"concepts/{concept_id}.md" for concept_id in registry.concepts]
    concepts = [page for page in ("concepts/index.md", *concepts) if (docs / page).is_file()]
    if concepts:
        nav.append({_("Across frameworks"): concepts})
    if pages("tools"):
        nav.append({_("Tools"): pages("tools")})
    nav.append({_("Contributing"): pages("contributing")})
    return nav


def _site_url(root: Path, site_url: str | None) -> str:
    if site_url is None:
        from mkdocs.config import load_config  # only read, to honour the repository's setting

        site_url = load_config(str(root / "mkdocs.yml")).site_url or "http://127.0.0.1:8000/"
    return site_url if site_url.endswith("/") else site_url + "/"


def _config(
    root: Path,
    work: Path,
    *,
    docs: Path,
    output: Path,
    lang: str,
    codes: tuple[str, ...],
    base_url: str,
    nav: list[object],
    gettext: Callable[[str], str],
    trusted: frozenset[str] = frozenset(),
) -> dict[str, object]:
    """The MkDocs config of one language (JSON is valid YAML, and needs no YAML writer here)."""
    languages = [
        {
            "code": other.code,
            "name": other.name,
            "hreflang": other.hreflang,
            "url": f"{base_url}{other.code}/",
            "path": f"../{other.code}/",  # relative to this language's root, for the switcher
            "default": other.code == DEFAULT_LANGUAGE,
            "current": other.code == lang,
        }
        for other in SITE_LANGUAGES
        if other.code in codes
    ]
    texts = theme_settings(gettext)  # site name, footer, palette, permalinks... in this language
    return {
        **texts,
        "INHERIT": os.path.relpath(root / "mkdocs.yml", work),
        "docs_dir": os.path.relpath(docs, work),
        "site_dir": str(output / lang),
        "site_url": f"{base_url}{lang}/",
        "theme": {
            **texts["theme"],  # type: ignore[dict-item]
            "name": "material",
            "language": lang,
            "custom_dir": str(root / "docs" / "overrides"),
        },
        # extra.alternate turns Material's language switcher on; its entries are
        # replaced by the page-level links of docs/overrides/partials/alternate.html
        "extra": {
            **texts["extra"],  # type: ignore[dict-item]
            "alternate": [
                {"name": item["name"], "link": item["path"], "lang": item["code"]} for item in languages
            ],
            "site_languages": languages,
            # every other page carries untrusted text: the hook cleans it
            hooks.TRUSTED_PAGES_KEY: sorted(trusted),
        },
        **_api_templates(root),
        "hooks": [hooks.__file__],
        "nav": nav,
        # each metric's page: linked from its family's index, not listed in the navigation
        # (which every page repeats); see metrics_registry/links.py
        "not_in_nav": METRIC_PAGES,
    }


def _api_templates(root: Path) -> dict[str, object]:
    """The project's mkdocstrings templates (the API page's source code out of the search index)."""
    templates = root / "docs" / "mkdocstrings"
    if not templates.is_dir():  # a project without the API page's templates keeps mkdocstrings' own
        return {}
    return {"plugins": {"mkdocstrings": {"custom_templates": str(templates)}}}


def _mkdocs(config: Path, locks: tuple[int, ...] = ()) -> tuple[int, str, float]:
    started = time.perf_counter()
    process = subprocess.run(
        # no --quiet: MkDocs only counts the warnings it logs, so quiet would hide them from --strict
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1"},
        pass_fds=locks,
    )
    return process.returncode, process.stderr + process.stdout, time.perf_counter() - started


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
    futures: list[Future[tuple[int, str, float]]], codes: tuple[str, ...], output: Path
) -> tuple[list[tuple[int, str, float]], dict[str, Page]]:
    """Each language's MkDocs result, and its pages read for the link check as soon as MkDocs
    wrote them, while the other languages are still being built (a core is free as soon as one
    language is done)."""
    language = dict(zip(futures, codes, strict=True))
    scanned: dict[str, Page] = {}
    for future in as_completed(futures):
        code, _, _ = future.result()
        if code == 0:
            scanned.update(scan_folder(output, language[future]))
    return [future.result() for future in futures], scanned


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
    ``languages`` are the ones to build and the ones already there (kept from the previous site)."""
    from metrics_registry.i18n.translate import UiTranslations, load_catalog

    codes, kept = languages
    listed = tuple(language.code for language in SITE_LANGUAGES if language.code in codes + kept)
    base_url = _site_url(root, site_url)
    started = time.perf_counter()
    configs = []
    pages = 0
    generating = 0.0
    data: dict[str, str] | None = None  # the exports, made when a language is generated
    inputs = inputs_digest(registry_digest(registry), root, katex_dist(root))
    futures = []
    # Each language's MkDocs starts as soon as its pages are written, while the next language's are
    # generated: generation is one core's work, and MkDocs runs in its own process.
    with ThreadPoolExecutor(max_workers=jobs or len(codes)) as pool:
        for lang in codes:
            began = time.perf_counter()
            docs = work / "docs" / lang
            key = generation_key(inputs, lang)
            kept = reusable(docs, key)
            if kept is None:
                written = generate_pages(registry, root, docs, lang=lang)
                copy_assets(root, docs)
                data = data_files(registry, root) if data is None else data
                for name, text in data.items():  # next to the pages that link to them
                    (docs / name).write_text(text, encoding="utf-8")
                kept = {"pages": len(written), "trusted": sorted(written.trusted), "data": sorted(data)}
                record(docs, key, kept)
            elif data is None:  # the exports this folder holds, for the root pages
                data = {name: (docs / name).read_text(encoding="utf-8") for name in kept["data"]}
            pages += int(kept["pages"])
            ui = UiTranslations(lang, load_catalog(root, lang, "ui")) if lang != "en" else None
            gettext = ui.gettext if ui else (lambda message: message)
            nav = _nav(registry, docs, gettext)
            path = work / f"mkdocs.{lang}.yml"
            config = _config(
                root,
                work,
                docs=docs,
                output=output,
                lang=lang,
                codes=listed,
                base_url=base_url,
                nav=nav,
                gettext=gettext,
                trusted=frozenset(kept["trusted"]),
            )
            path.write_text(json.dumps(config, ensure_ascii=False, indent=2), encoding="utf-8")
            configs.append(path)
            generating += time.perf_counter() - began
            futures.append(pool.submit(_mkdocs, path, locks))
        results, scanned = _finish_mkdocs(futures, codes, output)
    for config, (code, log, _) in zip(configs, results, strict=True):
        if code != 0:
            lines = [line for line in log.splitlines() if line.strip()]
            problems = [line for line in lines if line.startswith(("WARNING", "ERROR"))] or lines[-5:]
            raise BuildError(f"MkDocs failed for {config.name}: " + " | ".join(problems[:10]))
    built = time.perf_counter()
    write_root_pages(output, listed, data or data_files(registry, root), base_url)
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
        pages,
        codes,
        {lang: seconds for lang, (_, _, seconds) in zip(codes, results, strict=True)},
        build_notes(),
    )

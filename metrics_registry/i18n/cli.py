"""``metrics-registry i18n``: extract, update, compile, status, add-language, pages, stamp, domain-model.

Run from the project folder (the one holding ``i18n/``), or pass ``--root``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from metrics_registry.clierrors import user_errors
from metrics_registry.i18n import DOMAINS, I18nError, catalog_path, i18n_dir, template_path

__all__ = ["i18n_group"]


_errors = user_errors(I18nError)


def _find_root(start: Path | None = None) -> Path:
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "i18n" / "babel.cfg").exists():
            return folder
    raise I18nError("no i18n/babel.cfg here or above; run from the project folder or pass --root")


_root_option = click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Project folder holding i18n/ (default: found from the current folder).",
)
_lang_option = click.option(
    "--lang", "langs", multiple=True, help="Language to act on (repeatable; default: all)."
)


@click.group(name="i18n")
def i18n_group() -> None:
    """Translation catalogs (Babel): extract, update, compile, status, add-language."""


@i18n_group.command()
@_root_option
@_errors
def extract(root: Path | None) -> None:
    """Write the English templates i18n/registry.pot and i18n/ui.pot."""
    from metrics_registry.i18n.catalogs import write_templates

    root = root or _find_root()
    templates = write_templates(root)
    for domain in DOMAINS:
        click.echo(f"{template_path(root, domain)}: {len(templates[domain])} messages")


@i18n_group.command()
@_root_option
@_lang_option
@click.option(
    "--previous/--no-previous",
    default=True,
    show_default=True,
    help="Keep the previous English of changed entries as '#| msgid' comments.",
)
@_errors
def update(root: Path | None, langs: tuple[str, ...], previous: bool) -> None:
    """Extract, then merge the templates into every catalog.

    Entries whose English changed keep their translation and are marked
    fuzzy; new entries are left untranslated (translations are never guessed).
    """
    from metrics_registry.fileio import atomic_write_text
    from metrics_registry.i18n.catalogs import read_catalog, render_po, update_catalogs

    root = root or _find_root()
    report = update_catalogs(root, langs or None)
    for lang, domains in report.items():
        for domain, fuzzy in domains.items():
            path = catalog_path(root, lang, domain)
            if not previous:
                atomic_write_text(path, render_po(read_catalog(path), include_previous=False), backup=False)
            click.echo(f"{path}: {len(fuzzy)} entries became fuzzy")
            for context in fuzzy:
                click.echo(f"  fuzzy: {context}")


@i18n_group.command(name="compile")
@_root_option
@_lang_option
@_errors
def compile_command(root: Path | None, langs: tuple[str, ...]) -> None:
    """Compile every catalog to .mo (fuzzy entries are left out)."""
    from metrics_registry.i18n.catalogs import compile_catalogs

    root = root or _find_root()
    for path in compile_catalogs(root, langs or None):
        click.echo(str(path))


@i18n_group.command(name="domain-model")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the counts lag the translations.")
@_root_option
@_errors
def domain_model(check: bool, root: Path | None) -> None:
    """Count the words of the Chinese translations for the encoding repair's model of the field.

    The counts ship in the metrics-registry-zh-models distribution
    (packages/zh-models/metrics_registry_zh_models/zh-domain.json.gz);
    run this after translating, and commit the file with the catalogs.
    """
    from metrics_registry.encoding.domain import BUNDLED, MODELS, counts_text
    from metrics_registry.i18n.field_counts import field_counts, write_field_counts

    if not MODELS.is_dir():
        click.echo(
            "the Chinese word counts are not installed: "
            "pip install -e packages/zh-models (or metrics-registry[encoding])",
            err=True,
        )
        sys.exit(2)
    root = root or _find_root()
    if check:
        current = BUNDLED.is_file() and counts_text(BUNDLED) == field_counts(root).to_json()
        if not current:
            click.echo(
                f"{BUNDLED}: lags the Chinese translations; run 'metrics-registry i18n domain-model'",
                err=True,
            )
            sys.exit(1)
        click.echo(f"{BUNDLED}: up to date")
        return
    path, changed = write_field_counts(root)
    click.echo(f"{path}: {'written' if changed else 'already up to date'}")


@i18n_group.command(name="add-language")
@click.argument("lang")
@click.option("--locale", help="Babel locale for the header if not LANG itself (e.g. zh_Hans for zh).")
@_root_option
@_errors
def add_language(lang: str, locale: str | None, root: Path | None) -> None:
    """Create the catalogs of a new language LANG (e.g. 'ja'), from the current English."""
    from metrics_registry.i18n.catalogs import add_language as add

    root = root or _find_root()
    for path in add(root, lang, locale):
        click.echo(f"created {path}")
    click.echo(f"next: translate them, then 'metrics-registry i18n status --lang {lang}'")


@i18n_group.command()
@_root_option
@_lang_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--check", is_flag=True, help="Exit 1 when a language is below the bar or has QA findings.")
@click.option(
    "--min-translated",
    type=click.FloatRange(0, 100),
    default=100.0,
    show_default=True,
    help="Bar for --check: percentage of entries translated (fuzzy is not translated).",
)
@click.option("--max-fuzzy", type=click.IntRange(0), default=0, show_default=True, help="Bar for --check.")
@click.option("--verbose", "-v", is_flag=True, help="List the fuzzy and missing entries.")
@_errors
def status(  # noqa: PLR0917 (click passes options positionally by name)
    root: Path | None,
    langs: tuple[str, ...],
    fmt: str,
    check: bool,
    min_translated: float,
    max_fuzzy: int,
    verbose: bool,
) -> None:
    """Translated / fuzzy / missing per language and family, and QA findings."""
    from metrics_registry.i18n.catalogs import Counts
    from metrics_registry.i18n.catalogs import status as compute
    from metrics_registry.i18n.qa import check_catalogs

    root = root or _find_root()
    result = compute(root, langs or None)
    findings = check_catalogs(root, langs or None)
    failing = []
    report: dict[str, Any] = {}
    for lang, groups in result.items():
        total = Counts()
        for counts in groups.values():
            total.add(counts)
        qa = [f for f in findings if f.file.is_relative_to(i18n_dir(root) / lang)]
        ok = total.percent >= min_translated and total.fuzzy <= max_fuzzy and not qa
        if not ok:
            failing.append(lang)
        report[lang] = {
            "ok": ok,
            "total": total.to_dict(),
            "families": {name: counts.to_dict() for name, counts in groups.items()},
            "qa": [f.to_dict() for f in qa],
        }
    if fmt == "json":
        for entry in report.values():
            if not verbose:
                for counts in [entry["total"], *entry["families"].values()]:
                    counts.pop("fuzzy_contexts")
                    counts.pop("missing_contexts")
        bar = {"min_translated": min_translated, "max_fuzzy": max_fuzzy, "max_qa_findings": 0}
        click.echo(json.dumps({"bar": bar, "languages": report}, indent=2, ensure_ascii=False))
    else:
        for lang, groups in result.items():
            entry = report[lang]
            t = entry["total"]
            click.echo(
                f"{lang}: {t['percent']:.1f}% translated ({t['translated']}/{t['total']}), "
                f"{t['fuzzy']} fuzzy, {t['missing']} missing, {len(entry['qa'])} QA findings"
            )
            for name, counts in groups.items():
                click.echo(
                    f"  {name:<16} {counts.percent:5.1f}%  translated {counts.translated:>4}  "
                    f"fuzzy {counts.fuzzy:>3}  missing {counts.missing:>4}"
                )
                if verbose:
                    for context in counts.fuzzy_contexts:
                        click.echo(f"      fuzzy:   {context}")
                    for context in counts.missing_contexts:
                        click.echo(f"      missing: {context}")
            if verbose:
                for finding in findings:
                    if finding.file.is_relative_to(i18n_dir(root) / lang):
                        click.echo(f"  {finding.format()}")
    if check and failing:
        click.echo(
            f"metrics-registry: i18n check failed for {', '.join(failing)} "
            f"(bar: {min_translated:g}% translated, at most {max_fuzzy} fuzzy, 0 QA findings)",
            err=True,
        )
        sys.exit(1)


@i18n_group.command()
@click.argument(
    "pages", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False, exists=True)
)
@_root_option
@_errors
def stamp(pages: tuple[Path, ...], root: Path | None) -> None:
    """Record that translated PAGES (docs/<lang>/...) follow the current English.

    Run it after bringing a translated page up to date: it writes the
    English page's revision into the front matter (the old file is kept as
    <file>.bak).
    """
    from metrics_registry.i18n.pages import stamp as record

    root = root or _find_root()
    for page in pages:
        click.echo(f"{page}: source_revision {record(page, root)}")


@i18n_group.command(name="pages")
@_root_option
@_lang_option
@click.option("--diff", "show_diff", is_flag=True, help="Show what changed in the English of outdated pages.")
@_errors
def pages_command(root: Path | None, langs: tuple[str, ...], show_diff: bool) -> None:
    """State of every hand-written page in each language: translated, outdated or missing."""
    import subprocess

    from metrics_registry.i18n import languages
    from metrics_registry.i18n.pages import page_states

    root = root or _find_root()
    for lang in langs or languages(root):
        for page in page_states(root, lang):
            label = {"translated": "translated", "fuzzy": "outdated", "missing": "missing"}[page.state]
            click.echo(f"{lang}  {label:<10}  docs/{lang}/{page.page}")
            if page.state != "fuzzy":
                continue
            if not page.recorded:
                click.echo(
                    "      no source_revision recorded: run 'metrics-registry i18n stamp' once it is current"
                )
            elif show_diff:
                # The recorded revision is a Git blob id, so Git can show the change.
                process = subprocess.run(
                    ["git", "diff", "--no-color", page.recorded, page.current],
                    cwd=root,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                click.echo(
                    process.stdout
                    or f"      (git cannot show blob {page.recorded}: {process.stderr.strip()})"
                )

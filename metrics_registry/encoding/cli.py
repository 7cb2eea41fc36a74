"""``metrics-registry fix-encoding``: repair mojibake in files, or check that there is none.

Exit codes: 0 done (or, with ``--check``, nothing found), 1 damage found by
``--check`` or a file could not be read or written, 2 the command was used
wrongly. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from metrics_registry.encoding import domain
from metrics_registry.encoding.annotations import damage_annotation, unreadable_annotation
from metrics_registry.encoding.cli_output import describe_doubt, json_report, usage_problem
from metrics_registry.encoding.domain import DomainModel, DomainModelError
from metrics_registry.encoding.findings import Finding
from metrics_registry.encoding.markup import markup_for
from metrics_registry.encoding.repair import Repaired, repair_with_findings
from metrics_registry.encoding.review import DEFAULT_THRESHOLD, Doubt, doubts, review_html, review_markdown
from metrics_registry.encoding.stream import STREAM_BYTES, UndecodableError, lines_of, repair_pieces
from metrics_registry.encoding.walk import WalkError, is_folder, text_files
from metrics_registry.encoding.word_ngrams import WordModelError
from metrics_registry.fileio import WriteError, atomic_write
from metrics_registry.reporting import Annotation, render, site_url_from_env

__all__ = ["fix_encoding"]

_PROG = "metrics-registry fix-encoding"


def _fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"{_PROG}: error: {message}", err=True)
    sys.exit(code)


class _Unreadable(Exception):
    """A file that cannot be read as UTF-8 text; the message names it and the fix."""


def _read(path: str) -> str:
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as error:
        raise _Unreadable(f"{path}: {error.strerror or error}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _Unreadable(
            f"{path}: not UTF-8 text (byte {error.start}); decode it as UTF-8 first, then repair"
        ) from None


def _field_counts(paths: tuple[str, ...]) -> DomainModel | None:
    """The field's word counts to repair with: the bundled ones, plus the Chinese of ``paths``, which
    weighs as the project's own counts do (:data:`.domain.PROJECT_WEIGHT`)."""
    bundled = domain.active()
    if not paths:
        return bundled
    try:
        own = DomainModel.from_texts([_read(path) for path in paths])
    except _Unreadable as error:
        _fail(str(error))
    return own if bundled is None else bundled.plus(own.times(domain.PROJECT_WEIGHT))


def _expand(paths: tuple[str, ...]) -> list[str]:
    """``paths`` with every folder replaced by the text files under it (:mod:`.walk`)."""
    files: list[str] = []
    for path in paths:
        if not is_folder(path):
            files.append(path)
            continue
        try:
            found = list(text_files(path))
        except WalkError as error:
            _fail(f"{error.filename or path}: {error.strerror or error}")
        if not found:
            click.echo(f"{_PROG}: warning: {path}: no text file in this folder", err=True)
        files.extend(found)
    return files


@click.command(name="fix-encoding", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option(
    "--check",
    is_flag=True,
    help="Only list the damage found, one line each; exit 1 when there is some.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "github", "sarif"]),
    default="text",
    show_default=True,
    help="With --check: lines for a terminal, GitHub Actions workflow annotations, or a SARIF 2.1.0 log.",
)
@click.option(
    "--diff", "show_diff", is_flag=True, help="Print a unified diff of the repairs; change no file."
)
@click.option(
    "--in-place",
    "-i",
    "in_place",
    is_flag=True,
    help="Rewrite the files: atomically, keeping the original as <file>.bak (or .bak.1, ...).",
)
@click.option("--no-backup", is_flag=True, help="With --in-place, keep no copy of the original.")
@click.option(
    "--context",
    "context",
    multiple=True,
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Clean text of the same field (pages, .po catalogs) whose Chinese words count when "
    "choosing what lost bytes were, on top of the ones that ship (repeatable).",
)
@click.option(
    "--mark",
    is_flag=True,
    help="List every character put back with a confidence under --threshold, with its alternatives "
    "(PATH:LINE:COLUMN in the repaired text); the repaired text is not printed.",
)
@click.option(
    "--threshold",
    type=click.FloatRange(0.0, 1.0, min_open=True),
    default=DEFAULT_THRESHOLD,
    show_default=True,
    help="Confidence under which --mark, --json and --review list a repaired character.",
)
@click.option(
    "--review",
    "review_path",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write a review of the doubtful characters: HTML if FILE ends in .html or .htm (the repaired "
    "text, doubts highlighted), else Markdown (each doubt in its context).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON report instead: per file, the findings and the doubtful characters.",
)
def fix_encoding(  # noqa: PLR0917 (click passes options positionally by name)
    paths: tuple[str, ...],
    check: bool,
    fmt: str,
    show_diff: bool,
    in_place: bool,
    no_backup: bool,
    context: tuple[str, ...],
    mark: bool,
    threshold: float,
    review_path: str | None,
    as_json: bool,
) -> None:
    """Repair mojibake in PATH... ('-' reads stdin): UTF-8 read as Windows-1252, -1254, Latin-1 and
    the like, once or twice, even where bytes were lost on the way. Clean text is never changed,
    and neither is mojibake a page quotes as an example: in code (Markdown code spans and blocks
    in .md files and stdin, code spans elsewhere), in quotation marks or a table cell of an
    otherwise clean page, or on a line that also holds clean non-ASCII text.

    Without options the repaired text goes to stdout (one PATH only).
    --check prints PATH:LINE:COLUMN: KIND 'damaged' -> 'repaired' for each
    finding; where a byte was lost, the readings weighed and their
    probabilities follow. With --format github or sarif, --check prints
    the findings for a CI system instead.

    A folder PATH stands for the text files under it (.md, .po, .pot, .yaml,
    .yml, .txt), skipping the folders .git, node_modules, .venv and site;
    symbolic links in it are not followed. A file that cannot be read is
    reported and the other files are still done.

    Chinese that lost bytes is read with word models; --context adds the
    words of your own clean documents (say, the other pages of the same
    manual) to the field's vocabulary that ships with this tool.

    Every character put back where bytes were lost has a confidence:
    --mark lists those under --threshold with their alternatives, --review
    FILE writes them as a Markdown or HTML page to read, and --json reports
    findings and doubts as data. A U+FFFD next to mojibake marks a lost byte
    and is repaired with it.

    Exit status: 0 done (or nothing found), 1 damage found by --check or a
    file that cannot be read or written, 2 wrong usage.
    """
    to_stdout = not (check or show_diff or in_place or mark or as_json)
    problem = usage_problem(
        paths,
        check=check,
        fmt=fmt,
        to_stdout=to_stdout,
        as_json=as_json and (check or show_diff or mark),
        in_place=in_place,
        no_backup=no_backup,
        review_path=review_path,
    )
    if problem is not None:
        _fail(problem, 2)
    try:
        field = _field_counts(context)
    except DomainModelError as error:
        _fail(str(error))
    damaged = failed = False
    annotations: list[Annotation] = []
    reviewed: list[tuple[str, Repaired, list[Doubt]]] = []
    report: list[dict[str, object]] = []
    whole_file_only = as_json or show_diff or mark or review_path is not None
    for path in _expand(paths):
        if not whole_file_only and _large(path):
            with domain.using(field):
                found_damage, unreadable = _stream(
                    path,
                    check=check,
                    fmt=fmt,
                    annotations=annotations,
                    in_place=in_place,
                    backup=not no_backup,
                )
            damaged, failed = damaged or found_damage, failed or unreadable
            continue
        try:
            text = _read(path)
        except _Unreadable as error:
            annotations.append(_unreadable(path, error, stop=to_stdout))
            failed = True
            continue
        result = _repair(text, path, field)
        found = doubts(result, threshold)
        name = "stdin" if path == "-" else path
        reviewed.append((name, result, found))
        if as_json:
            report.append(json_report(name, text, result, found))
        if check:
            _echo_findings(path, result.findings, fmt, annotations)
            damaged = damaged or bool(result.findings)
        for doubt in found if mark else ():  # characters by repr(): no control reaches a terminal
            click.echo(f"{name}:{describe_doubt(doubt)}")
        if show_diff and result.text != text:
            _print_diff(name, text, result.text)
        if in_place and result.text != text:
            _rewrite(path, result, backup=not no_backup)
        if to_stdout:
            sys.stdout.buffer.write(result.text.encode("utf-8"))
            sys.stdout.buffer.flush()
    if check and fmt != "text":
        click.echo(render(fmt, annotations, site_url=site_url_from_env()), nl=False)  # type: ignore[arg-type]
    if as_json:
        click.echo(json.dumps({"threshold": threshold, "files": report}, ensure_ascii=False, indent=2))
    if review_path is not None:
        _write_review(review_path, reviewed, threshold)
    if (check and damaged) or failed:
        sys.exit(1)


def _repair(text: str, path: str, field: DomainModel | None) -> Repaired:
    try:
        with domain.using(field):
            return repair_with_findings(text, markup=markup_for(path))
    except WordModelError as error:  # METRICS_REGISTRY_ZH_LM names a file that is not a model
        _fail(str(error))


def _echo_findings(path: str, findings: list[Finding], fmt: str, annotations: list[Annotation]) -> None:
    """Print ``findings`` (``--check``) in text, and keep them for the github and sarif formats."""
    for finding in findings:
        if fmt == "text":
            click.echo(f"{path}:{finding.describe()}")
        annotations.append(damage_annotation(path, finding))


def _large(path: str) -> bool:
    """Whether ``path`` is a file large enough to be repaired piece by piece (:mod:`.stream`)."""
    try:
        return path != "-" and Path(path).stat().st_size > STREAM_BYTES
    except OSError:
        return False  # reading it reports why


def _stream(
    path: str, *, check: bool, fmt: str, annotations: list[Annotation], in_place: bool, backup: bool
) -> tuple[bool, bool]:
    """Repair a large file piece by piece (:mod:`.stream`): whether damage was found, and whether
    the file could not be read. With ``--in-place`` the repaired pieces are kept to write the file
    at the end; without an option each piece goes to stdout as it is done."""
    repaired: list[str] = []
    findings: list[Finding] = []
    changed = False
    to_stdout = not (check or in_place)
    try:
        with Path(path).open("rb") as handle:
            for piece in repair_pieces(lines_of(handle), markup=markup_for(path)):
                placed = piece.findings()
                findings.extend(placed)
                changed = changed or piece.result.text != piece.text
                if check:
                    _echo_findings(path, placed, fmt, annotations)
                if in_place:
                    repaired.append(piece.result.text)
                if to_stdout:
                    sys.stdout.buffer.write(piece.result.text.encode("utf-8"))
                    sys.stdout.buffer.flush()
    except (OSError, UndecodableError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        annotations.append(_unreadable(path, _Unreadable(f"{path}: {reason}"), stop=to_stdout))
        return bool(findings), True
    except WordModelError as error:  # METRICS_REGISTRY_ZH_LM names a file that is not a model
        _fail(str(error))
    if in_place and changed:
        _rewrite(path, Repaired("".join(repaired), findings), backup=backup)
    return bool(findings), False


def _unreadable(path: str, error: _Unreadable, *, stop: bool) -> Annotation:
    """Say that ``path`` cannot be read: the end of the command when it writes to stdout, else one
    error line, and the other files are still done."""
    if stop:
        _fail(str(error))
    click.echo(f"{_PROG}: error: {error}", err=True)
    return unreadable_annotation(path, str(error))


def _print_diff(name: str, text: str, repaired: str) -> None:
    lines = difflib.unified_diff(
        text.splitlines(keepends=True), repaired.splitlines(keepends=True), f"a/{name}", f"b/{name}"
    )
    click.echo("".join(lines), nl=False)


def _rewrite(path: str, result: Repaired, *, backup: bool) -> None:
    """Write the repair over ``path``: through a symlink to its target, a hard-linked file in place."""
    try:
        kept = atomic_write(path, result.text, backup=backup)
    except WriteError as error:
        _fail(str(error), error.exit_code)
    note = f" (original kept as {kept})" if kept else ""
    click.echo(f"{path}: repaired {len(result.findings)} spot(s){note}", err=True)


def _write_review(path: str, reviewed: list[tuple[str, Repaired, list[Doubt]]], threshold: float) -> None:
    """Write the ``--review`` page: HTML for .html/.htm, else Markdown; a file it replaces is kept."""
    html = path.lower().endswith((".html", ".htm"))
    page = review_html(reviewed, threshold) if html else review_markdown(reviewed, threshold)
    try:
        atomic_write(path, page, backup=True)
    except WriteError as error:
        _fail(str(error), error.exit_code)

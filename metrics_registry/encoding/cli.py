"""``metrics-registry fix-encoding``: repair mojibake in files, or check that there is none.

Exit codes: 0 done (or, with ``--check``, nothing found), 1 damage found by
``--check`` or a file could not be read or written, 2 the command was used
wrongly. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import NoReturn

import click

from metrics_registry.encoding import domain
from metrics_registry.encoding.annotations import damage_annotation, unreadable_annotation
from metrics_registry.encoding.domain import DomainModel, DomainModelError
from metrics_registry.encoding.markup import markup_for
from metrics_registry.encoding.repair import repair_with_findings
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
    """The field's word counts to repair with: the bundled ones, plus the Chinese of ``paths``."""
    bundled = domain.active()
    if not paths:
        return bundled
    try:
        own = DomainModel.from_texts([_read(path) for path in paths])
    except _Unreadable as error:
        _fail(str(error))
    return own if bundled is None else bundled.plus(own)


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


def _refuse_wrong_usage(
    paths: tuple[str, ...], *, check: bool, fmt: str, show_diff: bool, in_place: bool, no_backup: bool
) -> None:
    """Exit 2 on options that do not go together, before any file is read."""
    if check and in_place:
        _fail("--check only reports; it cannot be combined with --in-place", 2)
    if fmt != "text" and not check:
        _fail(f"--format {fmt} reports findings: give --check", 2)
    if no_backup and not in_place:
        _fail("--no-backup only makes sense with --in-place", 2)
    if in_place and "-" in paths:
        _fail("cannot rewrite stdin in place; drop --in-place to write the repair to stdout", 2)
    if not (check or show_diff or in_place):
        folder = next((path for path in paths if is_folder(path)), None)
        if folder is not None:
            _fail(f"{folder} is a folder: give --in-place, --check or --diff (stdout takes one file)", 2)
        if len(paths) > 1:
            _fail("several files: give --in-place, --check or --diff (stdout takes one file)", 2)


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
def fix_encoding(  # noqa: PLR0917 (click passes options positionally by name)
    paths: tuple[str, ...],
    check: bool,
    fmt: str,
    show_diff: bool,
    in_place: bool,
    no_backup: bool,
    context: tuple[str, ...],
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

    Exit status: 0 done (or nothing found), 1 damage found by --check or a
    file that cannot be read or written, 2 wrong usage.
    """
    _refuse_wrong_usage(
        paths, check=check, fmt=fmt, show_diff=show_diff, in_place=in_place, no_backup=no_backup
    )
    try:
        field = _field_counts(context)
    except DomainModelError as error:
        _fail(str(error))
    to_stdout = not (check or show_diff or in_place)
    damaged = failed = False
    annotations: list[Annotation] = []
    for path in _expand(paths):
        try:
            text = _read(path)
        except _Unreadable as error:
            if to_stdout:
                _fail(str(error))
            click.echo(f"{_PROG}: error: {error}", err=True)
            annotations.append(unreadable_annotation(path, str(error)))
            failed = True
            continue
        try:
            with domain.using(field):
                result = repair_with_findings(text, markup=markup_for(path))
        except WordModelError as error:  # METRICS_REGISTRY_ZH_LM names a file that is not a model
            _fail(str(error))
        if check:
            for finding in result.findings:
                if fmt == "text":
                    click.echo(f"{path}:{finding.describe()}")
                annotations.append(damage_annotation(path, finding))
            damaged = damaged or bool(result.findings)
        if show_diff and result.text != text:
            name = "stdin" if path == "-" else path
            lines = difflib.unified_diff(
                text.splitlines(keepends=True),
                result.text.splitlines(keepends=True),
                f"a/{name}",
                f"b/{name}",
            )
            click.echo("".join(lines), nl=False)
        if in_place and result.text != text:
            try:
                # through a symlink to its target; a hard-linked file in place (see fileio)
                backup = atomic_write(path, result.text, backup=not no_backup)
            except WriteError as error:
                _fail(str(error), error.exit_code)
            kept = f" (original kept as {backup})" if backup else ""
            click.echo(f"{path}: repaired {len(result.findings)} spot(s){kept}", err=True)
        if to_stdout:
            stream = sys.stdout.buffer
            stream.write(result.text.encode("utf-8"))
            stream.flush()
    if check and fmt != "text":
        click.echo(render(fmt, annotations, site_url=site_url_from_env()), nl=False)  # type: ignore[arg-type]
    if (check and damaged) or failed:
        sys.exit(1)

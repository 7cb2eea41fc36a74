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

import click

from metrics_registry.encoding import domain
from metrics_registry.encoding.domain import DomainModel, DomainModelError
from metrics_registry.encoding.markup import markup_for
from metrics_registry.encoding.repair import Repaired, repair_with_findings
from metrics_registry.encoding.review import DEFAULT_THRESHOLD, Doubt, doubts, review_html, review_markdown
from metrics_registry.encoding.word_ngrams import WordModelError
from metrics_registry.fileio import WriteError, atomic_write

__all__ = ["fix_encoding"]

_PROG = "metrics-registry fix-encoding"


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"{_PROG}: error: {message}", err=True)
    sys.exit(code)


def _read(path: str) -> str:
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as error:
        _fail(f"{path}: {error.strerror or error}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        _fail(f"{path}: not UTF-8 text (byte {error.start}); decode it as UTF-8 first, then repair")
    raise AssertionError  # unreachable: _fail exits


def _field_counts(paths: tuple[str, ...]) -> DomainModel | None:
    """The field's word counts to repair with: the bundled ones, plus the Chinese of ``paths``."""
    bundled = domain.active()
    if not paths:
        return bundled
    own = DomainModel.from_texts(_read(path) for path in paths)
    return own if bundled is None else bundled.plus(own)


@click.command(name="fix-encoding", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--check",
    is_flag=True,
    help="Only list the damage found, one line each; exit 1 when there is some.",
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
    probabilities follow.

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
    _check_usage(paths, check=check, in_place=in_place, no_backup=no_backup, review_path=review_path)
    try:
        field = _field_counts(context)
    except DomainModelError as error:
        _fail(str(error))
    if as_json and (check or show_diff or mark):
        _fail("--json is a report of its own: drop --check, --diff and --mark", 2)
    to_stdout = not (check or show_diff or in_place or mark or as_json)
    if to_stdout and len(paths) > 1:
        _fail("several files: give --in-place, --check, --diff, --mark or --json (stdout takes one file)", 2)
    damaged = False
    reviewed: list[tuple[str, Repaired, list[Doubt]]] = []
    report: list[dict[str, object]] = []
    for path in paths:
        text = _read(path)
        try:
            with domain.using(field):
                result = repair_with_findings(text, markup=markup_for(path))
        except WordModelError as error:  # METRICS_REGISTRY_ZH_LM names a file that is not a model
            _fail(str(error))
        found = doubts(result, threshold)
        name = "stdin" if path == "-" else path
        reviewed.append((name, result, found))
        if as_json:
            report.append(_report(name, text, result, found))
        if check:
            for finding in result.findings:
                click.echo(f"{path}:{finding.describe()}")
            damaged = damaged or bool(result.findings)
        for doubt in found if mark else ():
            click.echo(f"{name}:{_describe(doubt)}")  # characters by repr(): no control reaches a terminal
        if show_diff and result.text != text:
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
    if as_json:
        click.echo(json.dumps({"threshold": threshold, "files": report}, ensure_ascii=False, indent=2))
    if review_path is not None:
        _write_review(review_path, reviewed, threshold)
    if check and damaged:
        sys.exit(1)


def _check_usage(
    paths: tuple[str, ...], *, check: bool, in_place: bool, no_backup: bool, review_path: str | None
) -> None:
    """Exit 2 with a one-line reason when the options do not go together."""
    if check and in_place:
        _fail("--check only reports; it cannot be combined with --in-place", 2)
    if no_backup and not in_place:
        _fail("--no-backup only makes sense with --in-place", 2)
    if in_place and "-" in paths:
        _fail("cannot rewrite stdin in place; drop --in-place to write the repair to stdout", 2)
    if review_path is not None and any(_same_file(review_path, path) for path in paths if path != "-"):
        _fail(f"--review {review_path}: that is a file to repair; write the review elsewhere", 2)


def _write_review(path: str, reviewed: list[tuple[str, Repaired, list[Doubt]]], threshold: float) -> None:
    """Write the ``--review`` page: HTML for .html/.htm, else Markdown; a file it replaces is kept."""
    html = path.lower().endswith((".html", ".htm"))
    page = review_html(reviewed, threshold) if html else review_markdown(reviewed, threshold)
    try:
        atomic_write(path, page, backup=True)
    except WriteError as error:
        _fail(str(error), error.exit_code)


def _same_file(first: str, second: str) -> bool:
    try:
        return Path(first).resolve() == Path(second).resolve()
    except (OSError, RuntimeError):
        return False


def _describe(doubt: Doubt) -> str:
    """One line of ``--mark``: ``line:column: doubt 'X' (confidence 0.62; or: Y 0.30, Z 0.08)``."""
    others = ", ".join(f"{a.char!r} {a.probability:.2f}" for a in doubt.alternatives[:4]) or "none"
    return (
        f"{doubt.line}:{doubt.column}: doubt {doubt.char!r} from {doubt.damaged!r} "
        f"(confidence {doubt.confidence:.2f}; or: {others})"
    )


def _report(name: str, text: str, result: Repaired, found: list[Doubt]) -> dict[str, object]:
    """One file of the ``--json`` report."""
    return {
        "path": name,
        "changed": result.text != text,
        "findings": [finding.to_dict() for finding in result.findings],
        "doubts": [
            {
                "line": d.line,
                "column": d.column,
                "offset": d.offset,
                "char": d.char,
                "damaged": d.damaged,
                "confidence": d.confidence,
                "alternatives": [{"char": a.char, "probability": a.probability} for a in d.alternatives],
            }
            for d in found
        ],
    }

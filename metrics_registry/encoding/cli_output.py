"""What ``fix-encoding`` prints besides the repaired text: usage problems, ``--mark`` lines, ``--json``."""

from __future__ import annotations

from pathlib import Path

from metrics_registry.encoding.repair import Repaired
from metrics_registry.encoding.review import Doubt
from metrics_registry.encoding.walk import is_folder

__all__ = ["describe_doubt", "json_report", "same_file", "usage_problem"]


def usage_problem(
    paths: tuple[str, ...],
    *,
    check: bool,
    fmt: str,
    to_stdout: bool,
    as_json: bool,
    in_place: bool,
    no_backup: bool,
    review_path: str | None,
) -> str | None:
    """Why the options do not go together (the command exits 2 with it), before any file is read.

    ``as_json`` is whether --json was given with a report of its own (--check, --diff, --mark).
    """
    if check and in_place:
        return "--check only reports; it cannot be combined with --in-place"
    if fmt != "text" and not check:
        return f"--format {fmt} reports findings: give --check"
    if as_json:
        return "--json is a report of its own: drop --check, --diff and --mark"
    if to_stdout:
        folder = next((path for path in paths if is_folder(path)), None)
        if folder is not None:
            return f"{folder} is a folder: give --in-place, --check, --diff, --mark or --json"
        if len(paths) > 1:
            return "several files: give --in-place, --check, --diff, --mark or --json (stdout takes one file)"
    if no_backup and not in_place:
        return "--no-backup only makes sense with --in-place"
    if in_place and "-" in paths:
        return "cannot rewrite stdin in place; drop --in-place to write the repair to stdout"
    if review_path is not None and any(same_file(review_path, path) for path in paths if path != "-"):
        return f"--review {review_path}: that is a file to repair; write the review elsewhere"
    return None


def same_file(first: str, second: str) -> bool:
    try:
        return Path(first).resolve() == Path(second).resolve()
    except (OSError, RuntimeError):
        return False


def describe_doubt(doubt: Doubt) -> str:
    """One line of ``--mark``: ``line:column: doubt 'X' (confidence 0.62; or: Y 0.30, Z 0.08)``."""
    others = ", ".join(f"{a.char!r} {a.probability:.2f}" for a in doubt.alternatives[:4]) or "none"
    return (
        f"{doubt.line}:{doubt.column}: doubt {doubt.char!r} from {doubt.damaged!r} "
        f"(confidence {doubt.confidence:.2f}; or: {others})"
    )


def json_report(name: str, text: str, result: Repaired, found: list[Doubt]) -> dict[str, object]:
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

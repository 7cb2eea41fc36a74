"""``metrics-registry conform CAPTURE --logged FILE``: check logged values against a captured step.

Exit codes: 0 every checked key agrees; 1 some key disagrees; 2 the command
was used wrongly (unknown family, bad version); 3 an input cannot be read
(the capture, the logged file, or torch is not installed).

Both files are untrusted: the capture is read with ``weights_only=True``
(no code runs), the logged file must be a JSON object of key -> number, and
every problem is one line naming the file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import click

from metrics_registry.clierrors import fail, release_number
from metrics_registry.conformance.marks import N_

__all__ = ["conform_command", "read_logged"]

EXIT_DISAGREES, EXIT_USAGE, EXIT_UNREADABLE = 1, 2, 3
MAX_LOGGED_BYTES = 10_000_000


class LoggedFileError(ValueError):
    """The logged file is not a JSON object of numbers; the message names the file and the fix."""


def read_logged(path: Path) -> dict[str, float]:
    """The logged values of one step: a JSON object mapping each key to a number (or null, skipped)."""
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise LoggedFileError(f"{path}: not a regular file; give a JSON file of key: number")
        if size > MAX_LOGGED_BYTES:
            raise LoggedFileError(
                f"{path}: larger than {MAX_LOGGED_BYTES} bytes; give the values of one step"
            )
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise LoggedFileError(f"{path}: not UTF-8 (byte {error.start}); save it as UTF-8 JSON") from None
    except FileNotFoundError:
        raise LoggedFileError(f"{path}: no such file") from None
    except OSError as error:
        raise LoggedFileError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise LoggedFileError(
            f"{path}:{error.lineno}:{error.colno}: not JSON ({error.msg}); give an object of key: number"
        ) from None
    except RecursionError:
        raise LoggedFileError(f"{path}: nested too deeply; give a flat object of key: number") from None
    if not isinstance(data, dict):
        raise LoggedFileError(f"{path}: a JSON object of key: number is expected, not {type(data).__name__}")
    logged: dict[str, float] = {}
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            from metrics_registry.terminal import printable

            raise LoggedFileError(
                f"{path}: the value of {printable(key, one_line=True)[:80]!r} is not a number"
            )
        logged[key] = float(value)
    return logged


def _report(results: list[Any], fmt: str, lang: str) -> str:
    from metrics_registry.terminal import printable

    if fmt == "json":
        rows = [
            {
                "key": r.key,
                "status": r.status,
                "logged": r.logged if math.isfinite(r.logged) else str(r.logged),
                "expected": r.expected
                if r.expected is None or math.isfinite(r.expected)
                else str(r.expected),
                "reference": r.reference,
                "diagnosis": r.diagnosis,
                "explanation": r.cause(),
                "also": list(r.also),
            }
            for r in results
        ]
        return json.dumps(rows, ensure_ascii=False, indent=2)
    from metrics_registry.runs.locale import Localizer

    gettext = Localizer(lang).gettext
    lines = [printable(r.line(gettext), one_line=True) for r in results]
    counts = {
        "agree": sum(r.status == "agrees" for r in results),
        "disagree": sum(r.status == "disagrees" for r in results),
        "unchecked": sum(r.status in ("no-reference", "not-in-capture") for r in results),
    }
    lines.append(gettext(N_("%(agree)s agree, %(disagree)s disagree, %(unchecked)s not checked")) % counts)
    return "\n".join(lines)


@click.command(name="conform")
@click.argument("capture", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--logged",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="JSON object of the values the trainer logged for the captured step (key: number).",
)
@click.option(
    "--family", default="grpo", show_default=True, help="Registry family of the trainer (e.g. grpo)."
)
@click.option("--version", "version", callback=release_number, help="Release of the framework, e.g. 1.16.0.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--lang", type=click.Choice(["en", "vi", "zh"]), default="en", show_default=True)
def conform_command(
    *, capture: Path, logged: Path, family: str, version: str | None, fmt: str, lang: str
) -> None:
    """Check the values a trainer logged against what one captured optimizer step computes.

    CAPTURE is a file written by StepCapture.save (torch.save, read with
    weights_only=True). Each key agrees, or disagrees with a diagnosis
    (docs: Testing your trainer's metrics).
    """
    from metrics_registry.conformance.capture import CaptureError, StepCapture
    from metrics_registry.conformance.checking import check
    from metrics_registry.conformance.families import FAMILIES

    if family not in FAMILIES:
        fail(
            f"no conformance table for family {family!r}; use one of {', '.join(sorted(FAMILIES))}",
            EXIT_USAGE,
        )
    try:
        values = read_logged(logged)
        step = StepCapture.load(capture)
    except (LoggedFileError, CaptureError) as error:
        fail(str(error), EXIT_UNREADABLE)
    results = check(step, values, family=family, version=version)
    click.echo(_report(results, fmt, lang))
    if any(r.status == "disagrees" for r in results):
        raise SystemExit(EXIT_DISAGREES)

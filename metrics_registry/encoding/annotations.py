"""What ``fix-encoding --check`` finds, as CI annotations (GitHub workflow commands, SARIF).

Each kind of damage is a rule; a file that cannot be read as UTF-8 text is
one too (``unreadable``), so that a CI report does not fail with no result
to show. Every finding fails the check, so each is an error.
"""

from __future__ import annotations

from pathlib import Path

from metrics_registry.encoding.findings import Finding, Kind
from metrics_registry.reporting import Annotation, RuleInfo

__all__ = ["UNREADABLE", "damage_annotation", "unreadable_annotation"]

_PAGE = "en/tools/repairing-encoding/#reading-the-findings"

_DESCRIPTIONS = {
    Kind.MOJIBAKE: "UTF-8 text was decoded with a one-byte code page (Windows-1252, Latin-1...).",
    Kind.LOST_BYTES: "Mojibake that lost the bytes its code page cannot hold; the repair is a choice.",
    Kind.NBSP: "A no-break space inside mojibake became a plain space on the way.",
    Kind.DOUBLE: "Mojibake of mojibake: UTF-8 decoded with a wrong code page twice.",
    Kind.C1: "Windows-1252 read as Latin-1: C1 control characters stand for punctuation.",
    Kind.UNREPAIRED: "Damage that no reading is plausible enough to repair; retype it from its source.",
}
UNREADABLE = RuleInfo(
    "unreadable",
    "unreadable",
    "The file cannot be read, or is not UTF-8 text: nothing in it was checked.",
    _PAGE,
    "error",
)


def damage_annotation(path: str, finding: Finding) -> Annotation:
    """``finding`` in ``path`` ('-' is stdin: no file to point at)."""
    rule = RuleInfo(finding.kind.value, finding.kind.value, _DESCRIPTIONS[finding.kind], _PAGE, "error")
    one_line = "\n" not in finding.original and "\r" not in finding.original
    end = finding.column + len(finding.original) if one_line else None
    where = None if path == "-" else Path(path)
    return Annotation(rule, "error", finding.summary(), where, finding.line, finding.column, end)


def unreadable_annotation(path: str, reason: str) -> Annotation:
    """A file that could not be checked, with the reason the command printed."""
    return Annotation(UNREADABLE, "error", reason, None if path == "-" else Path(path))

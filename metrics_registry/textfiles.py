"""Mojibake in the project's own text files, as validation findings (rule MR140).

Registry YAML, translation catalogs and docs pages are scanned with
:func:`metrics_registry.encoding.diagnose`; each damaged span becomes a
finding with its line and the repair the encoding module would write, so
``metrics-registry validate`` stops damaged text before it reaches the site.

In Markdown, code spans and fenced blocks are left out: that is where a page
shows mojibake on purpose (the translation guide lists examples).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from metrics_registry.encoding import Kind, diagnose
from metrics_registry.findings import Finding

__all__ = ["check_text_files", "project_text_files"]

_MARKDOWN_CODE = re.compile(r"^( {0,3})(`{3,}|~{3,}).*?^\1\2[ \t]*$|(`+)(?!`).+?(?<!`)\3(?!`)", re.M | re.S)


def _code_ranges(path: Path, text: str) -> list[tuple[int, int]]:
    if path.suffix != ".md":
        return []
    return [match.span() for match in _MARKDOWN_CODE.finditer(text)]


def project_text_files(root: Path) -> Iterator[Path]:
    """The catalogs under ``i18n/`` and the pages under ``docs/`` of a project."""
    for pattern in ("i18n/**/*.po", "i18n/*.pot", "docs/**/*.md"):
        yield from sorted(Path(root).glob(pattern))


def check_text_files(paths: Iterable[Path]) -> list[Finding]:
    """An MR140 finding per damaged span in ``paths`` (unreadable files are reported elsewhere)."""
    findings: list[Finding] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        code = _code_ranges(Path(path), text)
        for found in diagnose(text):
            if any(start <= found.start and found.end <= end for start, end in code):
                continue
            if found.kind is Kind.UNREPAIRED:
                fix = "retype the damaged text from its source; no repair is certain enough"
            else:
                fix = (
                    f"replace it with {found.replacement!r}, or run "
                    f"'metrics-registry fix-encoding --in-place {path}'"
                )
            code_page = f", {found.codepage}" if found.codepage else ""
            findings.append(
                Finding(
                    "MR140",
                    Path(path),
                    found.line,
                    f"{found.kind.value}{code_page}: {found.original!r} at column {found.column}",
                    fix,
                )
            )
    return findings

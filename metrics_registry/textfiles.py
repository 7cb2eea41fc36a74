"""Mojibake in the project's own text files, as validation findings (rule MR140).

Registry YAML, translation catalogs and docs pages are scanned with
:func:`metrics_registry.encoding.diagnose`; each damaged span becomes a
finding with its line and the repair the encoding module would write, so
``metrics-registry validate`` stops damaged text before it reaches the site.

Mojibake quoted on purpose is not reported: the encoding module leaves out
what a clean page quotes (:mod:`metrics_registry.encoding.quotation`), and
here code is always left out, even in a page with damage elsewhere: code
spans and code blocks (Markdown pages; code spans in catalogs and YAML) are
where the project's pages show mojibake as examples.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from metrics_registry.encoding import Kind, diagnose
from metrics_registry.encoding.markup import Layout, layout, markup_for
from metrics_registry.findings import Finding

__all__ = ["check_text_files", "project_text_files"]


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
        markup = markup_for(str(path))
        damage = diagnose(text, markup=markup)
        where = layout(text, markup) if damage else Layout()
        for found in damage:
            if where.in_code(found.start, found.end):
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

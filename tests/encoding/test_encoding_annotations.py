"""What fix-encoding --check finds, as CI annotations."""

from __future__ import annotations

from pathlib import Path

from metrics_registry.encoding import diagnose
from metrics_registry.encoding.annotations import UNREADABLE, damage_annotation, unreadable_annotation
from metrics_registry.encoding.damage import mojibake


def test_damage_has_its_span() -> None:
    text = "ok\n" + mojibake("Tiếng Việt", "cp1252") + "\n"
    (finding, *_rest) = diagnose(text)
    annotation = damage_annotation("docs/vi.md", finding)
    assert (annotation.path, annotation.line, annotation.column) == (Path("docs/vi.md"), 2, finding.column)
    assert annotation.end_column == finding.column + len(finding.original)
    assert annotation.rule.id == finding.kind.value and annotation.level == "error"
    assert annotation.message == finding.describe().split(": ", 1)[1]


def test_stdin_has_no_file_and_an_unreadable_file_is_a_result() -> None:
    (finding,) = diagnose(mojibake("café", "cp1252"))
    assert damage_annotation("-", finding).path is None
    annotation = unreadable_annotation("a.txt", "a.txt: not UTF-8 text (byte 3)")
    assert (annotation.rule, annotation.path, annotation.message) == (
        UNREADABLE,
        Path("a.txt"),
        "a.txt: not UTF-8 text (byte 3)",
    )

"""Large files are repaired piece by piece: pieces are whole Markdown blocks, findings keep their
place in the file, and the command reads a file larger than STREAM_BYTES that way."""

from __future__ import annotations

import io
import re
from pathlib import Path

import click
from click.testing import CliRunner

from metrics_registry.encoding import markup, stream
from metrics_registry.encoding.cli import fix_encoding
from metrics_registry.encoding.codepages import SUSPECT_RE
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.repair import repair_with_findings

ROOT = Path(__file__).resolve().parents[2]
CLEAN = "# Nhật ký\n\n训练过程 and tiếng Việt.\n"
DAMAGED = mojibake(CLEAN, "cp1254", lossy=True)
FENCED = (
    "Text before.\n\n```text\nline one\n\nline three, after a blank line inside the fence\n```\n\nAfter.\n\n"
)


def run(*args: str):
    group = click.Group()
    group.add_command(fix_encoding, name="fix-encoding")
    return CliRunner().invoke(group, ["fix-encoding", *args])


def test_pieces_join_back_and_never_end_inside_a_fence() -> None:
    text = FENCED * 40
    parts = list(stream.pieces(io.StringIO(text), size=30))
    assert "".join(parts) == text
    assert len(parts) > 10
    for part in parts:
        assert part.endswith("\n\n")  # each ends at a blank line
        assert part.count("```") % 2 == 0, part  # and holds whole fenced blocks


def test_a_piece_without_a_blank_line_is_cut_at_a_line_end_when_far_too_long() -> None:
    text = "a line of a paragraph that never ends\n" * 100
    parts = list(stream.pieces(io.StringIO(text), size=100))
    assert "".join(parts) == text
    assert all(part.endswith("\n") and len(part) <= 8 * 100 + 40 for part in parts)


def test_findings_of_pieces_are_placed_in_the_file() -> None:
    text = "clean first paragraph\n\n" * 50 + DAMAGED + "\n" + "more clean text\n\n" * 50 + DAMAGED
    whole = repair_with_findings(text)
    placed = [f for piece in stream.repair_pieces(io.StringIO(text), size=200) for f in piece.findings()]
    assert [(f.start, f.end, f.line, f.column, f.replacement) for f in placed] == [
        (f.start, f.end, f.line, f.column, f.replacement) for f in whole.findings
    ]
    assert all(text[f.start : f.end] == f.original for f in placed)


def test_lines_of_names_the_byte_that_is_not_utf8() -> None:
    data = "tiếng Việt\n".encode() * 3 + b"bad \xff byte\n"
    lines = stream.lines_of(io.BytesIO(data))
    try:
        list(lines)
    except stream.UndecodableError as error:
        assert error.offset == data.index(b"\xff")
    else:
        raise AssertionError("undecodable byte not reported")


def test_layout_near_spans_agrees_with_the_whole_layout() -> None:
    for page in ("docs/en/tools/repairing-encoding.md", "docs/vi/tools/repairing-encoding.md", "README.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        spans = [m.span() for m in SUSPECT_RE.finditer(text)] + [
            m.span() for m in re.finditer(r"`[^`\n]+`", text)
        ]
        whole = markup.layout(text, "markdown")
        near = markup.layout(text, "markdown", near=spans)
        for start, end in spans:
            assert near.in_code(start, end) == whole.in_code(start, end), (page, text[start:end])
            assert near.cell(start, end) == whole.cell(start, end), (page, text[start:end])


def test_a_large_file_is_checked_and_repaired_in_pieces(tmp_path: Path) -> None:
    clean = "Tiếng Việt và 中文, clean text.\n\n" * (stream.STREAM_BYTES // 40 + 1)
    path = tmp_path / "large.md"
    path.write_text(clean + DAMAGED, encoding="utf-8")
    assert path.stat().st_size > stream.STREAM_BYTES
    checked = run("--check", str(path))
    assert checked.exit_code == 1
    first_damaged_line = clean.count("\n") + 1
    assert f"{path}:{first_damaged_line}:" in checked.output
    repaired = run("--in-place", str(path))
    assert repaired.exit_code == 0, repaired.output
    assert path.read_text(encoding="utf-8") == clean + CLEAN
    assert (tmp_path / "large.md.bak").read_text(encoding="utf-8") == clean + DAMAGED


def test_a_large_file_that_is_not_utf8_is_reported_with_its_byte(tmp_path: Path) -> None:
    path = tmp_path / "large.txt"
    head = b"clean line\n\n" * (stream.STREAM_BYTES // 12 + 1)
    path.write_bytes(head + b"\xff\n")
    result = run("--check", str(path))
    assert result.exit_code == 1
    assert f"byte {len(head)}" in result.output
    assert "Traceback" not in result.output

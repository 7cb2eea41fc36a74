"""Doubts made visible: U+FFFD as a lost-byte mark, each doubtful character's place and alternatives,
and the --mark, --json and --review outputs of fix-encoding."""

from __future__ import annotations

import json
from pathlib import Path

import click
from click.testing import CliRunner

from metrics_registry.encoding import repair, repair_with_findings
from metrics_registry.encoding.cli import fix_encoding
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.review import doubts, review_html, review_markdown

SENTENCE = "本文档总结了对训练过程日志输出的增强功能。"


def replaced(text: str) -> str:
    """``text`` as UTF-8 read as Windows-1254 with ``errors="replace"``: U+FFFD for undefined bytes."""
    return text.encode("utf-8").decode("cp1254", errors="replace")


def run(*args: str):
    group = click.Group()
    group.add_command(fix_encoding, name="fix-encoding")
    return CliRunner().invoke(group, ["fix-encoding", *args])


def test_replacement_characters_are_lost_bytes_not_text() -> None:
    texts = (SENTENCE, "亞美尼亞語和塞爾維亞文", "Tiếng Việt: người, được, những, hỏi", "🔍 Search ❌ failed")
    for text in texts:
        damaged = replaced(text)
        assert "\ufffd" in damaged
        assert repair(damaged) == text


def test_a_replacement_character_in_clean_text_stays() -> None:
    for text in ("abc \ufffd def 中文", "Lỗi \ufffd ở đây", "\ufffd\ufffd"):
        assert repair(text) == text


def test_emoji_that_lost_a_byte_is_the_one_documentation_uses() -> None:
    assert repair(mojibake("🔍 Search the logs", "cp1254", lossy=True)) == "🔍 Search the logs"


def test_a_flag_keeps_both_halves() -> None:
    assert repair(mojibake("🇹🇭 Thailand, 🇭🇰 Hong Kong", "cp1254", lossy=True)) == "🇹🇭 Thailand, 🇭🇰 Hong Kong"


def test_every_doubt_points_at_its_character_in_the_repaired_text() -> None:
    text = "平均值低于 0.1 时。\n中文与英文，不是中间。\n" + SENTENCE
    result = repair_with_findings(mojibake(text, "cp1254", lossy=True))
    found = doubts(result, threshold=1.01)  # every repaired character
    spots = [s for f in result.findings for s in f.spots if s.chosen is not None]
    assert len(found) == len(spots) > 5
    lines = result.text.split("\n")
    for doubt in found:
        assert result.text[doubt.offset] == doubt.char
        assert lines[doubt.line - 1][doubt.column - 1] == doubt.char
        assert doubt.char not in {a.char for a in doubt.alternatives}
    assert all(d.confidence < 0.5 for d in doubts(result, threshold=0.5))


def test_review_pages_escape_the_text() -> None:
    text = mojibake("<script>alert(1)</script> [link](javascript:x) 低于 中文\n", "cp1254", lossy=True)
    result = repair_with_findings(text)
    found = doubts(result, threshold=1.01)
    assert found
    page = review_html([("<b>name</b>", result, found)], 1.01)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<b>name" not in page
    assert page.count("<mark") >= len(found)
    markdown = review_markdown([("page.md", result, found)], 1.01)
    assert "<script>" not in markdown and "](javascript" not in markdown
    assert f"**⟦{found[0].char}⟧**" in markdown


def test_mark_json_and_review_options(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(mojibake("模型的损失低于 0.1。\n\n中与不\n", "cp1254", lossy=True), encoding="utf-8")
    marked = run("--mark", "--threshold", "0.999", str(page))
    assert marked.exit_code == 0, marked.output
    lines = marked.output.splitlines()
    assert lines and all(line.startswith(f"{page}:") and "doubt" in line and "or:" in line for line in lines)
    assert page.read_text(encoding="utf-8") != ""  # listing only: nothing written
    reported = run("--json", "--threshold", "0.999", str(page))
    data = json.loads(reported.output)
    assert data["files"][0]["changed"] is True
    assert len(data["files"][0]["doubts"]) == len(lines)
    review = tmp_path / "review.html"
    assert run("--review", str(review), "--in-place", str(page)).exit_code == 0
    assert review.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "\\x" not in page.read_text(encoding="utf-8")


def test_wrong_uses_of_the_new_options(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("è®ç»ƒ\n", encoding="utf-8")
    assert run("--threshold", "1.5", "--mark", str(page)).exit_code == 2
    assert run("--threshold", "0", "--mark", str(page)).exit_code == 2
    onto_input = run("--review", str(page), str(page))
    assert onto_input.exit_code == 2 and "--review" in onto_input.output
    assert page.read_text(encoding="utf-8") == "è®ç»ƒ\n"
    assert run("--json", "--check", str(page)).exit_code == 2

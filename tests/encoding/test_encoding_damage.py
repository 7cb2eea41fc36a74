"""Every kind of damage, on texts in English, Vietnamese and Chinese, is undone."""

from __future__ import annotations

import difflib

import pytest
from clean_texts import LANGUAGES, clean_text, paragraphs

from metrics_registry.encoding import Kind, diagnose, repair
from metrics_registry.encoding.damage import DAMAGE_KINDS, damage, mojibake

LOSSLESS = ("latin-1", "windows-1252", "double-1252", "nbsp-1252")


def accuracy(repaired: str, original: str) -> float:
    matcher = difflib.SequenceMatcher(None, repaired, original, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / max(len(original), 1)


@pytest.mark.parametrize(
    ("language", "kind"),
    [(language, kind) for language in LANGUAGES for kind in LOSSLESS],
)
def test_lossless_damage_is_undone_exactly(language: str, kind: str) -> None:
    for block in paragraphs(language):
        assert repair(damage(block, kind)) == block


@pytest.mark.parametrize("kind", ["lossy-1252", "lossy-1254"])
@pytest.mark.parametrize("language", ["en", "vi"])
def test_lost_bytes_are_restored_in_latin_script(language: str, kind: str) -> None:
    for block in paragraphs(language):
        assert repair(damage(block, kind)) == block


@pytest.mark.parametrize(("language", "floor"), [("zh-hans", 0.985), ("zh-hant", 0.98)])
def test_lost_bytes_are_restored_in_chinese(language: str, floor: float) -> None:
    """Chinese characters lose a byte far more often (a quarter of them here); the language model gets
    almost all back. (The issue's target is 0.99; see benchmarks/encoding.py for where it stands.)"""
    text = clean_text(language)
    repaired = repair(damage(text, "lossy-1254"))
    assert accuracy(repaired, text) >= floor
    assert "Ã" not in repaired and "å" not in repaired


@pytest.mark.parametrize(
    "sentence",
    [
        "本文档总结了对训练过程日志输出的增强功能。",
        "奖励函数返回的是浮点数。",
        "這份文件寫給第一次訓練模型的人。",
        "Tiếng Việt có dấu: người, được, những, điều, thường, lời, hỏi, về.",
        "📊 Group Summary: ✅ done ❌ failed",
    ],
)
def test_sentences_come_back_exactly(sentence: str) -> None:
    for kind in DAMAGE_KINDS:
        assert repair(damage(sentence, kind)) == sentence, kind


def test_mixed_file_clean_and_damaged_lines() -> None:
    lines = clean_text("vi").splitlines(keepends=True) + clean_text("zh-hans").splitlines(keepends=True)
    mixed = "".join(mojibake(line, "cp1254", lossy=True) if i % 2 else line for i, line in enumerate(lines))
    original = "".join(lines)
    assert mixed != original
    assert accuracy(repair(mixed), original) >= 0.995


def test_repair_is_idempotent() -> None:
    for language in LANGUAGES:
        for kind in ("windows-1252", "double-1252", "lossy-1254"):
            once = repair(damage(clean_text(language)[:1500], kind))
            assert repair(once) == once, (language, kind)


def test_diagnose_reports_kind_span_and_alternatives() -> None:
    damaged = mojibake("训练过程", "cp1254", lossy=True)
    findings = diagnose(damaged)
    assert [f.kind for f in findings] == [Kind.LOST_BYTES]
    finding = findings[0]
    assert damaged[finding.start : finding.end] == finding.original
    assert finding.replacement == "训练过程"
    assert (finding.line, finding.column) == (1, 1)
    spot = finding.spots[0]
    assert spot.damaged == "è®" and spot.chosen == "训"
    assert len(spot.alternatives) > 1 and spot.alternatives[0].char == "训"
    assert 0.5 < finding.confidence <= 1.0


def test_diagnose_lossless_and_double() -> None:
    assert [f.kind for f in diagnose(mojibake("Việt", "cp1252"))] == [Kind.MOJIBAKE]
    assert [f.kind for f in diagnose(mojibake("Việt Nam", "cp1252", layers=2))] == [Kind.DOUBLE]


def test_bytes_are_refused() -> None:
    from metrics_registry.encoding import repair_with_findings

    with pytest.raises(TypeError, match="decode"):
        repair_with_findings(b"bytes")  # type: ignore[arg-type]


@pytest.mark.parametrize(("page", "lossy"), [("cp1252", False), ("cp1254", True)])
def test_clean_lines_in_a_damaged_file_are_untouched(page: str, lossy: bool) -> None:
    """Accented words, curly quotes and symbols between damaged lines keep every character."""
    from test_encoding_clean import TRICKY

    damaged = [mojibake(line, page, lossy=lossy) for line in clean_text("zh-hans").splitlines()[:14]]
    mixed = "\n".join(f"{clean}\n{bad}" for clean, bad in zip(TRICKY * 2, damaged, strict=False))
    repaired = repair(mixed)
    for clean in TRICKY:
        for line in clean.splitlines():
            assert line in repaired

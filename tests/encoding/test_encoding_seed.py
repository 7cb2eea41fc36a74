"""The project's real case: the seed document damaged through Windows-1254 with bytes dropped."""

from __future__ import annotations

import difflib

from clean_texts import FIXTURES

from metrics_registry.encoding import Kind, diagnose, repair
from metrics_registry.encoding.codepages import SUSPECT_RE
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.detection import detect

SEED = FIXTURES / "training-logs-enhancements.zh.mojibake.md"
EXPECTED = FIXTURES / "training-logs-enhancements.zh.reconstructed.md"
#: The last byte of this emoji was lost and several emoji fit; the reconstruction chose 📍.
AMBIGUOUS = {"📍"}


def _read(path):
    return path.read_text(encoding="utf-8")


def test_reconstruction_explains_the_seed() -> None:
    """The expected output, damaged the way the seed was, gives the seed byte for byte."""
    assert mojibake(_read(EXPECTED), "cp1254", lossy=True) == _read(SEED)


def test_seed_code_page_is_detected() -> None:
    detection = detect(_read(SEED))
    assert detection is not None
    assert detection.page.name == "cp1254"
    assert {0x81, 0x8D, 0x8E, 0x8F, 0x90, 0x9D, 0x9E, 0xAD} <= detection.droppable


def test_seed_is_repaired_without_remaining_mojibake() -> None:
    repaired = repair(_read(SEED))
    assert SUSPECT_RE.search(repaired) is None
    assert detect(repaired) is None
    assert all(f.kind is not Kind.UNREPAIRED for f in diagnose(repaired))


def test_seed_matches_the_reconstruction() -> None:
    repaired, expected = repair(_read(SEED)), _read(EXPECTED)
    matcher = difflib.SequenceMatcher(None, repaired, expected, autojunk=False)
    differences = [
        (expected[b1:b2], repaired[a1:a2], expected[max(0, b1 - 6) : b2 + 6])
        for tag, a1, a2, b1, b2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    wrong = [d for d in differences if d[0] not in AMBIGUOUS]
    report = "\n".join(f"expected {e!r}, got {g!r} in {c!r}" for e, g, c in differences)
    # About 180 characters lost a byte; a few readings fit the context as well as the right one.
    assert len(wrong) <= 10, report
    print(report)


def test_seed_ambiguous_emoji_lists_the_alternatives() -> None:
    seed = _read(SEED)
    spots = [s for f in diagnose(seed) for s in f.spots if s.damaged.startswith("ğŸ")]
    assert spots, "the emoji that lost a byte is reported"
    assert "📍" in {a.char for a in spots[0].alternatives}

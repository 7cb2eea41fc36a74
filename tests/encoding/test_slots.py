"""A damaged document as pieces: clean text and slots, back to text and edits."""

from __future__ import annotations

from metrics_registry.encoding import slots
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.detection import detect
from metrics_registry.encoding.findings import Kind

TEXT = "损失函数\n奖励 模型"


def _damaged() -> tuple[str, list[str | slots.Slot]]:
    damaged = mojibake(TEXT, "cp1254", lossy=True)
    detection = detect(damaged)
    assert detection is not None
    return damaged, slots.pieces(damaged, detection)


def test_every_unit_short_of_bytes_is_a_slot_with_its_readings() -> None:
    damaged, pieces = _damaged()
    found = [piece for piece in pieces if isinstance(piece, slots.Slot)]
    assert found  # 数 and 奖 lose a byte to Windows-1254
    for slot in found:
        assert damaged[slot.start : slot.start + len(slot.original)] == slot.original
        assert slot.options
        assert slot.text() == "\ufffd"  # nothing chosen yet


def test_lines_hold_one_cell_per_character_or_slot() -> None:
    _, pieces = _damaged()
    lines = slots.lines(pieces)
    assert len(lines) == 2
    for line in lines:
        assert all(isinstance(cell, slots.Slot) or len(cell) == 1 for cell in line)


def test_the_chosen_readings_give_the_text_and_an_edit_per_stretch() -> None:
    damaged, pieces = _damaged()
    detection = detect(damaged)
    assert detection is not None
    for piece in pieces:
        if isinstance(piece, slots.Slot):
            piece.choice = next(i for i, option in enumerate(piece.options) if option.char in TEXT)
            piece.probabilities = [1.0 if i == piece.choice else 0.0 for i in range(len(piece.options))]
    assert slots.render(pieces) == TEXT
    text, edits = slots.edits(damaged, pieces, detection)
    assert text == TEXT
    assert edits
    assert all(edit.kind is Kind.LOST_BYTES for edit in edits if edit.spots)
    spots = [spot for edit in edits for spot in edit.spots]
    assert all(text[spot.at] == spot.chosen for spot in spots)  # where each reading stands in the output

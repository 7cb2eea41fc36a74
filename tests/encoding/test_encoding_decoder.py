"""The lattice decoder and the language model pieces it relies on."""

from __future__ import annotations

import math

from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding import repair, word_ngrams
from metrics_registry.encoding.codepages import codepage
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.decoder import Option, decode
from metrics_registry.encoding.detection import detect


def _slot(*chars: str) -> tuple[Option, ...]:
    return tuple(Option(ch, -2.0) for ch in chars)


def test_readings_are_chosen_together_with_their_words() -> None:
    """Two neighbouring slots whose only sensible reading is one word, in either order of the options."""
    doc = lm.DocumentContext.from_text("")
    cells = ["我", "们", "的", _slot("丁", "训", "丝"), _slot("练", "炼", "缚"), "过", "程"]
    decoded = decode(cells, doc)
    assert [cells[i][decoded.choice[i]].char for i in (3, 4)] == ["训", "练"]  # type: ignore[index]
    for index in (3, 4):
        probabilities = decoded.probabilities[index]
        assert math.isclose(sum(probabilities), 1.0)
        assert max(probabilities) == probabilities[decoded.choice[index]]  # type: ignore[index]
        # Both are held by one word of two cells (what the confidence's calibration looks at).
        assert decoded.tokens[index][0] == 2


def test_a_space_swallowed_by_a_reading_joins_the_word() -> None:
    """'nÃ y': the space was the second byte of 'à' (0xA0), so the reading that eats it makes 'này'."""
    doc = lm.DocumentContext.from_text("")
    cells = [*"Trang n", (Option("Ã", 0.0), Option("à", -2.5, skip=1)), *" y giải thích"]
    decoded = decode(cells, doc)
    assert decoded.choice[7] == 1


def test_latin_words_are_whole() -> None:
    """A run of letters is one word, even where two known words would score better ("the" + "book")."""
    doc = lm.DocumentContext.from_text("")
    decoded = decode([*"theb", _slot("o", "ö"), *"ok"], doc)
    assert [text for text, _, _ in decoded.path] == ["thebook"]


def test_script_of_characters() -> None:
    assert lm.script_of("來") == "traditional"
    assert lm.script_of("来") == "simplified"
    assert lm.script_of("出") is None  # both scripts write it
    assert lm.script_of("a") is None


def test_a_traditional_document_prefers_traditional_readings() -> None:
    traditional = lm.DocumentContext.from_text("這份文件寫給第一次訓練模型的人，說明獎勵與優勢。")
    simplified = lm.DocumentContext.from_text("这份文档写给第一次训练模型的人，说明奖励与优势。")
    assert traditional.script_cost("來") > traditional.script_cost("来") + 4
    assert simplified.script_cost("来") > simplified.script_cost("來") + 4
    assert traditional.script_cost("出") == simplified.script_cost("出") == 0.0


def test_variant_spellings_cost_and_standard_traditional_ones_do_not() -> None:
    """wordfreq reads 上陞 as 上升; Traditional texts write 上升 too, so the variant costs."""
    assert lm.variant_cost("上陞", "上升") == lm.VARIANT_COST
    standard = [("上升", "上升"), ("後來", "后来"), ("裡面", "里面"), ("裏面", "里面"), ("乾淨", "干净")]
    for word, simple in standard:
        assert lm.variant_cost(word, simple) == 0.0, word


def test_a_variant_does_not_win_over_the_standard_spelling() -> None:
    """上限 and 上陞 both lost a byte the same way; the first pass alone must keep 上限."""
    text = "獎勵達到了上限，並在訓練後期保持不變。"
    damaged = mojibake(text, "cp1254", lossy=True)
    with word_ngrams.using(None):
        assert repair(damaged) == text


def test_class_bigram_ignores_classes_the_model_never_saw() -> None:
    """jieba's dictionary tags thousands of single characters "zg", a class its tagger never met."""
    assert lm.transition("zg", "n") == 0.0
    assert lm.transition("eng", "n") == 0.0
    assert lm.transition(None, "n") == 0.0
    assert lm.transition("d", "v") > 0  # an adverb before a verb: 不 + 加入


def test_a_number_calls_for_its_measure_word() -> None:
    """位 and 低 both lose their middle byte; after a number, 位 is the unit (16位, 32 位), though 低
    is the likelier word alone. What follows numbers in running text (的) gets nothing."""
    lifts = lm.after_numeral()
    assert lifts["位"] > 1 and lifts["页"] > 1 and lifts["个"] > 1
    assert "的" not in lifts and "低" not in lifts
    doc = lm.DocumentContext.from_text("")
    for before in ("使用16", "使用 32 ", "第三"):
        cells = [*before, _slot("低", "位", "住"), *"的字符"]
        assert decode(cells, doc).choice[len(before)] == 1, before


def test_c1_controls_read_as_their_bytes_in_every_code_page() -> None:
    for name in ("cp1252", "cp1254", "latin-1"):
        page = codepage(name)
        assert page.encode("\x8d\x90") == b"\x8d\x90"
    assert codepage("cp1252").to_char[0x80] == "€"


def test_bytes_that_came_through_are_not_put_back() -> None:
    """Text that kept its undefined bytes as C1 controls did not drop them: no lost-byte guesses."""
    kept = detect(mojibake("## 獎勵 和 步骤", "cp1252"))
    assert kept is not None
    assert 0x8D in kept.kept and 0x8D not in kept.droppable
    dropped = detect(mojibake("## 獎勵 和 步骤", "cp1254", lossy=True))
    assert dropped is not None
    assert dropped.kept == frozenset() and 0x8D in dropped.droppable


def test_with_needed_cells_only_the_stretches_around_them_are_searched() -> None:
    """The recurrence pass chooses a few slots again: slots far from them are left out of the result."""
    doc = lm.DocumentContext.from_text("")
    near = ["我", "们", "的", _slot("丁", "训", "丝"), _slot("练", "炼", "缚"), "过", "程"]
    cells = [*near, *["的"] * 20, _slot("中", "不")]
    everything = decode(cells, doc)
    assert set(everything.choice) == {3, 4, len(cells) - 1}
    focused = decode(cells, doc, needed={3})
    assert set(focused.choice) == {3, 4}
    assert focused.choice[3] == everything.choice[3]

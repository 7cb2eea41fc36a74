"""What the document read where it was sure decides where it is not (:mod:`.recurrence`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from metrics_registry.encoding import domain, recurrence, repair, word_ngrams
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.recurrence import RecurrencePrior, upper_tail

#: The readings of 语 (E8 AF AD) once Windows-1254 dropped its AD, as the repair lists them.
READINGS = ("语", "话", "词", "证")


@dataclass
class FakeSlot:
    readings: tuple[str, ...]
    choice: int | None
    probabilities: list[float] = field(default_factory=list)

    def characters(self) -> Sequence[str]:
        return self.readings


def sure(char: str, readings: tuple[str, ...] = READINGS) -> FakeSlot:
    probabilities = [0.0] * len(readings)
    probabilities[readings.index(char)] = 1.0
    return FakeSlot(readings, readings.index(char), probabilities)


def doubtful(char: str, readings: tuple[str, ...] = READINGS) -> FakeSlot:
    probabilities = [0.2] * len(readings)
    probabilities[readings.index(char)] = 1.0 - 0.2 * (len(readings) - 1)
    return FakeSlot(readings, readings.index(char), probabilities)


def test_confident_readings_elsewhere_favour_the_same_reading() -> None:
    slot = doubtful("话")
    prior = RecurrencePrior([*(sure("语") for _ in range(4)), slot])
    bonus = prior.bonus(slot)
    assert bonus is not None
    assert bonus[0] > 0 > bonus[1]  # 语 gains, 话 (chosen by nobody sure) loses
    assert prior.helps(slot)


def test_more_evidence_weighs_more() -> None:
    slot = doubtful("话")
    few = RecurrencePrior([*(sure("语") for _ in range(4)), slot]).bonus(slot)
    many = RecurrencePrior([*(sure("语") for _ in range(30)), slot]).bonus(slot)
    assert few is not None and many is not None
    assert many[0] - many[1] > few[0] - few[1] > 0


def test_a_slot_does_not_support_itself() -> None:
    alone = sure("语")
    assert RecurrencePrior([alone]).bonus(alone) is None
    others = [sure("语") for _ in range(4)]
    bonus = RecurrencePrior([alone, *others]).bonus(alone)
    assert bonus is not None and bonus[0] > bonus[1]
    # Four in all, three besides itself: as for a doubtful slot beside three, too few (p ≈ 0.011).
    assert RecurrencePrior([alone, *others[:3]]).bonus(alone) is None
    assert RecurrencePrior([*others[:3], doubtful("话")]).bonus(doubtful("话")) is None


def test_doubtful_readings_and_other_damaged_characters_say_nothing() -> None:
    slot = doubtful("话")
    assert RecurrencePrior([doubtful("语"), doubtful("语"), slot]).bonus(slot) is None
    other_set = ("不", "与", "中")
    assert RecurrencePrior([sure("与", other_set), slot]).bonus(slot) is None


def test_only_chinese_readings_count_and_gain() -> None:
    marks = ("、", "」", "语", "话")
    slot = doubtful("」", marks)
    assert RecurrencePrior([sure("、", marks), sure("、", marks), slot]).bonus(slot) is None
    bonus = RecurrencePrior([*(sure("语", marks) for _ in range(6)), slot]).bonus(slot)
    assert bonus is not None
    assert bonus[0] == bonus[1] == 0.0
    assert bonus[2] > 0 > bonus[3]


def test_the_gain_is_over_how_common_a_reading_is_anyway() -> None:
    """A document that reads 不 and 与 about as often as text in general does (不 five times as often)
    tips neither; one that reads 与 most of the time makes 与 far likelier."""
    readings = ("不", "与", "中")
    slot = doubtful("不", readings)
    usual = [*(sure("不", readings) for _ in range(10)), sure("与", readings), sure("与", readings), slot]
    unusual = [sure("不", readings), *(sure("与", readings) for _ in range(10)), slot]
    assert RecurrencePrior(usual).bonus(slot) is None  # ten 不 of twelve: p ≈ 0.02, nothing new
    not_as_usual = RecurrencePrior(unusual).bonus(slot)
    assert not_as_usual is not None
    assert not_as_usual[1] - not_as_usual[0] > 2.0
    # Where the document does say something, a reading read as often as in general gains ~nothing.
    usual_and_more = [*usual[:-1], *(sure("中", readings) for _ in range(30)), slot]
    bonus = RecurrencePrior(usual_and_more).bonus(slot)
    assert bonus is not None and bonus[2] > 0.5 > abs(bonus[0] - bonus[1])


def test_the_binomial_tail() -> None:
    assert upper_tail(2, 2, 0.5) == pytest.approx(0.25)
    assert upper_tail(1, 3, 0.5) == pytest.approx(0.875)
    assert upper_tail(0, 5, 0.1) == 1.0
    assert upper_tail(4, 6, 0.05) == pytest.approx(15 * 0.05**4 * 0.95**2 + 6 * 0.05**5 * 0.95 + 0.05**6)
    assert upper_tail(300, 300, 0.5) == pytest.approx(0.5**300)


def test_a_few_confident_common_readings_say_nothing() -> None:
    """不 is half of the readings of E4 B8 in general: two or four confident 不 in a paragraph are
    what any text shows, and do not push a doubtful 中 or 与 to 不; ten of ten do."""
    readings = ("不", "与", "中")
    slot = doubtful("中", readings)
    for n in (1, 2, 4):
        prior = RecurrencePrior([*(sure("不", readings) for _ in range(n)), slot])
        assert prior.bonus(slot) is None
        assert not prior.helps(slot)
    assert RecurrencePrior([*(sure("不", readings) for _ in range(10)), slot]).bonus(slot) is not None


def test_short_prose_full_of_bu_keeps_its_zhong() -> None:
    """训练中 after 不会, 不应, 不能 (read with certainty): with every confident reading counting, 中
    became 不 (the word frequencies alone choose well here)."""
    text = "健康的训练中，熵会随着训练缓慢下降，不会突然跳变；输出不应重复，也不能太短。"
    damaged = mojibake(text, "cp1254", lossy=True)
    with domain.using(None):
        assert repair(damaged) == text
    with word_ngrams.using(None):
        assert repair(damaged) == text


def test_the_threshold_is_what_separates_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same paragraph, every count taken as evidence (the rule before the test): 中 is lost."""
    text = "健康的训练中，熵会随着训练缓慢下降，不会突然跳变；输出不应重复，也不能太短。"
    monkeypatch.setattr(recurrence, "SIGNIFICANCE", 1.0)
    with domain.using(None):
        assert repair(mojibake(text, "cp1254", lossy=True)) != text


def test_a_confident_choice_the_document_contradicts_is_decoded_again() -> None:
    slot = FakeSlot(READINGS, 1, [0.05, 0.93, 0.01, 0.01])
    assert not RecurrencePrior([slot]).helps(slot)
    assert RecurrencePrior([*(sure("语") for _ in range(20)), slot]).helps(slot)


def test_without_evidence_the_weights_are_neutral() -> None:
    slot = doubtful("语")
    assert RecurrencePrior([slot]).bonus(slot) is None
    assert not RecurrencePrior([slot]).helps(slot)


def test_language_names_read_like_the_known_ones() -> None:
    """语 after names no dictionary knows: the word frequencies alone prefer 话 (说话) or 词; 英语,
    法语, 德语 and 俄语 say what the document means (without 俄语, the first pass is sure of 英语 only:
    one confident 语 in a set where it is one reading in nine says nothing,
    :data:`.recurrence.SIGNIFICANCE`)."""
    text = "我们说英语、法语、德语和俄语。\n\n另有阿尼语、芳蒂语和蒙戈语。"
    with word_ngrams.using(None):
        assert repair(mojibake(text, "cp1254", lossy=True)) == text

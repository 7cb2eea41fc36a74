"""What the document read where it was sure decides where it is not (:mod:`.recurrence`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from metrics_registry.encoding import repair, word_ngrams
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.recurrence import RecurrencePrior

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
    prior = RecurrencePrior([sure("语"), sure("语"), sure("语"), slot])
    bonus = prior.bonus(slot)
    assert bonus is not None
    assert bonus[0] > 0 > bonus[1]  # 语 gains, 话 (chosen by nobody sure) loses
    assert prior.helps(slot)


def test_more_evidence_weighs_more() -> None:
    slot = doubtful("话")
    few = RecurrencePrior([sure("语"), slot]).bonus(slot)
    many = RecurrencePrior([*(sure("语") for _ in range(30)), slot]).bonus(slot)
    assert few is not None and many is not None
    assert many[0] - many[1] > few[0] - few[1] > 0


def test_a_slot_does_not_support_itself() -> None:
    alone = sure("语")
    assert RecurrencePrior([alone]).bonus(alone) is None
    other = sure("语")
    bonus = RecurrencePrior([alone, other]).bonus(alone)
    assert bonus is not None and bonus[0] > bonus[1]


def test_doubtful_readings_and_other_damaged_characters_say_nothing() -> None:
    slot = doubtful("话")
    assert RecurrencePrior([doubtful("语"), doubtful("语"), slot]).bonus(slot) is None
    other_set = ("不", "与", "中")
    assert RecurrencePrior([sure("与", other_set), slot]).bonus(slot) is None


def test_only_chinese_readings_count_and_gain() -> None:
    marks = ("、", "」", "语", "话")
    slot = doubtful("」", marks)
    assert RecurrencePrior([sure("、", marks), sure("、", marks), slot]).bonus(slot) is None
    bonus = RecurrencePrior([sure("语", marks), slot]).bonus(slot)
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
    as_usual, not_as_usual = RecurrencePrior(usual).bonus(slot), RecurrencePrior(unusual).bonus(slot)
    assert as_usual is not None and not_as_usual is not None
    assert abs(as_usual[0] - as_usual[1]) < 0.5
    assert not_as_usual[1] - not_as_usual[0] > 2.0


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
    法语 and 德语 say what the document means."""
    text = "我们说英语、法语和德语。\n\n另有阿尼语、芳蒂语和蒙戈语。"
    with word_ngrams.using(None):
        assert repair(mojibake(text, "cp1254", lossy=True)) == text

"""The second pass's weight follows how well its model fits the document's own undamaged Chinese."""

from __future__ import annotations

import pytest
from clean_texts import clean_text

from metrics_registry.encoding import domain, lossy, rescoring, slots, word_ngrams
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.domain import DomainModel

FULL = rescoring.DOMAIN_MODEL_WEIGHT


class PerCharacter:
    """A stand-in for the word model: the same log-probability for every Chinese character."""

    def __init__(self, per_character: float) -> None:
        self.per_character = per_character

    def score(self, text: str, domain: DomainModel | None = None) -> float:
        return self.per_character * len(text)


def weight(per_character: float, runs: list[str], field: DomainModel | None = None) -> float:
    return rescoring.document_weight(runs, PerCharacter(per_character), field)  # type: ignore[arg-type]


def undamaged_han(text: str) -> list[str]:
    """The runs the weight is measured on once ``text`` lost bytes to Windows-1254."""
    damaged = mojibake(text, "cp1254", lossy=True)
    return lossy._undamaged_han(slots.lines(slots.pieces(damaged, lossy.detect(damaged))))


ENOUGH = ["训练模型"] * 20  # 80 characters, more than MIN_FIT_CHARACTERS


def test_a_well_fitted_document_keeps_the_full_weight() -> None:
    assert weight(rescoring.FIT_FULL + 1.0, ENOUGH, domain.active()) == FULL


def test_a_poorly_fitted_document_turns_the_second_pass_off() -> None:
    assert weight(rescoring.FIT_FLOOR - 0.5, ENOUGH, domain.active()) == 0.0


def test_between_the_ends_the_weight_is_in_proportion() -> None:
    middle = (rescoring.FIT_FLOOR + rescoring.FIT_FULL) / 2
    assert weight(middle, ENOUGH, domain.active()) == pytest.approx(FULL / 2)


def test_without_the_field_model_the_weight_stays_as_it_is() -> None:
    # the fit's ends were measured with the field's model mixed in; the general model alone scores lower
    assert weight(rescoring.FIT_FLOOR - 1.0, ENOUGH, None) == rescoring.MODEL_WEIGHT


def test_too_little_undamaged_text_keeps_the_usual_weight() -> None:
    few = ["训练"] * (rescoring.MIN_FIT_CHARACTERS // 2 - 1)
    assert weight(rescoring.FIT_FLOOR - 5.0, few, domain.active()) == FULL


def test_the_fit_is_measured_between_damaged_characters() -> None:
    # Windows-1254 drops AD from 训 (E8 AE AD) and 语 (E8 AF AD), 8D from 据 (E6 8D AE) and 损 (E6 8D 9F),
    # 9D and 8F from 坏 (E5 9D 8F)
    assert undamaged_han("训练语言模型。数据\n没有损坏的行") == ["练", "言模", "数", "没有", "的行"]


@pytest.mark.system("libime-data-language-model")
@pytest.mark.parametrize("language", ["zh-hans", "zh-hant"])
def test_documentation_gets_the_full_weight(language: str) -> None:
    model = word_ngrams.active()
    assert model is not None, word_ngrams.describe()
    runs = undamaged_han(clean_text(language))
    assert sum(map(len, runs)) >= rescoring.MIN_FIT_CHARACTERS
    assert rescoring.document_weight(runs, model, domain.active()) == FULL

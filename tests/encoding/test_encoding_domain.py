"""The model of the field's own Chinese, mixed into the second pass."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from metrics_registry.encoding import domain, repair, word_ngrams
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.domain import DomainModel, DomainModelError

#: Sentences where the general model prefers a word of the news (位于, 升值) to the field's.
FIELD_SENTENCES = (
    "如果熵低于 0.1，说明策略已经塌缩。",
    "每一步都会记录均值和标准差。",
    "奖励均值持续上升，但长度也在增长。",
)


def test_only_the_chinese_runs_are_counted() -> None:
    counts = DomainModel.from_texts(['msgid "Mean reward"\nmsgstr "奖励均值"', "`kl` 低于 0.1，奖励均值"])
    assert counts.unigrams == {"奖励": 2, "均值": 2, "低于": 1}
    assert counts.bigrams == {("奖励", "均值"): 2}


@pytest.mark.parametrize("previous", [None, "奖励", "低于", "never-seen"])
def test_probabilities_over_the_vocabulary_sum_to_one(previous: str | None) -> None:
    counts = DomainModel.from_texts(["奖励均值低于基线。奖励均值上升，奖励下降，均值低于零。"])
    total = sum(counts.probability(word, previous) for word in counts.unigrams)
    assert math.isclose(total, 1.0, rel_tol=1e-9)


def test_an_unseen_word_is_scored_as_the_counted_words_it_is_made_of() -> None:
    unigrams = Counter({"几百": 2, "步": 3, "的": 5})
    counts = DomainModel(unigrams, Counter({("几百", "步"): 1, ("步", "的"): 2}))
    assert counts.pieces("几百步") == ("几百", "步")
    assert counts.history("几百步") == "步"
    general = -9.0
    expected = (1 - domain.WEIGHT) * 10**general + domain.WEIGHT * (
        counts.probability("几百", None) * counts.probability("步", "几百")
    )
    assert math.isclose(counts.mix("几百步", None, general), math.log(expected))
    # A word with a piece the counts never saw stays whole: the general model alone speaks for it.
    assert counts.pieces("几百米") == ("几百米",)
    assert math.isclose(counts.mix("几百米", None, general), math.log((1 - domain.WEIGHT) * 10**general))


def test_the_counts_survive_a_round_trip(tmp_path: Path) -> None:
    counts = DomainModel.from_texts(["奖励均值低于基线。"])
    path = tmp_path / "counts.json"
    path.write_text(counts.to_json(), encoding="utf-8")
    again = DomainModel.read(path)
    assert again.unigrams == counts.unigrams and again.bigrams == counts.bigrams


@pytest.mark.parametrize("content", ["{not json", '{"format": 99}', '{"format": 1, "unigrams": {}}'])
def test_a_broken_counts_file_names_itself_and_the_fix(tmp_path: Path, content: str) -> None:
    path = tmp_path / "zh-domain.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DomainModelError, match=r"zh-domain\.json: .*metrics-registry i18n domain-model"):
        DomainModel.read(path)


def test_the_bundled_counts_are_used_and_can_be_turned_off() -> None:
    bundled = domain.active()
    assert bundled is not None and bundled.unigrams["均值"] > 10
    with domain.using(None):
        assert domain.active() is None


def test_whether_counts_were_swapped_in_is_known_without_reading_the_bundled_ones() -> None:
    domain.bundled.cache_clear()
    try:
        assert not domain.swapped()
        assert domain.bundled.cache_info().currsize == 0  # nothing read to answer
        with domain.using(DomainModel()):
            assert domain.swapped()
        with domain.using(None):
            assert domain.swapped()
        with domain.using(domain.bundled()):
            assert not domain.swapped()
    finally:
        domain.bundled.cache_clear()


@pytest.mark.system("libime-data-language-model")
@pytest.mark.parametrize("sentence", FIELD_SENTENCES)
def test_the_fields_words_win_where_the_general_model_prefers_others(sentence: str) -> None:
    assert word_ngrams.active() is not None, word_ngrams.describe()
    damaged = mojibake(sentence, "cp1254", lossy=True)
    assert repair(damaged) == sentence
    with domain.using(None):
        assert repair(damaged) != sentence  # what the general model alone makes of it


@pytest.mark.system("libime-data-language-model")
@pytest.mark.parametrize("sentence", ["恢复之后前几百步的损失偏高。", "最初几百步里熵下降得很快。"])
def test_the_field_speaks_for_a_word_it_only_knows_in_pieces(
    sentence: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """jieba reads "几百步" as one word; the project's counts hold "几百" and "步", and the general
    model prefers "几百来" ("a few hundred or so"). The project's counts alone: with the programs'
    messages added (:data:`.domain.MESSAGES`, where 来 is common) the first sentence tips to 来."""
    assert word_ngrams.active() is not None, word_ngrams.describe()
    project = DomainModel.read(domain.BUNDLED)
    damaged = mojibake(sentence, "cp1254", lossy=True)
    with domain.using(project):
        assert repair(damaged) == sentence
    whole_words_only = DomainModel(project.unigrams, project.bigrams)
    monkeypatch.setattr(whole_words_only, "pieces", lambda word: (word,))
    with domain.using(whole_words_only):
        assert repair(damaged) != sentence


@pytest.mark.system("libime-data-language-model")
@pytest.mark.parametrize("sentence", ["超出 ε 的词元所占的比例。", "被裁剪的词元越来越多。"])
def test_a_project_can_bring_its_own_counts(sentence: str) -> None:
    """A word general text hardly uses (词元, "token") wins once a project's own text has it."""
    damaged = mojibake(sentence, "cp1254", lossy=True)
    with domain.using(DomainModel()):
        assert repair(damaged) != sentence
    own = DomainModel.from_texts(["词元数量按词元计算。每个词元对应一个编号。被裁剪的词元所占的比例。"])
    with domain.using(own):
        assert repair(damaged) == sentence


def test_the_programs_messages_are_counted_with_the_project_weighing_more() -> None:
    project, messages = DomainModel.read(domain.BUNDLED), DomainModel.read(domain.MESSAGES)
    bundled = domain.bundled()
    assert bundled is not None and bundled is domain.active()
    for word in ("子句", "均值"):  # a word of the messages (SQL's clause), one of the project's
        expected = domain.PROJECT_WEIGHT * project.unigrams[word] + messages.unigrams[word]
        assert bundled.unigrams[word] == expected > 0
    assert messages.unigrams["子句"] > project.unigrams["子句"]


@pytest.mark.system("libime-data-language-model")
def test_the_messages_read_words_of_manual_pages_the_project_never_uses() -> None:
    """ "子句" (clause) in PostgreSQL's manual: the project's counts and the general model read "子名"."""
    sentence = "这个可选的子句声明新表中的行是否应该拥有OID。"
    damaged = mojibake(sentence, "cp1254", lossy=True)
    assert repair(damaged) == sentence
    with domain.using(DomainModel.read(domain.BUNDLED)):
        assert repair(damaged) != sentence

"""The second pass: fcitx5's word trigram model, found, read with KenLM, and used to choose."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry.encoding import calibration, diagnose, repair, word_ngrams
from metrics_registry.encoding.damage import mojibake

#: 在…中 around a verb: word frequencies alone prefer 不 (E4 B8 8D) to 中 (E4 B8 AD), which
#: Windows-1254 leaves as the same two characters once it drops the last byte.
IN_THE_MIDDLE_OF = (
    "在回调中返回一个字典。",
    "请不要在循环中调用它。",
    "在配置文件中打开这个选项。",
    "不要在生产环境中使用这个设置。",
)

pytestmark = pytest.mark.system("libime-data-language-model")


@pytest.fixture
def model() -> word_ngrams.ChineseWordModel:
    found = word_ngrams.active()
    assert found is not None, (
        "no model of Chinese word sequences: apt-get install libime-data-language-model, "
        "then pip install -e ./packages/zh-models -e '.[test]' (it builds kenlm); " + word_ngrams.describe()
    )
    return found


def test_the_installed_model_is_found(model: word_ngrams.ChineseWordModel) -> None:
    assert model.path.name == "zh_CN.lm"
    assert str(model.path) in word_ngrams.describe()


def test_fluent_text_scores_higher(model: word_ngrams.ChineseWordModel) -> None:
    assert model.score("在奖励中加入长度惩罚") > model.score("在奖励不加入长度惩罚")
    assert model.score("檢查點與恢復") == model.score("检查点与恢复")  # Traditional is read as Simplified
    # Only the Chinese runs count: code, numbers and punctuation are boundaries.
    assert model.score("`kl` 低于 0.1") == model.score("低于")


def test_dictionary_words_the_model_lacks_are_split_into_words_it_knows(
    model: word_ngrams.ChineseWordModel,
) -> None:
    """jieba's dictionary has 参考模型, the model only 参考 and 模型: scoring the word letter by letter
    once made "参考模压" (two words it knows) win over it."""
    assert model._known_words("参考模型") == ("参考", "模型")
    assert repair(mojibake("策略与参考模型之间的距离", "cp1254", lossy=True)) == "策略与参考模型之间的距离"


@pytest.mark.parametrize("sentence", ["某一块 GPU 上的数值偏高。", "每一块 GPU 都会记录自己的值。"])
def test_a_word_counts_whole_and_split_where_jieba_and_the_model_cut_differently(
    model: word_ngrams.ChineseWordModel, sentence: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """jieba reads 一块 as one word; the model's text mostly held 一 and 块, so its entry for 一块 is
    rare, and 一字 (two words it knows well) won."""
    assert model._readings("一块") == (("一块",), ("一", "块"))
    assert model._readings("参考模型") == (("参考", "模型"),)  # not known whole: split already
    damaged = mojibake(sentence, "cp1254", lossy=True)
    assert repair(damaged) == sentence
    monkeypatch.setattr(model, "_readings", lambda word: (model._known_words(word),))
    model._run.cache_clear()
    try:
        assert repair(damaged) != sentence  # the whole word alone
    finally:
        model._run.cache_clear()


@pytest.mark.parametrize("sentence", IN_THE_MIDDLE_OF)
def test_word_sequences_choose_what_word_frequencies_cannot(
    model: word_ngrams.ChineseWordModel, sentence: str
) -> None:
    damaged = mojibake(sentence, "cp1254", lossy=True)
    assert repair(damaged) == sentence
    with word_ngrams.using(None):
        first_pass = repair(damaged)
    assert first_pass != sentence and first_pass.replace("不", "中").replace("与", "中") == sentence.replace(
        "不", "中"
    ).replace("与", "中")


def test_findings_report_the_rescored_choice(model: word_ngrams.ChineseWordModel) -> None:
    sentence = IN_THE_MIDDLE_OF[0]
    spots = [spot for finding in diagnose(mojibake(sentence, "cp1254", lossy=True)) for spot in finding.spots]
    middle = next(spot for spot in spots if spot.chosen == "中")
    probabilities = {alternative.char: alternative.probability for alternative in middle.alternatives}
    assert probabilities["中"] == max(probabilities.values())
    # The second pass chose 中 against the first pass's favourite: a choice that is wrong more often
    # than its probability says, so its confidence is calibrated down (:mod:`.calibration`).
    assert middle.confidence <= calibration.confidence(0.999_999, "rescored") < probabilities["中"]
    assert probabilities["不"] > 0  # the first pass's favourite is still listed
    # Findings round each probability to 4 places: six of them may sum to 1 ± 0.0003.
    assert sum(probabilities.values()) == pytest.approx(1.0, abs=1e-3)


def test_off_turns_the_model_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(word_ngrams.ENVIRONMENT, "off")
    assert word_ngrams.find() is None and word_ngrams.active() is None
    assert word_ngrams.describe().startswith("word frequencies only")
    assert repair(mojibake("训练过程", "cp1254", lossy=True)) == "训练过程"  # the first pass alone


def test_a_model_path_that_does_not_exist_is_an_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "zh_CN.lm"
    monkeypatch.setenv(word_ngrams.ENVIRONMENT, str(missing))
    with pytest.raises(word_ngrams.WordModelError) as error:
        word_ngrams.active()
    assert word_ngrams.ENVIRONMENT in str(error.value) and str(missing) in str(error.value)
    assert "off" in str(error.value)  # the fix: another path, off, or unset


def test_a_file_that_is_not_a_model_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bogus = tmp_path / "zh_CN.lm"
    bogus.write_text("not a language model\n", encoding="utf-8")
    monkeypatch.setenv(word_ngrams.ENVIRONMENT, str(bogus))
    with pytest.raises(word_ngrams.WordModelError, match="not a model KenLM can read"):
        word_ngrams.active()


def test_using_none_restores_the_model_afterwards(model: word_ngrams.ChineseWordModel) -> None:
    with word_ngrams.using(None):
        assert word_ngrams.active() is None
    assert word_ngrams.active() is model


#: 套接字 (socket) is in the model's vocabulary, not in jieba's or wordfreq's lists; 字 lost its soft
#: hyphen (AD) to Windows-1254, and 受 (E5 8F 97) is a reading of what is left.
SOCKET = "本命令使用套接字连接服务器。"


def test_the_models_own_words_are_read_as_words(model: word_ngrams.ChineseWordModel) -> None:
    new = model.new_words()
    assert "套接字" in new and new["套接字"] < 0
    assert all(len(word) >= 3 for word in new)
    assert "参考模型" not in new  # jieba has it: only the words the lists lack
    # jieba cuts 套接 字; the model scores the word it knows, which beats 套接受 again.
    assert model.score("套接字是") > model.score("套接受是")
    assert repair(mojibake(SOCKET, "cp1254", lossy=True)) == SOCKET


def test_without_the_model_its_words_are_not_offered(model: word_ngrams.ChineseWordModel) -> None:
    with word_ngrams.using(None):
        assert repair(mojibake(SOCKET, "cp1254", lossy=True)) != SOCKET
    assert repair(mojibake(SOCKET, "cp1254", lossy=True)) == SOCKET  # and back once it is in use again


def test_a_file_that_does_not_end_with_a_vocabulary_has_none(tmp_path: Path) -> None:
    odd = tmp_path / "zh_CN.lm"
    odd.write_bytes(b"\x00<unk>\x00\xff\xfe\x00")  # not UTF-8
    assert word_ngrams._vocabulary(odd) == []
    odd.write_bytes(b"no vocabulary here")
    assert word_ngrams._vocabulary(odd) == []

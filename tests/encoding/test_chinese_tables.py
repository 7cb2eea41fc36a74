"""The Chinese tables are built once, kept in the private cache, and read back unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry.encoding import chinese_tables


def test_tables_from_the_cache_equal_the_built_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METRICS_REGISTRY_CACHE", str(tmp_path))
    built = chinese_tables.tables.__wrapped__()
    entries = list(tmp_path.glob("*.pickle"))
    assert len(entries) == 1
    read_back = chinese_tables.tables.__wrapped__()
    assert read_back == built
    assert read_back.word_tag["训练"] == built.word_tag["训练"]
    # the class bigram is a distribution: each row sums to one
    for row in built.transitions.values():
        assert abs(sum(2.718281828459045**logp for logp in row.values()) - 1) < 1e-6


def test_a_damaged_cache_entry_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METRICS_REGISTRY_CACHE", str(tmp_path))
    built = chinese_tables.tables.__wrapped__()
    (entry,) = tmp_path.glob("*.pickle")
    entry.write_bytes(entry.read_bytes()[:1000])
    assert chinese_tables.tables.__wrapped__() == built


def test_character_shares_count_characters_inside_words() -> None:
    """语 is rarely a word alone but common inside words (语言, 英语): its share is a character's."""
    shares = chinese_tables.tables().char_logp
    assert shares["语"] > shares["诏"]
    assert shares["的"] > shares["语"]
    assert abs(sum(2.718281828459045**logp for logp in shares.values()) - 1) < 1e-6


def test_words_of_taiwan_and_hong_kong_come_from_opencc() -> None:
    """萬那杜 (Vanuatu in Taiwan; 瓦努阿图 on the mainland) is in no mainland list: OpenCC's tables
    hold it, and the lattice finds it as a word, by its Simplified form."""
    from metrics_registry.encoding import language_model as lm

    regional = chinese_tables.tables().regional
    assert "万那杜" in regional and "帛琉" in regional
    assert lm.han_word("万那杜") == (lm.REGIONAL_WORD, "nz")
    assert lm.han_prefix("万那")
    assert lm.han_word("瓦努阿图") != (lm.REGIONAL_WORD, "nz")  # listed by jieba: its own count

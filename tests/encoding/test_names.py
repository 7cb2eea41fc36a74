"""The character model of names, and the decoder reading a name no dictionary holds."""

from __future__ import annotations

import pytest

from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding import names
from metrics_registry.encoding.decoder import Option, decode


def test_names_are_spelled_with_name_characters() -> None:
    """After 利 in a name, 亚 is common and the particle 着 is not; 斯 ends names, 的 hardly ever."""
    assert names.logp("利", "亚") > names.logp("利", "着") + 3
    assert names.logp("斯", "$") > names.logp("的", "$")
    assert names.usable("扎")
    assert not names.usable("吗")


def test_a_character_ends_a_name_only_after_another() -> None:
    """A name has two characters or more: its first one cannot end it."""
    assert names.edge(names.FIRST, "扎", None, " ") is None
    assert names.edge(names.FIRST, "扎", "x", "、") is None
    assert names.edge(names.NEXT, "拉", "x", "、") == pytest.approx(names.WEIGHT * names.logp("拉", "$"))
    assert names.edge("n", "语", names.NEXT, "扎") is None


@pytest.mark.parametrize(
    ("name", "readings"),
    [
        ("扎拉德亚", ("才", "掉", "扎")),
        ("珀奇斯尔", ("着", "珀")),
        ("古罗拉森", ("夏", "复", "坤", "孤", "古")),
    ],
)
def test_a_name_no_dictionary_holds_is_read_with_name_characters(
    name: str, readings: tuple[str, ...]
) -> None:
    """The first character lost a byte; as single words the others (才, 着, 夏) are far more common."""
    cells = ["和", tuple(Option(ch, -2.0) for ch in readings), *name[1:], "语", "、"]
    decoded = decode(cells, lm.DocumentContext.from_text(""))
    assert readings[decoded.choice[1]] == name[0]  # type: ignore[index]

"""Reading untrusted YAML: YAML 1.2 scalars, lines, and everything refused with its line."""

from __future__ import annotations

import math

import pytest

from metrics_registry.yamlread import (
    MAX_ALIASED_VALUES,
    MAX_DEPTH,
    DuplicateKeyError,
    TagError,
    TooBigError,
    YAMLError,
    read_yaml,
)


def test_scalars_follow_yaml_1_2_not_1_1() -> None:
    text = "a: yes\nb: on\nc: 0o17\nd: 0x1F\ne: -.inf\nf:\ng: ~\nh: '1'\ni: 2024-01-01\nj: 1.5e3\n"
    data, _ = read_yaml(text)
    assert data["a"] == "yes" and data["b"] == "on"  # booleans in YAML 1.1, text in 1.2
    assert (data["c"], data["d"]) == (15, 31)
    assert data["e"] == -math.inf
    assert data["f"] is None and data["g"] is None
    assert data["h"] == "1"
    assert data["i"] == "2024-01-01"  # no timestamps: the schema decides
    assert data["j"] == 1500.0


def test_every_key_and_item_has_its_line() -> None:
    _, lines = read_yaml("family:\n  id: x\nmetrics:\n  - key: a\n  - key: b\n")
    assert lines[("family", "id")] == 2
    assert lines[("metrics", 1)] == 5
    assert lines[("metrics", 1, "key")] == 5


def test_a_duplicate_key_names_both_lines() -> None:
    with pytest.raises(DuplicateKeyError) as raised:
        read_yaml("a:\n  b: 1\n  c: 2\n  b: 3\n")
    assert (raised.value.key, raised.value.line, raised.value.first_line) == ("b", 4, 2)


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object/apply:os.system ['true']\n",
        "a: !!binary aGk=\n",
        "a: !custom x\n",
        "a: !!set {x}\n",
    ],
)
def test_tags_beyond_plain_data_are_refused(text: str) -> None:
    with pytest.raises(TagError) as raised:
        read_yaml(text)
    assert raised.value.line == 1


def test_a_list_used_as_a_key_is_refused() -> None:
    with pytest.raises(TagError) as raised:
        read_yaml("x: 1\n? [a, b]\n: c\n")
    assert raised.value.line == 2


def test_aliases_may_repeat_a_little_but_not_expand_without_bound() -> None:
    data, _ = read_yaml("a: &x [1, 2]\nb: *x\n")
    assert data["b"] == [1, 2]
    levels = ["l0: &l0 [" + ", ".join(["x"] * 10) + "]"]
    levels += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 6)]
    with pytest.raises(TooBigError) as raised:
        read_yaml("\n".join(levels) + "\n")
    assert f"{MAX_ALIASED_VALUES:,}" in raised.value.what
    assert raised.value.line is not None


def test_a_self_referencing_anchor_stops_at_the_depth_limit() -> None:
    with pytest.raises(TooBigError, match="nested"):
        read_yaml("x: &a [*a]\n")


def test_deep_nesting_is_refused_before_composing() -> None:
    with pytest.raises(TooBigError) as raised:
        read_yaml("a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n")
    assert raised.value.line == 1


def test_more_digits_than_python_converts_stay_text() -> None:
    data, _ = read_yaml(f"n: {'9' * 5000}\n")
    assert data["n"] == "9" * 5000


def test_syntax_errors_carry_their_mark() -> None:
    with pytest.raises(YAMLError) as raised:
        read_yaml("a: [\n")
    assert raised.value.problem_mark.line == 1


def test_an_empty_document_is_none() -> None:
    assert read_yaml("# only a comment\n") == (None, {})

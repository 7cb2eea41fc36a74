"""No space next to full-width punctuation in Chinese text."""

from __future__ import annotations

import pytest

from metrics_registry.site.typography import tidy_cjk_spacing, tidy_value, tidy_values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("旧版 PPO（TRL v0.7） 指标", "旧版 PPO（TRL v0.7）指标"),
        ("值 。", "值。"),
        ("所占比例。 [完整条目](x.md)", "所占比例。[完整条目](x.md)"),
        ("GRPO （邮件）", "GRPO（邮件）"),
        ("KL 散度", "KL 散度"),  # a space between Chinese and Latin text stays
        ("## 标题（x） { #id }", "## 标题（x） { #id }"),  # attr_list needs its space
        ("| 值。 |", "| 值。 |"),
        ("- （a） b", "- （a）b"),  # the list marker keeps its space
        ("`a） b` （c）", "`a） b` （c）"),  # code is left alone
        ("x\n```\n（a） b\n```\n（c） d", "x\n```\n（a） b\n```\n（c）d"),
    ],
)
def test_tidy_cjk_spacing(text: str, expected: str) -> None:
    assert tidy_cjk_spacing(text) == expected


def test_values_that_are_not_text_pass_through() -> None:
    assert tidy_value(3) == 3
    assert tidy_value("（a） b") == "（a）b"


def test_tidy_values_tidies_each_string_as_tidy_value_does() -> None:
    tidy = tidy_values()
    for value in ["（a） b", "（a） b", "a `（x） y` （b）", 3, None, "plain"]:
        assert tidy(value) == tidy_value(value)

"""Templated keys, references and anchors."""

from __future__ import annotations

import pytest

from metrics_registry.keys import Reference, TemplateError, compile_template, placeholders, template_problem
from metrics_registry.registry import anchor


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("objective/kl", None),
        ("rewards/{reward_func_name}/mean", None),
        ("tools/{tool_name}_calls", None),
        ("rewards/{reward_func_name/mean", "unbalanced"),
        ("rewards/reward_func_name}/mean", "unbalanced"),
        ("rewards/{Reward}/mean", "lower-case identifier"),
        ("rewards/{}/mean", "lower-case identifier"),
        ("a/{x}{y}", "side by side"),
        ("a/{x}/b/{x}", "twice"),
        ("/objective/kl", "empty path segment"),
        ("objective//kl", "empty path segment"),
        ("objective kl", "unexpected character"),
    ],
)
def test_template_problem(key: str, problem: str | None) -> None:
    found = template_problem(key)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


def test_template_matches_one_segment_only() -> None:
    pattern = compile_template("rewards/{reward_func_name}/mean")
    hit = pattern.match("rewards/accuracy_reward/mean")
    assert hit is not None and hit.groupdict() == {"reward_func_name": "accuracy_reward"}
    assert pattern.match("rewards/a/b/mean") is None
    assert pattern.match("rewards//mean") is None
    assert pattern.match("rewards/x/std") is None


def test_template_literal_parts_are_not_regular_expressions() -> None:
    assert compile_template("a.b/{x}").match("aXb/y") is None


def test_compile_rejects_malformed() -> None:
    with pytest.raises(TemplateError, match="unbalanced"):
        compile_template("rewards/{x/mean")


def test_placeholders_and_reference() -> None:
    assert placeholders("a/{x}/b/{y}") == ["x", "y"]
    assert Reference.parse("legacy-ppo:objective/kl") == Reference("legacy-ppo", "objective/kl")
    assert str(Reference.parse("kl")) == "kl"


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("objective/kl", "objective-kl"),
        ("clip_ratio/low_mean", "clip_ratio-low_mean"),
        ("rewards/{reward_func_name}/mean", "rewards-reward_func_name-mean"),
        ("time/ppo/forward_pass", "time-ppo-forward_pass"),
        ("eps", "eps"),
    ],
)
def test_anchor(key: str, expected: str) -> None:
    assert anchor(key) == expected

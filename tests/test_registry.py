"""Lookup by key, alias, template, eval prefix, family and TRL version."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry import AmbiguousMetricError, Registry, UnknownMetricError, load


@pytest.fixture
def toy(valid_file: Path) -> Registry:
    return load([valid_file], builtin=False)


def test_lookup_exact_alias_template_and_eval(toy: Registry) -> None:
    assert toy.lookup("toy/kl").how == "key"
    assert toy.lookup("toy/kl_alias").entry.key == "toy/kl"
    match = toy.lookup("toy/reward/accuracy/mean")
    assert (match.entry.key, match.how, match.bindings) == (
        "toy/reward/{name}/mean",
        "template",
        {"name": "accuracy"},
    )
    evaluation = toy.lookup("eval_toy/kl")
    assert (evaluation.entry.key, evaluation.mode) == ("toy/kl", "eval")


def test_eval_prefix_needs_eval_mode(toy: Registry) -> None:
    # toy/reward/{name}/mean is logged in training only
    with pytest.raises(UnknownMetricError):
        toy.lookup("eval_toy/reward/accuracy/mean")


def test_unknown_key_message(toy: Registry) -> None:
    with pytest.raises(UnknownMetricError, match="no metric 'nope'"):
        toy.lookup("nope")
    with pytest.raises(UnknownMetricError, match="unknown family 'zzz'"):
        toy.lookup("toy/kl", family="zzz")


def test_version_filter(toy: Registry) -> None:
    assert toy.find("toy/reward/x/mean", trl_version="1.0") == []
    assert len(toy.find("toy/reward/x/mean", trl_version="1.1")) == 1


def test_real_registry_lookups(registry: Registry) -> None:
    assert registry.lookup("rewards/accuracy_reward/mean").entry.key == "rewards/{reward_func_name}/mean"
    evaluation = registry.lookup("eval_reward")
    assert (evaluation.entry.key, evaluation.entry.family.id, evaluation.mode) == ("reward", "grpo", "eval")


def test_key_in_two_families_needs_a_choice(registry: Registry) -> None:
    with pytest.raises(AmbiguousMetricError) as error:
        registry.lookup("objective/kl")
    assert {m.entry.family.id for m in error.value.matches} == {"ppo", "legacy-ppo"}
    assert "ppo" in str(error.value) and "legacy-ppo" in str(error.value)
    assert registry.lookup("objective/kl", family="ppo").entry.family.id == "ppo"
    assert registry.lookup("objective/kl", trl_version="0.7.10").entry.family.id == "legacy-ppo"
    assert registry.lookup("objective/kl", trl_version="0.12.0").entry.family.id == "ppo"

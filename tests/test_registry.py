"""Lookup by key, alias, template, eval prefix, family and TRL version."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry import AmbiguousMetricError, Registry, UnknownMetricError, load
from metrics_registry.config import builtin_paths


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


def test_a_key_several_frameworks_log_names_every_framework() -> None:
    """Issue 15: an ambiguous key says which frameworks log it, not only which families."""
    frameworks = Path(__file__).resolve().parent / "fixtures" / "frameworks"
    # TRL's built-in families and two stand-ins (the shipped frameworks' families are left out)
    trl = [path for path in builtin_paths() if path.stem in {"grpo", "ppo", "legacy_ppo"}]
    stand_ins = [frameworks / "verl_like.yaml", frameworks / "openrlhf_like.yaml"]
    registry = load([*trl, *stand_ins], builtin=False)
    with pytest.raises(AmbiguousMetricError) as error:
        registry.lookup("kl")
    message = str(error.value)
    assert "'kl' is logged by 3 families of 3 frameworks (TRL, verl-like, openrlhf-like)" in message
    assert "verl-like (verl-like 0.4.0 and later)" in message and "grpo (TRL 0.14.0 and later)" in message
    assert {m.entry.family.versions_of for m in error.value.matches} == {"trl", "verl-like", "openrlhf-like"}
    assert registry.lookup("kl", family="verl-like").entry.id == "verl-like:kl"
    with pytest.raises(AmbiguousMetricError, match=r"of TRL with different meanings: .*; pass a family or a"):
        registry.lookup("objective/kl")

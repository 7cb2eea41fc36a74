"""Terminal rendering of one metric."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from metrics_registry import Registry, load
from metrics_registry.config import builtin_paths
from metrics_registry.explain import render_matches


def _render(registry: Registry, key: str, **kwargs: str) -> str:
    console = Console(width=200, record=True, color_system=None)
    render_matches(registry.find(key, **kwargs), registry, console)
    return console.export_text()


def test_eval_key_says_how_it_matched(registry: Registry) -> None:
    text = _render(registry, "eval_reward")
    assert "'eval_reward' matched exactly, logged during evaluation with the prefix 'eval_'" in text
    assert "grpo:reward" in text


def test_all_sections(registry: Registry) -> None:
    text = _render(registry, "kl", family="grpo")
    entry = registry.lookup("kl", family="grpo").entry
    for expected in (entry.metric.title, entry.metric.summary, "Healthy values", "logged only when", "beta"):
        assert expected in text
    if entry.metric.docs_note:
        assert "What TRL's documentation says" in text


def test_several_families_are_all_shown(registry: Registry) -> None:
    text = _render(registry, "objective/kl")
    assert "is logged by 2 families" in text
    assert "ppo:objective/kl" in text and "legacy-ppo:objective/kl" in text


def test_meaning_reduction_known_issues_and_rule_conditions(registry: Registry) -> None:
    text = " ".join(_render(registry, "val/ratio", family="ppo").split())
    assert "concept probability-ratio: Probability ratio" in text
    assert (
        "reduction micro-batch: mean → processes (ranks): gathered, reduced at a later stage"
        " → step: mean of means" in text
    )
    assert "between 0.8 and 1.2 (not when TRL ≥ 0.17.0, < 1.13.0 and num_mini_batches > 1 and" in text
    assert "Known issues" in text
    assert (
        "deflated in TRL ≥ 0.17.0, < 1.13.0 with num_mini_batches > 1 and gradient_accumulation_steps > 1"
        in text
    )
    assert "https://github.com/huggingface/trl/pull/2531" in text
    kl = " ".join(_render(registry, "objective/kl", family="ppo").split())
    assert 'meaning changes kl_estimator == "k3": Switches the per-token estimator from k1 to k3' in kl
    low = " ".join(_render(registry, "clip_ratio/low_mean", family="grpo").split())
    assert "clip-fraction-low: Clip fraction, low side (a kind of Clip fraction)" in low


def test_a_key_several_frameworks_log_names_each_with_its_families() -> None:
    frameworks = Path(__file__).resolve().parent / "fixtures" / "frameworks"
    # TRL's built-in families and two stand-ins (the shipped frameworks' families are left out)
    trl = [path for path in builtin_paths() if path.stem in {"grpo", "ppo", "legacy_ppo"}]
    stand_ins = [frameworks / "verl_like.yaml", frameworks / "openrlhf_like.yaml"]
    registry = load([*trl, *stand_ins], builtin=False)
    text = " ".join(_render(registry, "kl").split())
    assert (
        "'kl' is logged by 3 families with different meanings (TRL: grpo; verl-like: verl-like;"
        " openrlhf-like: openrlhf-like); pass --family to show one." in text
    )
    assert "verl-like:kl" in text and "grpo:kl" in text

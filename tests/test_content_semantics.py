"""The shipped registry says what is gated, what changes meaning, and which values are wrong where.

Issue 19: ``gated_by`` must mean "absent otherwise"; options that only change
the value are ``meaning_depends_on``, their translations kept; the PPO
statistics-grid dilution reaches every affected key.
"""

from __future__ import annotations

import re
from pathlib import Path

from metrics_registry import Registry
from metrics_registry.i18n.catalogs import read_catalog
from metrics_registry.i18n.fields import metric_context, metric_texts

ROOT = Path(__file__).resolve().parent.parent

#: Options that only change the value, per family and key (issue 19's list, checked against each entry).
MEANING = {
    ("grpo", "frac_reward_zero_std"): ["scale_rewards", "multi_objective_aggregation"],
    ("legacy-ppo", "objective/kl"): ["kl_penalty"],
    ("legacy-ppo", "objective/kl_coef"): ["adap_kl_ctrl"],
    ("legacy-ppo", "ppo/mean_scores"): ["use_score_scaling"],
    ("legacy-ppo", "ppo/policy/policykl"): ["early_stopping"],
    ("legacy-ppo", "ppo/policy/advantages_mean"): ["whiten_rewards"],
    ("legacy-ppo", "ppo/loss/policy"): ["ratio_threshold"],
    ("ppo", "objective/kl"): ["kl_estimator"],
    ("ppo", "objective/non_score_reward"): ["kl_estimator", "kl_coef"],
    ("ppo", "objective/rlhf_reward"): ["kl_estimator", "missing_eos_penalty"],
    ("ppo", "objective/scores"): ["missing_eos_penalty"],
    ("ppo", "val/num_eos_tokens"): ["stop_token"],
}
#: Every key the TRL PPO statistics grid feeds (trl/trainer/ppo_trainer.py@v0.17.0, lines 631-638).
GRID_KEYS = {
    "policy/approxkl_avg",
    "policy/clipfrac_avg",
    "loss/policy_avg",
    "loss/value_avg",
    "val/clipfrac_avg",
    "policy/entropy_avg",
    "val/ratio",
    "val/ratio_var",
}
_STILL_LOGGED = re.compile(r"still logged|logged either way|the key stays the same", re.I)
#: The TRL families these checks are about; other frameworks' families have their own tests (issue 15).
TRL_FAMILIES = {"ppo", "grpo", "legacy-ppo", "multiturn-grpo"}


def test_gates_only_say_when_a_key_is_logged(registry: Registry) -> None:
    for entry in registry:
        for gate in entry.metric.gated_by:
            assert not _STILL_LOGGED.search(gate.note or ""), (entry.id, gate.option)
        if entry.family.id not in TRL_FAMILIES:
            assert not {g.option for g in entry.metric.gated_by} & {
                d.option for d in entry.metric.meaning_depends_on
            }, entry.id
            continue
        options = [d.option for d in entry.metric.meaning_depends_on]
        if entry.family.versions_of == "trl":  # MEANING is issue 19's TRL list
            assert options == MEANING.get((entry.family.id, entry.key), []), entry.id
        assert not {g.option for g in entry.metric.gated_by} & set(options), entry.id


def test_moved_notes_kept_their_translations(registry: Registry) -> None:
    for lang in ("vi", "zh"):
        catalog = read_catalog(ROOT / "i18n" / lang / "LC_MESSAGES" / "registry.po")
        for family, key in MEANING:
            entry = registry.lookup(key, family=family).entry
            data = entry.metric.model_dump(mode="json")
            for field in metric_texts(data):
                if not field.path.startswith("meaning_depends_on["):
                    continue
                message = catalog.get(field.text, context=metric_context(family, key, field.path))
                assert message is not None and message.string and not message.fuzzy, (lang, field.path)


def test_the_grid_dilution_reaches_every_key_it_affects(registry: Registry) -> None:
    affected = {
        entry.key
        for entry in registry.in_family("ppo")
        for issue in entry.metric.known_issues
        if issue.url == "https://github.com/huggingface/trl/pull/2531"
    }
    assert affected == GRID_KEYS
    for key in GRID_KEYS:
        (issue,) = registry.lookup(key, family="ppo").entry.metric.known_issues
        assert (issue.affects.introduced, issue.affects.removed) == ("0.17.0", "1.13.0")
        assert [c.text() for c in issue.when] == ["num_mini_batches > 1", "gradient_accumulation_steps > 1"]
        assert issue.effect == ("inflated" if key == "val/ratio_var" else "deflated")


def test_val_ratio_rule_excepts_the_diluted_runs(registry: Registry) -> None:
    from metrics_registry.conditions import RunFacts
    from metrics_registry.runs.check import rule_applies

    rule = next(
        r for r in registry.lookup("val/ratio", family="ppo").entry.metric.healthy if r.id == "near-one"
    )
    diluted = {"num_mini_batches": 2, "gradient_accumulation_steps": 2}
    assert not rule_applies(rule, RunFacts("0.17.0", diluted))
    assert not rule_applies(rule, RunFacts("1.12.0", diluted))
    assert rule_applies(rule, RunFacts("0.16.0", diluted))  # before the grid changed
    assert rule_applies(rule, RunFacts("0.20.0", {"num_mini_batches": 2, "gradient_accumulation_steps": 1}))
    assert rule_applies(rule, RunFacts("0.20.0", {}))  # config unknown: still checked
    assert rule_applies(rule, RunFacts(None, diluted))  # release unknown: still checked


def test_known_issue_links_are_https_tracker_pages(registry: Registry) -> None:
    trl = [entry for entry in registry if entry.family.versions_of == "trl"]
    links = {issue.url for entry in trl for issue in entry.metric.known_issues}
    assert links == {
        "https://github.com/huggingface/trl/pull/2531",
        "https://github.com/huggingface/trl/pull/3482",
        "https://github.com/huggingface/trl/issues/3032",
    }


def test_reductions_describe_the_trl_loss_and_kl_metrics(registry: Registry) -> None:
    def stages(family: str, key: str) -> list[tuple[str, str]]:
        return [(s.level, s.reduce) for s in registry.lookup(key, family=family).entry.metric.reduction]

    assert stages("grpo", "kl") == [
        ("micro-batch", "mean"),
        ("rank", "token-weighted-mean"),
        ("logging-window", "mean"),
    ]
    assert stages("grpo", "loss") == [("step", "sum"), ("rank", "mean"), ("logging-window", "mean")]
    assert stages("ppo", "objective/kl") == [("sequence", "sum"), ("step", "mean"), ("rank", "mean")]
    for key in GRID_KEYS:
        assert stages("ppo", key)[1:] in (
            [("rank", "gather"), ("step", "mean-of-means")],
            [("rank", "gather"), ("step", "var")],
        )
    assert stages("legacy-ppo", "ppo/loss/policy")[0] == ("mini-batch", "mean")

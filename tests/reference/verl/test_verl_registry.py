"""The verl family against the research note's key list (research/frameworks/verl.md, commit 1dda039)."""

from __future__ import annotations

import metrics_registry
from metrics_registry.registry import Registry

#: Every concrete key the note enumerates for the training loop (one RS option, token_k1; validation
#: keys with data source gsm8k), so that a key the registry does not match shows as missing.
NOTE_KEYS = [
    "actor/pg_loss",
    "actor/pg_clipfrac",
    "actor/pg_clipfrac_lower",
    "actor/ppo_kl",
    "actor/entropy",
    "actor/entropy_loss",
    "actor/kl_loss",
    "actor/kl_coef",
    "actor/loss",
    "actor/grad_norm",
    "actor/lr",
    "actor/perf/max_memory_allocated_gb",
    "actor/perf/max_memory_reserved_gb",
    "actor/perf/cpu_memory_used_gb",
    "perf/mfu/actor",
    "perf/mfu/critic",
    "perf/mfu/actor_infer",
    "actor/reward_kl_penalty",
    "actor/reward_kl_penalty_coeff",
    "critic/vf_loss",
    "critic/vf_clipfrac",
    "critic/vpred_mean",
    "critic/loss",
    "critic/grad_norm",
    "critic/lr",
    "critic/perf/max_memory_allocated_gb",
    "critic/perf/max_memory_reserved_gb",
    "critic/perf/cpu_memory_used_gb",
    "critic/score/mean",
    "critic/score/max",
    "critic/score/min",
    "critic/rewards/mean",
    "critic/rewards/max",
    "critic/rewards/min",
    "critic/advantages/mean",
    "critic/advantages/max",
    "critic/advantages/min",
    "critic/returns/mean",
    "critic/returns/max",
    "critic/returns/min",
    "critic/values/mean",
    "critic/values/max",
    "critic/values/min",
    "critic/vf_explained_var",
    "response_length/mean",
    "response_length/max",
    "response_length/min",
    "response_length/clip_ratio",
    "response_length_non_aborted/mean",
    "response_length_non_aborted/max",
    "response_length_non_aborted/min",
    "response_length_non_aborted/clip_ratio",
    "response/aborted_ratio",
    "prompt_length/mean",
    "prompt_length/max",
    "prompt_length/min",
    "prompt_length/clip_ratio",
    "perf/total_num_tokens",
    "perf/time_per_step",
    "perf/throughput",
    "training/global_step",
    "training/epoch",
    "global_seqlen/min",
    "global_seqlen/max",
    "global_seqlen/minmax_diff",
    "global_seqlen/balanced_min",
    "global_seqlen/balanced_max",
    "global_seqlen/mean",
    "num_turns/min",
    "num_turns/max",
    "num_turns/mean",
    "training/num_turns/min",
    "training/num_turns/max",
    "training/num_turns/mean",
    "timing_s/step",
    "timing_s/gen",
    "timing_s/reward",
    "timing_s/old_log_prob",
    "timing_s/ref",
    "timing_s/values",
    "timing_s/adv",
    "timing_s/update_critic",
    "timing_s/update_actor",
    "timing_s/save_checkpoint",
    "timing_s/update_weights",
    "timing_s/testing",
    "timing_s/switch_to_rollout",
    "timing_s/switch_wait",
    "timing_s/start_profile",
    "timing_s/stop_profile",
    "timing_s/dump_rollout_generations",
    "timing_s/agent_loop/generate_sequences/min",
    "timing_s/agent_loop/generate_sequences/max",
    "timing_s/agent_loop/generate_sequences/mean",
    "timing_s/agent_loop/tool_calls/min",
    "timing_s/agent_loop/tool_calls/max",
    "timing_s/agent_loop/tool_calls/mean",
    "timing_s/agent_loop/compute_score/min",
    "timing_s/agent_loop/compute_score/max",
    "timing_s/agent_loop/compute_score/mean",
    "timing_s/agent_loop/num_preempted/min",
    "timing_s/agent_loop/num_preempted/max",
    "timing_s/agent_loop/num_preempted/mean",
    "timing_s/agent_loop/slowest/generate_sequences",
    "timing_s/agent_loop/slowest/tool_calls",
    "timing_s/agent_loop/slowest/compute_score",
    "timing_s/agent_loop/slowest/num_preempted",
    "timing_s/agent_loop/slowest/prompt_length",
    "timing_s/agent_loop/slowest/response_length",
    "timing_per_token_ms/gen",
    "timing_per_token_ms/ref",
    "timing_per_token_ms/values",
    "timing_per_token_ms/adv",
    "timing_per_token_ms/update_critic",
    "timing_per_token_ms/update_actor",
    "rollout_corr/kl",
    "rollout_corr/k3_kl",
    "rollout_corr/training_ppl",
    "rollout_corr/rollout_ppl",
    "rollout_corr/training_log_ppl",
    "rollout_corr/rollout_log_ppl",
    "rollout_corr/log_ppl_diff",
    "rollout_corr/log_ppl_abs_diff",
    "rollout_corr/log_ppl_diff_max",
    "rollout_corr/log_ppl_diff_min",
    "rollout_corr/ppl_ratio",
    "rollout_corr/chi2_token",
    "rollout_corr/chi2_seq",
    "rollout_corr/rollout_is_mean",
    "rollout_corr/rollout_is_max",
    "rollout_corr/rollout_is_min",
    "rollout_corr/rollout_is_std",
    "rollout_corr/rollout_is_eff_sample_size",
    "rollout_corr/rollout_is_ratio_fraction_high",
    "rollout_corr/rollout_is_ratio_fraction_low",
    "rollout_corr/rollout_is_seq_mean",
    "rollout_corr/rollout_is_seq_std",
    "rollout_corr/rollout_is_seq_max",
    "rollout_corr/rollout_is_seq_min",
    "rollout_corr/rollout_is_seq_max_deviation",
    "rollout_corr/rollout_is_seq_fraction_high",
    "rollout_corr/rollout_is_seq_fraction_low",
    "rollout_corr/rollout_is_oob_ratio",
    "rollout_corr/rollout_is_batch_norm_factor",
    "rollout_corr/rollout_rs_token_k1_mean",
    "rollout_corr/rollout_rs_token_k1_max",
    "rollout_corr/rollout_rs_token_k1_min",
    "rollout_corr/rollout_rs_token_k1_std",
    "rollout_corr/rollout_rs_token_k1_fraction_high",
    "rollout_corr/rollout_rs_token_k1_fraction_low",
    "rollout_corr/rollout_rs_token_k1_seq_mean",
    "rollout_corr/rollout_rs_token_k1_seq_std",
    "rollout_corr/rollout_rs_token_k1_seq_max",
    "rollout_corr/rollout_rs_token_k1_seq_min",
    "rollout_corr/rollout_rs_token_k1_seq_max_deviation",
    "rollout_corr/rollout_rs_token_k1_seq_fraction_high",
    "rollout_corr/rollout_rs_token_k1_seq_fraction_low",
    "rollout_corr/rollout_rs_token_k1_masked_fraction",
    "rollout_corr/rollout_rs_token_k1_seq_masked_fraction",
    "rollout_corr/rollout_rs_masked_fraction",
    "rollout_corr/rollout_rs_seq_masked_fraction",
    "training/rollout_probs_diff_valid",
    "training/rollout_probs_diff_max",
    "training/rollout_probs_diff_mean",
    "training/rollout_probs_diff_std",
    "training/rollout_actor_probs_pearson_corr",
    "val-core/gsm8k/reward/mean@8",
    "val-core/gsm8k/acc/best@8/mean",
    "val-core/gsm8k/acc/best@8/std",
    "val-core/gsm8k/acc/maj@8/mean",
    "val-core/gsm8k/acc/maj@8/std",
    "val-aux/gsm8k/reward/std@8",
    "val-aux/gsm8k/reward/best@2/mean",
    "val-aux/gsm8k/reward/worst@2/std",
    "val-aux/num_turns/min",
    "val-aux/num_turns/max",
    "val-aux/num_turns/mean",
    "variance_proxy/proxy1_signal_strength",
    "variance_proxy/proxy2_total_power",
    "variance_proxy/proxy3_pure_noise",
    "variance_proxy/expected_a_squared",
    "variance_proxy/expected_w",
    "training/off_policy/trajectory_spans/mean",
    "training/off_policy/trajectory_spans/max",
    "training/off_policy/trajectory_spans/min",
    "training/off_policy/trajectory_staleness/mean",
    "training/off_policy/trajectory_staleness/max",
    "training/off_policy/trajectory_staleness/min",
    "training/off_policy/trajectory_staleness_worst/mean",
    "training/off_policy/trajectory_staleness_worst/max",
    "training/off_policy/trajectory_staleness_worst/min",
    "training/off_policy/evicted_samples",
    "training/off_policy/evicted_samples_staleness/mean",
    "training/off_policy/evicted_samples_staleness/max",
    "training/off_policy/evicted_samples_staleness/min",
    "training/filter_groups/evicted_samples",
    "training/filter_groups/discarded_surplus_samples",
    "training/rollout_failure/evicted_samples",
    "validation/off_policy/evicted_samples",
    "validation/filter_groups/evicted_samples",
    "validation/rollout_failure/evicted_samples",
    "rollout/spec_accept_rate",
    "rollout/spec_accept_length",
]


def _registry() -> Registry:
    return metrics_registry.load()


def test_at_least_90_percent_of_the_notes_keys_are_documented() -> None:
    registry = _registry()
    missing = [key for key in NOTE_KEYS if not registry.find(key, family="verl")]
    assert len(NOTE_KEYS) > 200
    assert 1 - len(missing) / len(NOTE_KEYS) >= 0.9, missing
    # the per-option rejection statistics and the v0-only variance proxies are the known gaps
    assert all(key.startswith(("rollout_corr/rollout_rs_token_k1_", "variance_proxy/")) for key in missing), (
        missing
    )


def test_known_issues_link_verl_tracker_pages() -> None:
    for entry in _registry().in_family("verl"):
        for issue in entry.metric.known_issues:
            assert issue.url.startswith("https://github.com/verl-project/verl/"), (entry.id, issue.url)


def test_every_entry_cites_a_commit_and_computable_ones_a_verl_reference() -> None:
    for entry in _registry().in_family("verl"):
        assert entry.metric.source and "@1dda039" in entry.metric.source, entry.id
        assert entry.metric.computable is not None, entry.id
        if entry.metric.computable:
            assert entry.metric.reference.startswith("metrics_registry.reference.verl."), entry.id


def test_the_traps_are_said_in_the_titles() -> None:
    registry = _registry()

    def title(key: str) -> str:
        return registry.lookup(key, family="verl").entry.metric.title

    assert "not a low-side" in title("actor/pg_clipfrac_lower")
    assert "old policy" in title("actor/entropy")
    assert "(k1)" in title("actor/ppo_kl")
    assert registry.lookup("actor/ppo_kl", family="verl").entry.metric.concept == "policy-drift-kl"
    assert (
        registry.lookup("actor/pg_clipfrac_lower", family="verl").entry.metric.concept == "clip-fraction-dual"
    )

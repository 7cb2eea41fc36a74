"""How TRL's reference functions are called on the concept pages' example batch.

Each adapter (see :mod:`metrics_registry.reference.concept_example`) calls a
function the way TRL computes the key, with TRL's default configuration:

* GRPO: generation-time keys (rewards, lengths, `sampling/*`) once over the
  whole generation batch; loss-time keys (`kl`, `entropy`, `clip_ratio/*`,
  losses) once per micro-batch, each micro-batch an optimizer step, and
  the logged number the mean over the logging window;
* PPO (PPOv2) and the v0.7 trainer: training statistics over the grid of
  micro-batches (the functions take it whole); rollout statistics (`objective/*`)
  once over the rollout batch, with the log-probabilities of the policy that
  sampled it.

They are attached here rather than with a decorator next to each function
because the TRL modules are being moved into packages (issue 15); a new
framework declares its adapters next to its functions instead.
"""

from __future__ import annotations

from metrics_registry.reference import entropy, grpo, kl, lengths, ppo
from metrics_registry.reference import legacy_ppo as legacy
from metrics_registry.reference.concept_example import Tensors, attach, each_micro_batch, once

__all__: list[str] = []


def _policy(t: Tensors) -> dict[str, object]:
    return {"logprobs": t.logprobs, "old_logprobs": t.old_logprobs, "mask": t.mask}


def _clipped(t: Tensors) -> dict[str, object]:
    return {**_policy(t), "advantages": t.advantages}


def _token_clipped(t: Tensors) -> dict[str, object]:
    return {**_policy(t), "advantages": t.token_advantages}


def _rollout_kl(t: Tensors) -> dict[str, object]:
    return {"logprobs": t.old_logprobs, "ref_logprobs": t.ref_logprobs, "mask": t.mask}


def _critic(t: Tensors) -> dict[str, object]:
    return {"vpreds": t.values, "returns": t.returns, "mask": t.mask}


# ---------------------------------------------------------------------- GRPO
attach(grpo.reward_mean, once(lambda b: {"rewards_per_func": b.flat.rewards_per_func}))
attach(grpo.reward_std, once(lambda b: {"rewards_per_func": b.flat.rewards_per_func}))
attach(grpo.reward_func_mean, once(lambda b: {"rewards": b.flat.rewards_per_func[:, 0]}))
attach(grpo.reward_func_std, once(lambda b: {"rewards": b.flat.rewards_per_func[:, 0]}))
attach(
    grpo.frac_reward_zero_std,
    once(lambda b: {"rewards_per_func": b.flat.rewards_per_func, "num_generations": b.flat.num_generations}),
)
attach(
    grpo.sampling_stats,
    once(
        lambda b: {
            "old_logprobs": b.flat.old_logprobs,
            "sampling_logprobs": b.flat.sampling_logprobs,
            "mask": b.flat.mask,
        }
    ),
)
# use_bias_correction_kl is on by default since TRL 1.10.0
attach(
    grpo.kl_mean,
    each_micro_batch(
        lambda t: {
            "logprobs": t.logprobs,
            "ref_logprobs": t.ref_logprobs,
            "mask": t.mask,
            "old_logprobs": t.old_logprobs,
            "use_bias_correction_kl": True,
        }
    ),
)
attach(grpo.entropy_mean, each_micro_batch(lambda t: {"logits": t.logits, "mask": t.mask}))
attach(grpo.clip_ratios, each_micro_batch(_clipped))
attach(grpo.clip_ratio_0_16, each_micro_batch(_clipped))
attach(grpo.policy_loss, each_micro_batch(_clipped))

# ------------------------------------------------------------------- lengths
attach(
    lengths.completion_length_stats,
    once(lambda b: {"completion_lengths": b.flat.completion_lengths, "is_truncated": b.flat.is_truncated}),
)
attach(lengths.mean_completion_length, once(lambda b: {"completion_mask": b.flat.mask}))

# ----------------------------------------------------------------- PPO (v2)
attach(ppo.approxkl_avg, once(lambda b: _policy(b.grid)))
attach(ppo.ratio_avg, once(lambda b: _policy(b.grid)))
attach(ppo.ratio_var, once(lambda b: _policy(b.grid)))
attach(ppo.policy_clipfrac_avg, once(lambda b: _token_clipped(b.grid)))
attach(ppo.policy_loss_avg, once(lambda b: _token_clipped(b.grid)))
attach(ppo.entropy_avg, once(lambda b: {"logits": b.grid.logits}))
attach(ppo.value_clipfrac_avg, once(lambda b: {**_critic(b.grid), "old_values": b.grid.old_values}))
attach(ppo.value_loss_avg, once(lambda b: {**_critic(b.grid), "old_values": b.grid.old_values}))
attach(ppo.non_score_reward_mean, once(lambda b: _rollout_kl(b.flat)))
attach(ppo.rlhf_reward_mean, once(lambda b: {**_rollout_kl(b.flat), "scores": b.flat.scores}))
attach(ppo.scores_mean, once(lambda b: {"scores": b.flat.scores}))
attach(kl.sequence_kl_mean, once(lambda b: _rollout_kl(b.flat)))
attach(
    entropy.sampled_sequence_entropy, once(lambda b: {"logprobs": b.flat.old_logprobs, "mask": b.flat.mask})
)

# ------------------------------------------------------------ v0.7 PPOTrainer
attach(legacy.policy_clipfrac, once(lambda b: _token_clipped(b.grid)))
attach(legacy.loss_policy, once(lambda b: _token_clipped(b.grid)))
attach(legacy.policy_approxkl, once(lambda b: _policy(b.grid)))
attach(legacy.policy_policykl, once(lambda b: _policy(b.grid)))
attach(legacy.policy_entropy, once(lambda b: {"logits": b.grid.logits, "mask": b.grid.mask}))
attach(legacy.loss_value, once(lambda b: {**_critic(b.grid), "values": b.grid.old_values}))
attach(
    legacy.loss_total,
    once(lambda b: {**_token_clipped(b.grid), **_critic(b.grid), "values": b.grid.old_values}),
)
attach(legacy.val_clipfrac, once(lambda b: {**_critic(b.grid), "values": b.grid.old_values}))
attach(legacy.val_error, once(lambda b: _critic(b.grid)))
attach(legacy.val_var_explained, once(lambda b: _critic(b.grid)))
attach(legacy.val_vpred, once(lambda b: {"vpreds": b.grid.values, "mask": b.grid.mask}))
attach(legacy.val_mean, once(lambda b: {"values": b.grid.old_values, "mask": b.grid.mask}))
attach(legacy.val_var, once(lambda b: {"values": b.grid.old_values, "mask": b.grid.mask}))
attach(legacy.returns_mean, once(lambda b: {"returns": b.grid.returns, "mask": b.grid.mask}))
attach(legacy.returns_var, once(lambda b: {"returns": b.grid.returns, "mask": b.grid.mask}))
attach(legacy.advantages_mean, once(lambda b: {"advantages": b.grid.token_advantages, "mask": b.grid.mask}))
attach(legacy.objective_kl, once(lambda b: _rollout_kl(b.flat)))
attach(legacy.mean_non_score_reward, once(lambda b: _rollout_kl(b.flat)))
attach(legacy.mean_scores, once(lambda b: {"scores": b.flat.scores}))
attach(legacy.std_scores, once(lambda b: {"scores": b.flat.scores}))
attach(legacy.reward_mean, once(lambda b: {"rewards": b.flat.scores}))
attach(legacy.reward_std, once(lambda b: {"rewards": b.flat.scores}))
for _function in (legacy.lengths_mean, legacy.lengths_std):
    attach(_function, once(lambda b: {"lengths": b.flat.completion_lengths}), "response-length")
    attach(_function, once(lambda b: {"lengths": b.flat.prompt_lengths}), "prompt-length")

"""Reference implementations of the metrics OpenRLHF's Ray PPO trainer logs (v0.11.0, `3c3be623`).

| module | keys |
| --- | --- |
| `cells` | the actor's and the critic's reductions over micro-batches and ranks |
| `actor` | `policy_loss`, `ppo_clip_ratio`, `ppo_kl`, `vllm_kl`, `entropy_loss` |
| `kl` | `kl`, `logprobs_diff` (KL in the reward or in the loss) |
| `samples` | `reward`, `return`, `group_reward_std`, lengths, truncation, `rollout/*` |
| `critic` | `critic_loss`, `values` |
| `evaluation` | `eval_<datasource>_pass<n>`, `eval_<datasource>_pass1` |
"""

from __future__ import annotations

from metrics_registry.reference.openrlhf.actor import (
    clip_ratio,
    entropy_loss,
    policy_loss,
    policy_loss_per_token,
    ppo_kl,
    vllm_kl,
)
from metrics_registry.reference.openrlhf.critic import critic_loss, critic_values
from metrics_registry.reference.openrlhf.evaluation import eval_pass_rates
from metrics_registry.reference.openrlhf.kl import (
    approx_kl,
    logprobs_diff_in_loss,
    logprobs_diff_in_reward,
    reference_kl_in_loss,
    reference_kl_in_reward,
)
from metrics_registry.reference.openrlhf.samples import (
    group_reward_std,
    response_clip_ratio,
    response_length_span,
    rollout_stats,
    sample_mean,
    shaped_return,
)

__all__ = [
    "approx_kl",
    "clip_ratio",
    "critic_loss",
    "critic_values",
    "entropy_loss",
    "eval_pass_rates",
    "group_reward_std",
    "logprobs_diff_in_loss",
    "logprobs_diff_in_reward",
    "policy_loss",
    "policy_loss_per_token",
    "ppo_kl",
    "reference_kl_in_loss",
    "reference_kl_in_reward",
    "response_clip_ratio",
    "response_length_span",
    "rollout_stats",
    "sample_mean",
    "shaped_return",
    "vllm_kl",
]

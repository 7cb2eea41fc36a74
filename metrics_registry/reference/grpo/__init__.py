r"""TRL `GRPOTrainer` (0.14 to 1.16): rewards, group advantages, KL, entropy, clipping, losses, sampling.

Generation-time metrics (rewards, advantages, `frac_reward_zero_std`,
`sampling/*`, `tools/*`) are computed once per generation batch on the
rewards gathered from every process. Loss-time metrics (`kl`, `entropy`,
`clip_ratio/*`, `policy_loss`) are computed per micro-batch; since 1.9.0
token means are *global*: masked sums and token counts are added over
processes before dividing
([`global_masked_mean()`][metrics_registry.reference.grpo.common.global_masked_mean]). With one process,
as
here, that is a plain masked mean, except that an empty mask gives 0, not NaN.

Rewards: `rewards_per_func` is `(N, F)` (completions × reward
functions) with NaN where a function returned `None`. Completions are
ordered group by group: rows `g·n … g·n + n − 1` are the `n =
num_generations` completions of prompt `g`.

Advantages are one value per completion, shape `(N,)`; per-token tensors are
`(B, T)` with the loss `mask` (completion mask times tool mask).

Modules: `common`, `rewards`, `loss`, `clipping`, `generation`. The names below are re-exported here,
so `from metrics_registry.reference.grpo import X` works whatever module holds `X`;
the registry's `reference:` fields name the defining module.
"""

from __future__ import annotations

from metrics_registry.reference.grpo.clipping import (
    cispo_clip_ratio,
    clip_ratio_0_16,
    clip_ratios,
    vespo_phi_seq_mean,
)
from metrics_registry.reference.grpo.common import global_masked_mean, importance_weights, nanstd
from metrics_registry.reference.grpo.generation import sampling_stats, tool_call_stats
from metrics_registry.reference.grpo.loss import (
    adaptive_entropy_coef,
    entropy_mean,
    grad_norm,
    kl_mean,
    policy_loss,
)
from metrics_registry.reference.grpo.rewards import (
    frac_reward_zero_std,
    group_advantages,
    reward_func_mean,
    reward_func_std,
    reward_mean,
    reward_std,
    reward_std_before_0_27,
    total_rewards,
)

__all__ = [
    "adaptive_entropy_coef",
    "cispo_clip_ratio",
    "clip_ratio_0_16",
    "clip_ratios",
    "entropy_mean",
    "frac_reward_zero_std",
    "global_masked_mean",
    "grad_norm",
    "group_advantages",
    "importance_weights",
    "kl_mean",
    "nanstd",
    "policy_loss",
    "reward_func_mean",
    "reward_func_std",
    "reward_mean",
    "reward_std",
    "reward_std_before_0_27",
    "sampling_stats",
    "tool_call_stats",
    "total_rewards",
    "vespo_phi_seq_mean",
]

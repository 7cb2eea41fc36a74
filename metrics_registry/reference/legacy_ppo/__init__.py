r"""TRL's original `PPOTrainer` (v0.2 to 0.11, documented for v0.7).

The `ppo/*`, `objective/*`, `env/*` and `tokens/*` keys.

Checked against trl 0.7.10 (`trl/trainer/ppo_trainer.py`: `step`,
`compute_rewards`, `_kl_penalty`, `compute_advantages`, `loss`,
`record_step_stats`, `log_stats`; `trl/core.py`).

**Training statistics** (`ppo/policy/*`, `ppo/val/*`, `ppo/returns/*`,
`ppo/loss/*`) are computed by `loss()` for every minibatch, with masked
means over the response tokens, then averaged over all minibatches of all
PPO epochs (`stack_dicts` + `mean`). The functions here take tensors of
shape `(M, B, T)` (`M` minibatches of `B` sequences, or `(B, T)` for
one) and return that average. Unlike PPOv2, every mean is masked.

**Rollout statistics** (`objective/*`, `ppo/mean_*`) take `(B, T)`
tensors of the whole batch. `mask` is v0.7's response mask: true on the
positions whose log-probability belongs to a response token (prompt and
padding false).

With several processes v0.7 all-reduces every statistic and divides by the
number of processes (`gather_stats`); histograms become element-wise
averages over ranks. The functions here describe one process.

Modules: `common`, `rollout`, `training`. The names below are re-exported here,
so `from metrics_registry.reference.legacy_ppo import X` works whatever module holds `X`;
the registry's `reference:` fields name the defining module.
"""

from __future__ import annotations

from metrics_registry.reference.legacy_ppo.common import WANDB_PADDING
from metrics_registry.reference.legacy_ppo.rollout import (
    adaptive_kl_coefs,
    adaptive_kl_update,
    compute_advantages,
    compute_rewards,
    kl_dist,
    kl_penalty,
    length_histogram,
    lengths_mean,
    lengths_std,
    logprobs_histogram,
    mean_non_score_reward,
    mean_scores,
    objective_kl,
    reward_dist,
    reward_mean,
    reward_std,
    std_scores,
)
from metrics_registry.reference.legacy_ppo.training import (
    advantages_histogram,
    advantages_mean,
    explained_variance,
    loss_policy,
    loss_total,
    loss_value,
    policy_approxkl,
    policy_clipfrac,
    policy_entropy,
    policy_policykl,
    ratio_histogram,
    returns_mean,
    returns_var,
    val_clipfrac,
    val_error,
    val_mean,
    val_var,
    val_var_explained,
    val_vpred,
)

__all__ = [
    "WANDB_PADDING",
    "adaptive_kl_coefs",
    "adaptive_kl_update",
    "advantages_histogram",
    "advantages_mean",
    "compute_advantages",
    "compute_rewards",
    "explained_variance",
    "kl_dist",
    "kl_penalty",
    "length_histogram",
    "lengths_mean",
    "lengths_std",
    "logprobs_histogram",
    "loss_policy",
    "loss_total",
    "loss_value",
    "mean_non_score_reward",
    "mean_scores",
    "objective_kl",
    "policy_approxkl",
    "policy_clipfrac",
    "policy_entropy",
    "policy_policykl",
    "ratio_histogram",
    "returns_mean",
    "returns_var",
    "reward_dist",
    "reward_mean",
    "reward_std",
    "std_scores",
    "val_clipfrac",
    "val_error",
    "val_mean",
    "val_var",
    "val_var_explained",
    "val_vpred",
]

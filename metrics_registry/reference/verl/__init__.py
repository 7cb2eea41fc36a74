"""Reference implementations of the metrics verl (`verl-project/verl`) logs, read at commit `1dda039`.

| module | what it holds |
| --- | --- |
| `aggregation` | `agg_loss`, the data-parallel and micro-batch aggregation, the per-step reduction |
| `actor` | `actor/*`: policy loss, clip fractions, `ppo_kl`, entropies, KL loss |
| `reward_kl` | `actor/reward_kl_penalty*`: the in-reward KL and its coefficient |
| `legacy` | the legacy `dp_actor` loss accumulator (bugs #4711, #5766) |
| `critic` | `critic/*`: value loss terms, score/reward/advantage/return/value statistics |
| `data` | lengths, `global_seqlen/*`, per-token timings, throughput |
| `rollout_corr` | `rollout_corr/*` off-policy diagnostics |
| `rollout_moe` | `rollout/moe/*`: load balance of the rollout engine's MoE router |
| `variance_proxy` | `variance_proxy/*`: policy-gradient noise proxies |
| `validation` | `val-core/*` and `val-aux/*` statistics |

Registry entries name the function in its module (e.g.
`metrics_registry.reference.verl.actor.policy_metrics`) so that `validate`
can check the worked examples' arguments; this package re-exports them all.
"""

from metrics_registry.reference.verl.actor import (
    grad_norm_mean,
    kl_loss,
    kl_penalty,
    old_policy_entropy,
    policy_metrics,
    total_loss,
    update_entropy,
    verl_masked_mean,
)
from metrics_registry.reference.verl.aggregation import (
    agg_loss,
    aggregate_dp,
    micro_batch_partials,
    micro_batch_rows,
    reduce_metrics,
)
from metrics_registry.reference.verl.critic import data_metrics, value_metrics
from metrics_registry.reference.verl.data import (
    global_seqlen_metrics,
    length_metrics,
    throughput_metrics,
    timing_per_token_ms,
)
from metrics_registry.reference.verl.legacy import legacy_dp_actor_pg_loss
from metrics_registry.reference.verl.reward_kl import reward_kl_penalty, reward_kl_penalty_coefs
from metrics_registry.reference.verl.rollout_corr import (
    importance_weight_metrics,
    offpolicy_metrics,
    rejection_masked_fractions,
    rollout_probs_diff_metrics,
)
from metrics_registry.reference.verl.rollout_moe import load_counts, moe_load_balance_metrics
from metrics_registry.reference.verl.validation import validation_metrics
from metrics_registry.reference.verl.variance_proxy import variance_proxy_metrics

__all__ = [
    "agg_loss",
    "aggregate_dp",
    "data_metrics",
    "global_seqlen_metrics",
    "grad_norm_mean",
    "importance_weight_metrics",
    "kl_loss",
    "kl_penalty",
    "legacy_dp_actor_pg_loss",
    "length_metrics",
    "load_counts",
    "micro_batch_partials",
    "micro_batch_rows",
    "moe_load_balance_metrics",
    "offpolicy_metrics",
    "old_policy_entropy",
    "policy_metrics",
    "reduce_metrics",
    "rejection_masked_fractions",
    "reward_kl_penalty",
    "reward_kl_penalty_coefs",
    "rollout_probs_diff_metrics",
    "throughput_metrics",
    "timing_per_token_ms",
    "total_loss",
    "update_entropy",
    "validation_metrics",
    "value_metrics",
    "variance_proxy_metrics",
    "verl_masked_mean",
]

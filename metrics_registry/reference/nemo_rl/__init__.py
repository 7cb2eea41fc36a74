"""NVIDIA NeMo-RL (`NVIDIA-NeMo/RL` at 7ea279ab): GRPO/PPO/DAPO metrics with NeMo-RL's reduction.

| module | what it holds |
| --- | --- |
| `batches` | the reduction pipeline: global normalization, division by the number of global batches, sum |
| `loss` | `ClippedPGLossFn` keys: `loss`, `kl_penalty`, `probs_ratio*`, `approx_entropy`, ... |
| `mismatch` | inference-engine vs training-framework keys: `token_mult_prob_error`, `gen_kl_error`, ... |
| `samples` | per-sample keys: `num_valid_samples`, `positive_nll_loss` |
| `critic` | PPO value-model keys: `critic/loss`, `critic/explained_var`, ... |
| `rollout` | driver keys: baselines, advantages, lengths, validation, gradient norm |
| `gym` | NeMo-Gym keys: effort-level reward shaping |
"""

from metrics_registry.reference.nemo_rl.batches import (
    as_global_batches,
    driver_extremum,
    loss_masks,
    sequence_normalized,
    token_normalized,
)
from metrics_registry.reference.nemo_rl.critic import critic_stats
from metrics_registry.reference.nemo_rl.gym import effort_shaping
from metrics_registry.reference.nemo_rl.loss import (
    approx_entropy,
    calculate_kl,
    kl_penalty,
    loss,
    probs_ratio_stats,
)
from metrics_registry.reference.nemo_rl.mismatch import (
    mismatch_stats,
    sampling_importance_ratio,
    seq_mult_prob_error_stats,
)
from metrics_registry.reference.nemo_rl.rollout import (
    advantage_stats,
    advantages_histogram,
    async_reward_stats,
    baseline_and_std,
    baseline_histogram,
    baseline_reward_pcts,
    batch_token_stats,
    dapo_reward,
    grad_norm,
    gym_stats,
    rollout_length_stats,
    validation_stats,
)
from metrics_registry.reference.nemo_rl.samples import (
    global_valid_counts,
    num_valid_samples,
    positive_nll_loss,
)

__all__ = [
    "advantage_stats",
    "advantages_histogram",
    "approx_entropy",
    "as_global_batches",
    "async_reward_stats",
    "baseline_and_std",
    "baseline_histogram",
    "baseline_reward_pcts",
    "batch_token_stats",
    "calculate_kl",
    "critic_stats",
    "dapo_reward",
    "driver_extremum",
    "effort_shaping",
    "global_valid_counts",
    "grad_norm",
    "gym_stats",
    "kl_penalty",
    "loss",
    "loss_masks",
    "mismatch_stats",
    "num_valid_samples",
    "positive_nll_loss",
    "probs_ratio_stats",
    "rollout_length_stats",
    "sampling_importance_ratio",
    "seq_mult_prob_error_stats",
    "sequence_normalized",
    "token_normalized",
    "validation_stats",
]

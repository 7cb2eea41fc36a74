r"""TRL `PPOTrainer` (the PPOv2 rewrite, 0.9.2 to 1.12.x): the logged numbers.

Two kinds of metric:

* **rollout metrics** (`objective/*`), computed once per rollout batch from
  `(B, T)` tensors of the sampled completions;
* **optimisation statistics** (`policy/*`, `loss/*`, `val/*`), computed
  for every micro-batch of every PPO epoch and minibatch, written into a grid
  `num_ppo_epochs × num_mini_batches × gradient_accumulation_steps` and
  averaged over that grid (and over processes) at the end of the batch.

The `*_avg` functions take tensors of shape `(..., B, T)`: the leading
dimensions index the micro-batches of the grid (micro-batches have equal
size in TRL), `B` and `T` are one micro-batch. Without leading dimensions
the input is one micro-batch. `unwritten_cells` adds the grid cells that
TRL ≥ 0.17 leaves at 0 (see
[`unwritten_grid_cells()`][metrics_registry.reference.ppo.common.unwritten_grid_cells]).

Quirks reproduced, each with the clean definition next to it:

* `policy/approxkl_avg`, `val/ratio` and `policy/entropy_avg` take a
  plain mean over all response positions, padding included
  ([`approxkl_k2_unmasked()`][metrics_registry.reference.ppo.micro_batch.approxkl_k2_unmasked],
  [`ratio_mean_unmasked()`][metrics_registry.reference.ppo.micro_batch.ratio_mean_unmasked],
  [`entropy_mean_unmasked()`][metrics_registry.reference.ppo.micro_batch.entropy_mean_unmasked]; clean:
  the `*_masked` functions);
* the clip fraction is sign-gated
  ([`policy_clipfrac_sign_gated()`][metrics_registry.reference.ppo.micro_batch.policy_clipfrac_sign_gated];
  CleanRL/SB3's symmetric count:
  [`policy_clipfrac_symmetric()`][metrics_registry.reference.ppo.micro_batch.policy_clipfrac_symmetric]);
* the value loss and value clip fraction use the completion mask extended by
  one position ([`mask_plus_one()`][metrics_registry.reference.ppo.micro_batch.mask_plus_one]);
* the score lands one position after the last real token
  ([`rollout_rewards()`][metrics_registry.reference.ppo.rollout.rollout_rewards]);
* zero cells of the statistics grid from 0.17.0
  ([`unwritten_grid_cells()`][metrics_registry.reference.ppo.common.unwritten_grid_cells]).

Modules: `common`, `micro_batch`, `logged`, `rollout`. The names below are re-exported here,
so `from metrics_registry.reference.ppo import X` works whatever module holds `X`;
the registry's `reference:` fields name the defining module.
"""

from __future__ import annotations

from metrics_registry.reference.ppo.common import INVALID_LOGPROB, grid_mean, grid_var, unwritten_grid_cells
from metrics_registry.reference.ppo.logged import (
    approxkl_avg,
    entropy_avg,
    non_score_reward_mean,
    policy_clipfrac_avg,
    policy_loss_avg,
    ratio_avg,
    ratio_var,
    rlhf_reward_mean,
    scores_mean,
    value_clipfrac_avg,
    value_loss_avg,
)
from metrics_registry.reference.ppo.micro_batch import (
    approxkl_k2_masked,
    approxkl_k2_unmasked,
    approxkl_k3_masked,
    clipped_policy_loss,
    clipped_value_loss,
    entropy_mean_masked,
    entropy_mean_unmasked,
    mask_plus_one,
    policy_clipfrac_sign_gated,
    policy_clipfrac_symmetric,
    ratio_mean_masked,
    ratio_mean_unmasked,
    value_clipfrac,
)
from metrics_registry.reference.ppo.rollout import rollout_advantages_and_returns, rollout_rewards

__all__ = [
    "INVALID_LOGPROB",
    "approxkl_avg",
    "approxkl_k2_masked",
    "approxkl_k2_unmasked",
    "approxkl_k3_masked",
    "clipped_policy_loss",
    "clipped_value_loss",
    "entropy_avg",
    "entropy_mean_masked",
    "entropy_mean_unmasked",
    "grid_mean",
    "grid_var",
    "mask_plus_one",
    "non_score_reward_mean",
    "policy_clipfrac_avg",
    "policy_clipfrac_sign_gated",
    "policy_clipfrac_symmetric",
    "policy_loss_avg",
    "ratio_avg",
    "ratio_mean_masked",
    "ratio_mean_unmasked",
    "ratio_var",
    "rlhf_reward_mean",
    "rollout_advantages_and_returns",
    "rollout_rewards",
    "scores_mean",
    "unwritten_grid_cells",
    "value_clipfrac",
    "value_clipfrac_avg",
    "value_loss_avg",
]

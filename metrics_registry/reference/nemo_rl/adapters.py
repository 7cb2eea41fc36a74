"""How NeMo-RL's reference functions are called on the concept pages' example batch.

Each adapter (see :mod:`metrics_registry.reference.concept_example`) calls a
function the way NeMo-RL computes the key, with its default configuration
(`loss_fn` defaults of `ClippedPGLossConfig` at 7ea279ab: k3 reference KL with
β = 0.01, ratio clip 0.2 on both sides, token-level loss; no value clip):

* loss-function keys: the example's micro-batches are the micro-batches of one
  global batch, normalized by the valid tokens of both together (`batch.grid`);
* driver keys (rewards, advantages, lengths): once over the whole batch
  (`batch.flat`), each micro-batch being one prompt's group.

The prev log-probabilities are the example's recomputed ones (`old_logprobs`),
the engine's are `sampling_logprobs`. They are attached here, in one module,
rather than as decorators, to keep the reference modules readable.
"""

from __future__ import annotations

from importlib import import_module

import torch

from metrics_registry.reference.concept_example import ExampleBatch, attach, once

# The package re-exports the function `loss`, which hides the module of that name: import by path.
critic = import_module("metrics_registry.reference.nemo_rl.critic")
loss = import_module("metrics_registry.reference.nemo_rl.loss")
mismatch = import_module("metrics_registry.reference.nemo_rl.mismatch")
rollout = import_module("metrics_registry.reference.nemo_rl.rollout")
samples = import_module("metrics_registry.reference.nemo_rl.samples")

__all__: list[str] = []


def _tokens(b: ExampleBatch) -> dict[str, object]:
    return {"token_mask": b.grid.mask}


def _group_ids(b: ExampleBatch) -> torch.Tensor:
    groups, size = b.grid.scores.shape
    return torch.arange(groups).repeat_interleave(size)


attach(
    loss.loss,
    once(
        lambda b: {
            "curr_logprobs": b.grid.logprobs,
            "prev_logprobs": b.grid.old_logprobs,
            "advantages": b.grid.token_advantages,
            "reference_logprobs": b.grid.ref_logprobs,
            "reference_policy_kl_penalty": 0.01,
            **_tokens(b),
        }
    ),
)
attach(
    loss.kl_penalty,
    once(
        lambda b: {"curr_logprobs": b.grid.logprobs, "reference_logprobs": b.grid.ref_logprobs, **_tokens(b)}
    ),
)
attach(
    loss.probs_ratio_stats,
    once(lambda b: {"curr_logprobs": b.grid.logprobs, "prev_logprobs": b.grid.old_logprobs, **_tokens(b)}),
)
attach(
    loss.approx_entropy,
    once(
        lambda b: {
            "curr_logprobs": b.grid.logprobs,
            "generation_logprobs": b.grid.sampling_logprobs,
            **_tokens(b),
        }
    ),
)
_MISMATCH = once(
    lambda b: {
        "generation_logprobs": b.grid.sampling_logprobs,
        "prev_logprobs": b.grid.old_logprobs,
        **_tokens(b),
    }
)
attach(mismatch.mismatch_stats, _MISMATCH)
# `is_oob_ratio` exists only with truncated importance sampling: `tis` at 2.0, which no weight
# of the example batch reaches, so `sampling_importance_ratio` is the untruncated default value.
attach(
    mismatch.sampling_importance_ratio,
    once(
        lambda b: {
            "generation_logprobs": b.grid.sampling_logprobs,
            "prev_logprobs": b.grid.old_logprobs,
            "truncated_importance_sampling_type": "tis",
            "truncated_importance_sampling_ratio": 2.0,
            **_tokens(b),
        }
    ),
)
attach(
    mismatch.seq_mult_prob_error_stats,
    once(
        lambda b: {
            "generation_logprobs": b.flat.sampling_logprobs,
            "prev_logprobs": b.flat.old_logprobs,
            "token_mask": b.flat.mask,
        }
    ),
)
attach(samples.num_valid_samples, once(lambda b: {"sample_mask": torch.ones(b.grid.scores.shape)}))
attach(samples.global_valid_counts, once(_tokens))
attach(
    critic.critic_stats,
    once(lambda b: {"values": b.grid.values, "returns": b.grid.returns, **_tokens(b)}),
)
attach(
    rollout.advantage_stats, once(lambda b: {"advantages": b.flat.advantages, "token_loss_mask": b.flat.mask})
)
attach(rollout.baseline_reward_pcts, once(lambda b: {"prompt_ids": _group_ids(b), "rewards": b.flat.scores}))
attach(
    rollout.dapo_reward,
    once(lambda b: {"unfiltered_rewards": [b.flat.scores], "train_batch_size": b.flat.scores.numel()}),
)
attach(rollout.async_reward_stats, once(lambda b: {"group_rewards": b.grid.scores}))
attach(rollout.gym_stats, once(lambda b: {"values": b.flat.scores}), concept="raw-reward")
attach(rollout.gym_stats, once(lambda b: {"values": b.flat.completion_lengths}), concept="response-length")
attach(
    rollout.batch_token_stats,
    once(
        lambda b: {
            "prompt_lengths": b.flat.prompt_lengths,
            "total_lengths": b.flat.prompt_lengths + b.flat.completion_lengths,
        }
    ),
)
attach(
    rollout.rollout_length_stats,
    once(
        lambda b: {
            "gen_tokens": b.flat.completion_lengths,
            "env_tokens": torch.zeros_like(b.flat.completion_lengths),
            "turns": torch.ones_like(b.flat.completion_lengths),
            # a single-turn environment ends every sample; truncation is the engine's flag
            "terminated": torch.ones_like(b.flat.is_truncated),
            "truncated": b.flat.is_truncated,
            "max_turns_reached": torch.zeros_like(b.flat.is_truncated),
        }
    ),
)
attach(
    rollout.validation_stats,
    once(
        lambda b: {
            "rewards": b.flat.scores,
            "batch_mean_lengths": b.grid.completion_lengths.to(torch.float64).mean(dim=-1),
            "val_num_generations_per_prompt": b.grid.scores.shape[1],
        }
    ),
)

"""TRL `GRPOTrainer` (1.9 and later, one process): how each logged key is computed from a capture.

Loss-time keys are one value per micro-batch (a token mean over the loss
mask, `sum / max(1, count)`), averaged over the logging window: `across =
micro_mean`. Generation-time keys are computed once per generation batch
from `step["rewards_per_func"]` `(N, F)` and `step["reward_weights"]` `(F,)`.
`grad_norm` comes from `step["grads"]`, the gradients before clipping.

Config values read: `beta`, `epsilon_low`, `epsilon_high`, `temperature`,
`use_bias_correction_kl`, `num_generations`, `scale_rewards`, `loss_type`,
`gradient_accumulation_steps`, `steps_per_generation`, `max_completion_length`,
`pad_token_id`. `loss` is the sum over the step's micro-batches of what
`compute_loss` returns (transformers adds them); `completions/*` are
statistics of the generation batch (the step's micro-batches pooled, with
`completion_ids` and `eos_token_ids` captured per micro-batch).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics_registry.conformance.capture import StepCapture, config_value
from metrics_registry.conformance.metric import Metric, Variant
from metrics_registry.conformance.quantities import clip_flag, entropy, grad_norm, kl, sequence_flag_extreme

__all__ = ["metrics"]

T = Mapping[str, Any]
_REF = "metrics_registry.reference.grpo"


def _old(tensors: T) -> Any:
    return tensors.get("old_logprobs")


def _kl_exact(tensors: T, config: T) -> Any:
    from metrics_registry.reference.grpo.loss import kl_mean

    return kl_mean(
        tensors["logprobs"],
        tensors["ref_logprobs"],
        tensors["mask"],
        old_logprobs=_old(tensors),
        use_bias_correction_kl=bool(config_value(config, "use_bias_correction_kl", False)),
    )


def _entropy_exact(tensors: T, config: T) -> Any:
    from metrics_registry.reference.grpo.loss import entropy_mean

    return entropy_mean(tensors["logits"], tensors["mask"], float(config_value(config, "temperature", 1.0)))


def _clip_exact(name: str) -> Any:
    def exact(tensors: T, config: T) -> Any:
        from metrics_registry.reference.grpo.clipping import clip_ratios

        eps_low = float(config_value(config, "epsilon_low", 0.2))
        return clip_ratios(
            tensors["logprobs"],
            _old(tensors),
            tensors["advantages"],
            tensors["mask"],
            epsilon_low=eps_low,
            epsilon_high=float(config_value(config, "epsilon_high", eps_low)),
        )[name]

    return exact


def _loss(tensors: T, config: T, variant: Variant) -> Any:
    """What `compute_loss` returns for one micro-batch; transformers sums them over the optimizer step."""
    from metrics_registry.reference.grpo.loss import policy_loss

    eps_low = float(config_value(config, "epsilon_low", 0.2))
    items = tensors.get("num_items_in_batch")
    return policy_loss(
        tensors["logprobs"],
        _old(tensors),
        tensors["advantages"],
        tensors["mask"],
        loss_type=str(config_value(config, "loss_type", "dapo")),  # type: ignore[arg-type]
        epsilon_low=eps_low,
        epsilon_high=float(config_value(config, "epsilon_high", eps_low)),
        beta=float(config_value(config, "beta", 0.0)),
        ref_logprobs=tensors.get("ref_logprobs"),
        use_bias_correction_kl=bool(config_value(config, "use_bias_correction_kl", False)),
        max_completion_length=config.get("max_completion_length"),  # type: ignore[arg-type]
        num_items_in_batch=None if items is None else float(items),
        gradient_accumulation_steps=int(config_value(config, "gradient_accumulation_steps", 1)),
        steps_per_generation=config.get("steps_per_generation"),  # type: ignore[arg-type]
    )["loss"]


def _completions(name: str) -> Any:
    def statistic(tensors: T, config: T, variant: Variant) -> Any:
        """`completions/*` of the generation batch: lengths from the mask, truncation from the last token."""
        import torch

        from metrics_registry.reference.lengths import completion_length_stats, truncation_flags

        mask = torch.as_tensor(tensors["mask"]) != 0
        lengths = mask.sum(dim=-1)
        ids = torch.as_tensor(tensors["completion_ids"])
        last = ids.gather(-1, (lengths - 1).clamp(min=0).unsqueeze(-1)).squeeze(-1)
        eos = [int(i) for i in torch.as_tensor(tensors["eos_token_ids"]).reshape(-1).unique()]
        pad = config.get("pad_token_id")
        truncated = truncation_flags(last, eos, None if pad is None else int(pad))  # type: ignore[arg-type]
        return completion_length_stats(lengths, truncated)[name]

    return statistic


def _rewards(step: T) -> tuple[Any, Any]:
    return step["rewards_per_func"], step.get("reward_weights")


def _reward(step: T, config: T, variant: Variant) -> Any:
    from metrics_registry.reference.grpo.rewards import reward_mean

    return reward_mean(*_rewards(step))


def _reward_std(step: T, config: T, variant: Variant) -> Any:
    from metrics_registry.reference.grpo.rewards import reward_std

    return reward_std(*_rewards(step))


def _zero_std(step: T, config: T, variant: Variant) -> Any:
    from metrics_registry.reference.grpo.rewards import frac_reward_zero_std

    rewards, weights = _rewards(step)
    return frac_reward_zero_std(
        rewards,
        int(config_value(config, "num_generations", 2)),
        weights,
        str(config_value(config, "scale_rewards", "group")),  # type: ignore[arg-type]
    )


def _per_function(index: int, which: str) -> Any:
    def statistic(step: T, config: T, variant: Variant) -> Any:
        from metrics_registry.reference.grpo.rewards import reward_func_mean, reward_func_std

        column = step["rewards_per_func"][:, index]
        return reward_func_mean(column) if which == "mean" else reward_func_std(column)

    return statistic


def metrics(capture: StepCapture) -> dict[str, Metric]:
    """Every GRPO key of TRL 1.9+ the kit can recompute, for this capture's reward functions."""
    table: dict[str, Metric] = {
        "kl": Metric(
            "kl",
            f"{_REF}.loss.kl_mean",
            quantity=kl("logprobs", "ref_logprobs", "k3", bias_option="use_bias_correction_kl"),
            exact=_kl_exact,
            estimator="k3",
        ),
        "entropy": Metric("entropy", f"{_REF}.loss.entropy_mean", quantity=entropy, exact=_entropy_exact),
        "grad_norm": Metric("grad_norm", f"{_REF}.loss.grad_norm", statistic=grad_norm, scope="step"),
        "reward": Metric("reward", f"{_REF}.rewards.reward_mean", statistic=_reward, scope="step"),
        "reward_std": Metric("reward_std", f"{_REF}.rewards.reward_std", statistic=_reward_std, scope="step"),
        "frac_reward_zero_std": Metric(
            "frac_reward_zero_std", f"{_REF}.rewards.frac_reward_zero_std", statistic=_zero_std, scope="step"
        ),
    }
    for name, side in (("low_mean", "low"), ("high_mean", "high"), ("region_mean", "region")):
        key = f"clip_ratio/{name}"
        table[key] = Metric(
            key,
            f"{_REF}.clipping.clip_ratios",
            quantity=clip_flag(side),
            exact=_clip_exact(name),
            side=side if side != "region" else None,
            sign_gated=True,
        )
    for name, side in (("low_min", "low"), ("high_max", "high")):
        key = f"clip_ratio/{name}"
        table[key] = Metric(
            key, f"{_REF}.clipping.clip_ratios", statistic=sequence_flag_extreme(side), side=side
        )
    table["loss"] = Metric("loss", f"{_REF}.loss.policy_loss", statistic=_loss, across="sum")
    for name in (
        "mean_length", "min_length", "max_length", "clipped_ratio",
        "mean_terminated_length", "min_terminated_length", "max_terminated_length",
    ):  # fmt: skip
        key = f"completions/{name}"
        table[key] = Metric(
            key, "metrics_registry.reference.lengths.completion_length_stats", statistic=_completions(name),
            across="pooled",
        )  # fmt: skip
    for index, function in enumerate(capture.reward_names):
        for which in ("mean", "std"):
            key = f"rewards/{function}/{which}"
            table[key] = Metric(
                key,
                f"{_REF}.rewards.reward_func_{which}",
                statistic=_per_function(index, which),
                scope="step",
            )
    return table

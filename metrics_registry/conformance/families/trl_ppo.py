"""TRL `PPOTrainer` (PPOv2, up to 1.12, one process): how each logged key is computed from a capture.

One capture is one rollout batch, the unit PPO logs: its micro-batches are
every (epoch, mini-batch, accumulation step) cell the PPO loop ran, in
order. The optimisation statistics (`policy/*`, `loss/*`, `val/*` except
`val/num_eos_tokens`) are one value per micro-batch averaged over the grid:
`across = micro_mean` (`micro_var` for `val/ratio_var`). Which positions a
micro-batch value covers differs by key, as TRL computes them:

* `policy/approxkl_avg`, `val/ratio` and `policy/entropy_avg` take a plain
  mean over every response position (`within = unmasked`; padding holds
  log-probability 1.0 in both policies, so its ratio is 1 and its log-ratio 0);
* the clip fraction and the policy loss a mean over the completion mask;
* the value loss and the value clip fraction a mean over the completion mask
  extended by one position (`value_mask`).

The `objective/*` keys and `val/num_eos_tokens` are computed once per rollout
batch from `step` tensors: `logprobs`, `ref_logprobs` and `mask` `(B, T)`,
`scores` (before `missing_eos_penalty`) and `contains_eos` `(B,)`, the raw
generated `responses` `(B, T)`.

Micro-batch tensors: `logprobs` (new), `old_logprobs`, `advantages`, `mask`,
`value_mask`, `values` (new value predictions), `old_values`, `returns`,
`logits` (before the division by the temperature). Config values read:
`cliprange` (also written as `epsilon_low`/`epsilon_high` for the kit's
shared quantities), `cliprange_value`, `temperature`, `kl_coef`,
`kl_estimator`, `missing_eos_penalty`, `eos_token_id`.

The grid cells TRL ≤ 1.12 leaves at 0 (`num_mini_batches` > 1 with
`gradient_accumulation_steps` > 1, registry known issue) are not part of the
reference: a value diluted by them disagrees, and the `unwritten_cells`
hypothesis names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from metrics_registry.conformance.capture import CaptureError, StepCapture, config_value
from metrics_registry.conformance.metric import Metric, Variant
from metrics_registry.conformance.quantities import clip_flag, entropy, kl, policy_loss, ratio

__all__ = ["metrics"]

T = Mapping[str, Any]
_LOGGED = "metrics_registry.reference.ppo.logged"


def _cliprange(config: T) -> float:
    return float(config_value(config, "cliprange", 0.2))


def _value_errors(tensors: T, config: T) -> tuple[Any, Any]:
    """(unclipped, clipped) squared errors of the value predictions against the returns, in float64."""
    import torch

    values, old, returns = (
        torch.as_tensor(tensors[n]).to(torch.float64) for n in ("values", "old_values", "returns")
    )
    eps = float(config_value(config, "cliprange_value", 0.2))
    clipped = torch.max(torch.min(values, old + eps), old - eps)
    return (values - returns) ** 2, (clipped - returns) ** 2


def _value_loss(tensors: T, config: T, variant: Variant) -> Any:
    """Per position: half the larger of the clipped and unclipped squared value errors."""
    import torch

    unclipped, clipped = _value_errors(tensors, config)
    return 0.5 * torch.max(unclipped, clipped)


def _value_clip_wins(tensors: T, config: T, variant: Variant) -> Any:
    """Per position: 1 where the clipped value error is the larger (what TRL counts as clipped)."""
    import torch

    unclipped, clipped = _value_errors(tensors, config)
    return (clipped > unclipped).to(torch.float64)


def _exact(name: str, *tensor_names: str, **options: str) -> Callable[[T, T], Any]:
    """The registry's function `name` of `reference.ppo.logged` applied to one micro-batch (one grid cell)."""

    def exact(tensors: T, config: T) -> Any:
        from importlib import import_module

        function = getattr(import_module(_LOGGED), name)
        # an option the capture's config lacks keeps the reference's default
        kwargs = {
            param: config[option] for param, option in options.items() if config.get(option) is not None
        }
        return function(*(tensors[n] for n in tensor_names), **kwargs)

    return exact


def _entropy_exact(tensors: T, config: T) -> Any:
    from metrics_registry.reference.ppo.logged import entropy_avg

    return entropy_avg(tensors["logits"], float(config_value(config, "temperature", 0.7)))


def _rollout(name: str) -> Callable[[T, T, Variant], Any]:
    """An `objective/*` key: the registry's function on the rollout batch's `step` tensors."""

    def statistic(step: T, config: T, variant: Variant) -> Any:
        from metrics_registry.reference.entropy import sampled_sequence_entropy
        from metrics_registry.reference.kl import sequence_kl_mean
        from metrics_registry.reference.ppo.logged import non_score_reward_mean, rlhf_reward_mean, scores_mean

        estimator = str(config_value(config, "kl_estimator", "k1"))
        kl_coef = float(config_value(config, "kl_coef", 0.05))
        penalty = config.get("missing_eos_penalty")
        penalty = None if penalty is None else float(penalty)
        logprobs, ref, mask = step["logprobs"], step["ref_logprobs"], step["mask"]
        if name == "kl":
            return sequence_kl_mean(logprobs, ref, mask, estimator)  # type: ignore[arg-type]
        if name == "entropy":
            return sampled_sequence_entropy(logprobs, mask)
        if name == "non_score_reward":
            return non_score_reward_mean(logprobs, ref, mask, kl_coef, estimator)  # type: ignore[arg-type]
        if name == "scores":
            return scores_mean(step["scores"], step["contains_eos"], penalty)
        return rlhf_reward_mean(
            logprobs,
            ref,
            mask,
            step["scores"],
            kl_coef=kl_coef,
            estimator=estimator,  # type: ignore[arg-type]
            contains_eos=step["contains_eos"],
            missing_eos_penalty=penalty,
        )

    return statistic


def _num_eos(step: T, config: T, variant: Variant) -> Any:
    from metrics_registry.reference.lengths import eos_token_count

    eos = config.get("eos_token_id")
    if eos is None:
        raise CaptureError("the config value eos_token_id")  # shown as 'the capture lacks ...'
    return eos_token_count(step["responses"], int(eos))


_ROLLOUT_REFERENCE = {
    "kl": "metrics_registry.reference.kl.sequence_kl_mean",
    "entropy": "metrics_registry.reference.entropy.sampled_sequence_entropy",
    "non_score_reward": f"{_LOGGED}.non_score_reward_mean",
    "rlhf_reward": f"{_LOGGED}.rlhf_reward_mean",
    "scores": f"{_LOGGED}.scores_mean",
}


def metrics(capture: StepCapture) -> dict[str, Metric]:
    """Every PPO key of TRL ≤ 1.12 the kit can recompute."""
    policy = ("logprobs", "old_logprobs", "advantages", "mask")
    value = ("values", "old_values", "returns", "mask")
    table: dict[str, Metric] = {
        "policy/approxkl_avg": Metric(
            "policy/approxkl_avg",
            f"{_LOGGED}.approxkl_avg",
            quantity=kl("old_logprobs", "logprobs", "k2"),
            exact=_exact("approxkl_avg", "logprobs", "old_logprobs", "mask"),
            within="unmasked",
            estimator="k2",
        ),
        "policy/clipfrac_avg": Metric(
            "policy/clipfrac_avg",
            f"{_LOGGED}.policy_clipfrac_avg",
            quantity=clip_flag("region"),
            exact=_exact("policy_clipfrac_avg", *policy, cliprange="cliprange"),
            sign_gated=True,
        ),
        "loss/policy_avg": Metric(
            "loss/policy_avg",
            f"{_LOGGED}.policy_loss_avg",
            quantity=policy_loss,
            exact=_exact("policy_loss_avg", *policy, cliprange="cliprange"),
        ),
        "loss/value_avg": Metric(
            "loss/value_avg",
            f"{_LOGGED}.value_loss_avg",
            quantity=_value_loss,
            exact=_exact("value_loss_avg", *value, cliprange_value="cliprange_value"),
            mask="value_mask",
        ),
        "val/clipfrac_avg": Metric(
            "val/clipfrac_avg",
            f"{_LOGGED}.value_clipfrac_avg",
            quantity=_value_clip_wins,
            exact=_exact("value_clipfrac_avg", *value, cliprange_value="cliprange_value"),
            mask="value_mask",
        ),
        "policy/entropy_avg": Metric(
            "policy/entropy_avg",
            f"{_LOGGED}.entropy_avg",
            quantity=entropy,
            exact=_entropy_exact,
            within="unmasked",
        ),
        "val/ratio": Metric(
            "val/ratio",
            f"{_LOGGED}.ratio_avg",
            quantity=ratio,
            exact=_exact("ratio_avg", "logprobs", "old_logprobs", "mask"),
            within="unmasked",
        ),
        # the spread of the grid cells' mean ratios (each cell as for val/ratio)
        "val/ratio_var": Metric(
            "val/ratio_var",
            f"{_LOGGED}.ratio_var",
            quantity=ratio,
            exact=_exact("ratio_avg", "logprobs", "old_logprobs", "mask"),
            within="unmasked",
            across="micro_var",
        ),
        "val/num_eos_tokens": Metric(
            "val/num_eos_tokens",
            "metrics_registry.reference.lengths.eos_token_count",
            statistic=_num_eos,
            scope="step",
        ),
    }
    for name, reference in _ROLLOUT_REFERENCE.items():
        key = f"objective/{name}"
        table[key] = Metric(key, reference, statistic=_rollout(name), scope="step")
    return table

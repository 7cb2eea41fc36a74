"""Per-token quantities and batch statistics, built on the shared reference primitives.

Each factory returns a function `(tensors, config, variant) -> tensor` that
honours the variant knobs it can (`estimator`, `swap_sides`,
`flip_sign_pairing`, `padded_width`), so that one definition gives the
reference value and every wrong variant the hypotheses try. The numbers come
from `metrics_registry.reference` (`kl`, `entropy`, `masked`, `grpo`); only
the wiring from capture tensors to their arguments is here.

Config names read (a framework's adapter writes them): `epsilon_low`,
`epsilon_high`, `clip_range` (symmetric band), `clip_range_value`,
`temperature`, `use_bias_correction_kl`, `max_response_length`,
`reward_weights` is a step tensor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics_registry.conformance.capture import config_value
from metrics_registry.conformance.metric import Quantity, Statistic, Variant

__all__ = [
    "QUANTITIES",
    "STATISTICS",
    "clip_flag",
    "dual_clip_lower",
    "entropy",
    "explained_variance",
    "grad_norm",
    "kl",
    "length_clip_ratio",
    "policy_loss",
    "ratio",
    "ratio_outside",
    "sequence_flag_extreme",
    "value_clipped",
]

T = Mapping[str, Any]


def _ratio(tensors: T) -> Any:
    import torch

    from metrics_registry.reference.masked import as_float

    logprobs = as_float(tensors["logprobs"]).to(torch.float64)
    old = tensors.get("old_logprobs")
    old = logprobs if old is None else as_float(old).to(torch.float64)
    return torch.exp(logprobs - old)


def _advantages(tensors: T) -> Any:
    import torch

    advantages = torch.as_tensor(tensors["advantages"]).to(torch.float64)
    return advantages.unsqueeze(-1) if advantages.dim() == 1 else advantages


def kl(
    logq: str = "logprobs", logp: str = "ref_logprobs", estimator: str = "k3", bias_option: str = ""
) -> Quantity:
    """Per-token KL(q ‖ p) estimate (`reference.kl`); times the ratio when the `bias_option` is on."""

    def quantity(tensors: T, config: T, variant: Variant) -> Any:
        import torch

        from metrics_registry.reference.kl import estimate

        values = estimate(
            torch.as_tensor(tensors[logq]).to(torch.float64),
            torch.as_tensor(tensors[logp]).to(torch.float64),
            variant.estimator or estimator,  # type: ignore[arg-type]
        )
        if bias_option and config_value(config, bias_option, False):
            values = values * _ratio(tensors)
        return values

    return quantity


def clip_flag(side: str, symmetric_option: str = "") -> Quantity:
    """Sign-gated clip flags (`low`: r < 1 − ε_low and A < 0; `high`: r > 1 + ε_high and A > 0; `region`)."""

    def quantity(tensors: T, config: T, variant: Variant) -> Any:
        import torch

        ratio = _ratio(tensors)
        advantages = _advantages(tensors)
        if variant.flip_sign_pairing:
            advantages = -advantages
        eps_low = float(config_value(config, "epsilon_low", 0.2))
        eps_high = float(config_value(config, "epsilon_high", eps_low))
        low = (ratio < 1 - eps_low) & (advantages < 0)
        high = (ratio > 1 + eps_high) & (advantages > 0)
        chosen = side
        if variant.swap_sides and side in ("low", "high"):
            chosen = "high" if side == "low" else "low"
        flags = {"low": low, "high": high, "region": low | high}[chosen]
        return flags.expand_as(ratio).to(torch.float64)

    return quantity


def ratio(tensors: T, config: T, variant: Variant) -> Any:
    """The importance ratio r = exp(log π − log π_old) per token (TRL PPO `val/ratio`)."""
    return _ratio(tensors)


def ratio_outside(tensors: T, config: T, variant: Variant) -> Any:
    """Symmetric clip flag |r − 1| > ε (`clip_range`): stable-baselines3, verl's `pg_clipfrac`."""
    import torch

    return (torch.abs(_ratio(tensors) - 1) > float(config_value(config, "clip_range", 0.2))).to(torch.float64)


def policy_loss(tensors: T, config: T, variant: Variant) -> Any:
    """Per-token clipped surrogate −min(r A, clip(r, 1 − ε_low, 1 + ε_high) A)."""
    import torch

    ratio = _ratio(tensors)
    advantages = _advantages(tensors)
    eps_low = float(config_value(config, "epsilon_low", 0.2))
    eps_high = float(config_value(config, "epsilon_high", eps_low))
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    return (-torch.min(ratio * advantages, clipped * advantages)).expand_as(ratio)


def dual_clip_lower(tensors: T, config: T, variant: Variant) -> Any:
    """verl's `pg_clipfrac_lower`: the dual-clip bound −A·c binds (A < 0; c = `clip_ratio_c`)."""
    import torch

    ratio = _ratio(tensors)
    advantages = _advantages(tensors)
    if variant.flip_sign_pairing:
        advantages = -advantages
    eps = float(config_value(config, "clip_range", 0.2))
    losses = torch.max(-advantages * ratio, -advantages * torch.clamp(ratio, 1 - eps, 1 + eps))
    bound = -advantages * float(config_value(config, "clip_ratio_c", 3.0))
    return ((losses > bound) & (advantages < 0)).expand_as(ratio).to(torch.float64)


def value_clipped(tensors: T, config: T, variant: Variant) -> Any:
    """Value clip flag |V − V_old| > ε_v (`clip_range_value`)."""
    import torch

    values = torch.as_tensor(tensors["values"]).to(torch.float64)
    old = torch.as_tensor(tensors["old_values"]).to(torch.float64)
    return (torch.abs(values - old) > float(config_value(config, "clip_range_value", 0.2))).to(torch.float64)


def entropy(tensors: T, config: T, variant: Variant) -> Any:
    """Exact per-token entropy of softmax(logits / temperature) (`reference.entropy.categorical_entropy`)."""
    import torch

    from metrics_registry.reference.entropy import categorical_entropy

    logits = torch.as_tensor(tensors["logits"]).to(torch.float64)
    return categorical_entropy(logits, float(config_value(config, "temperature", 1.0)))


def explained_variance(tensors: T, config: T, variant: Variant) -> Any:
    """1 − Var(returns − values) / Var(returns) over the masked positions (`reference.masked.masked_var`)."""
    import torch

    from metrics_registry.reference.masked import masked_var

    values = torch.as_tensor(tensors["values"]).to(torch.float64)
    returns = torch.as_tensor(tensors["returns"]).to(torch.float64)
    mask = tensors.get("mask")
    mask = torch.ones_like(values, dtype=torch.bool) if mask is None else torch.as_tensor(mask) != 0
    return 1 - masked_var(returns - values, mask) / masked_var(returns, mask)


def grad_norm(tensors: T, config: T, variant: Variant) -> Any:
    """Global L2 norm of the captured gradients (`reference.grpo.loss.grad_norm`)."""
    from metrics_registry.reference.grpo.loss import grad_norm as reference

    grads = tensors["grads"]
    return reference(grads if isinstance(grads, list) else [grads])


def length_clip_ratio(tensors: T, config: T, variant: Variant) -> Any:
    """Share of responses reaching `max_response_length` (the tensor width with `padded_width`)."""
    import torch

    mask = torch.as_tensor(tensors["mask"]) != 0
    lengths = mask.sum(dim=-1)
    limit = mask.shape[-1] if variant.padded_width else int(config_value(config, "max_response_length", 0))
    return (lengths >= limit).to(torch.float64).mean()


def sequence_flag_extreme(side: str) -> Statistic:
    """TRL GRPO `clip_ratio/low_min` / `high_max`: min (max) over sequences of each sequence's flag mean."""

    flags = clip_flag(side)

    def statistic(tensors: T, config: T, variant: Variant) -> Any:
        import torch

        values = flags(tensors, config, variant)
        mask = (torch.as_tensor(tensors["mask"]) != 0).expand_as(values)
        counts = mask.sum(dim=-1)
        means = torch.where(mask, values, torch.zeros((), dtype=values.dtype)).sum(-1) / counts.clamp(min=1)
        means = means[counts > 0]
        if not means.numel():
            return torch.tensor(float("nan"))
        return means.min() if side == "low" else means.max()

    return statistic


#: Named quantities for family-free specs (fixtures, `check_value`): name -> factory arguments allowed.
QUANTITIES: dict[str, Any] = {
    "kl": kl,
    "clip_flag": clip_flag,
    "dual_clip_lower": lambda: dual_clip_lower,
    "ratio": lambda: ratio,
    "ratio_outside": lambda: ratio_outside,
    "policy_loss": lambda: policy_loss,
    "value_clipped": lambda: value_clipped,
    "entropy": lambda: entropy,
}
STATISTICS: dict[str, Any] = {
    "explained_variance": lambda: explained_variance,
    "grad_norm": lambda: grad_norm,
    "length_clip_ratio": lambda: length_clip_ratio,
    "sequence_flag_extreme": sequence_flag_extreme,
}

r"""verl `actor/*` metrics: PPO-clip loss terms, clip fractions, `ppo_kl`, entropies, KL loss, reward KL.

Tensors are `(N, T)`: the rows of one training step, mini-batch after
mini-batch (see [`aggregation`][metrics_registry.reference.verl.aggregation]
for the layout). `log_probs` are the current policy's log-probabilities
$\log\pi_\theta$ at update time, `old_log_probs` those of the recompute pass
before the update ($\pi_{\text{old}}$), `ref_log_probs` the reference
model's. Advantages are per token, `(N, T)`.

The policy-loss metrics follow `compute_policy_loss_vanilla`
(`verl/trainer/ppo/core_algos.py:1287-1376@1dda039`) and `ppo_loss`
(`verl/workers/utils/losses.py:57-144@1dda039`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference import kl as kl_estimators
from metrics_registry.reference.masked import as_bool_mask, as_float, masked_sum
from metrics_registry.reference.verl.aggregation import (
    LossAggMode,
    agg_loss,
    aggregate_dp,
    micro_batch_partials,
    micro_batch_rows,
    reduce_metrics,
)

__all__ = [
    "grad_norm_mean",
    "kl_loss",
    "kl_penalty",
    "old_policy_entropy",
    "policy_metrics",
    "total_loss",
    "update_entropy",
    "verl_masked_mean",
]


def verl_masked_mean(values: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    r"""verl's `masked_mean`: $\sum m x / (\sum m + 10^{-8})$, so an empty mask gives 0, not NaN.

    Args:
        values: any shape.
        mask: same shape.
        dim: dimension to reduce; all when `None`.

    Returns:
        The masked mean (`verl/utils/torch_functional.py:294-308@1dda039`).
    """
    keep = as_bool_mask(mask)
    values = as_float(values)
    count = keep.sum() if dim is None else keep.sum(dim=dim)
    return masked_sum(values, keep, dim) / (count.to(values.dtype) + 1e-8)


def kl_penalty(
    log_probs: torch.Tensor, ref_log_probs: torch.Tensor, kl_type: str = "low_var_kl"
) -> torch.Tensor:
    r"""verl's per-token `kl_penalty` value (`core_algos.py:2187-2250@1dda039`), samples from the rollout.

    `kl`/`k1`: $\log\pi - \log\pi_{\text{ref}}$; `abs`: its absolute value;
    `mse`/`k2`: $\tfrac12(\log\pi - \log\pi_{\text{ref}})^2$; `low_var_kl`/`k3`:
    $e^{x} - x - 1$ with $x = \operatorname{clamp}(\log\pi_{\text{ref}} - \log\pi, \pm 20)$,
    the result clamped to $[-10, 10]$. A `+` suffix (`k3+`) changes only the
    gradient (straight-through k2), so the value is the base estimator's.

    Args:
        log_probs: `(B, T)` log-probabilities of the policy (the first argument, "q").
        ref_log_probs: `(B, T)` of the reference model.
        kl_type: the estimator name as verl's config spells it.

    Returns:
        `(B, T)` per-token estimates of KL(policy ‖ reference).
    """
    base = kl_type[:-1] if kl_type.endswith("+") else kl_type
    logq, logp = as_float(log_probs), as_float(ref_log_probs)
    if base in ("kl", "k1"):
        return kl_estimators.k1(logq, logp)
    if base == "abs":
        return kl_estimators.k1(logq, logp).abs()
    if base in ("mse", "k2"):
        return kl_estimators.k2(logq, logp)
    if base in ("low_var_kl", "k3"):
        x = torch.clamp(logp - logq, min=-20, max=20)
        return torch.clamp(torch.exp(x) - x - 1, min=-10, max=10)
    raise ValueError(f"unknown kl type {kl_type!r}")


def _vanilla_terms(
    log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    advantages: torch.Tensor,
    *,
    clip_ratio_low: float,
    clip_ratio_high: float,
    clip_ratio_c: float,
) -> dict[str, torch.Tensor]:
    """Per-token pieces of verl's vanilla PPO-clip loss with the dual clip."""
    log_ratio = torch.clamp(as_float(log_probs) - as_float(old_log_probs), min=-20.0, max=20.0)
    ratio = torch.exp(log_ratio)
    adv = as_float(advantages)
    unclipped = -adv * ratio
    clipped = -adv * torch.clamp(ratio, 1 - clip_ratio_low, 1 + clip_ratio_high)
    pessimistic = torch.maximum(unclipped, clipped)
    dual = -adv * clip_ratio_c
    losses = torch.where(adv < 0, torch.minimum(dual, pessimistic), pessimistic)
    return {
        "losses": losses,
        "kl": -log_ratio,
        "clipped": (clipped > unclipped).to(adv.dtype),
        "dual_clipped": ((pessimistic > dual) & (adv < 0)).to(adv.dtype),
    }


def policy_metrics(
    log_probs: torch.Tensor,
    old_log_probs: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    loss_agg_mode: LossAggMode = "token-mean",
    clip_ratio_low: float = 0.2,
    clip_ratio_high: float = 0.2,
    clip_ratio_c: float = 3.0,
    rollout_is_weights: torch.Tensor | None = None,
    mini_batch_size: int | None = None,
    dp_size: int = 1,
    micro_batch_size: int | None = None,
    loss_scale_factor: float | None = None,
) -> dict[str, float]:
    r"""`actor/pg_loss`, `actor/pg_clipfrac`, `actor/pg_clipfrac_lower`, `actor/ppo_kl` as verl logs them.

    Per token, with $r = \exp(\operatorname{clamp}(\log\pi_\theta - \log\pi_{\text{old}}, \pm 20))$:
    loss $\ell = \max(-Ar, -A\operatorname{clip}(r, 1-\epsilon_l, 1+\epsilon_h))$, and for
    $A < 0$ $\min(\ell, -A c)$ (dual clip); `pg_clipfrac` counts
    $-A\operatorname{clip}(r) > -Ar$; `pg_clipfrac_lower` counts $A < 0$ and
    $\ell > -Ac$ (that is $r > c$); `ppo_kl` averages
    $\log\pi_{\text{old}} - \log\pi_\theta$ (k1 of KL(π_old ‖ π_θ)).

    `pg_loss` is aggregated with `agg_loss` over the global mini-batch and
    summed over micro-batches (an exact mini-batch value); the other three
    are local micro-batch token means, averaged over ranks and micro-batches
    (a mean of micro-batch means). Each is then averaged over mini-batches.

    Args:
        log_probs: `(N, T)` $\log\pi_\theta$ at update time.
        old_log_probs: `(N, T)` $\log\pi_{\text{old}}$.
        advantages: `(N, T)`.
        response_mask: `(N, T)`.
        loss_agg_mode: `actor.loss_agg_mode`.
        clip_ratio_low: $\epsilon_l$.
        clip_ratio_high: $\epsilon_h$.
        clip_ratio_c: dual-clip constant $c$ (> 1).
        rollout_is_weights: optional `(N, T)` importance weights multiplying the per-token loss.
        mini_batch_size: rows per optimizer step (all ranks); all rows when `None`.
        dp_size: data-parallel ranks.
        micro_batch_size: rows per micro-batch on one rank; the rank's whole chunk when `None`.
        loss_scale_factor: `actor.loss_scale_factor` (`seq-mean-token-sum-norm`).

    Returns:
        A dict with `pg_loss`, `pg_clipfrac`, `pg_clipfrac_lower` and `ppo_kl`.
    """
    mask = as_bool_mask(response_mask)
    terms = _vanilla_terms(
        log_probs,
        old_log_probs,
        advantages,
        clip_ratio_low=clip_ratio_low,
        clip_ratio_high=clip_ratio_high,
        clip_ratio_c=clip_ratio_c,
    )
    losses = terms["losses"] if rollout_is_weights is None else terms["losses"] * as_float(rollout_is_weights)
    layout = micro_batch_rows(mask.shape[0], mini_batch_size, dp_size, micro_batch_size)
    per_mini: dict[str, list[float]] = {
        "pg_loss": [],
        "pg_clipfrac": [],
        "pg_clipfrac_lower": [],
        "ppo_kl": [],
    }
    for ranks in layout:
        partials = micro_batch_partials(
            losses, mask, ranks, loss_agg_mode, dp_size=dp_size, loss_scale_factor=loss_scale_factor
        )
        per_mini["pg_loss"].append(aggregate_dp(partials, "sum"))
        for name, key in (
            ("pg_clipfrac", "clipped"),
            ("pg_clipfrac_lower", "dual_clipped"),
            ("ppo_kl", "kl"),
        ):
            local = [
                [float(verl_masked_mean(terms[key][list(m)], mask[list(m)])) for m in rank] for rank in ranks
            ]
            per_mini[name].append(aggregate_dp(local, "mean"))
    return {name: reduce_metrics(f"actor/{name}", values) for name, values in per_mini.items()}


def update_entropy(
    entropy: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    loss_agg_mode: LossAggMode = "token-mean",
    mini_batch_size: int | None = None,
    dp_size: int = 1,
    micro_batch_size: int | None = None,
    loss_scale_factor: float | None = None,
) -> float:
    r"""`actor/entropy_loss`: entropy of the current policy in the update pass, aggregated like `pg_loss`.

    Args:
        entropy: `(N, T)` per-token entropies $H(\pi_\theta(\cdot\mid s_t))$ of the temperature-scaled logits.
        response_mask: `(N, T)`.
        loss_agg_mode: `actor.loss_agg_mode`.
        mini_batch_size: rows per optimizer step.
        dp_size: data-parallel ranks.
        micro_batch_size: rows per micro-batch on one rank.
        loss_scale_factor: `actor.loss_scale_factor`.

    Returns:
        The mean over mini-batches of the exact mini-batch aggregate.
    """
    return _summed_metric(
        entropy,
        response_mask,
        loss_agg_mode=loss_agg_mode,
        mini_batch_size=mini_batch_size,
        dp_size=dp_size,
        micro_batch_size=micro_batch_size,
        loss_scale_factor=loss_scale_factor,
    )


def kl_loss(
    log_probs: torch.Tensor,
    ref_log_probs: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    kl_loss_type: str = "low_var_kl",
    loss_agg_mode: LossAggMode = "token-mean",
    mini_batch_size: int | None = None,
    dp_size: int = 1,
    micro_batch_size: int | None = None,
    loss_scale_factor: float | None = None,
) -> float:
    r"""`actor/kl_loss`: the KL(π_θ ‖ π_ref) estimate of `kl_loss_type`, aggregated like `pg_loss`.

    Args:
        log_probs: `(N, T)` $\log\pi_\theta$ at update time.
        ref_log_probs: `(N, T)` $\log\pi_{\text{ref}}$.
        response_mask: `(N, T)`.
        kl_loss_type: `actor.kl_loss_type` (default `low_var_kl`, the clamped k3).
        loss_agg_mode: `actor.loss_agg_mode`.
        mini_batch_size: rows per optimizer step.
        dp_size: data-parallel ranks.
        micro_batch_size: rows per micro-batch on one rank.
        loss_scale_factor: `actor.loss_scale_factor`.

    Returns:
        The mean over mini-batches of the exact mini-batch aggregate.
    """
    kld = kl_penalty(log_probs, ref_log_probs, kl_loss_type)
    return _summed_metric(
        kld,
        response_mask,
        loss_agg_mode=loss_agg_mode,
        mini_batch_size=mini_batch_size,
        dp_size=dp_size,
        micro_batch_size=micro_batch_size,
        loss_scale_factor=loss_scale_factor,
    )


def _summed_metric(
    values: torch.Tensor,
    response_mask: torch.Tensor,
    *,
    loss_agg_mode: LossAggMode,
    mini_batch_size: int | None,
    dp_size: int,
    micro_batch_size: int | None,
    loss_scale_factor: float | None,
) -> float:
    mask = as_bool_mask(response_mask)
    values = as_float(values)
    layout = micro_batch_rows(mask.shape[0], mini_batch_size, dp_size, micro_batch_size)
    per_mini = [
        aggregate_dp(
            micro_batch_partials(
                values, mask, ranks, loss_agg_mode, dp_size=dp_size, loss_scale_factor=loss_scale_factor
            ),
            "sum",
        )
        for ranks in layout
    ]
    return float(torch.tensor(per_mini, dtype=torch.float64).mean())


def old_policy_entropy(
    entropy: torch.Tensor,
    response_mask: torch.Tensor,
    loss_agg_mode: LossAggMode = "token-mean",
    loss_scale_factor: float | None = None,
) -> float:
    r"""`actor/entropy`: entropy of $\pi_{\text{old}}$ (log-prob recompute pass), one `agg_loss` per batch.

    Computed on the driver (`verl/trainer/ppo/v1/trainer_base.py:1570-1582@1dda039`)
    with no global batch information: for `token-mean` the token mean over
    the whole train batch; for `seq-mean-token-sum` the mean over sequences
    of the *summed* entropy.

    Args:
        entropy: `(B, T)` per-token entropies of π_old (temperature-scaled logits), whole batch.
        response_mask: `(B, T)`.
        loss_agg_mode: `actor.loss_agg_mode`.
        loss_scale_factor: `actor.loss_scale_factor`.

    Returns:
        The logged value.
    """
    return float(agg_loss(entropy, response_mask, loss_agg_mode, loss_scale_factor=loss_scale_factor))


def total_loss(
    pg_loss: Sequence[float],
    entropy_loss: Sequence[float] | None = None,
    kl_loss: Sequence[float] | None = None,
    entropy_coeff: float = 0.0,
    kl_loss_coef: float = 0.0,
) -> float:
    r"""`actor/loss`: mean over mini-batches of $\mathcal{L}_{pg} - c_H H + \beta\,\mathrm{KL}$.

    Args:
        pg_loss: the exact mini-batch policy loss of each optimizer step.
        entropy_loss: the mini-batch update-pass entropy of each step, if computed.
        kl_loss: the mini-batch KL loss of each step, with `use_kl_loss`.
        entropy_coeff: `actor.entropy_coeff`.
        kl_loss_coef: `actor.kl_loss_coef`.

    Returns:
        The logged value (`verl/workers/engine_workers.py:194-198@1dda039`, then `reduce_metrics`).
    """
    steps = len(pg_loss)
    entropy = entropy_loss if entropy_loss is not None else [0.0] * steps
    kl = kl_loss if kl_loss is not None else [0.0] * steps
    totals = [p - entropy_coeff * h + kl_loss_coef * k for p, h, k in zip(pg_loss, entropy, kl, strict=True)]
    return reduce_metrics("actor/loss", totals)


def grad_norm_mean(gradients: Sequence[torch.Tensor] | torch.Tensor) -> float:
    r"""`actor/grad_norm` (and `critic/grad_norm`): mean over optimizer steps of the pre-clip global norm.

    Args:
        gradients: one flattened gradient per optimizer step, `(S, P)`.

    Returns:
        $\frac1S\sum_s \|g_s\|_2$.
    """
    norms = [float(torch.linalg.vector_norm(as_float(g))) for g in gradients]
    return reduce_metrics("actor/grad_norm", norms)

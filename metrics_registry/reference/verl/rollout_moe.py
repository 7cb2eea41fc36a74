r"""verl `rollout/moe/*`: how evenly the rollout engine's MoE router spread response tokens over experts.

Follows `compute_moe_lb_metrics` and `RolloutMoELoadBalanceMetricsAccumulator`
(`verl/trainer/ppo/metric_utils.py:176-426@1dda039`). The rollout engine
returns, for every token, the top-k experts each MoE layer routed it to
(`routed_experts`, `(B, S, L, K)`, with rollout routing replay). Over the
response tokens of every step of a logging interval, except each sequence's
last valid response token (sampled but never fed back, so it has no
routing record), verl counts per layer how many top-k slots went to each
expert, $c_{l,e}$. With $E$ experts, the load of expert $e$ in layer $l$ is
$p_{l,e} = c_{l,e} / \sum_{e'} c_{l,e'}$ and its violation
$v_{l,e} = E\,p_{l,e} - 1$: 0 for a perfectly even router, $E - 1$ for an
expert that got every token, $-1$ for one that got none. Per layer
`max_vio` $= \max_e v_{l,e}$, `min_vio` $= \min_e v_{l,e}$ and `avg_vio`
$= \frac1E\sum_e |v_{l,e}|$; `max` and `avg` then take the maximum and the
mean of each over the layers.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference.masked import as_bool_mask

__all__ = ["load_counts", "moe_load_balance_metrics"]

_PREFIX = "rollout/moe"


def load_counts(
    routed_experts: torch.Tensor, response_mask: torch.Tensor, num_experts: int
) -> torch.Tensor | None:
    r"""Top-k assignments per layer and expert over a batch's response tokens, `(L, E)`.

    Each sequence's last valid response position is left out. `None` when
    nothing is left or an expert id lies outside `[0, num_experts)` (verl
    then skips the batch).

    Args:
        routed_experts: `(B, S, L, K)` expert ids of every token; the last `T` positions are the response.
        response_mask: `(B, T)` valid response tokens.
        num_experts: experts per MoE layer.
    """
    experts = torch.as_tensor(routed_experts).to(torch.long)
    mask = as_bool_mask(response_mask)
    width = mask.shape[1]
    if experts.dim() != 4 or width == 0 or experts.shape[1] < width:
        return None
    experts = experts[:, experts.shape[1] - width :]
    keep = mask.clone()
    for row in range(mask.shape[0]):
        valid = mask[row].nonzero().reshape(-1)
        if valid.numel():
            keep[row, valid[-1]] = False
    chosen = experts[keep]  # (N, L, K)
    if chosen.numel() == 0 or chosen.min() < 0 or chosen.max() >= num_experts:
        return None
    one_hot = torch.nn.functional.one_hot(chosen, num_experts)  # (N, L, K, E)
    return one_hot.sum(dim=(0, 2))


def moe_load_balance_metrics(
    routed_experts: torch.Tensor | Sequence[torch.Tensor],
    response_mask: torch.Tensor | Sequence[torch.Tensor],
    num_experts: int,
) -> dict[str, float]:
    r"""The `rollout/moe/*` keys logged at the end of a logging interval, keyed by their logged names.

    Args:
        routed_experts: `(B, S, L, K)` expert ids of one step, or one such tensor per step of the
            interval (`actor_rollout_ref.rollout.moe_load_balance_metrics_interval` steps); the
            counts of the steps are summed.
        response_mask: `(B, T)` valid response tokens, or one per step.
        num_experts: experts per MoE layer.

    Returns:
        `max_vio`, `min_vio`, `avg_vio` per layer (`.../layer_<l>`) and over the layers (`.../max`,
        `.../avg`) when any assignment was counted, and always `routed_experts_found` (1.0 or 0.0)
        and `routed_expert_assignments` (the number of counted top-k slots of all layers).
    """
    if isinstance(routed_experts, torch.Tensor):
        routed_experts, response_mask = [routed_experts], [response_mask]
    total: torch.Tensor | None = None
    for experts, mask in zip(routed_experts, response_mask, strict=True):
        counts = load_counts(experts, mask, num_experts)
        if counts is None:
            continue
        total = counts if total is None or total.shape != counts.shape else total + counts
    metrics: dict[str, float] = {}
    assignments = 0 if total is None else int(total.sum())
    if total is not None:
        load = total.to(torch.float64)
        load = load / load.sum(dim=1, keepdim=True).clamp_min(1.0)
        violation = load * num_experts - 1.0
        per_layer = {
            "max_vio": violation.max(dim=1).values,
            "min_vio": violation.min(dim=1).values,
            "avg_vio": violation.abs().mean(dim=1),
        }
        for name, values in per_layer.items():
            for layer, value in enumerate(values.tolist()):
                metrics[f"{_PREFIX}/{name}/layer_{layer}"] = value
        for name, values in per_layer.items():
            metrics[f"{_PREFIX}/{name}/max"] = float(values.max())
            metrics[f"{_PREFIX}/{name}/avg"] = float(values.mean())
    metrics[f"{_PREFIX}/routed_experts_found"] = float(assignments > 0)
    metrics[f"{_PREFIX}/routed_expert_assignments"] = float(assignments)
    return metrics

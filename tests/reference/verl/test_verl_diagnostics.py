"""verl `rollout/moe/*` and `variance_proxy/*` against ports of verl's metric_utils."""

from __future__ import annotations

import math
from types import SimpleNamespace

import _verl_port as port
import pytest
import torch

from metrics_registry.reference.verl import rollout_moe, variance_proxy


def _routing(seed: int, *, rows: int = 5, prompt: int = 3, width: int = 6, layers: int = 3, experts: int = 4):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(0, width + 1, (rows,), generator=g)
    mask = torch.arange(width).unsqueeze(0) < lengths.unsqueeze(-1)
    # skew the router towards expert 0 so that the layers differ
    logits = torch.randn(rows, prompt + width, layers, experts, generator=g)
    logits[..., 0] += torch.linspace(0.0, 2.0, layers)
    routed = logits.topk(2, dim=-1).indices
    return routed, mask


def _assert_same(ours: dict, theirs: dict) -> None:
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert math.isclose(ours[key], float(value), rel_tol=1e-6, abs_tol=1e-9), key


def _verl_interval(batches, num_experts: int) -> dict:
    """What compute_moe_lb_metrics logs after the accumulator saw ``batches`` (verl's update/pop_metrics)."""
    total = None
    for routed, mask in batches:
        counts = port._compute_rollout_moe_load_counts(routed, mask, num_experts)
        if counts is None:
            continue
        total = counts if total is None or total.shape != counts.shape else total + counts
    metrics = port._compute_rollout_moe_load_balance_metrics_from_counts(total)
    assignments = 0 if total is None else int(total.sum().item())
    metrics["rollout/moe/routed_experts_found"] = float(assignments > 0)
    metrics["rollout/moe/routed_expert_assignments"] = assignments
    return metrics


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_step_matches_verl(seed: int) -> None:
    routed, mask = _routing(seed)
    _assert_same(rollout_moe.moe_load_balance_metrics(routed, mask, 4), _verl_interval([(routed, mask)], 4))


def test_an_interval_sums_the_counts_of_its_steps() -> None:
    steps = [_routing(seed) for seed in (3, 4, 5)]
    ours = rollout_moe.moe_load_balance_metrics([r for r, _ in steps], [m for _, m in steps], 4)
    _assert_same(ours, _verl_interval(steps, 4))


def test_the_last_response_token_has_no_routing_record() -> None:
    # one sequence of two valid tokens: only the first counts, 2 layers x top-1
    routed = torch.tensor([[[[0], [1]], [[0], [0]], [[3], [3]]]])  # (1, 3, 2, 1), no prompt
    mask = torch.tensor([[True, True, False]])
    got = rollout_moe.moe_load_balance_metrics(routed, mask, 2)
    assert got["rollout/moe/routed_expert_assignments"] == 2.0
    assert got["rollout/moe/max_vio/layer_0"] == 1.0  # expert 0 took all of layer 0: 2 * 1 - 1
    assert got["rollout/moe/min_vio/layer_0"] == -1.0
    _assert_same(got, _verl_interval([(routed, mask)], 2))


def test_nothing_routed_logs_only_the_flags() -> None:
    routed = torch.zeros(2, 3, 2, 1, dtype=torch.long)
    mask = torch.tensor([[True, False, False], [False, False, False]])  # one token, the last one
    got = rollout_moe.moe_load_balance_metrics(routed, mask, 2)
    assert got == {"rollout/moe/routed_experts_found": 0.0, "rollout/moe/routed_expert_assignments": 0.0}
    _assert_same(got, _verl_interval([(routed, mask)], 2))


def _proxy_batch(seed: int, rows: int = 6, width: int = 7):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, width + 1, (rows,), generator=g)
    mask = (torch.arange(width).unsqueeze(0) < lengths.unsqueeze(-1)).to(torch.float64)
    log_probs = -torch.rand(rows, width, generator=g, dtype=torch.float64) * 3
    pi = torch.exp(log_probs)
    # Σπ² is at least π² of the sampled token and at most 1
    sum_pi_squared = pi**2 + (1 - pi**2) * torch.rand(rows, width, generator=g, dtype=torch.float64) * 0.3
    advantages = torch.randn(rows, 1, generator=g, dtype=torch.float64).expand(rows, width).clone()
    weights = torch.exp(torch.randn(rows, width, generator=g, dtype=torch.float64) * 0.2)
    return log_probs, sum_pi_squared, advantages, mask, weights


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("grad_norm", [None, 0.05, 3.0])
@pytest.mark.parametrize("with_is", [False, True])
def test_variance_proxies_match_verl(seed: int, grad_norm: float | None, with_is: bool) -> None:
    log_probs, spp, adv, mask, weights = _proxy_batch(seed)
    tensors = {"old_log_probs": log_probs, "sum_pi_squared": spp, "advantages": adv, "response_mask": mask}
    if with_is:
        tensors["rollout_is_weights"] = weights
    theirs = port.compute_variance_proxy_metrics(SimpleNamespace(batch=tensors), gradient_norm=grad_norm)
    ours = variance_proxy.variance_proxy_metrics(
        log_probs,
        spp,
        adv,
        mask.bool(),
        gradient_norm=grad_norm,
        rollout_is_weights=weights if with_is else None,
    )
    _assert_same(ours, theirs)


def test_constant_importance_weights_scale_expected_w_and_total_power() -> None:
    log_probs, spp, adv, mask, weights = _proxy_batch(4)
    plain = variance_proxy.variance_proxy_metrics(log_probs, spp, adv, mask)
    doubled = variance_proxy.variance_proxy_metrics(
        log_probs, spp, adv, mask, rollout_is_weights=torch.full_like(weights, 2.0)
    )
    assert math.isclose(
        doubled["variance_proxy/expected_w"], 4 * plain["variance_proxy/expected_w"], rel_tol=1e-6
    )
    power = doubled["variance_proxy/proxy2_total_power"]
    assert math.isclose(power, 4 * plain["variance_proxy/proxy2_total_power"], rel_tol=1e-6)
    assert plain["variance_proxy/proxy1_signal_strength"] == 0.0
    assert plain["variance_proxy/proxy3_pure_noise"] == 0.0

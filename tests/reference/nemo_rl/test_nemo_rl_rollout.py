"""NeMo-RL driver-side keys: baselines, advantages, mismatch per sequence, lengths, validation."""

from __future__ import annotations

import math

import pytest
import torch
from _nemo_port import (
    calculate_baseline_and_std_per_prompt,
    log_mixed_rewards_and_advantages_information,
    masked_advantage_metrics,
    seq_logprob_error_metrics,
)

from metrics_registry.reference import nemo_rl


def _groups(seed: int, n_prompts: int = 4, n_gen: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    prompts = torch.arange(n_prompts).repeat_interleave(n_gen)
    prompts = prompts[torch.randperm(len(prompts), generator=g)]  # groups need not be contiguous
    rewards = torch.randint(0, 2, (len(prompts),), generator=g).to(torch.float64)
    rewards[prompts == 0] = 1.0  # one group solved by all: leave-one-out baseline exactly 1
    return prompts, rewards


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("loo", [True, False])
def test_baseline_and_pcts_match_nemo(seed: int, loo: bool) -> None:
    prompts, rewards = _groups(seed)
    rows = torch.stack([prompts, prompts * 7], dim=1)  # prompt token rows, as NeMo-RL passes them
    want_b, want_s = calculate_baseline_and_std_per_prompt(rows, rewards, torch.ones_like(rewards), loo)
    got_b, got_s = nemo_rl.baseline_and_std(rows, rewards, leave_one_out_baseline=loo)
    assert torch.allclose(got_b, want_b, atol=1e-12)
    assert torch.allclose(got_s, want_s, atol=1e-12)
    metrics: dict = {}
    log_mixed_rewards_and_advantages_information(metrics, want_b, torch.zeros(1))
    got = nemo_rl.baseline_reward_pcts(prompts, rewards, leave_one_out_baseline=loo)
    for key in ("pct_0", "pct_1", "pct_mixed"):
        assert math.isclose(got[key].item(), metrics[f"baseline_reward/{key}"], abs_tol=1e-5), key


def test_leave_one_out_baseline_against_a_loop() -> None:
    prompts, rewards = _groups(11)
    got, _ = nemo_rl.baseline_and_std(prompts, rewards)
    for i in range(len(rewards)):
        others = [rewards[j].item() for j in range(len(rewards)) if j != i and prompts[j] == prompts[i]]
        assert math.isclose(got[i].item(), sum(others) / len(others), abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_advantage_stats_match_nemo(seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    per_sample = torch.randn(6, generator=g, dtype=torch.float64)
    lengths = torch.randint(0, 9, (6,), generator=g)
    mask = (torch.arange(9) < lengths.unsqueeze(-1)).to(torch.float64)
    expanded = per_sample.unsqueeze(-1).expand(6, 9)
    want = masked_advantage_metrics(expanded, mask)
    metrics: dict = {}
    log_mixed_rewards_and_advantages_information(metrics, torch.zeros(6), expanded)
    got = nemo_rl.advantage_stats(per_sample, mask)
    for key in ("mean", "max", "min"):
        assert math.isclose(got[key].item(), want[f"advantages/{key}"], abs_tol=1e-6), key
    assert math.isclose(got["sum"].item(), metrics["advantages/sum"], abs_tol=1e-5)
    # token-weighted: differs from the per-sample mean when lengths differ
    if len(set(lengths[lengths > 0].tolist())) > 1:
        assert not math.isclose(got["mean"].item(), per_sample[lengths > 0].mean().item(), abs_tol=1e-6)


def test_empty_advantage_mask_logs_zero() -> None:
    got = nemo_rl.advantage_stats(torch.tensor([1.0, -2.0]), torch.zeros(2, 3))
    assert got["mean"].item() == got["max"].item() == got["min"].item() == 0.0
    assert math.isclose(got["sum"].item(), -3.0)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("threshold", [None, 1.15, 0.5])
def test_seq_mult_prob_error_stats_match_nemo(seed: int, threshold: float | None) -> None:
    g = torch.Generator().manual_seed(seed)
    batch, width = 8, 6
    prev = -torch.rand(batch, width, generator=g, dtype=torch.float64) * 2
    gen = prev + 0.3 * torch.randn(batch, width, generator=g, dtype=torch.float64)
    lengths = torch.randint(0, width + 1, (batch,), generator=g)
    token_mask = (torch.arange(width) < lengths.unsqueeze(-1)).to(torch.float64)
    sample_mask = (torch.rand(batch, generator=g) > 0.2).to(torch.float64)
    rewards = torch.randint(0, 2, (batch,), generator=g).to(torch.float64)
    pad = torch.zeros(batch, 1, dtype=torch.float64)
    data = {
        "token_mask": torch.cat([pad, token_mask], 1),
        "sample_mask": sample_mask,
        "prev_logprobs": torch.cat([pad, prev], 1),
        "generation_logprobs": torch.cat([pad, gen], 1),
    }
    want = seq_logprob_error_metrics(data, rewards, threshold)
    got = nemo_rl.seq_mult_prob_error_stats(
        gen, prev, token_mask, sample_mask, rewards=rewards, seq_logprob_error_threshold=threshold
    )
    for key, value in want.items():
        assert math.isclose(got[key].item(), value, abs_tol=1e-9), key


def test_dapo_reward_is_the_mean_of_the_first_unfiltered_rewards() -> None:
    batches = [torch.tensor([1.0, 0.0, 0.0, 0.0]), torch.tensor([1.0, 1.0, 1.0, 1.0])]
    assert math.isclose(nemo_rl.dapo_reward(batches, 6).item(), 3 / 6)
    assert not math.isclose(nemo_rl.dapo_reward(batches, 6).item(), torch.cat(batches).mean().item())


def test_rollout_and_validation_stats() -> None:
    got = nemo_rl.rollout_length_stats(
        gen_tokens=torch.tensor([10, 30, 20]),
        env_tokens=torch.tensor([0, 5, 1]),
        turns=torch.tensor([1, 3, 2]),
        terminated=torch.tensor([True, True, False]),
        truncated=torch.tensor([False, True, False]),
        max_turns_reached=torch.tensor([False, False, True]),
    )
    assert got["mean_gen_tokens_per_sample"].item() == 20.0
    assert got["mean_total_tokens_per_sample"].item() == 22.0
    assert got["total_turns"].item() == 6.0
    assert math.isclose(got["natural_termination_rate"].item(), 2 / 3)
    val = nemo_rl.validation_stats(
        torch.tensor([0.0, 0.0, 1.0, 0.0, 0.5, 0.0]),
        torch.tensor([100.0, 40.0]),
        val_num_generations_per_prompt=2,
    )
    assert math.isclose(val["accuracy"].item(), 1.5 / 6)
    assert math.isclose(val["pass_k"].item(), 2 / 3)
    assert val["avg_length"].item() == 70.0
    assert "pass_k" not in nemo_rl.validation_stats(torch.tensor([1.0]), torch.tensor([5.0]))


def test_grad_norm_is_the_last_global_batch() -> None:
    grads = [[torch.tensor([3.0, 4.0])], [torch.tensor([1.0]), torch.tensor([2.0, 2.0])]]
    assert nemo_rl.grad_norm(grads).item() == 3.0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n", [1, 2, 7])
def test_gym_stats_match_nemo(seed: int, n: int) -> None:
    from _nemo_port import calculate_single_metric, pct

    g = torch.Generator().manual_seed(seed)
    values = torch.randint(0, 50, (n,), generator=g).tolist()
    want = calculate_single_metric(values, n + 1, "x")  # NeMo-Gym divides the mean by the batch size
    got = nemo_rl.gym_stats(torch.tensor(values), batch_size=n + 1)
    for stat in ("mean", "max", "min", "median", "stddev"):
        assert math.isclose(got[stat].item(), want[f"x/{stat}"], abs_tol=1e-12) or (
            math.isnan(want[f"x/{stat}"]) and math.isnan(got[stat].item())
        ), stat
    assert got["p95"].item() == pct(values, 95) and got["p99"].item() == pct(values, 99)


def test_async_reward_stats_follow_aggregate_rollout_metrics() -> None:
    """Per-group mean/max/min (rollouts.py:1453-1456) then aggregate_rollout_metrics (grpo.py:4033-4071)."""
    groups = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.5]]
    per_group = {
        "mean_total_reward": [sum(g) / len(g) for g in groups],
        "max_total_reward": [max(g) for g in groups],
        "min_total_reward": [min(g) for g in groups],
    }
    want = {
        "mean_total_reward": sum(per_group["mean_total_reward"]) / 2,
        "max_total_reward": max(per_group["max_total_reward"]),
        "min_total_reward": min(per_group["min_total_reward"]),
    }
    got = nemo_rl.async_reward_stats(torch.tensor(groups, dtype=torch.float64))
    for key, value in want.items():
        assert math.isclose(got[key].item(), value), key


def test_advantages_histogram_weighs_every_sample_by_the_padded_length() -> None:
    metrics: dict = {}
    advantages = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    expanded = advantages.unsqueeze(-1).expand(3, 4)
    log_mixed_rewards_and_advantages_information(metrics, torch.zeros(3), expanded)
    values = nemo_rl.advantages_histogram(advantages, 4)
    assert values.numel() == 12 and math.isclose(values.sum().item(), metrics["advantages/sum"])

"""OpenRLHF per-sample and rollout references against OpenRLHF's own code (copied) and torch."""

from __future__ import annotations

import pytest
import torch
from _openrlhf_port import (
    actor_ppo_train_reduce,
    compute_approx_kl,
    compute_reward,
    shape_rewards,
    span_and_clip,
)

from metrics_registry.reference.openrlhf import samples

N, WIDTH = 4, 6


def _batch(seed: int, prompts: int = 3):
    g = torch.Generator().manual_seed(seed)
    batch = prompts * N
    lengths = torch.randint(1, WIDTH + 1, (batch,), generator=g)
    mask = torch.arange(WIDTH).unsqueeze(0) < lengths.unsqueeze(-1)
    rewards = (
        torch.randint(0, 2, (batch,), generator=g).double() + 0.1 * torch.randn(batch, generator=g).double()
    )
    logp = -torch.rand(batch, WIDTH, generator=g, dtype=torch.float64)
    ref = logp + 0.2 * torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    kl = (
        compute_approx_kl(logp, ref, "k1").double() * mask
    )  # masked positions carry no KL (models/actor.py:294)
    return rewards, kl, mask


@pytest.mark.parametrize(
    "estimator", ["gae", "reinforce", "rloo", "reinforce_baseline", "dr_grpo", "group_norm"]
)
def test_shaped_return_matches_experience_maker(estimator: str) -> None:
    rewards, kl, mask = _batch(0)
    shaped, _ = shape_rewards(rewards, N, estimator)
    per_token = compute_reward(shaped, 0.05, kl, action_mask=mask, reward_clip_range=(-0.5, 0.8))
    expected = per_token.sum(dim=-1).mean()  # experience_maker.py:311, then the per-sample mean
    got = samples.shaped_return(
        rewards,
        kl,
        mask,
        n_samples_per_prompt=N,
        advantage_estimator=estimator,
        kl_coef=0.05,
        reward_clip_range=[-0.5, 0.8],
    )
    assert got.item() == pytest.approx(expected.item(), rel=1e-12, abs=1e-12)


def test_group_baselines_centre_the_return() -> None:
    rewards, kl, mask = _batch(1)
    zero_kl = torch.zeros_like(kl)
    for estimator in ("rloo", "reinforce_baseline", "group_norm"):
        got = samples.shaped_return(
            rewards, zero_kl, mask, n_samples_per_prompt=N, advantage_estimator=estimator
        )
        assert abs(got.item()) < 1e-9
    raw = samples.shaped_return(
        rewards, zero_kl, mask, n_samples_per_prompt=N, advantage_estimator="reinforce"
    )
    assert raw.item() == pytest.approx(rewards.mean().item())


def test_group_reward_std_matches_and_differs_from_batch_std() -> None:
    rewards, _, _ = _batch(2)
    _, per_sample = shape_rewards(rewards, N, "group_norm")
    assert samples.group_reward_std(rewards, N).item() == pytest.approx(per_sample.mean().item(), rel=1e-12)
    assert abs(samples.group_reward_std(rewards, N).item() - rewards.std().item()) > 1e-3


def test_response_length_is_the_action_span() -> None:
    # multi-turn: model tokens at 1-2 and 5-6, environment tokens at 3-4 (samples_generator.py:259-277)
    mask = torch.tensor([[0, 1, 1, 0, 0, 1, 1, 0], [0, 0, 1, 1, 1, 0, 0, 0], [0] * 8])
    theirs = [span_and_clip(row, torch.ones(8), 100)[0] for row in mask]
    assert theirs == [6, 3, 0]
    assert samples.response_length_span(mask).item() == pytest.approx(sum(theirs) / 3)
    assert samples.response_length_span(mask).item() != pytest.approx(mask.sum(-1).double().mean().item())


def test_response_clip_ratio_matches_samples_generator() -> None:
    total = torch.tensor([10.0, 16.0, 17.0, 3.0])
    theirs = [bool(span_and_clip(torch.tensor([1]), torch.ones(int(t)), 16)[1]) for t in total]
    assert samples.response_clip_ratio(total, 16).item() == pytest.approx(sum(theirs) / len(theirs))


def test_per_sample_keys_through_the_actor_reduction_are_plain_means() -> None:
    """Uneven micro-batches and two ranks: the actor's sample weighting gives the plain mean over rows."""
    g = torch.Generator().manual_seed(3)
    sizes = [[2, 3], [4, 1], [2, 2]]  # micro-batch i: rows on rank 0 and rank 1
    steps, rows = [], []
    for per_rank in sizes:
        step = []
        for size in per_rank:
            reward = torch.rand(size, generator=g)
            rows.append(reward)
            metrics, weights = {"reward": reward}, {"reward": "sample"}
            step.append((metrics, weights, float(size), float(size * 3)))
        steps.append(step)
    logged = actor_ppo_train_reduce(steps)["reward"]
    assert samples.sample_mean(torch.cat(rows)).item() == pytest.approx(logged, rel=1e-6)


def test_rollout_stats_match_the_controller() -> None:
    rewards = torch.tensor([1.0, 0.0, 0.5, 1.0])
    lengths = torch.tensor([10, 20, 30, 40])
    truncated = torch.tensor([False, True, False, False])
    stats = samples.rollout_stats(rewards, lengths, truncated)
    # ppo_trainer.py:420-426@3c3be623
    assert stats["reward_mean"].item() == pytest.approx(rewards.float().mean().item())
    assert stats["reward_std"].item() == pytest.approx(rewards.float().std().item())
    assert stats["response_length_mean"].item() == 25.0
    assert stats["truncated_rate"].item() == 0.25
    assert stats["num_samples"].item() == 4.0
    assert samples.rollout_stats(torch.tensor([1.0]), lengths[:1], truncated[:1])["reward_std"].item() == 0.0

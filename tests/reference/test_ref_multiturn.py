"""Multi-turn extension: low-variance group filter and turn-by-turn advantages."""

from __future__ import annotations

import statistics

import torch
from _refutil import close
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_registry.reference.multiturn import filter_groups, turn_advantages

reward = st.integers(-4, 4).map(lambda k: k / 2)
rewards_st = st.lists(st.lists(reward, min_size=2, max_size=6), min_size=1, max_size=6).filter(
    lambda rows: len({len(r) for r in rows}) == 1
)


@settings(max_examples=60, deadline=None)
@given(rows=rewards_st, threshold=st.floats(0.0, 1.0), seed=st.integers(0, 99))
def test_filter_counts_add_up_and_ignore_order(rows: list[list[float]], threshold: float, seed: int) -> None:
    rewards = torch.tensor(rows, dtype=torch.float64)
    out = filter_groups(rewards, threshold)
    assert (
        out["groups_kept"].item() + out["groups_filtered"].item() == out["total_groups"].item() == len(rows)
    )
    spreads = [statistics.stdev(r) for r in rows]
    expected = [s >= threshold for s in spreads]
    for kept, want, spread in zip(out["keep"].tolist(), expected, spreads, strict=True):
        assert kept == want or abs(spread - threshold) < 1e-9
    g = torch.Generator().manual_seed(seed)
    shuffled = torch.stack([row[torch.randperm(row.numel(), generator=g)] for row in rewards])
    assert filter_groups(shuffled, threshold)["keep"].tolist() == out["keep"].tolist()


def test_filter_edges() -> None:
    rewards = torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, float("nan")], [0.0, 0.5, 1.0]])
    out = filter_groups(rewards, 0.1)
    assert out["keep"].tolist() == [False, False, True]  # constant, NaN reward, spread
    population = filter_groups(torch.tensor([[0.0, 1.0]]), 0.6, unbiased=False)
    sample = filter_groups(torch.tensor([[0.0, 1.0]]), 0.6)
    assert population["groups_kept"].item() == 0 and sample["groups_kept"].item() == 1  # 0.5 vs 0.707
    assert filter_groups(torch.tensor([[3.0]]), 0.0)["groups_kept"].item() == 0  # one rollout: no spread


def test_turn_advantages_group_normalised() -> None:
    turn_rewards = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, True], [True, True, False]])
    adv = turn_advantages(turn_rewards, mask)
    real = [1.0, 2.0, 3.0, 0.0, 1.0]
    mean, std = statistics.fmean(real), statistics.stdev(real)
    assert close(adv[mask], [(x - mean) / (std + 1e-4) for x in real], 1e-12)
    assert adv[1, 2].item() == 0.0
    assert close(adv[mask].mean(), 0.0, 1e-12)
    to_go = turn_advantages(turn_rewards, mask, reward_to_go=True)
    assert close(to_go[0, 0], adv[0].sum(), 1e-12) and close(to_go[1, 0], adv[1, :2].sum(), 1e-12)
    raw = turn_advantages(turn_rewards, mask, normalize="none")
    assert close(raw, turn_rewards * mask)


@settings(max_examples=40, deadline=None)
@given(value=st.floats(-5, 5), n=st.integers(1, 4), k=st.integers(1, 4))
def test_constant_turn_rewards_give_zero_advantages(value: float, n: int, k: int) -> None:
    adv = turn_advantages(torch.full((n, k), value, dtype=torch.float64))
    assert torch.all(adv.abs() < 1e-9)


def test_turn_advantages_rows_permute_with_the_rollouts() -> None:
    g = torch.Generator().manual_seed(0)
    rewards = torch.randn(2, 4, 3, generator=g, dtype=torch.float64)  # two groups
    order = torch.tensor([2, 0, 3, 1])
    assert close(turn_advantages(rewards)[:, order], turn_advantages(rewards[:, order]), 1e-12)

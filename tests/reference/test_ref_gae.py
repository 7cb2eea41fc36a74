"""GAE against the closed-form sum and special cases (lambda = 0 and lambda = gamma = 1)."""

from __future__ import annotations

import torch
from _refutil import close, prefix_mask
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_registry.reference.gae import gae, gae_advantages


def _closed_form(rewards: torch.Tensor, values: torch.Tensor, gamma: float, lam: float) -> torch.Tensor:
    """A_t = sum_l (gamma lam)^l delta_{t+l}, with V_T = 0: a double loop over plain floats."""
    batch, length = rewards.shape
    out = torch.zeros(batch, length, dtype=torch.float64)
    for b in range(batch):
        v = [*values[b].tolist(), 0.0]
        r = rewards[b].tolist()
        deltas = [r[t] + gamma * v[t + 1] - v[t] for t in range(length)]
        for t in range(length):
            out[b, t] = sum((gamma * lam) ** l * deltas[t + l] for l in range(length - t))  # noqa: E741
    return out


def test_matches_the_closed_form_sum() -> None:
    g = torch.Generator().manual_seed(0)
    rewards = torch.randn(3, 7, generator=g, dtype=torch.float64)
    values = torch.randn(3, 7, generator=g, dtype=torch.float64)
    for gamma, lam in ((1.0, 0.95), (0.99, 0.9), (0.5, 0.0)):
        assert close(gae_advantages(rewards, values, gamma, lam), _closed_form(rewards, values, gamma, lam))


def test_special_cases() -> None:
    g = torch.Generator().manual_seed(1)
    rewards = torch.randn(2, 5, generator=g, dtype=torch.float64)
    values = torch.randn(2, 5, generator=g, dtype=torch.float64)
    # lambda = 0: one-step TD errors
    nxt = torch.cat([values[:, 1:], torch.zeros(2, 1, dtype=torch.float64)], 1)
    assert close(gae_advantages(rewards, values, 0.9, 0.0), rewards + 0.9 * nxt - values)
    # lambda = gamma = 1: returns are the Monte-Carlo reward-to-go, whatever the values
    out = gae(rewards, values, gamma=1.0, lam=1.0)
    reward_to_go = rewards.flip(-1).cumsum(-1).flip(-1)
    assert close(out["returns"], reward_to_go, 1e-12)
    # a bootstrap value adds gamma^(T-t) (gamma lam)^... ; with lam = 1 it adds gamma^(T-t) V_T
    boot = gae_advantages(rewards, values, 1.0, 1.0, bootstrap_value=2.0)
    assert close(
        boot - gae_advantages(rewards, values, 1.0, 1.0), torch.full((2, 5), 2.0, dtype=torch.float64)
    )


def test_mask_zeroes_rewards_and_values_first_and_leaks_into_a_masked_prefix() -> None:
    rewards = torch.tensor([[9.0, 9.0, 1.0, 2.0]], dtype=torch.float64)
    values = torch.tensor([[5.0, 5.0, 0.5, 0.25]], dtype=torch.float64)
    mask = torch.tensor([[False, False, True, True]])
    out = gae(rewards, values, mask, gamma=1.0, lam=1.0)
    assert close(out["values"], [[0.0, 0.0, 0.5, 0.25]])
    # the prompt positions (masked) still receive the advantage of the response (v0.7 histogram quirk)
    assert close(out["advantages"], [[3.0, 3.0, 2.5, 1.75]])


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=3),
    extra=st.integers(min_value=1, max_value=3),
    gamma=st.floats(min_value=0.5, max_value=1.0),
    lam=st.floats(min_value=0.0, max_value=1.0),
)
def test_zero_padding_after_the_end_changes_nothing(
    lengths: list[int], extra: int, gamma: float, lam: float
) -> None:
    g = torch.Generator().manual_seed(sum(lengths))
    width = max(lengths)
    rewards = torch.randn(len(lengths), width, generator=g, dtype=torch.float64)
    values = torch.randn(len(lengths), width, generator=g, dtype=torch.float64)
    mask = prefix_mask(lengths, width)
    base = gae(rewards, values, mask, gamma, lam)["advantages"]
    padded_r = torch.cat([rewards, torch.randn(len(lengths), extra, generator=g, dtype=torch.float64)], 1)
    padded_v = torch.cat([values, torch.randn(len(lengths), extra, generator=g, dtype=torch.float64)], 1)
    padded = gae(padded_r, padded_v, prefix_mask(lengths, width + extra), gamma, lam)["advantages"]
    assert close(padded[:, :width][mask], base[mask], 1e-12)

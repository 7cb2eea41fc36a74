"""OpenRLHF critic and evaluation references against OpenRLHF's own code (copied) and torch."""

from __future__ import annotations

import pytest
import torch
from _openrlhf_port import (
    critic_ppo_train_reduce,
    eval_pass,
    masked_mean,
    optimizer_step_loss_norm,
    value_loss_forward,
)

from metrics_registry.reference.openrlhf import critic, evaluation

DP, MICRO, ROWS, WIDTH = 2, 4, 3, 6


def _layout(seed: int):
    g = torch.Generator().manual_seed(seed)
    cells = [(r, m) for r in range(DP) for m in range(MICRO)]
    batch = len(cells) * ROWS
    rank = torch.tensor([r for r, _ in cells for _ in range(ROWS)])
    micro = torch.tensor([m for _, m in cells for _ in range(ROWS)])
    lengths = torch.randint(1, WIDTH + 1, (batch,), generator=g)
    mask = torch.arange(WIDTH).unsqueeze(0) < lengths.unsqueeze(-1)
    old = torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    values = old + 0.8 * torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    returns = old + torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    return {"rank": rank, "micro": micro, "mask": mask, "old": old, "values": values, "returns": returns}


def _framework(t, gas: int):
    """ppo_critic.py:102-118,152-182@3c3be623 per (rank, micro-batch), then the critic's reduction."""
    steps = []
    for m in range(MICRO):
        window = range(m // gas * gas, m // gas * gas + gas)
        info = optimizer_step_loss_norm([t["mask"][t["micro"] == w].float() for w in window], DP, gas)
        per_rank = []
        for r in range(DP):
            rows = (t["rank"] == r) & (t["micro"] == m)
            mask = t["mask"][rows].float()
            loss = value_loss_forward(
                t["values"][rows], t["old"][rows], t["returns"][rows], mask, clip_eps=0.5, **info
            )
            per_rank.append(
                {"critic_loss": loss.item(), "values": masked_mean(t["values"][rows], mask).item()}
            )
        steps.append(per_rank)
    return critic_ppo_train_reduce(steps)


@pytest.mark.parametrize(("seed", "gas"), [(0, 1), (1, 2), (2, 4)])
def test_critic_keys_match_openrlhf(seed: int, gas: int) -> None:
    t = _layout(seed)
    logged = _framework(t, gas)
    cells = {"rank": t["rank"], "micro_batch": t["micro"]}
    got = critic.critic_loss(
        t["values"], t["old"], t["returns"], t["mask"], gradient_accumulation_steps=gas, **cells
    )
    assert got.item() == pytest.approx(logged["critic_loss"], rel=1e-6)
    assert critic.critic_values(t["values"], t["mask"], **cells).item() == pytest.approx(
        logged["values"], rel=1e-9
    )


def test_critic_loss_is_the_mean_of_window_token_means() -> None:
    t = _layout(3)
    v, old, ret, m = t["values"], t["old"], t["returns"], t["mask"]
    per_token = 0.5 * torch.max((old + (v - old).clamp(-0.5, 0.5) - ret) ** 2, (v - ret) ** 2)
    windows = t["micro"] // 2
    means = [((per_token * m)[windows == w].sum() / m[windows == w].sum()) for w in range(MICRO // 2)]
    cells = {"rank": t["rank"], "micro_batch": t["micro"], "gradient_accumulation_steps": 2}
    got = critic.critic_loss(v, old, ret, m, **cells)
    assert got.item() == pytest.approx(torch.stack(means).mean().item(), rel=1e-12)
    # values: a mean of micro-batch means, which differs from the token mean on uneven cells
    token_mean = ((v * m).sum() / m.sum()).item()
    assert abs(critic.critic_values(v, m, rank=t["rank"], micro_batch=t["micro"]).item() - token_mean) > 1e-6


@pytest.mark.parametrize("n", [1, 2, 4])
def test_eval_pass_rates_match_compute_eval_metrics(n: int) -> None:
    g = torch.Generator().manual_seed(n)
    rewards = torch.randint(0, 2, (5, n), generator=g).double()
    theirs = eval_pass(rewards.flatten().tolist(), n)
    ours = evaluation.eval_pass_rates(rewards)
    assert ours["pass1"].item() == pytest.approx(theirs["pass1"])
    if n > 1:
        assert ours["pass_n"].item() == pytest.approx(theirs[f"pass{n}"])
        assert ours["pass_n"].item() >= ours["pass1"].item()

"""OpenRLHF actor and KL references against OpenRLHF's own code (copied) and direct torch computations."""

from __future__ import annotations

import math

import pytest
import torch
from _openrlhf_port import (
    actor_ppo_train_reduce,
    aggregate_loss,
    compute_approx_kl,
    masked_mean,
    optimizer_step_loss_norm,
    policy_loss_forward,
)

from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.openrlhf import actor, kl

DP, MICRO, ROWS, WIDTH, VOCAB = 2, 4, 3, 7, 11


def _approx32(value: float):
    """OpenRLHF casts each cell's value to float32 before reducing (ppo_actor.py:211)."""
    return pytest.approx(value, rel=1e-5, abs=1e-6)


def _layout(seed: int, even: bool = False):
    """Rows of DP ranks x MICRO micro-batches, uneven prefix masks (left-aligned actions, padding)."""
    g = torch.Generator().manual_seed(seed)
    cells = [(r, m) for r in range(DP) for m in range(MICRO)]
    batch = len(cells) * ROWS
    rank = torch.tensor([r for r, _ in cells for _ in range(ROWS)])
    micro = torch.tensor([m for _, m in cells for _ in range(ROWS)])
    lengths = torch.full((batch,), WIDTH - 2) if even else torch.randint(1, WIDTH + 1, (batch,), generator=g)
    mask = torch.arange(WIDTH).unsqueeze(0) < lengths.unsqueeze(-1)
    old = -torch.rand(batch, WIDTH, generator=g, dtype=torch.float64) * 3
    new = old + 0.3 * torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    ref = old + 0.2 * torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    rollout = old + 0.1 * torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    adv = torch.randn(batch, WIDTH, generator=g, dtype=torch.float64)
    logits = torch.randn(batch, WIDTH, VOCAB, generator=g, dtype=torch.float64) * 2
    return {
        "rank": rank,
        "micro": micro,
        "mask": mask,
        "old": old,
        "new": new,
        "ref": ref,
        "rollout": rollout,
        "adv": adv,
        "logits": logits,
    }


def _framework(t, gas: int, kl_estimator: str = "k1", use_kl_loss: bool = True):
    """Run OpenRLHF's training_step metric code per (rank, micro-batch), then its ppo_train reduction."""
    steps = []
    for m in range(MICRO):
        window = range(m // gas * gas, m // gas * gas + gas)
        window_masks = [t["mask"][(t["micro"] == w)].float() for w in window]
        info = optimizer_step_loss_norm(window_masks, DP, gas)
        per_rank = []
        for r in range(DP):
            rows = (t["rank"] == r) & (t["micro"] == m)
            mask = t["mask"][rows].float()
            loss, clip, ppo_kl, _ = policy_loss_forward(
                t["new"][rows], t["old"][rows], t["adv"][rows], mask, **info
            )
            # with IS correction (tis) the loss is reweighted; vllm_kl comes from that call
            *_, vllm_kl = policy_loss_forward(
                t["new"][rows],
                t["old"][rows],
                t["adv"][rows],
                mask,
                rollout_log_probs=t["rollout"][rows],
                **info,
            )
            entropy = categorical_entropy(t["logits"][rows])  # models/actor.py entropy of softmax(logits)
            metrics = {"policy_loss": loss, "ppo_clip_ratio": clip, "ppo_kl": ppo_kl, "vllm_kl": vllm_kl}
            metrics["entropy_loss"] = aggregate_loss(entropy, mask, **info)
            if use_kl_loss:  # ppo_actor.py:319-333
                kl_tok = compute_approx_kl(t["new"][rows], t["ref"][rows], kl_estimator=kl_estimator)
                metrics["kl"] = aggregate_loss(kl_tok, mask, **info)
                metrics["logprobs_diff"] = masked_mean(t["new"][rows] - t["ref"][rows], mask)
            weights = dict.fromkeys(metrics, "token")
            per_rank.append((metrics, weights, float(mask.shape[0]), float(mask.sum().item())))
        steps.append(per_rank)
    return actor_ppo_train_reduce(steps)


@pytest.mark.parametrize(("seed", "gas"), [(0, 1), (1, 2), (2, 4)])
def test_actor_keys_match_openrlhf(seed: int, gas: int) -> None:
    t = _layout(seed)
    logged = _framework(t, gas, kl_estimator="k3")
    cells = {"rank": t["rank"], "micro_batch": t["micro"]}
    assert actor.policy_loss(
        t["new"], t["old"], t["adv"], t["mask"], gradient_accumulation_steps=gas, **cells
    ).item() == _approx32(logged["policy_loss"])
    assert actor.clip_ratio(t["new"], t["old"], t["adv"], t["mask"], **cells).item() == _approx32(
        logged["ppo_clip_ratio"]
    )
    assert actor.ppo_kl(t["new"], t["old"], t["mask"], **cells).item() == _approx32(logged["ppo_kl"])
    assert actor.vllm_kl(t["rollout"], t["old"], t["mask"], **cells).item() == _approx32(logged["vllm_kl"])
    assert actor.entropy_loss(
        t["logits"], t["mask"], gradient_accumulation_steps=gas, **cells
    ).item() == _approx32(logged["entropy_loss"])
    assert kl.reference_kl_in_loss(
        t["new"], t["ref"], t["mask"], "k3", gradient_accumulation_steps=gas, **cells
    ).item() == _approx32(logged["kl"])
    assert kl.logprobs_diff_in_loss(t["new"], t["ref"], t["mask"], **cells).item() == _approx32(
        logged["logprobs_diff"]
    )


def test_token_means_are_global_token_means() -> None:
    t = _layout(3)
    m = t["mask"]
    direct_kl = ((t["old"] - t["new"]) * m).sum() / m.sum()
    assert actor.ppo_kl(
        t["new"], t["old"], m, rank=t["rank"], micro_batch=t["micro"]
    ).item() == pytest.approx(direct_kl.item(), rel=1e-12)
    ratio = (t["new"] - t["old"]).exp()
    clipped = (ratio.clamp(0.8, 1.2) * t["adv"] < ratio * t["adv"]) & m
    assert actor.clip_ratio(t["new"], t["old"], t["adv"], m).item() == pytest.approx(
        (clipped.sum().double() / m.sum()).item(), rel=1e-12
    )


def test_loss_keys_are_token_means_only_with_even_cells() -> None:
    even = _layout(4, even=True)
    per_token, _, _ = actor.policy_loss_per_token(even["new"], even["old"], even["adv"])
    token_mean = (per_token * even["mask"]).sum() / even["mask"].sum()
    cells = {"rank": even["rank"], "micro_batch": even["micro"], "gradient_accumulation_steps": 2}
    got = actor.policy_loss(even["new"], even["old"], even["adv"], even["mask"], **cells)
    assert got.item() == pytest.approx(token_mean.item(), rel=1e-10)
    # uneven cells: a constant per-token entropy is inflated by 1 + CV^2 of the cells' token counts
    t = _layout(5)
    logits = torch.zeros_like(t["logits"])  # uniform: entropy log(V) everywhere
    got = actor.entropy_loss(
        logits, t["mask"], rank=t["rank"], micro_batch=t["micro"], gradient_accumulation_steps=MICRO
    )
    counts = torch.stack(
        [t["mask"][(t["rank"] == r) & (t["micro"] == mb)].sum() for r in range(DP) for mb in range(MICRO)]
    ).double()
    inflation = 1 + counts.var(unbiased=False) / counts.mean() ** 2
    assert got.item() == pytest.approx(math.log(VOCAB) * inflation.item(), rel=1e-10)
    assert inflation > 1.01  # the test layout is uneven enough to tell the two apart


@pytest.mark.parametrize("estimator", ["k1", "k2", "k3"])
def test_reference_kl_in_reward_matches_experience_maker(estimator: str) -> None:
    t = _layout(6)
    m = t["mask"].float()
    # experience_maker.py:205-226@3c3be623: per-sequence masked mean; the actor then takes the per-sample mean
    kl_tok = compute_approx_kl(t["new"], t["ref"], kl_estimator=estimator)
    expected = masked_mean(kl_tok, m, dim=-1).mean()
    assert kl.reference_kl_in_reward(t["new"], t["ref"], t["mask"], estimator).item() == pytest.approx(
        expected.item(), rel=1e-6
    )
    diff = masked_mean(t["new"] - t["ref"], m, dim=-1).mean()
    assert kl.logprobs_diff_in_reward(t["new"], t["ref"], t["mask"]).item() == pytest.approx(
        diff.item(), rel=1e-12
    )
    # a token-weighted mean is a different number on uneven lengths
    assert abs(((kl_tok * m).sum() / m.sum()).item() - expected.item()) > 1e-6


def test_kl_estimators_are_clamped_like_openrlhf() -> None:
    logp = torch.tensor([[0.0, -30.0]], dtype=torch.float64)
    ref = torch.tensor([[-30.0, 0.0]], dtype=torch.float64)
    for estimator in ("k1", "k2", "k3"):
        ours = kl.approx_kl(logp, ref, estimator)
        assert torch.allclose(ours, compute_approx_kl(logp, ref, estimator).double())
        assert ours.abs().max() <= 10


def test_dual_clip_matches_openrlhf() -> None:
    t = _layout(7)
    loss, *_ = actor.policy_loss_per_token(t["new"] + 1.5, t["old"], t["adv"], dual_clip=3.0)
    mask = t["mask"].float()
    ours = (loss * mask).sum() / mask.sum()
    theirs, *_ = policy_loss_forward(t["new"] + 1.5, t["old"], t["adv"], mask, dual_clip=3.0)
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-10)


def test_dynamic_batch_divides_by_the_micro_batches_per_step() -> None:
    t = _layout(8, even=True)
    logits = torch.zeros_like(t["logits"])
    cells = {"rank": t["rank"], "micro_batch": t["micro"], "gradient_accumulation_steps": MICRO}
    fixed = actor.entropy_loss(logits, t["mask"], **cells)
    dynamic = actor.entropy_loss(logits, t["mask"], dynamic_batch=True, **cells)
    assert fixed.item() == pytest.approx(math.log(VOCAB), rel=1e-12)
    assert dynamic.item() == pytest.approx(math.log(VOCAB) / MICRO, rel=1e-12)

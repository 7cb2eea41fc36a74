"""TRL v0.7 PPOTrainer statistics against a verbatim port of ``loss``, ``compute_advantages`` and friends."""

from __future__ import annotations

import math

import pytest
import torch
from _refutil import close, prefix_mask
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_registry.reference import legacy_ppo
from metrics_registry.reference.entropy import sampled_sequence_entropy

# ------------------------------------------------------ TRL 0.7.10, trl/core.py


def _masked_mean(values, mask):
    return (values * mask).sum() / mask.sum()


def _masked_var(values, mask):
    mean = _masked_mean(values, mask)
    variance = _masked_mean((values - mean) ** 2, mask)
    mask_sum = mask.sum()
    return variance * (mask_sum / (mask_sum - 1))


def _masked_whiten(values, mask, shift_mean=True):
    mean, var = _masked_mean(values, mask), _masked_var(values, mask)
    whitened = (values - mean) * torch.rsqrt(var + 1e-8)
    if not shift_mean:
        whitened += mean
    return whitened


def _entropy_from_logits(logits):
    pd = torch.nn.functional.softmax(logits, dim=-1)
    return torch.logsumexp(logits, axis=-1) - torch.sum(pd * logits, axis=-1)


# ------------------------------------------- trl/trainer/ppo_trainer.py (0.7.10)


def _trl_loss(old_logprobs, values, logits, vpreds, logprobs, mask, advantages, returns, cfg):  # noqa: PLR0917
    vpredclipped = torch.max(
        torch.min(vpreds, values + cfg["cliprange_value"]), values - cfg["cliprange_value"]
    )
    vf_losses1 = (vpreds - returns) ** 2
    vf_losses2 = (vpredclipped - returns) ** 2
    vf_loss = 0.5 * _masked_mean(torch.max(vf_losses1, vf_losses2), mask)
    vf_clipfrac = _masked_mean(torch.gt(vf_losses2, vf_losses1).double(), mask)
    ratio = torch.exp(logprobs - old_logprobs)
    pg_losses = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1.0 - cfg["cliprange"], 1.0 + cfg["cliprange"])
    pg_loss = _masked_mean(torch.max(pg_losses, pg_losses2), mask)
    pg_clipfrac = _masked_mean(torch.gt(pg_losses2, pg_losses).double(), mask)
    loss = pg_loss + cfg["vf_coef"] * vf_loss
    avg_ratio = _masked_mean(ratio, mask).item()
    if avg_ratio > cfg["ratio_threshold"]:
        pg_loss = pg_loss * 0.0
        vf_loss = vf_loss * 0.0
        loss = loss * 0.0
    entropy = _masked_mean(_entropy_from_logits(logits), mask)
    approxkl = 0.5 * _masked_mean((logprobs - old_logprobs) ** 2, mask)
    policykl = _masked_mean(old_logprobs - logprobs, mask)
    return {
        "loss/policy": pg_loss, "loss/value": vf_loss, "loss/total": loss,
        "policy/entropy": entropy, "policy/approxkl": approxkl, "policy/policykl": policykl,
        "policy/clipfrac": pg_clipfrac, "policy/advantages": advantages,
        "policy/advantages_mean": _masked_mean(advantages, mask), "policy/ratio": ratio,
        "returns/mean": _masked_mean(returns, mask), "returns/var": _masked_var(returns, mask),
        "val/vpred": _masked_mean(vpreds, mask), "val/error": _masked_mean((vpreds - returns) ** 2, mask),
        "val/clipfrac": vf_clipfrac, "val/mean": _masked_mean(values, mask),
        "val/var": _masked_var(values, mask),
    }  # fmt: skip


def _trl_compute_advantages(values, rewards, mask, gamma, lam, whiten_rewards):  # noqa: PLR0917
    lastgaelam = 0
    advantages_reversed = []
    gen_len = rewards.shape[-1]
    values = values * mask
    rewards = rewards * mask
    if whiten_rewards:
        rewards = _masked_whiten(rewards, mask, shift_mean=False)
    for t in reversed(range(gen_len)):
        nextvalues = values[:, t + 1] if t < gen_len - 1 else 0.0
        delta = rewards[:, t] + gamma * nextvalues - values[:, t]
        lastgaelam = delta + gamma * lam * lastgaelam
        advantages_reversed.append(lastgaelam)
    advantages = torch.stack(advantages_reversed[::-1]).transpose(0, 1)
    returns = advantages + values
    advantages = _masked_whiten(advantages, mask)
    return values, advantages, returns


CFG = {"cliprange": 0.2, "cliprange_value": 0.2, "vf_coef": 0.1, "ratio_threshold": 10.0}


def _minibatches(seed: int, m: int = 3, b: int = 2, t: int = 6, vocab: int = 7):
    """M minibatches of a response-masked batch (prompt prefix masked out, padding at the end)."""
    g = torch.Generator().manual_seed(seed)
    starts = torch.randint(0, 2, (m, b), generator=g)
    ends = torch.randint(3, t + 1, (m, b), generator=g)
    positions = torch.arange(t)
    mask = (positions >= starts.unsqueeze(-1)) & (positions < ends.unsqueeze(-1))
    old = -torch.rand(m, b, t, generator=g, dtype=torch.float64) * 2
    return {
        "mask": mask,
        "old_logprobs": old,
        "logprobs": old + 0.3 * torch.randn(m, b, t, generator=g, dtype=torch.float64),
        "values": torch.randn(m, b, t, generator=g, dtype=torch.float64),
        "vpreds": torch.randn(m, b, t, generator=g, dtype=torch.float64),
        "returns": torch.randn(m, b, t, generator=g, dtype=torch.float64),
        "advantages": torch.randn(m, b, t, generator=g, dtype=torch.float64),
        "logits": torch.randn(m, b, t, vocab, generator=g, dtype=torch.float64),
    }


def _trl_step_stats(d: dict) -> dict:
    stats = [
        _trl_loss(
            d["old_logprobs"][i], d["values"][i], d["logits"][i], d["vpreds"][i], d["logprobs"][i],
            d["mask"][i].double(), d["advantages"][i], d["returns"][i], CFG,
        )
        for i in range(d["mask"].shape[0])
    ]  # fmt: skip
    out = {
        k: torch.stack([s[k] for s in stats]).mean(0)
        for k in stats[0]
        if k not in ("policy/ratio", "policy/advantages")
    }
    out["val/var_explained"] = 1 - out["val/error"] / out["returns/var"]
    out["policy/ratio"] = torch.cat([s["policy/ratio"].flatten() for s in stats])
    out["policy/advantages"] = torch.nan_to_num(
        torch.cat([s["policy/advantages"].flatten() for s in stats]), -1
    )
    return out


def test_training_statistics_match_trl() -> None:
    d = _minibatches(0)
    trl = _trl_step_stats(d)
    lp, old, adv, mask = d["logprobs"], d["old_logprobs"], d["advantages"], d["mask"]
    vp, v, ret = d["vpreds"], d["values"], d["returns"]
    ours = {
        "loss/policy": legacy_ppo.loss_policy(lp, old, adv, mask),
        "loss/value": legacy_ppo.loss_value(vp, v, ret, mask, logprobs=lp, old_logprobs=old),
        "loss/total": legacy_ppo.loss_total(lp, old, adv, vpreds=vp, values=v, returns=ret, mask=mask),
        "policy/entropy": legacy_ppo.policy_entropy(d["logits"], mask),
        "policy/approxkl": legacy_ppo.policy_approxkl(lp, old, mask),
        "policy/policykl": legacy_ppo.policy_policykl(lp, old, mask),
        "policy/clipfrac": legacy_ppo.policy_clipfrac(lp, old, adv, mask),
        "policy/advantages_mean": legacy_ppo.advantages_mean(adv, mask),
        "returns/mean": legacy_ppo.returns_mean(ret, mask),
        "returns/var": legacy_ppo.returns_var(ret, mask),
        "val/vpred": legacy_ppo.val_vpred(vp, mask),
        "val/error": legacy_ppo.val_error(vp, ret, mask),
        "val/clipfrac": legacy_ppo.val_clipfrac(vp, v, ret, mask),
        "val/mean": legacy_ppo.val_mean(v, mask),
        "val/var": legacy_ppo.val_var(v, mask),
        "val/var_explained": legacy_ppo.val_var_explained(vp, ret, mask),
        "policy/ratio": legacy_ppo.ratio_histogram(lp, old),
        "policy/advantages": legacy_ppo.advantages_histogram(adv),
    }
    for key, value in ours.items():
        # Bessel factors of integer counts are float32 in TRL (see test_ref_ppo)
        assert close(value, trl[key], 1e-6), key


def test_ratio_threshold_zeroes_a_minibatch() -> None:
    d = _minibatches(1)
    lp = d["logprobs"].clone()
    lp[0] = d["old_logprobs"][0] + 3.0  # minibatch 0: ratio e^3 > 10 everywhere
    trl = _trl_step_stats({**d, "logprobs": lp})
    args = (lp, d["old_logprobs"], d["advantages"], d["mask"])
    assert close(legacy_ppo.loss_policy(*args), trl["loss/policy"], 1e-12)
    full = legacy_ppo.loss_policy(*args, ratio_threshold=float("inf"))
    assert not close(full, trl["loss/policy"], 1e-6)
    value = legacy_ppo.loss_value(
        d["vpreds"], d["values"], d["returns"], d["mask"], logprobs=lp, old_logprobs=d["old_logprobs"]
    )
    assert close(value, trl["loss/value"], 1e-12)


def test_rollout_statistics_match_trl() -> None:
    g = torch.Generator().manual_seed(2)
    b, t = 4, 7
    mask = prefix_mask([7, 5, 3, 6], t) & (torch.arange(t) >= 1)  # the first position is the prompt
    lp = -torch.rand(b, t, generator=g, dtype=torch.float64) * 2
    ref = lp + 0.3 * torch.randn(b, t, generator=g, dtype=torch.float64)
    scores = torch.randn(b, generator=g, dtype=torch.float64)
    beta = 0.2
    # compute_rewards + record_step_stats
    kls = lp - ref
    non_score = -beta * kls
    rewards = non_score.clone()
    for i in range(b):
        rewards[i, mask[i].nonzero()[-1]] += scores[i]
    assert close(legacy_ppo.compute_rewards(scores, lp, ref, mask, kl_coef=beta), rewards)
    assert close(legacy_ppo.objective_kl(lp, ref, mask), (kls * mask).sum(-1).mean())
    assert close(legacy_ppo.kl_dist(lp, ref, mask), (kls * mask).sum(-1))
    assert close(
        legacy_ppo.mean_non_score_reward(lp, ref, mask, kl_coef=beta), _masked_mean(non_score, mask.double())
    )
    assert close(sampled_sequence_entropy(lp, mask), (-lp * mask).sum(-1).mean())
    assert close(legacy_ppo.mean_scores(scores), scores.mean())
    assert close(legacy_ppo.std_scores(scores), scores.std())
    values = torch.randn(b, t, generator=g, dtype=torch.float64)
    for whiten in (False, True):
        v, a, r = _trl_compute_advantages(values, rewards, mask.double(), 1.0, 0.95, whiten)
        ours = legacy_ppo.compute_advantages(values, rewards, mask, whiten_rewards=whiten)
        assert (
            close(ours["values"], v)
            and close(ours["returns"], r, 1e-6)
            and close(ours["advantages"], a, 1e-6)
        )


def test_kl_penalty_variants() -> None:
    lp = torch.tensor([[-1.0, -2.0]], dtype=torch.float64)
    ref = torch.tensor([[-1.5, -1.0]], dtype=torch.float64)
    mask = torch.ones(1, 2, dtype=torch.bool)
    assert close(legacy_ppo.objective_kl(lp, ref, mask, "kl"), -0.5)
    assert close(legacy_ppo.objective_kl(lp, ref, mask, "abs"), 1.5)
    assert close(legacy_ppo.objective_kl(lp, ref, mask, "mse"), 0.5 * (0.25 + 1.0))
    logits = torch.tensor([[[2.0, 0.0, -1.0]]], dtype=torch.float64)
    ref_logits = torch.tensor([[[0.0, 1.0, 0.0]]], dtype=torch.float64)
    full = legacy_ppo.objective_kl(logits, ref_logits, torch.ones(1, 1, dtype=torch.bool), "full")
    p, q = logits.softmax(-1), ref_logits.softmax(-1)
    assert close(full, (p * (p.log() - q.log())).sum())
    with pytest.raises(ValueError, match="unknown kl_penalty"):
        legacy_ppo.kl_penalty(lp, ref, "l2")  # type: ignore[arg-type]


def test_adaptive_kl_controller() -> None:
    # kl above target by more than 20%: the error is clipped to +0.2
    assert close(
        legacy_ppo.adaptive_kl_update(0.2, 12.0, 256, target=6.0, horizon=10000),
        0.2 * (1 + 0.2 * 256 / 10000),
    )
    assert close(
        legacy_ppo.adaptive_kl_update(0.2, 5.4, 100, target=6.0, horizon=1000), 0.2 * (1 - 0.1 * 0.1)
    )
    kls = torch.tensor([12.0, 6.0, 0.0])
    logged = legacy_ppo.adaptive_kl_coefs(kls, init_kl_coef=0.2, n_steps=256)
    expected = [0.2, 0.2 * 1.00512, 0.2 * 1.00512]  # read before each update; kl == target leaves it
    assert close(logged, expected, 1e-12)
    assert close(legacy_ppo.adaptive_kl_coefs(kls, adap_kl_ctrl=False), [0.2, 0.2, 0.2])


def test_explained_variance_properties() -> None:
    g = torch.Generator().manual_seed(3)
    returns = torch.randn(50, generator=g, dtype=torch.float64)
    assert close(legacy_ppo.explained_variance(returns, returns), 1.0)
    assert close(legacy_ppo.explained_variance(returns + 3.0, returns), 1.0)  # a constant offset is ignored
    assert close(legacy_ppo.explained_variance(torch.zeros(50, dtype=torch.float64), returns), 0.0)
    assert math.isnan(legacy_ppo.explained_variance(returns, torch.ones(50, dtype=torch.float64)).item())
    # v0.7's variant is not offset-invariant: the numerator is a mean squared error
    mask = torch.ones(1, 50, dtype=torch.bool)
    assert close(legacy_ppo.val_var_explained(returns.view(1, 50), returns.view(1, 50), mask), 1.0)
    assert legacy_ppo.val_var_explained(returns.view(1, 50) + 3.0, returns.view(1, 50), mask).item() < 0


@settings(max_examples=50, deadline=None)
@given(
    values=st.lists(st.floats(min_value=-100, max_value=100), min_size=3, max_size=20),
    seed=st.integers(0, 100),
)
def test_explained_variance_is_at_most_one(values: list[float], seed: int) -> None:
    returns = torch.tensor(values, dtype=torch.float64)
    g = torch.Generator().manual_seed(seed)
    predictions = torch.randn(len(values), generator=g, dtype=torch.float64)
    ev = legacy_ppo.explained_variance(predictions, returns)
    assert math.isnan(ev.item()) or ev.item() <= 1.0 + 1e-12


def test_env_and_tokens_statistics() -> None:
    rewards = torch.tensor([1.0, 2.0, 4.0])
    assert close(legacy_ppo.reward_mean(rewards), 7 / 3, 1e-6)
    assert close(
        legacy_ppo.reward_std(rewards), torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64).std(), 1e-6
    )
    assert math.isnan(legacy_ppo.reward_std(torch.tensor([1.0])).item())
    assert close(legacy_ppo.reward_dist(rewards), [1.0, 2.0, 4.0])
    lengths = torch.tensor([3, 5, 10])
    assert close(legacy_ppo.lengths_mean(lengths), 6.0)
    assert close(legacy_ppo.lengths_std(lengths), math.sqrt(13.0))
    assert close(legacy_ppo.length_histogram(lengths), [3.0, 5.0, 10.0])
    assert close(legacy_ppo.logprobs_histogram(torch.tensor([[-1.0, -2.0]])), [-1.0, -2.0])
    assert close(legacy_ppo.advantages_histogram(torch.tensor([1.0, float("nan")])), [1.0, -1.0])


def test_single_token_minibatch_variance_is_nan() -> None:
    returns = torch.tensor([[[1.0, 2.0]]], dtype=torch.float64)
    one = torch.tensor([[[True, False]]])
    assert math.isnan(legacy_ppo.returns_var(returns, one).item())  # TRL divides by zero here


@settings(max_examples=50, deadline=None)
@given(
    values=st.lists(st.floats(min_value=-100, max_value=100), min_size=3, max_size=20),
    offset=st.floats(-5, 5),
)
def test_perfect_value_predictions_give_explained_variance_one(values: list[float], offset: float) -> None:
    returns = torch.tensor(values, dtype=torch.float64)
    if returns.var() < 1e-6:
        return  # no variance to explain: NaN by convention (tested above)
    assert close(legacy_ppo.explained_variance(returns, returns), 1.0, 1e-9)
    assert close(legacy_ppo.explained_variance(returns + offset, returns), 1.0, 1e-6)
    mask = torch.ones(1, len(values), dtype=torch.bool)
    assert close(legacy_ppo.val_var_explained(returns.view(1, -1), returns.view(1, -1), mask), 1.0, 1e-12)

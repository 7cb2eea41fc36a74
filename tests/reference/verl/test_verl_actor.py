"""verl `actor/*` references against a port of verl's loss code and its engine-path reduction."""

from __future__ import annotations

import math

import _verl_port as port
import numpy as np
import pytest
import torch

from metrics_registry.reference.verl import actor, aggregation, legacy, reward_kl

MODES = ["token-mean", "token-sum", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"]


def _batch(seed: int, rows: int = 16, width: int = 9, spread: float = 0.6) -> dict[str, torch.Tensor]:
    """A step's rows with uneven response lengths (one fully masked row), right padding holding garbage."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, width + 1, (rows,), generator=g)
    lengths[3] = 0
    mask = torch.arange(width).unsqueeze(0) < lengths.unsqueeze(-1)
    old = -torch.rand(rows, width, generator=g, dtype=torch.float64) * 3
    new = old + torch.randn(rows, width, generator=g, dtype=torch.float64) * spread
    adv = torch.randn(rows, 1, generator=g, dtype=torch.float64).expand(rows, width).clone()
    ref = old + torch.randn(rows, width, generator=g, dtype=torch.float64) * 0.3
    garbage = ~mask
    new = torch.where(garbage, torch.full_like(new, 7.0), new)
    return {"log_probs": new, "old_log_probs": old, "advantages": adv, "response_mask": mask, "ref": ref}


def _engine(
    b: dict[str, torch.Tensor], mode: str, mini: int, dp: int, micro: int, **clip: float
) -> dict[str, float]:
    """verl: ppo_loss per micro-batch, Metric SUM/MEAN, aggregate_dp per mini-batch, reduce_metrics."""
    rows = b["response_mask"].shape[0]
    per_mini: dict[str, list[float]] = {
        k: [] for k in ("pg_loss", "pg_clipfrac", "pg_clipfrac_lower", "ppo_kl")
    }
    for start in range(0, rows, mini):
        mb = range(start, start + mini)
        tokens = b["response_mask"][list(mb)].sum()
        info = {"dp_size": dp, "batch_num_tokens": tokens, "global_batch_size": mini}
        lists: dict[str, list[list[float]]] = {k: [[] for _ in range(dp)] for k in per_mini}
        per_rank = mini // dp
        for r in range(dp):
            for k in range(0, per_rank, micro):
                idx = list(range(start + r * per_rank + k, start + r * per_rank + k + micro))
                m = b["response_mask"][idx]
                width = max(int(m.sum(-1).max()), 1)  # no_padding_2_padding pads to the micro-batch's longest
                pg_loss, pg_metrics = port.compute_policy_loss_vanilla(
                    b["old_log_probs"][idx][:, :width],
                    b["log_probs"][idx][:, :width],
                    b["advantages"][idx][:, :width],
                    m[:, :width],
                    loss_agg_mode=mode,
                    global_batch_info=info,
                    **clip,
                )
                lists["pg_loss"][r].append(float(pg_loss))
                for name in ("pg_clipfrac", "pg_clipfrac_lower", "ppo_kl"):
                    lists[name][r].append(pg_metrics[f"actor/{name}"])
        per_mini["pg_loss"].append(port.aggregate_dp(lists["pg_loss"], "sum"))
        for name in ("pg_clipfrac", "pg_clipfrac_lower", "ppo_kl"):
            per_mini[name].append(port.aggregate_dp(lists[name], "mean"))
    reduced = port.reduce_metrics({f"actor/{k}": v for k, v in per_mini.items()})
    return {k.split("/", 1)[1]: float(v) for k, v in reduced.items()}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("mini", "dp", "micro"), [(16, 1, 16), (8, 2, 2), (16, 4, 1), (4, 2, 1)])
def test_policy_metrics_match_verl(mode: str, mini: int, dp: int, micro: int) -> None:
    b = _batch(seed=hash((mode, mini, dp, micro)) % 1000)
    clip = {"clip_ratio_low": 0.2, "clip_ratio_high": 0.28, "clip_ratio_c": 1.5}
    ours = actor.policy_metrics(
        b["log_probs"],
        b["old_log_probs"],
        b["advantages"],
        b["response_mask"],
        loss_agg_mode=mode,
        mini_batch_size=mini,
        dp_size=dp,
        micro_batch_size=micro,
        **clip,
    )
    theirs = _engine(b, mode, mini, dp, micro, **clip)
    for name, value in theirs.items():
        assert math.isclose(ours[name], value, rel_tol=1e-9, abs_tol=1e-6), (name, ours[name], value)


def test_pg_loss_token_mean_is_the_token_weighted_mini_batch_mean() -> None:
    b = _batch(seed=3)
    m = b["response_mask"]
    r = torch.exp(torch.clamp(b["log_probs"] - b["old_log_probs"], -20, 20))
    a = b["advantages"]
    ppo = torch.maximum(-a * r, -a * r.clamp(0.8, 1.2))
    losses = torch.where(a < 0, torch.minimum(ppo, -a * 3.0), ppo)
    direct = [float(losses[s : s + 8][m[s : s + 8]].mean()) for s in (0, 8)]
    ours = actor.policy_metrics(
        b["log_probs"], b["old_log_probs"], a, m, mini_batch_size=8, dp_size=2, micro_batch_size=1
    )
    assert math.isclose(ours["pg_loss"], sum(direct) / 2, rel_tol=1e-12)


def test_clip_fractions_are_means_of_micro_batch_means_not_token_weighted() -> None:
    """The wrong reduction (token-weighted over the mini-batch) gives a different number."""
    b = _batch(seed=11, spread=1.0)
    m = b["response_mask"]
    ours = actor.policy_metrics(
        b["log_probs"],
        b["old_log_probs"],
        b["advantages"],
        m,
        mini_batch_size=16,
        dp_size=1,
        micro_batch_size=2,
    )
    kl = (b["old_log_probs"] - b["log_probs"])[m]
    assert not math.isclose(ours["ppo_kl"], float(kl.mean()), rel_tol=1e-3)
    per_micro = [
        float((b["old_log_probs"] - b["log_probs"])[k : k + 2][m[k : k + 2]].sum()) for k in range(0, 16, 2)
    ]
    counts = [int(m[k : k + 2].sum()) for k in range(0, 16, 2)]
    expected = np.mean([s / (c + 1e-8) for s, c in zip(per_micro, counts, strict=True)])
    assert math.isclose(ours["ppo_kl"], float(expected), rel_tol=1e-9)


def test_ppo_kl_is_k1_of_old_to_new_not_trl_approxkl() -> None:
    old = torch.tensor([[-1.0, -2.0]], dtype=torch.float64)
    new = torch.tensor([[-1.5, -1.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True]])
    ours = actor.policy_metrics(new, old, torch.zeros(1, 2, dtype=torch.float64), mask)
    assert math.isclose(ours["ppo_kl"], (0.5 - 1.0) / 2, rel_tol=1e-7)  # negative: k1 can be
    trl_approxkl = 0.5 * float(((new - old) ** 2).mean())
    assert not math.isclose(ours["ppo_kl"], trl_approxkl)


def test_pg_clipfrac_lower_counts_dual_clip_not_low_side_clip() -> None:
    old = torch.zeros(1, 4, dtype=torch.float64)
    # ratios 0.5 (below 1 - eps), 1.0, 4.0 (above c = 3), 2.0 (above 1 + eps, below c); all A < 0
    new = torch.log(torch.tensor([[0.5, 1.0, 4.0, 2.0]], dtype=torch.float64))
    adv = -torch.ones(1, 4, dtype=torch.float64)
    mask = torch.ones(1, 4, dtype=torch.bool)
    ours = actor.policy_metrics(new, old, adv, mask)
    assert ours["pg_clipfrac_lower"] == pytest.approx(0.25)  # only ratio 4 > c
    assert ours["pg_clipfrac"] == pytest.approx(0.25)  # only ratio 0.5 (A < 0, low side)


@pytest.mark.parametrize(
    "kl_type", ["kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3", "k3+", "low_var_kl+"]
)
def test_kl_penalty_matches_verl(kl_type: str) -> None:
    b = _batch(seed=5, spread=3.0)
    assert torch.allclose(
        actor.kl_penalty(b["log_probs"], b["ref"], kl_type),
        port.kl_penalty(b["log_probs"], b["ref"], kl_type),
    )


@pytest.mark.parametrize("mode", MODES)
def test_kl_loss_and_entropy_loss_match_verl(mode: str) -> None:
    b = _batch(seed=21)
    mini, dp, micro = 8, 2, 2
    kld = port.kl_penalty(b["log_probs"], b["ref"], "low_var_kl")
    entropy = torch.rand(
        b["log_probs"].shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1)
    )
    expected: dict[str, list[float]] = {"kl": [], "entropy": []}
    for start in range(0, 16, mini):
        tokens = b["response_mask"][start : start + mini].sum()
        info = {"dp_size": dp, "batch_num_tokens": tokens, "global_batch_size": mini}
        grid: dict[str, list[list[float]]] = {"kl": [[], []], "entropy": [[], []]}
        for r in range(dp):
            for k in range(0, mini // dp, micro):
                idx = list(range(start + r * (mini // dp) + k, start + r * (mini // dp) + k + micro))
                m = b["response_mask"][idx]
                w = max(int(m.sum(-1).max()), 1)
                grid["kl"][r].append(float(port.agg_loss(kld[idx][:, :w], m[:, :w], mode, **info)))
                grid["entropy"][r].append(float(port.agg_loss(entropy[idx][:, :w], m[:, :w], mode, **info)))
        for name, values in grid.items():
            expected[name].append(port.aggregate_dp(values, "sum"))
    layout = {"loss_agg_mode": mode, "mini_batch_size": mini, "dp_size": dp, "micro_batch_size": micro}
    # verl adds 1e-8 to an integer token count (a bool mask), which makes that divisor float32: 1e-7 relative
    kl = actor.kl_loss(b["log_probs"], b["ref"], b["response_mask"], **layout)
    assert math.isclose(kl, np.mean(expected["kl"]), rel_tol=1e-7)
    ent = actor.update_entropy(entropy, b["response_mask"], **layout)
    assert math.isclose(ent, np.mean(expected["entropy"]), rel_tol=1e-7)


def test_old_policy_entropy_depends_on_loss_agg_mode() -> None:
    entropy = torch.tensor([[1.0, 1.0, 1.0, 0.0], [2.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0]]).bool()
    assert actor.old_policy_entropy(entropy, mask) == pytest.approx(5 / 4)
    assert actor.old_policy_entropy(entropy, mask, loss_agg_mode="seq-mean-token-sum") == pytest.approx(2.5)
    assert actor.old_policy_entropy(entropy, mask, loss_agg_mode="seq-mean-token-mean") == pytest.approx(1.5)
    for mode in MODES:
        ours = actor.old_policy_entropy(entropy, mask, loss_agg_mode=mode)
        assert math.isclose(ours, float(port.agg_loss(entropy, mask.to(torch.float64), mode)), rel_tol=1e-12)


@pytest.mark.parametrize("kl_type", ["kl", "low_var_kl", "mse"])
def test_reward_kl_penalty_matches_verl(kl_type: str) -> None:
    b = _batch(seed=8)
    ours = reward_kl.reward_kl_penalty(
        b["old_log_probs"], b["ref"], b["response_mask"], kl_penalty_type=kl_type
    )
    mask = b["response_mask"].to(torch.float64)
    theirs = port.apply_kl_penalty_metric(b["old_log_probs"], b["ref"], mask, kl_type)
    assert math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)


def test_reward_kl_coef_is_logged_before_the_adaptive_update() -> None:
    coefs = reward_kl.reward_kl_penalty_coefs(
        [0.2, 0.0], kl_coef=0.1, target_kl=0.1, horizon=100, batch_size=10
    )
    assert coefs == pytest.approx([0.1, 0.1 * (1 + 0.2 * 10 / 100)])
    assert reward_kl.reward_kl_penalty_coefs([5.0, 5.0], kl_coef=0.1) == [0.1, 0.1]


def test_legacy_dp_actor_pg_loss_is_inflated_by_the_number_of_optimizer_steps() -> None:
    """verl #5766: v0.7.x legacy dp_actor summed the mini-batch means over mini-batches and epochs."""
    steps = [[0.4, 0.2], [0.1, 0.3], [0.5, 0.5]]  # 3 optimizer steps, 2 micro-batches each
    ours = legacy.legacy_dp_actor_pg_loss(steps, loss_scale_factor=0.5)
    assert math.isclose(ours, port.legacy_dp_actor_loop(steps, gradient_accumulation=2))
    mean_of_steps = np.mean([np.mean(s) for s in steps])
    assert math.isclose(ours, 3 * mean_of_steps)


def test_reduce_metrics_picks_max_and_min_by_substring() -> None:
    assert aggregation.reduce_metrics("actor/perf/max_memory_allocated_gb", [1, 3, 2]) == 3
    assert aggregation.reduce_metrics("actor/pg_loss", [1, 3, 2]) == 2


def test_layout_rejects_a_batch_that_does_not_split() -> None:
    with pytest.raises(ValueError, match="do not split"):
        aggregation.micro_batch_rows(10, 4, 1, None)

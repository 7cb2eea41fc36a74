"""TRL GRPOTrainer metrics against a verbatim port of trl 1.16 and against invariants."""

from __future__ import annotations

import math

import pytest
import torch
from _refutil import DTYPE_TOL, LOW_PRECISION, close, prefix_mask
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.distributions import Categorical

from metrics_registry.reference import grpo

# ------------------------------------------------ trl/trainer/utils.py (1.16.0)


def _trl_nanstd(tensor, dim=None, keepdim=False):
    mean = torch.nanmean(tensor, dim=dim, keepdim=True)
    variance = torch.nanmean((tensor - mean) ** 2, dim=dim, keepdim=True)
    count = torch.sum(~torch.isnan(tensor), dim=dim, keepdim=True)
    correction = count / (count - 1)
    correction = torch.where(count > 1, correction, torch.full_like(correction, float("nan")))
    variance *= correction
    std = torch.sqrt(variance)
    if keepdim:
        return std
    if dim is None:
        return std.squeeze()
    return std.squeeze(dim)


def _trl_nanmin(t):
    if torch.isnan(t).all():
        return torch.tensor(float("nan"), dtype=t.dtype)
    return torch.min(t[~torch.isnan(t)])


def _trl_nanmax(t):
    if torch.isnan(t).all():
        return torch.tensor(float("nan"), dtype=t.dtype)
    return torch.max(t[~torch.isnan(t)])


# ----------------------------- GRPOTrainer._generate_and_score_completions (1.16.0)


def _trl_rewards(rewards_per_func, reward_weights, num_generations, scale_rewards, aggregation):
    unscorable_mask = torch.isnan(rewards_per_func).all(dim=1)
    if aggregation == "sum_then_normalize":
        rewards = (rewards_per_func * reward_weights.unsqueeze(0)).nansum(dim=1)
        rewards[unscorable_mask] = torch.nan
        mean_grouped_rewards = torch.nanmean(rewards.view(-1, num_generations), dim=1)
        mean_grouped_rewards = mean_grouped_rewards.repeat_interleave(num_generations, dim=0)
        if scale_rewards in ["group", "none"]:
            if num_generations > 1:
                std_rewards = _trl_nanstd(rewards.view(-1, num_generations), dim=1)
                std_rewards = std_rewards.repeat_interleave(num_generations, dim=0)
            else:
                std_rewards = torch.zeros_like(rewards)
        else:
            std_rewards = (
                _trl_nanstd(rewards).expand_as(rewards) if rewards.numel() > 1 else torch.zeros_like(rewards)
            )
        advantages = rewards - mean_grouped_rewards
        if scale_rewards != "none":
            advantages = advantages / (std_rewards + 1e-4)
        is_std_zero = torch.isclose(std_rewards, torch.zeros_like(std_rewards))
    else:
        grouped = rewards_per_func.view(-1, num_generations, rewards_per_func.shape[1])
        mean_k = torch.nanmean(grouped, dim=1, keepdim=True)
        std_k = _trl_nanstd(grouped, dim=1, keepdim=True) if num_generations > 1 else torch.zeros_like(mean_k)
        reward_k = (grouped - mean_k) / (std_k + 1e-4)
        reward_k = reward_k.view(-1, rewards_per_func.shape[1])
        rewards = (reward_k * reward_weights.unsqueeze(0)).nansum(dim=1)
        rewards[unscorable_mask] = torch.nan
        std_rewards = (
            _trl_nanstd(rewards).expand_as(rewards) if rewards.numel() > 1 else torch.zeros_like(rewards)
        )
        advantages = (rewards - torch.nanmean(rewards)) / (std_rewards + 1e-4)
        is_std_zero = torch.isclose(std_rewards, torch.zeros_like(std_rewards))
    advantages = torch.nan_to_num(advantages, nan=0.0)
    logged = {}
    for i in range(rewards_per_func.shape[1]):
        logged[f"mean_{i}"] = torch.nanmean(rewards_per_func[:, i])
        logged[f"std_{i}"] = _trl_nanstd(rewards_per_func[:, i])
    rewards = (rewards_per_func * reward_weights.unsqueeze(0)).nansum(dim=1)
    rewards[unscorable_mask] = torch.nan
    logged["reward"] = torch.nanmean(rewards)
    logged["reward_std"] = _trl_nanstd(rewards)
    logged["frac_reward_zero_std"] = is_std_zero.double().mean()
    logged["advantages"] = advantages
    return logged


# ------------------------------------------------ GRPOTrainer._compute_loss (1.16.0)


def _trl_loss_metrics(per_token_logps, old_per_token_logps, ref_per_token_logps, advantages, mask, cfg):  # noqa: PLR0917
    advantages = advantages.unsqueeze(1)
    log_ratio = per_token_logps - old_per_token_logps
    if cfg["level"] == "token":
        log_importance_weights = log_ratio
    else:
        log_importance_weights = (log_ratio * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)
        log_importance_weights = log_importance_weights.unsqueeze(-1)
    coef_1 = torch.exp(log_importance_weights)
    per_token_kl = (
        torch.exp(ref_per_token_logps - per_token_logps) - (ref_per_token_logps - per_token_logps) - 1
    )
    if cfg["bias_correction"]:
        per_token_kl = per_token_kl * coef_1
    coef_2 = torch.clamp(coef_1, 1 - cfg["eps_low"], 1 + cfg["eps_high"])
    per_token_loss = -torch.min(coef_1 * advantages, coef_2 * advantages) + cfg["beta"] * per_token_kl
    bnpo = (per_token_loss * mask).sum() / mask.sum().clamp(min=1.0)
    grpo_loss = ((per_token_loss * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).mean()

    def masked_seq_mean(x):
        if x.shape[1] == 1:
            return x.squeeze(1)
        return (x * mask).sum(-1) / mask.sum(-1)

    def global_masked_mean(x):
        if x.shape[1] == 1:
            local_sum, local_count = x.sum(), torch.tensor(float(x.shape[0]))
        else:
            local_sum, local_count = (x * mask).sum(), mask.sum().double()
        return local_sum / local_count.clamp(min=1.0)

    is_low = (coef_1 < 1 - cfg["eps_low"]) & (advantages < 0)
    is_high = (coef_1 > 1 + cfg["eps_high"]) & (advantages > 0)
    return {
        "kl": global_masked_mean(per_token_kl),
        "low_mean": global_masked_mean(is_low.double()),
        "high_mean": global_masked_mean(is_high.double()),
        "region_mean": global_masked_mean((is_low | is_high).double()),
        "low_min": _trl_nanmin(masked_seq_mean(is_low.double())),
        "high_max": _trl_nanmax(masked_seq_mean(is_high.double())),
        "bnpo": bnpo,
        "grpo": grpo_loss,
    }


def _rewards(seed: int, groups: int = 4, n: int = 4, funcs: int = 2, nan_share: float = 0.2) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    rewards = torch.randint(0, 3, (groups * n, funcs), generator=g).double()
    rewards[torch.rand(groups * n, funcs, generator=g) < nan_share] = float("nan")
    rewards[:n, :] = 1.0  # the first group is constant: zero spread
    return rewards


@pytest.mark.parametrize(
    ("scale", "aggregation"),
    [("group", "sum_then_normalize"), ("batch", "sum_then_normalize"), ("none", "sum_then_normalize"),
     ("group", "normalize_then_sum")],
)  # fmt: skip
def test_reward_statistics_and_advantages_match_trl(scale: str, aggregation: str) -> None:
    rewards = _rewards(0)
    rewards[5, :] = float("nan")  # an unscorable completion
    weights = torch.tensor([1.0, 0.5], dtype=torch.float64)
    trl = _trl_rewards(rewards, weights, 4, scale, aggregation)
    adv = grpo.group_advantages(rewards, 4, weights, scale, aggregation)  # type: ignore[arg-type]
    # TRL's nanstd computes the Bessel factor count / (count - 1) of integer counts in float32
    assert close(adv["advantages"], trl["advantages"], 1e-6)
    frac = grpo.frac_reward_zero_std(rewards, 4, weights, scale, aggregation)  # type: ignore[arg-type]
    assert close(frac, trl["frac_reward_zero_std"])
    assert close(grpo.reward_mean(rewards, weights), trl["reward"])
    assert close(grpo.reward_std(rewards, weights), trl["reward_std"], 1e-7)
    for i in range(2):
        assert close(grpo.reward_func_mean(rewards[:, i]), trl[f"mean_{i}"])
        assert close(grpo.reward_func_std(rewards[:, i]), trl[f"std_{i}"], 1e-7)
    assert adv["advantages"][5].item() == 0.0  # unscorable: advantage 0


def test_nanstd_matches_trl() -> None:
    x = _rewards(1, nan_share=0.4)
    assert close(grpo.nanstd(x), _trl_nanstd(x), 1e-7)
    assert close(grpo.nanstd(x.view(-1, 4, 2), dim=1), _trl_nanstd(x.view(-1, 4, 2), dim=1), 1e-7)
    assert math.isnan(grpo.nanstd(torch.tensor([1.0, float("nan")])).item())


def test_one_completion_per_group_and_unscorable_edges() -> None:
    rewards = torch.tensor([[1.0], [2.0], [float("nan")]], dtype=torch.float64)
    out = grpo.group_advantages(rewards, 1)
    assert torch.equal(out["advantages"], torch.zeros(3, dtype=torch.float64))
    assert grpo.frac_reward_zero_std(rewards, 1).item() == 1.0
    assert math.isnan(grpo.reward_mean(torch.full((2, 1), float("nan"))).item())
    # before 1.6.0 unscorable completions counted as 0
    mixed = torch.tensor([[1.0], [float("nan")]], dtype=torch.float64)
    assert grpo.reward_mean(mixed).item() == 1.0
    assert grpo.reward_mean(mixed, unscorable_as_zero=True).item() == 0.5
    # a group with a single scorable completion has NaN spread: not counted as zero-spread
    group = torch.tensor([[1.0], [float("nan")], [2.0], [2.0]], dtype=torch.float64)
    assert grpo.frac_reward_zero_std(group, 2).item() == 0.5


def test_reward_std_before_0_27_is_the_mean_group_std() -> None:
    r = torch.tensor([1.0, 1.0, 0.0, 2.0], dtype=torch.float64)
    assert close(grpo.reward_std_before_0_27(r, 2), (0.0 + math.sqrt(2.0)) / 2)
    assert close(grpo.reward_std_before_0_27(r, 2, scale_rewards="batch"), r.std())


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), permutation_seed=st.integers(0, 10_000))
def test_permutation_inside_a_group_changes_nothing(seed: int, permutation_seed: int) -> None:
    rewards = _rewards(seed)
    g = torch.Generator().manual_seed(permutation_seed)
    order = torch.cat([4 * k + torch.randperm(4, generator=g) for k in range(4)])
    shuffled = rewards[order]
    for scale in ("group", "batch", "none"):
        a = grpo.group_advantages(rewards, 4, scale_rewards=scale)["advantages"]  # type: ignore[arg-type]
        b = grpo.group_advantages(shuffled, 4, scale_rewards=scale)["advantages"]  # type: ignore[arg-type]
        assert close(a[order], b, 1e-12)
        f = grpo.frac_reward_zero_std(rewards, 4, scale_rewards=scale)  # type: ignore[arg-type]
        assert f.item() == grpo.frac_reward_zero_std(shuffled, 4, scale_rewards=scale).item()  # type: ignore[arg-type]
        assert 0.0 <= f.item() <= 1.0
    assert close(grpo.reward_mean(rewards), grpo.reward_mean(shuffled), 1e-12)
    assert close(grpo.reward_std(rewards), grpo.reward_std(shuffled), 1e-12)


def _loss_inputs(seed: int, b: int = 5, t: int = 6, spread: float = 0.3):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, t + 1, (b,), generator=g)
    lengths[0] = t
    old = -torch.rand(b, t, generator=g, dtype=torch.float64) * 2
    return {
        "mask": prefix_mask(lengths, t),
        "old": old,
        "new": old + spread * torch.randn(b, t, generator=g, dtype=torch.float64),
        "ref": old + 0.2 * torch.randn(b, t, generator=g, dtype=torch.float64),
        "adv": torch.randn(b, generator=g, dtype=torch.float64),
    }


@pytest.mark.parametrize(
    ("level", "bias_correction"), [("token", False), ("token", True), ("sequence", True)]
)
def test_loss_time_metrics_match_trl(level: str, bias_correction: bool) -> None:
    d = _loss_inputs(0)
    d["mask"][3] = False  # an all-masked completion
    cfg = {"level": level, "bias_correction": bias_correction, "eps_low": 0.2, "eps_high": 0.28, "beta": 0.04}
    trl = _trl_loss_metrics(d["new"], d["old"], d["ref"], d["adv"], d["mask"].double(), cfg)
    kl = grpo.kl_mean(
        d["new"], d["ref"], d["mask"], old_logprobs=d["old"], use_bias_correction_kl=bias_correction,
        importance_sampling_level=level,
    )  # type: ignore[arg-type]  # fmt: skip
    assert close(kl, trl["kl"])
    ratios = grpo.clip_ratios(
        d["new"],
        d["old"],
        d["adv"],
        d["mask"],
        epsilon_low=0.2,
        epsilon_high=0.28,
        importance_sampling_level=level,
    )  # type: ignore[arg-type]
    for key in ("low_mean", "high_mean", "region_mean", "low_min", "high_max"):
        assert close(ratios[key], trl[key]), key
    for loss_type in ("bnpo", "grpo"):
        out = grpo.policy_loss(
            d["new"], d["old"], d["adv"], d["mask"], loss_type=loss_type, epsilon_high=0.28, beta=0.04,
            ref_logprobs=d["ref"], use_bias_correction_kl=bias_correction, importance_sampling_level=level,
        )  # type: ignore[arg-type]  # fmt: skip
        assert close(out["policy_loss"], trl[loss_type]), loss_type


def test_clip_ratio_rules_and_the_0_16_inversion() -> None:
    d = _loss_inputs(1, b=8, t=7, spread=0.6)
    r = grpo.clip_ratios(d["new"], d["old"], d["adv"], d["mask"])
    assert close(r["region_mean"], r["low_mean"] + r["high_mean"], 1e-12)  # disjoint events
    old_rule = grpo.clip_ratio_0_16(d["new"], d["old"], d["adv"], d["mask"])
    # outside the band (and A != 0) exactly one of the two rules fires
    ratio = torch.exp(d["new"] - d["old"])
    outside = ((ratio < 0.8) | (ratio > 1.2)) & d["mask"]
    assert close(old_rule + r["region_mean"], outside.sum().double() / d["mask"].sum().double(), 1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), eps=st.floats(min_value=0.05, max_value=0.5))
def test_clip_fractions_in_unit_interval_and_zero_on_policy(seed: int, eps: float) -> None:
    d = _loss_inputs(seed, spread=1.0)
    r = grpo.clip_ratios(d["new"], d["old"], d["adv"], d["mask"], epsilon_low=eps)
    for key, value in r.items():
        assert 0.0 <= value.item() <= 1.0, key
    on_policy = grpo.clip_ratios(d["new"], None, d["adv"], d["mask"], epsilon_low=eps)
    assert all(v.item() == 0.0 for v in on_policy.values())
    assert grpo.cispo_clip_ratio(d["new"], None, d["adv"], d["mask"], epsilon_high=1.0 + eps).item() == 0.0
    # on-policy the importance weight is 1: bias correction changes nothing, VESPO weights are 1
    plain = grpo.kl_mean(d["new"], d["ref"], d["mask"])
    corrected = grpo.kl_mean(
        d["new"], d["ref"], d["mask"], old_logprobs=d["new"], use_bias_correction_kl=True
    )
    assert close(plain, corrected, 1e-12)
    assert close(grpo.vespo_phi_seq_mean(d["new"], d["new"], d["adv"], d["mask"]), 1.0, 1e-12)


def test_global_masked_mean_edges() -> None:
    x = torch.tensor([[1.0, 2.0]])
    assert grpo.global_masked_mean(x, torch.zeros(1, 2, dtype=torch.bool)).item() == 0.0  # count clamped to 1
    r = grpo.clip_ratios(x, x, torch.tensor([1.0]), torch.zeros(1, 2, dtype=torch.bool))
    assert math.isnan(r["low_min"].item()) and r["region_mean"].item() == 0.0


def test_entropy_matches_torch_distributions() -> None:
    g = torch.Generator().manual_seed(2)
    logits = torch.randn(3, 4, 9, generator=g, dtype=torch.float64)
    mask = prefix_mask([4, 2, 1], 4)
    expected = Categorical(logits=logits / 0.8).entropy()[mask].mean()
    assert close(grpo.entropy_mean(logits, mask, temperature=0.8), expected, 1e-12)


def test_vespo_weight_formula() -> None:
    new = torch.tensor([[-1.0, -2.0], [-0.5, -0.5]], dtype=torch.float64)
    old = torch.tensor([[-1.5, -2.0], [-0.5, -0.1]], dtype=torch.float64)
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    mask = torch.ones(2, 2, dtype=torch.bool)
    w = torch.exp(torch.tensor([0.5, -0.4], dtype=torch.float64))
    phi = torch.stack(
        [math.e**3 * w[0] ** 2 * torch.exp(-3 * w[0]), math.e**2 * w[1] ** 3 * torch.exp(-2 * w[1])]
    )
    assert close(grpo.vespo_phi_seq_mean(new, old, adv, mask), phi.mean(), 1e-12)


def test_policy_loss_types() -> None:
    d = _loss_inputs(3)
    args = (d["new"], d["old"], d["adv"], d["mask"])
    bnpo = grpo.policy_loss(*args, loss_type="bnpo")
    dapo = grpo.policy_loss(*args, loss_type="dapo")
    assert close(bnpo["policy_loss"], dapo["policy_loss"], 1e-12)  # one micro-batch, default normaliser
    dr = grpo.policy_loss(*args, loss_type="dr_grpo", max_completion_length=12)
    assert close(dr["policy_loss"], bnpo["policy_loss"] * d["mask"].sum() / (5 * 12), 1e-12)
    scaled = grpo.policy_loss(*args, loss_type="bnpo", gradient_accumulation_steps=4)
    assert close(scaled["loss"], bnpo["policy_loss"] / 4, 1e-12)
    entropies = torch.full((5, 6), 2.0, dtype=torch.float64)
    bonus = grpo.policy_loss(*args, loss_type="bnpo", entropies=entropies, entropy_coef=0.1)
    assert close(bonus["loss"], bnpo["policy_loss"] - 0.2, 1e-12)
    on_policy = grpo.policy_loss(d["new"], None, d["adv"], d["mask"], loss_type="bnpo")
    token_adv = d["adv"].unsqueeze(1).expand(5, 6)
    assert close(on_policy["policy_loss"], -token_adv[d["mask"]].mean(), 1e-12)
    with pytest.raises(ValueError, match="unsupported loss_type"):
        grpo.policy_loss(*args, loss_type="sapo")  # type: ignore[arg-type]


def _trl_sampling(old, sampled, mask, mode, clip_min, clip_max):  # noqa: PLR0917
    per_token_logps_diff = torch.nan_to_num((old - sampled) * mask, nan=0.0)
    sequence_level_is = mode in ["sequence_mask", "sequence_truncate"]
    logps_diff = per_token_logps_diff.sum(dim=-1, keepdim=True) if sequence_level_is else per_token_logps_diff
    ratio = torch.exp(logps_diff)
    if mode in ["sequence_truncate", "token_truncate"]:
        ratio = torch.clamp(ratio, min=clip_min, max=clip_max)
    else:
        lo = clip_min if clip_min is not None else -math.inf
        hi = clip_max if clip_max is not None else math.inf
        ratio = ratio.masked_fill((ratio < lo) | (ratio > hi), value=0.0)
    delta = torch.abs(old - sampled)
    delta = delta[mask.bool() & ~torch.isnan(delta)]
    flat = ratio.flatten() if sequence_level_is else ratio[mask.bool()]
    return {
        "logp_difference_mean": delta.mean(),
        "logp_difference_max": delta.max(),
        "importance_sampling_ratio_min": flat.min(),
        "importance_sampling_ratio_mean": flat.mean(),
        "importance_sampling_ratio_max": flat.max(),
    }


@pytest.mark.parametrize("mode", ["sequence_mask", "sequence_truncate", "token_mask", "token_truncate"])
def test_sampling_statistics_match_trl(mode: str) -> None:
    d = _loss_inputs(4, spread=0.4)
    sampled = d["new"].clone()
    sampled[1, 0] = float("nan")  # a token vLLM could not score
    ours = grpo.sampling_stats(d["old"], sampled, d["mask"], mode=mode, clip_min=0.5, clip_max=1.5)  # type: ignore[arg-type]
    trl = _trl_sampling(d["old"], sampled, d["mask"].double(), mode, 0.5, 1.5)
    for key, value in trl.items():
        assert close(ours[key], value, 1e-12), key


def test_tools_entropy_controller_and_grad_norm() -> None:
    stats = grpo.tool_call_stats(torch.tensor([3, 1]), torch.tensor([1, 0]), num_completions=8)
    assert close(stats["call_frequency"], 0.5) and close(stats["failure_frequency"], 0.25)
    none = grpo.tool_call_stats(torch.tensor([0, 0]), torch.tensor([0, 0]), num_completions=8)
    assert none["failure_frequency"].item() == 0.0
    assert close(grpo.adaptive_entropy_coef(0.01, 1.0, 10, entropy_target=0.2), 0.015, 1e-12)
    assert close(grpo.adaptive_entropy_coef(0.01, 5.0, 10, entropy_target=0.2), 0.005, 1e-12)
    assert close(grpo.adaptive_entropy_coef(0.0, 5.0, 10, entropy_target=0.2), 0.0)
    g = torch.Generator().manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)).double()
    model(torch.randn(5, 3, generator=g, dtype=torch.float64)).square().sum().backward()
    grads = [p.grad for p in model.parameters()]
    expected = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e9)
    assert close(grpo.grad_norm(grads), expected, 1e-12)


@pytest.mark.parametrize("dtype", LOW_PRECISION)
def test_low_precision_inputs(dtype: torch.dtype) -> None:
    d = _loss_inputs(6)
    new, ref = d["new"].to(dtype), d["ref"].to(dtype)
    result = grpo.kl_mean(new, ref, d["mask"])
    assert result.dtype == dtype
    assert close(result.double(), grpo.kl_mean(new.double(), ref.double(), d["mask"]), 4 * DTYPE_TOL[dtype])
    big = torch.tensor([[[1e4, -1e4, 0.0]]], dtype=dtype)
    assert torch.isfinite(grpo.entropy_mean(big, torch.ones(1, 1, dtype=torch.bool)))

"""TRL PPOTrainer (PPOv2) metrics against a verbatim port of ``PPOTrainer.train`` and against invariants."""

from __future__ import annotations

import math

import pytest
import torch
from _refutil import DTYPE_TOL, LOW_PRECISION, close, prefix_mask, random_prefix_mask
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.distributions import Categorical

from metrics_registry.reference import ppo
from metrics_registry.reference.kl import sequence_kl_mean
from metrics_registry.reference.masked import masked_mean

INVALID_LOGPROB = 1.0


# ---------------------------------------------------------------- the TRL port
# Copied from trl/experimental/ppo/ppo_trainer.py (1.12.0), PPOTrainer.train, with
# the model calls replaced by given tensors. Kept literal on purpose, except `.float()` ->
# `.double()` so that the comparison can be exact in float64.


def _trl_masked_mean(values, mask):
    return (values * mask).sum() / mask.sum()


def _trl_masked_var(values, mask):
    mean = _trl_masked_mean(values, mask)
    variance = _trl_masked_mean((values - mean) ** 2, mask)
    mask_sum = mask.sum()
    return variance * (mask_sum / (mask_sum - 1))


def _trl_masked_whiten(values, mask, shift_mean=True):
    mean, var = _trl_masked_mean(values, mask), _trl_masked_var(values, mask)
    whitened = (values - mean) * torch.rsqrt(var + 1e-8)
    if not shift_mean:
        whitened += mean
    return whitened


def _trl_rollout(  # noqa: PLR0917
    logprobs, ref_logprobs, values, scores, sequence_lengths, kl_coef, kl_estimator, gamma, lam, whiten
):
    responses_shape = logprobs.shape
    response_idxs = torch.arange(responses_shape[1]).repeat(responses_shape[0], 1)
    padding_mask = response_idxs > sequence_lengths.unsqueeze(1)
    logprobs = torch.masked_fill(logprobs, padding_mask, INVALID_LOGPROB)
    ref_logprobs = torch.masked_fill(ref_logprobs, padding_mask, INVALID_LOGPROB)
    sequence_lengths_p1 = sequence_lengths + 1
    padding_mask_p1 = response_idxs > (sequence_lengths_p1.unsqueeze(1))
    values = torch.masked_fill(values, padding_mask_p1, 0)
    logr = ref_logprobs - logprobs
    kl = -logr if kl_estimator == "k1" else (logr.exp() - 1) - logr
    non_score_reward = -kl_coef * kl
    rewards = non_score_reward.clone()
    actual_start = torch.arange(rewards.size(0))
    actual_end = torch.where(sequence_lengths_p1 < rewards.size(1), sequence_lengths_p1, sequence_lengths)
    rewards[actual_start, actual_end] += scores
    if whiten:
        rewards = _trl_masked_whiten(rewards, mask=~padding_mask_p1, shift_mean=False)
        rewards = torch.masked_fill(rewards, padding_mask_p1, 0)
    lastgaelam = 0
    advantages_reversed = []
    gen_length = responses_shape[1]
    for t in reversed(range(gen_length)):
        nextvalues = values[:, t + 1] if t < gen_length - 1 else 0.0
        delta = rewards[:, t] + gamma * nextvalues - values[:, t]
        lastgaelam = delta + gamma * lam * lastgaelam
        advantages_reversed.append(lastgaelam)
    advantages = torch.stack(advantages_reversed[::-1], axis=1)
    returns = advantages + values
    advantages = _trl_masked_whiten(advantages, ~padding_mask)
    advantages = torch.masked_fill(advantages, padding_mask, 0)
    return {
        "rewards": rewards,
        "advantages": advantages,
        "returns": returns,
        "values": values,
        "kl": kl.sum(1).mean(),
        "entropy": ((-logprobs) * (~padding_mask).double()).sum(1).mean(),
        "entropy_before_1_10": (-logprobs).sum(1).mean(),
        "non_score_reward": non_score_reward.sum(1).mean(),
        "rlhf_reward": non_score_reward.sum(1).mean() + scores.mean(),
        "padding_mask": padding_mask,
        "padding_mask_p1": padding_mask_p1,
    }


def _trl_micro_batch(  # noqa: PLR0917
    new_logprobs,
    mb_logprobs,
    mb_advantage,
    vpred,
    mb_values,
    mb_return,
    logits,
    padding_mask,
    padding_mask_p1,
    cliprange,
    cliprange_value,
    temperature,
):
    new_logprobs = torch.masked_fill(new_logprobs, padding_mask, INVALID_LOGPROB)
    mb_logprobs = torch.masked_fill(mb_logprobs, padding_mask, INVALID_LOGPROB)
    logits = logits / (temperature + 1e-7)
    vpred = torch.masked_fill(vpred, padding_mask_p1, 0)
    vpredclipped = torch.clamp(vpred, mb_values - cliprange_value, mb_values + cliprange_value)
    vf_losses1 = torch.square(vpred - mb_return)
    vf_losses2 = torch.square(vpredclipped - mb_return)
    vf_loss_max = torch.max(vf_losses1, vf_losses2)
    vf_loss = 0.5 * _trl_masked_mean(vf_loss_max, ~padding_mask_p1)
    vf_clipfrac = _trl_masked_mean((vf_losses2 > vf_losses1).double(), ~padding_mask_p1)
    logprobs_diff = new_logprobs - mb_logprobs
    ratio = torch.exp(logprobs_diff)
    pg_losses = -mb_advantage * ratio
    pg_losses2 = -mb_advantage * torch.clamp(ratio, 1.0 - cliprange, 1.0 + cliprange)
    pg_loss_max = torch.max(pg_losses, pg_losses2)
    pg_loss = _trl_masked_mean(pg_loss_max, ~padding_mask)
    pg_clipfrac = _trl_masked_mean((pg_losses2 > pg_losses).double(), ~padding_mask)
    prob_dist = torch.nn.functional.softmax(logits, dim=-1)
    entropy = torch.logsumexp(logits, dim=-1) - torch.sum(prob_dist * logits, dim=-1)
    approxkl = 0.5 * (logprobs_diff**2).mean()
    return {
        "approxkl": approxkl,
        "pg_clipfrac": pg_clipfrac,
        "pg_loss": pg_loss,
        "vf_loss": vf_loss,
        "vf_clipfrac": vf_clipfrac,
        "entropy": entropy.mean(),
        "ratio": ratio.mean(),
    }


def _batch(seed: int, batch: int = 6, length: int = 8, vocab: int = 11):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, length + 1, (batch,), generator=g)
    mask = prefix_mask(lengths, length)
    logprobs = -torch.rand(batch, length, generator=g, dtype=torch.float64) * 3
    return {
        "g": g,
        "mask": mask,
        "sequence_lengths": lengths - 1,  # TRL: index of the last real token
        "logprobs": logprobs,
        "ref_logprobs": logprobs + 0.3 * torch.randn(batch, length, generator=g, dtype=torch.float64),
        "new_logprobs": logprobs + 0.4 * torch.randn(batch, length, generator=g, dtype=torch.float64),
        "values": torch.randn(batch, length, generator=g, dtype=torch.float64),
        "vpred": torch.randn(batch, length, generator=g, dtype=torch.float64),
        "scores": torch.randn(batch, generator=g, dtype=torch.float64),
        "logits": torch.randn(batch, length, vocab, generator=g, dtype=torch.float64),
    }


@pytest.mark.parametrize(("estimator", "whiten"), [("k1", False), ("k3", True)])
def test_rollout_metrics_match_trl(estimator: str, whiten: bool) -> None:
    d = _batch(0)
    trl = _trl_rollout(
        d["logprobs"], d["ref_logprobs"], d["values"], d["scores"], d["sequence_lengths"], 0.05, estimator,
        1.0, 0.95, whiten,
    )  # fmt: skip
    mask = d["mask"]
    assert torch.equal(~trl["padding_mask"], mask)
    assert torch.equal(~trl["padding_mask_p1"], ppo.mask_plus_one(mask))
    assert close(sequence_kl_mean(d["logprobs"], d["ref_logprobs"], mask, estimator), trl["kl"])  # type: ignore[arg-type]
    kwargs = {"kl_coef": 0.05, "estimator": estimator}
    assert close(
        ppo.non_score_reward_mean(d["logprobs"], d["ref_logprobs"], mask, **kwargs), trl["non_score_reward"]
    )
    rlhf = ppo.rlhf_reward_mean(d["logprobs"], d["ref_logprobs"], mask, d["scores"], **kwargs)
    assert close(rlhf, trl["rlhf_reward"])
    rewards = ppo.rollout_rewards(d["logprobs"], d["ref_logprobs"], d["scores"], mask, **kwargs)
    if not whiten:
        assert close(rewards, trl["rewards"])
    out = ppo.rollout_advantages_and_returns(
        rewards, d["values"], mask, gamma=1.0, lam=0.95, whiten_rewards=whiten
    )
    for key in ("advantages", "returns", "values"):
        # TRL's Bessel factor mask_sum / (mask_sum - 1) of an integer count is computed in float32
        assert close(out[key], trl[key], 1e-7), key
    # the whitened advantages have mean 0 and (Bessel) variance 1 over the real tokens
    assert close(masked_mean(out["advantages"], mask), 0.0, 1e-9)


def test_objective_entropy_matches_trl_before_and_after_1_10() -> None:
    from metrics_registry.reference.entropy import (
        sampled_sequence_entropy,
        sampled_sequence_entropy_before_1_10,
    )

    d = _batch(1)
    trl = _trl_rollout(
        d["logprobs"], d["ref_logprobs"], d["values"], d["scores"], d["sequence_lengths"], 0.05, "k1", 1.0,
        0.95, False,
    )  # fmt: skip
    assert close(sampled_sequence_entropy(d["logprobs"], d["mask"]), trl["entropy"])
    assert close(sampled_sequence_entropy_before_1_10(d["logprobs"], d["mask"]), trl["entropy_before_1_10"])


def test_score_lands_after_the_last_token_or_on_it_when_the_row_is_full() -> None:
    logprobs = torch.zeros(2, 3, dtype=torch.float64)
    rewards = ppo.rollout_rewards(logprobs, logprobs, torch.tensor([1.0, 2.0]), prefix_mask([1, 3], 3))
    assert close(rewards, [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]])


def test_micro_batch_statistics_match_trl() -> None:
    d = _batch(2)
    trl_roll = _trl_rollout(
        d["logprobs"], d["ref_logprobs"], d["values"], d["scores"], d["sequence_lengths"], 0.05, "k1", 1.0,
        0.95, False,
    )  # fmt: skip
    adv, ret, vals = trl_roll["advantages"], trl_roll["returns"], trl_roll["values"]
    mask = d["mask"]
    trl = _trl_micro_batch(
        d["new_logprobs"], d["logprobs"], adv, d["vpred"], vals, ret, d["logits"], trl_roll["padding_mask"],
        trl_roll["padding_mask_p1"], 0.2, 0.2, 0.7,
    )  # fmt: skip
    new, old = d["new_logprobs"], d["logprobs"]
    assert close(ppo.approxkl_k2_unmasked(new, old, mask), trl["approxkl"])
    assert close(ppo.policy_clipfrac_sign_gated(new, old, adv, mask), trl["pg_clipfrac"])
    assert close(ppo.clipped_policy_loss(new, old, adv, mask), trl["pg_loss"])
    assert close(ppo.ratio_mean_unmasked(new, old, mask), trl["ratio"])
    assert close(ppo.clipped_value_loss(d["vpred"], vals, ret, mask), trl["vf_loss"])
    assert close(ppo.value_clipfrac(d["vpred"], vals, ret, mask), trl["vf_clipfrac"])
    assert close(ppo.entropy_mean_unmasked(d["logits"], temperature=0.7), trl["entropy"], 1e-9)


def test_grid_average_over_micro_batches_and_the_0_17_zero_cells() -> None:
    # TRL fills a (epochs, minibatches, accumulation) grid and logs grid.mean(); cells it never
    # writes keep their initial 0
    d = [_batch(10 + i, batch=3) for i in range(4)]
    new = torch.stack([x["new_logprobs"] for x in d])
    old = torch.stack([x["logprobs"] for x in d])
    mask = torch.stack([x["mask"] for x in d])
    cells = torch.stack([ppo.approxkl_k2_unmasked(new[i], old[i], mask[i]) for i in range(4)])
    grid = torch.zeros(1, 2, 4, dtype=torch.float64)  # 1 epoch, 2 minibatches, 4 accumulation steps
    grid[0, 0, :2], grid[0, 1, :2] = cells[:2], cells[2:]  # each minibatch runs ceil(4 / 2) = 2 cells
    unwritten = ppo.unwritten_grid_cells(1, 2, 4, per_device_train_batch_size=3)
    assert unwritten == 4
    assert close(ppo.approxkl_avg(new, old, mask, unwritten_cells=unwritten), grid.mean())
    assert close(ppo.approxkl_avg(new, old, mask), cells.mean())
    ratios = torch.stack([ppo.ratio_mean_unmasked(new[i], old[i], mask[i]) for i in range(4)])
    grid[0, 0, :2], grid[0, 1, :2] = ratios[:2], ratios[2:]
    assert close(ppo.ratio_avg(new, old, mask, unwritten_cells=4), grid.mean())
    assert close(ppo.ratio_var(new, old, mask, unwritten_cells=4), grid.var())
    assert math.isnan(ppo.ratio_var(new[0], old[0], mask[0]).item())  # one cell: NaN, like torch.var
    assert ppo.unwritten_grid_cells(4, 1, 8, 2) == 0
    assert ppo.unwritten_grid_cells(2, 4, 4, 1, num_processes=2) == 2 * 4 * 3 * 2


def test_unmasked_statistics_are_diluted_by_padding_masked_ones_are_not() -> None:
    d = _batch(3)
    new, old, mask = d["new_logprobs"], d["logprobs"], d["mask"]
    real = mask.sum().item()
    total = mask.numel()
    masked = ppo.approxkl_k2_masked(new, old, mask)
    assert close(ppo.approxkl_k2_unmasked(new, old, mask), masked * real / total)
    ratio_masked = ppo.ratio_mean_masked(new, old, mask)
    assert close(ppo.ratio_mean_unmasked(new, old, mask), (ratio_masked * real + (total - real)) / total)
    # padding positions' entropy counts in the unmasked mean
    h = Categorical(logits=d["logits"] / (1 + 1e-7)).entropy()
    assert close(ppo.entropy_mean_unmasked(d["logits"]), h.mean(), 1e-9)
    assert close(ppo.entropy_mean_masked(d["logits"], mask), h[mask].mean(), 1e-9)


@settings(max_examples=40, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=4),
    extra=st.integers(min_value=1, max_value=3),
    junk=st.floats(allow_nan=True, allow_infinity=True),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_padding_never_changes_the_masked_statistics(
    lengths: list[int], extra: int, junk: float, seed: int
) -> None:
    g = torch.Generator().manual_seed(seed)
    width = max(lengths)
    b = len(lengths)
    old = -torch.rand(b, width + extra, generator=g, dtype=torch.float64) * 2
    new = old + 0.5 * torch.randn(b, width + extra, generator=g, dtype=torch.float64)
    adv = torch.randn(b, width + extra, generator=g, dtype=torch.float64)
    mask = prefix_mask(lengths, width + extra)
    functions = [
        lambda n, o, a, m: ppo.approxkl_k2_masked(n, o, m),
        lambda n, o, a, m: ppo.approxkl_k3_masked(n, o, m),
        lambda n, o, a, m: ppo.ratio_mean_masked(n, o, m),
        ppo.policy_clipfrac_sign_gated,
        lambda n, o, a, m: ppo.policy_clipfrac_symmetric(n, o, m),
        ppo.clipped_policy_loss,
    ]
    base = [f(new[:, :width], old[:, :width], adv[:, :width], mask[:, :width]) for f in functions]
    new[~mask], old[~mask], adv[~mask] = junk, -junk, junk
    for f, want in zip(functions, base, strict=True):
        assert close(f(new, old, adv, mask), want, 1e-12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10_000), cliprange=st.floats(min_value=0.01, max_value=0.5))
def test_fractions_stay_in_unit_interval_and_sign_gated_never_exceeds_symmetric(
    seed: int, cliprange: float
) -> None:
    d = _batch(seed, batch=4, length=5)
    new, old, mask = d["new_logprobs"], d["logprobs"], d["mask"]
    adv = torch.randn(4, 5, generator=d["g"], dtype=torch.float64)
    gated = ppo.policy_clipfrac_sign_gated(new, old, adv, mask, cliprange).item()
    symmetric = ppo.policy_clipfrac_symmetric(new, old, mask, cliprange).item()
    assert 0.0 <= gated <= symmetric <= 1.0
    vclip = ppo.value_clipfrac(
        d["vpred"], d["values"], d["values"] + 1, mask, cliprange_value=cliprange
    ).item()
    assert 0.0 <= vclip <= 1.0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10_000))
def test_ratio_one_gives_zero_clip_fraction_and_zero_approximate_kl(seed: int) -> None:
    d = _batch(seed, batch=3, length=4)
    lp, mask = d["logprobs"], d["mask"]
    adv = torch.randn(3, 4, generator=d["g"], dtype=torch.float64)
    assert ppo.approxkl_avg(lp, lp, mask).item() == 0.0
    assert ppo.approxkl_k3_masked(lp, lp, mask).item() == 0.0
    assert ppo.policy_clipfrac_avg(lp, lp, adv, mask).item() == 0.0
    assert ppo.policy_clipfrac_symmetric(lp, lp, mask).item() == 0.0
    assert ppo.ratio_avg(lp, lp, mask).item() == 1.0
    # and then the clipped loss is minus the masked mean advantage
    assert close(ppo.policy_loss_avg(lp, lp, adv, mask), -masked_mean(adv, mask), 1e-12)


def test_perfect_value_predictions_give_zero_loss_and_no_clipping() -> None:
    d = _batch(4)
    returns = d["values"] + 0.1  # within cliprange_value of the rollout values
    mask = d["mask"]
    assert ppo.value_loss_avg(returns, d["values"], returns, mask).item() == 0.0
    assert ppo.value_clipfrac_avg(returns, d["values"], returns, mask).item() == 0.0


def test_scores_and_missing_eos_penalty() -> None:
    scores = torch.tensor([1.0, 2.0, 3.0])
    eos = torch.tensor([True, False, True])
    assert close(ppo.scores_mean(scores), 2.0)
    assert close(ppo.scores_mean(scores, eos, missing_eos_penalty=1.5), 1.5)


def test_all_masked_micro_batch_and_empty_batch() -> None:
    lp = torch.tensor([[-1.0, -2.0]], dtype=torch.float64)
    nothing = torch.zeros(1, 2, dtype=torch.bool)
    assert math.isnan(ppo.approxkl_k2_masked(lp, lp + 1, nothing).item())  # 0/0, as TRL's masked_mean
    assert ppo.approxkl_k2_unmasked(lp, lp + 1, nothing).item() == 0.0  # padding only: log-ratio 0
    empty = torch.zeros(0, 3, dtype=torch.float64)
    assert math.isnan(ppo.non_score_reward_mean(empty, empty, torch.zeros(0, 3, dtype=torch.bool)).item())


@pytest.mark.parametrize("dtype", LOW_PRECISION)
def test_low_precision_inputs(dtype: torch.dtype) -> None:
    d = _batch(5)
    mask = d["mask"]
    new, old = d["new_logprobs"].to(dtype), d["logprobs"].to(dtype)
    for fn in (ppo.approxkl_k2_unmasked, ppo.ratio_mean_unmasked, ppo.approxkl_k2_masked):
        result = fn(new, old, mask)
        assert result.dtype == dtype
        assert close(result.double(), fn(new.double(), old.double(), mask), 4 * DTYPE_TOL[dtype]), fn.__name__
    logits = d["logits"].to(dtype)
    assert close(ppo.entropy_avg(logits).double(), ppo.entropy_avg(logits.double()), 4 * DTYPE_TOL[dtype])
    big = torch.full((1, 2, 3), 1e4, dtype=dtype)
    big[..., 0] = -1e4
    assert torch.isfinite(ppo.entropy_avg(big))


def test_random_masks_helper_shapes() -> None:
    g = torch.Generator().manual_seed(0)
    mask = random_prefix_mask(g, 5, 4)
    assert mask.shape == (5, 4) and mask[:, 0].all()

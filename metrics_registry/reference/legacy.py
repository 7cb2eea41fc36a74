r"""TRL's original `PPOTrainer` (v0.2 to 0.11, documented for v0.7).

The `ppo/*`, `objective/*`, `env/*` and `tokens/*` keys.

Checked against trl 0.7.10 (`trl/trainer/ppo_trainer.py`: `step`,
`compute_rewards`, `_kl_penalty`, `compute_advantages`, `loss`,
`record_step_stats`, `log_stats`; `trl/core.py`).

**Training statistics** (`ppo/policy/*`, `ppo/val/*`, `ppo/returns/*`,
`ppo/loss/*`) are computed by `loss()` for every minibatch, with masked
means over the response tokens, then averaged over all minibatches of all
PPO epochs (`stack_dicts` + `mean`). The functions here take tensors of
shape `(M, B, T)` (`M` minibatches of `B` sequences, or `(B, T)` for
one) and return that average. Unlike PPOv2, every mean is masked.

**Rollout statistics** (`objective/*`, `ppo/mean_*`) take `(B, T)`
tensors of the whole batch. `mask` is v0.7's response mask: true on the
positions whose log-probability belongs to a response token (prompt and
padding false).

With several processes v0.7 all-reduces every statistic and divides by the
number of processes (`gather_stats`); histograms become element-wise
averages over ranks. The functions here describe one process.
"""

from __future__ import annotations

from typing import Literal

import torch

from metrics_registry.reference import gae as _gae
from metrics_registry.reference.entropy import categorical_entropy
from metrics_registry.reference.kl import exact_categorical_kl
from metrics_registry.reference.masked import as_bool_mask, as_float, masked_mean, masked_var, masked_whiten

__all__ = [
    "WANDB_PADDING",
    "adaptive_kl_coefs",
    "adaptive_kl_update",
    "advantages_histogram",
    "advantages_mean",
    "compute_advantages",
    "compute_rewards",
    "explained_variance",
    "kl_dist",
    "kl_penalty",
    "length_histogram",
    "lengths_mean",
    "lengths_std",
    "logprobs_histogram",
    "loss_policy",
    "loss_total",
    "loss_value",
    "mean_non_score_reward",
    "mean_scores",
    "objective_kl",
    "policy_approxkl",
    "policy_clipfrac",
    "policy_entropy",
    "policy_policykl",
    "ratio_histogram",
    "returns_mean",
    "returns_var",
    "reward_dist",
    "reward_mean",
    "reward_std",
    "std_scores",
    "val_clipfrac",
    "val_error",
    "val_mean",
    "val_var",
    "val_var_explained",
    "val_vpred",
]

WANDB_PADDING = -1
"""The value v0.7 puts in place of NaN in the advantage histogram (and pads ragged stacks with)."""

KlPenalty = Literal["kl", "abs", "mse", "full"]


def _per_minibatch_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Masked mean over the last two dimensions: one value per minibatch (the leading shape)."""
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    total = torch.where(keep, values, torch.zeros((), dtype=values.dtype)).sum(dim=(-2, -1))
    return total / keep.sum(dim=(-2, -1)).to(values.dtype)


def _per_minibatch_var(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Bessel-corrected masked variance over the last two dimensions, per minibatch."""
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    if values.dim() == 2:
        return masked_var(values, keep)
    flat_values = values.reshape(-1, *values.shape[-2:])
    flat_keep = keep.reshape(-1, *keep.shape[-2:])
    result = torch.stack([masked_var(v, k) for v, k in zip(flat_values, flat_keep, strict=True)])
    return result.reshape(values.shape[:-2])


def _std(values: torch.Tensor) -> torch.Tensor:
    """`torch.std` (Bessel) of all elements; NaN for fewer than two, without torch's warning."""
    values = values.reshape(-1)
    if values.numel() < 2:
        return torch.full((), float("nan"), dtype=values.dtype)
    return values.std()


def _average(per_minibatch: torch.Tensor) -> torch.Tensor:
    """Mean over every minibatch of every epoch (`torch.mean(stacked, axis=0)`)."""
    return per_minibatch.reshape(-1).mean()


# ------------------------------------------------------------- env/* (log_stats)


def reward_mean(rewards: torch.Tensor) -> torch.Tensor:
    r"""`env/reward_mean`: mean of the rewards passed to `log_stats` (gathered from all processes).

    $$
    \bar r = \frac1N\sum_i r_i
    $$

    `rewards` is `(N,)`, raw (no score scaling or clipping).
    """
    return as_float(rewards).reshape(-1).mean()


def reward_std(rewards: torch.Tensor) -> torch.Tensor:
    r"""`env/reward_std`: `torch.std` (Bessel-corrected) of the gathered rewards; NaN for one reward.

    $$
    s_r = \sqrt{\frac{1}{N-1}\sum_i (r_i - \bar r)^2}
    $$
    """
    return _std(as_float(rewards))


def reward_dist(rewards: torch.Tensor) -> torch.Tensor:
    """`env/reward_dist`: the values of the histogram, i.e. the gathered rewards, flattened (`(N,)`)."""
    return as_float(rewards).reshape(-1)


# ------------------------------------------------------------ rollout (step)


def kl_penalty(
    logprobs: torch.Tensor, ref_logprobs: torch.Tensor, kl_penalty: KlPenalty = "kl"
) -> torch.Tensor:
    r"""v0.7's per-token `_kl_penalty` (direction: policy vs reference, samples from the policy).

    * `"kl"`: $\log\pi_\theta - \log\pi_{\text{ref}}$ (k1);
    * `"abs"`: its absolute value;
    * `"mse"`: half its square (k2);
    * `"full"`: the exact KL over the vocabulary; then both arguments are
      `(B, T, V)` log-probabilities (or logits) and the result `(B, T)`.
    """
    if kl_penalty == "full":
        return exact_categorical_kl(logprobs, ref_logprobs)
    diff = as_float(logprobs) - as_float(ref_logprobs)
    if kl_penalty == "kl":
        return diff
    if kl_penalty == "abs":
        return diff.abs()
    if kl_penalty == "mse":
        return 0.5 * diff.square()
    raise ValueError(f"unknown kl_penalty {kl_penalty!r}")


def kl_dist(
    logprobs: torch.Tensor, ref_logprobs: torch.Tensor, mask: torch.Tensor, kl_penalty_type: KlPenalty = "kl"
) -> torch.Tensor:
    r"""`objective/kl_dist`: per-sequence masked sum of the `kl_penalty` values, shape `(B,)`.

    $$
    \mathrm{KL}_b = \sum_t m_{b,t}\,k_{b,t}
    $$
    """
    per_token = kl_penalty(logprobs, ref_logprobs, kl_penalty_type)
    keep = as_bool_mask(mask).expand_as(per_token)
    return torch.where(keep, per_token, torch.zeros((), dtype=per_token.dtype)).sum(dim=-1)


def objective_kl(
    logprobs: torch.Tensor, ref_logprobs: torch.Tensor, mask: torch.Tensor, kl_penalty_type: KlPenalty = "kl"
) -> torch.Tensor:
    r"""`objective/kl`: mean over sequences of [`kl_dist()`][kl_dist].

    $$
    \mathrm{KL} = \frac1B\sum_b\sum_t m_{b,t}\,k_{b,t}
    $$

    Since 0.7.9 `k` follows `kl_penalty`; from 0.4.7 to 0.7.8 it was always
    `"kl"` (pass `"kl"` to reproduce). The adaptive controller is fed this value.
    """
    return kl_dist(logprobs, ref_logprobs, mask, kl_penalty_type).mean()


def mean_non_score_reward(
    logprobs: torch.Tensor,
    ref_logprobs: torch.Tensor,
    mask: torch.Tensor,
    kl_coef: float = 0.2,
    kl_penalty_type: KlPenalty = "kl",
) -> torch.Tensor:
    r"""`ppo/mean_non_score_reward`: masked *token* mean of $-\beta k_t$.

    $$
    \frac{\sum_{b,t} m_{b,t}\,(-\beta\,k_{b,t})}{\sum_{b,t} m_{b,t}}
    $$

    A per-token mean (0.3.0 and later), so it is $-\beta$·`objective/kl`
    divided by the mean response length, negative when the policy moved away.
    `kl_coef` is $\beta$ of this step (`objective/kl_coef`; `init_kl_coef` 0.2).
    """
    return masked_mean(-kl_coef * kl_penalty(logprobs, ref_logprobs, kl_penalty_type), mask)


def mean_scores(scores: torch.Tensor, score_clip: float | None = None) -> torch.Tensor:
    r"""`ppo/mean_scores`: mean of the scores given to `step`, after optional clipping to ±`score_clip`.

    Pass scores already divided by the running std (`use_score_scaling`) and
    centred (`use_score_norm`) to reproduce those options.
    """
    scores = as_float(scores).reshape(-1)
    if score_clip is not None:
        scores = scores.clamp(-score_clip, score_clip)
    return scores.mean()


def std_scores(scores: torch.Tensor, score_clip: float | None = None) -> torch.Tensor:
    """`ppo/std_scores`: `torch.std` (Bessel) of the scores of [`mean_scores()`][mean_scores]; NaN for one
    score."""
    scores = as_float(scores).reshape(-1)
    if score_clip is not None:
        scores = scores.clamp(-score_clip, score_clip)
    return _std(scores)


def adaptive_kl_update(
    kl_coef: float, current_kl: float, n_steps: int, target: float = 6.0, horizon: float = 10000.0
) -> float:
    r"""One update of v0.7's `AdaptiveKLController` (Ziegler et al. 2019).

    $$
    \beta \leftarrow \beta\left(1
    + \mathrm{clip}\left(\frac{\mathrm{KL}}{\text{target}} - 1, -0.2, 0.2\right)
    \frac{n}{H}\right)
    $$

    `n` is `batch_size` × the number of processes.
    """
    error = min(max(current_kl / target - 1.0, -0.2), 0.2)
    return kl_coef * (1.0 + error * n_steps / horizon)


def adaptive_kl_coefs(
    kls: torch.Tensor,
    *,
    init_kl_coef: float = 0.2,
    n_steps: int = 256,
    target: float = 6.0,
    horizon: float = 10000.0,
    adap_kl_ctrl: bool = True,
) -> torch.Tensor:
    r"""`objective/kl_coef` for a sequence of steps, given the logged `objective/kl` of each step.

    The coefficient is read *before* the step's update, so step $k$ logs
    $\beta_k$ with $\beta_0$ = `init_kl_coef` and
    $\beta_{k+1}$ = [`adaptive_kl_update()`][adaptive_kl_update] ($\beta_k$, $\mathrm{KL}_k$).

    Args:
        kls: `(S,)` logged `objective/kl` values, in step order.
        init_kl_coef: config option (default 0.2).
        target: config option (default 6).
        horizon: config option (default 10000).
        n_steps: `batch_size` × processes (`batch_size` defaults to 256).
        adap_kl_ctrl: `False` keeps the coefficient constant.

    Returns `(S,)` float64.
    """
    values = []
    coef = float(init_kl_coef)
    for kl in as_float(kls).reshape(-1).tolist():
        values.append(coef)
        if adap_kl_ctrl:
            coef = adaptive_kl_update(coef, kl, n_steps, target, horizon)
    return torch.tensor(values, dtype=torch.float64)


def compute_rewards(
    scores: torch.Tensor,
    logprobs: torch.Tensor,
    ref_logprobs: torch.Tensor,
    mask: torch.Tensor,
    *,
    kl_coef: float = 0.2,
    kl_penalty_type: KlPenalty = "kl",
) -> torch.Tensor:
    r"""v0.7's per-token rewards: $-\beta k_t$ everywhere, plus the score at the last real position.

    `scores` `(B,)`; the others `(B, T)` (`(B, T, V)` for `"full"`). Returns `(B, T)`.
    The KL term is not masked here; [`compute_advantages()`][compute_advantages] masks it.
    """
    rewards = -kl_coef * kl_penalty(logprobs, ref_logprobs, kl_penalty_type)
    rewards = rewards.clone()
    keep = as_bool_mask(mask)
    positions = torch.arange(keep.shape[-1]).expand_as(keep)
    last = torch.where(keep, positions, torch.full_like(positions, -1)).max(dim=-1).values
    rows = torch.arange(rewards.shape[0])
    rewards[rows, last] += as_float(scores).to(rewards.dtype)
    return rewards


def compute_advantages(
    values: torch.Tensor,
    rewards: torch.Tensor,
    mask: torch.Tensor,
    *,
    gamma: float = 1.0,
    lam: float = 0.95,
    whiten_rewards: bool = False,
) -> dict[str, torch.Tensor]:
    r"""v0.7's `compute_advantages`: mask, optional reward scaling, GAE, returns, whitening.

    1. values and rewards multiplied by the mask;
    2. `whiten_rewards`: rewards scaled (not centred) with the masked statistics;
    3. GAE over every position (the masked prompt prefix receives the discounted
       advantage of the first response token, see
       [`metrics_registry.reference.gae.gae()`][metrics_registry.reference.gae.gae]);
    4. returns $R = \hat A + V$;
    5. advantages whitened with the masked mean and Bessel variance of the batch
       (*all* positions are transformed; prompt and padding are not reset).

    Returns `{"values", "advantages", "returns"}`, each `(B, T)`.
    """
    keep = as_bool_mask(mask)
    values, rewards = as_float(values), as_float(rewards)
    zero = torch.zeros((), dtype=values.dtype)
    values = torch.where(keep, values, zero)
    rewards = torch.where(keep, rewards, zero)
    if whiten_rewards:
        rewards = masked_whiten(rewards, keep, shift_mean=False)
    advantages = _gae.gae_advantages(rewards, values, gamma, lam)
    returns = advantages + values
    return {"values": values, "advantages": masked_whiten(advantages, keep), "returns": returns}


# ----------------------------------------------------- training statistics


def policy_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/policy/entropy`: masked mean categorical entropy per minibatch, averaged over minibatches.

    $$
    \frac1M\sum_m \frac{\sum_{t\in m} m_t\,H(\pi_\theta(\cdot\mid s_t))}{\sum_{t\in m} m_t}
    $$

    `logits` `(M, B, T, V)`, `mask` `(M, B, T)`.
    """
    return _average(_per_minibatch_mean(categorical_entropy(logits), mask))


def policy_approxkl(logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/policy/approxkl`: k2 $\tfrac12(\log\pi_\theta - \log\pi_{\text{old}})^2$, masked mean.

    Estimates KL(old ‖ new) from rollout samples; biased, never negative. `(M, B, T)` inputs.
    """
    diff = as_float(logprobs) - as_float(old_logprobs)
    return _average(_per_minibatch_mean(0.5 * diff**2, mask))


def policy_policykl(logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/policy/policykl`: k1, $\log\pi_{\text{old}} - \log\pi_\theta$, masked mean, averaged.

    Unbiased for KL(old ‖ new), can be negative. (0.2.0 logged the opposite sign.)
    """
    diff = as_float(old_logprobs) - as_float(logprobs)
    return _average(_per_minibatch_mean(diff, mask))


def _ratio(logprobs: torch.Tensor, old_logprobs: torch.Tensor) -> torch.Tensor:
    return torch.exp(as_float(logprobs) - as_float(old_logprobs))


def policy_clipfrac(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float = 0.2,
) -> torch.Tensor:
    r"""`ppo/policy/clipfrac`: sign-gated clip fraction (the clipped term wins the max), masked, averaged.

    $$
    \frac1M\sum_m\frac{\sum m_t\,[-A_t\,\mathrm{clip}(r_t, 1\pm\epsilon) > -A_t r_t]}{\sum m_t}
    $$
    """
    ratio = _ratio(logprobs, old_logprobs)
    advantages = as_float(advantages)
    flags = (-advantages * torch.clamp(ratio, 1 - cliprange, 1 + cliprange) > -advantages * ratio).to(
        ratio.dtype
    )
    return _average(_per_minibatch_mean(flags, mask))


def ratio_histogram(logprobs: torch.Tensor, old_logprobs: torch.Tensor) -> torch.Tensor:
    """`ppo/policy/ratio`: every ratio of every minibatch, flattened, *unmasked* (prompt, padding too)."""
    return _ratio(logprobs, old_logprobs).reshape(-1)


def advantages_mean(advantages: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/policy/advantages_mean`: masked mean of the whitened advantages per minibatch, averaged."""
    return _average(_per_minibatch_mean(advantages, mask))


def advantages_histogram(advantages: torch.Tensor) -> torch.Tensor:
    """`ppo/policy/advantages`: all advantages of all minibatches, flattened, unmasked, NaN -> -1."""
    return torch.nan_to_num(as_float(advantages).reshape(-1), float(WANDB_PADDING))


def returns_mean(returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/returns/mean`: masked mean of the returns $\hat A + V_{\text{old}}$, averaged."""
    return _average(_per_minibatch_mean(returns, mask))


def returns_var(returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/returns/var`: Bessel-corrected masked variance of the returns *within* each minibatch, averaged.

    With one token in a minibatch the variance is NaN here (TRL divides by zero).
    """
    return _average(_per_minibatch_var(returns, mask))


def val_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/val/mean`: masked mean of the rollout values $V_{\\text{old}}$ per minibatch, averaged."""
    return _average(_per_minibatch_mean(values, mask))


def val_var(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/val/var`: Bessel-corrected masked variance of the rollout values per minibatch, averaged."""
    return _average(_per_minibatch_var(values, mask))


def val_vpred(vpreds: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`ppo/val/vpred`: masked mean of the training-time value predictions per minibatch, averaged."""
    return _average(_per_minibatch_mean(vpreds, mask))


def val_error(vpreds: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/val/error`: masked mean of $(V_\theta - R)^2$ per minibatch, averaged (no ½, no clip)."""
    return _average(_per_minibatch_mean((as_float(vpreds) - as_float(returns)) ** 2, mask))


def val_var_explained(vpreds: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    r"""`ppo/val/var_explained`: 1 - averaged error / averaged within-minibatch return variance.

    $$
    1 - \frac{\frac1M\sum_m \mathrm{mean}_{t\in m}(V_\theta - R)^2}
    {\frac1M\sum_m \widehat{\mathrm{Var}}_{t\in m}(R)}
    $$

    Not the textbook explained variance ([`explained_variance()`][explained_variance]): the numerator is
    a mean squared error (a constant offset lowers it), the denominator ignores
    the variance between minibatches, and the predictions are the training-time ones.
    """
    return 1 - val_error(vpreds, returns, mask) / returns_var(returns, mask)


def val_clipfrac(
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    cliprange_value: float = 0.2,
) -> torch.Tensor:
    r"""`ppo/val/clipfrac`: share of tokens with $(V^{\text{clip}} - R)^2 > (V_\theta - R)^2$."""
    vpreds, values, returns = as_float(vpreds), as_float(values), as_float(returns)
    clipped = torch.max(torch.min(vpreds, values + cliprange_value), values - cliprange_value)
    flags = ((clipped - returns) ** 2 > (vpreds - returns) ** 2).to(vpreds.dtype)
    return _average(_per_minibatch_mean(flags, mask))


def _skipped(
    logprobs: torch.Tensor | None,
    old_logprobs: torch.Tensor | None,
    mask: torch.Tensor,
    ratio_threshold: float,
) -> torch.Tensor:
    """Per minibatch: whether the masked mean ratio exceeds `ratio_threshold` (losses are then zeroed)."""
    if logprobs is None or old_logprobs is None:
        return torch.zeros((), dtype=torch.bool)
    return _per_minibatch_mean(_ratio(logprobs, old_logprobs), mask) > ratio_threshold


def _policy_losses(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float,
) -> torch.Tensor:
    ratio = _ratio(logprobs, old_logprobs)
    advantages = as_float(advantages)
    losses = torch.max(-advantages * ratio, -advantages * torch.clamp(ratio, 1 - cliprange, 1 + cliprange))
    return _per_minibatch_mean(losses, mask)


def _value_losses(
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    cliprange_value: float,
) -> torch.Tensor:
    vpreds, values, returns = as_float(vpreds), as_float(values), as_float(returns)
    clipped = torch.max(torch.min(vpreds, values + cliprange_value), values - cliprange_value)
    losses = torch.max((vpreds - returns) ** 2, (clipped - returns) ** 2)
    return 0.5 * _per_minibatch_mean(losses, mask)


def loss_policy(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange: float = 0.2,
    ratio_threshold: float = 10.0,
) -> torch.Tensor:
    r"""`ppo/loss/policy`: clipped surrogate, masked mean per minibatch, averaged; skipped ones count 0.

    $$
    \frac1M\sum_m [\bar r_m \le \rho]\,
    \frac{\sum m_t \max(-A_t r_t, -A_t\,\mathrm{clip}(r_t, 1\pm\epsilon))}{\sum m_t}
    $$

    A minibatch whose masked mean ratio $\bar r_m$ exceeds `ratio_threshold`
    $\rho$ (default 10, from 0.4.7) has its losses multiplied by 0 and logged as 0.
    """
    losses = _policy_losses(logprobs, old_logprobs, advantages, mask, cliprange)
    skipped = _skipped(logprobs, old_logprobs, mask, ratio_threshold)
    return _average(torch.where(skipped, torch.zeros((), dtype=losses.dtype), losses))


def loss_value(
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    *,
    cliprange_value: float = 0.2,
    logprobs: torch.Tensor | None = None,
    old_logprobs: torch.Tensor | None = None,
    ratio_threshold: float = 10.0,
) -> torch.Tensor:
    r"""`ppo/loss/value`: half the clipped squared value error, masked mean per minibatch, averaged.

    $$
    \frac1M\sum_m \frac12\,
    \frac{\sum m_t \max\big((V_\theta - R)^2, (V^{\text{clip}} - R)^2\big)}{\sum m_t}
    $$

    Before the `vf_coef` weight. Pass `logprobs` and `old_logprobs` to apply the
    `ratio_threshold` zeroing of [`loss_policy()`][loss_policy].
    """
    losses = _value_losses(vpreds, values, returns, mask, cliprange_value)
    skipped = _skipped(logprobs, old_logprobs, mask, ratio_threshold)
    return _average(torch.where(skipped, torch.zeros((), dtype=losses.dtype), losses))


def loss_total(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    *,
    vpreds: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    cliprange: float = 0.2,
    cliprange_value: float = 0.2,
    vf_coef: float = 0.1,
    ratio_threshold: float = 10.0,
) -> torch.Tensor:
    r"""`ppo/loss/total`: $L^{\text{policy}} + c_v L^{\text{value}}$ per minibatch, averaged.

    Zeroed with the two parts when `ratio_threshold` is exceeded.
    """
    policy = _policy_losses(logprobs, old_logprobs, advantages, mask, cliprange)
    value = _value_losses(vpreds, values, returns, mask, cliprange_value)
    total = policy + vf_coef * value
    skipped = _skipped(logprobs, old_logprobs, mask, ratio_threshold)
    return _average(torch.where(skipped, torch.zeros((), dtype=total.dtype), total))


def explained_variance(
    values: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor | None = None, unbiased: bool = False
) -> torch.Tensor:
    r"""Textbook explained variance (CleanRL, SB3): $1 - \mathrm{Var}(R - V)/\mathrm{Var}(R)$.

    Args:
        values: predictions $V$, any shape.
        returns: targets $R$, same shape.
        mask: positions to use (all when `None`).
        unbiased: Bessel's correction (CleanRL and SB3 use the population variance).

    1 for perfect predictions, 0 for a constant, negative when worse; insensitive to
    a constant offset. NaN when the returns do not vary (CleanRL/SB3 convention).
    The clean counterpart of [`val_var_explained()`][val_var_explained]; no TRL key logs it.
    """
    values, returns = as_float(values), as_float(returns)
    keep = as_bool_mask(mask, like=values)
    var_returns = masked_var(returns, keep, unbiased=unbiased)
    if var_returns == 0:
        return torch.full((), float("nan"), dtype=values.dtype)
    return 1 - masked_var(returns - values, keep, unbiased=unbiased) / var_returns


# ------------------------------------------------------------- tokens/* and histograms


def lengths_mean(lengths: torch.Tensor) -> torch.Tensor:
    """`tokens/queries_len_mean`, `tokens/responses_len_mean`: mean tensor length (padding included)."""
    return torch.as_tensor(lengths).to(torch.float64).reshape(-1).mean()


def lengths_std(lengths: torch.Tensor) -> torch.Tensor:
    """`tokens/queries_len_std`, `tokens/responses_len_std`: `torch.std` (Bessel); NaN for one."""
    return _std(torch.as_tensor(lengths).to(torch.float64))


def length_histogram(lengths: torch.Tensor) -> torch.Tensor:
    """`tokens/queries_dist`, `tokens/responses_dist`: the lengths as floats, one per tensor."""
    return torch.as_tensor(lengths).to(torch.float64).reshape(-1)


def logprobs_histogram(logprobs: torch.Tensor) -> torch.Tensor:
    """`objective/logprobs`, `objective/ref_logprobs`: every position of the padded batch, unmasked."""
    return as_float(logprobs).reshape(-1)

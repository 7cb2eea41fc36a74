"""Legacy PPO rollout statistics: `env/*`, `objective/*`, `ppo/mean_*`, the KL controller, `tokens/*`."""

from __future__ import annotations

import torch

from metrics_registry.reference import gae as _gae
from metrics_registry.reference.kl import exact_categorical_kl
from metrics_registry.reference.legacy_ppo.common import KlPenalty, _std
from metrics_registry.reference.masked import as_bool_mask, as_float, masked_mean, masked_whiten

__all__ = [
    "adaptive_kl_coefs",
    "adaptive_kl_update",
    "compute_advantages",
    "compute_rewards",
    "kl_dist",
    "kl_penalty",
    "length_histogram",
    "lengths_mean",
    "lengths_std",
    "logprobs_histogram",
    "mean_non_score_reward",
    "mean_scores",
    "objective_kl",
    "reward_dist",
    "reward_mean",
    "reward_std",
    "std_scores",
]


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

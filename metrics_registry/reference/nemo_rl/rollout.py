r"""NeMo-RL driver-side metrics: rewards, baselines, advantages, lengths, validation, gradient norm.

These are computed once per step by `grpo_train` on the whole training batch
(`nemo_rl/algorithms/grpo.py@7ea279ab`) or by the rollout loop on the whole
generation batch (`nemo_rl/experience/rollouts.py:1066-1087@7ea279ab`), not
per micro-batch. Samples are ordered arbitrarily; groups are identified by
their prompt (`prompt_ids`, one id or one token row per sample).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import torch

from metrics_registry.reference.masked import as_bool_mask, as_float

__all__ = [
    "advantage_stats",
    "advantages_histogram",
    "async_reward_stats",
    "baseline_and_std",
    "baseline_histogram",
    "baseline_reward_pcts",
    "batch_token_stats",
    "dapo_reward",
    "grad_norm",
    "gym_stats",
    "rollout_length_stats",
    "validation_stats",
]


def baseline_and_std(
    prompt_ids: torch.Tensor,
    rewards: torch.Tensor,
    valid_mask: torch.Tensor | None = None,
    leave_one_out_baseline: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    r"""Per-sample GRPO baseline and standard deviation (`calculate_baseline_and_std_per_prompt`).

    For sample $i$ of a group $\mathcal{G}$ with $n$ valid samples, leave-one-out:
    $b_i = \frac{1}{n-1}\sum_{j \ne i} r_j$ and
    $s_i = \sqrt{\frac{n-1}{n-2}\big(\frac{1}{n-1}\sum_{j\ne i} r_j^2 - b_i^2\big)}$ (0 if undefined);
    without leave-one-out the same over all $n$ samples (Bessel-corrected std). A group with at most
    one valid sample gets $b_i = r_i$ and $s_i = 0$ (`nemo_rl/algorithms/utils.py:104-199@7ea279ab`).

    Args:
        prompt_ids: `(B,)` group ids or `(B, S)` prompt token rows; equal rows form a group.
        rewards: `(B,)` rewards.
        valid_mask: `(B,)` samples that count; all if `None`.
        leave_one_out_baseline: `grpo.use_leave_one_out_baseline` (default true).

    Returns:
        `(baseline, std)`, each `(B,)`.
    """
    rewards = as_float(rewards)
    prompts = torch.as_tensor(prompt_ids)
    prompts = prompts.reshape(prompts.shape[0], -1)
    valid = torch.ones_like(rewards) if valid_mask is None else as_float(valid_mask)
    baseline = torch.zeros_like(rewards)
    std = torch.zeros_like(rewards)
    for prompt in torch.unique(prompts, dim=0):
        members = (prompts == prompt).all(dim=1).nonzero().reshape(-1)
        r, v = rewards[members], valid[members]
        if v.sum() <= 1:
            baseline[members] = r
            continue
        n = v.sum() - int(leave_one_out_baseline)
        weights = torch.ones(len(members), len(members), dtype=rewards.dtype)
        if leave_one_out_baseline:
            weights = weights - torch.eye(len(members), dtype=rewards.dtype)
        mean = weights @ (r * v) / n
        mean_sq = weights @ (r**2 * v) / n
        baseline[members] = mean
        std[members] = ((mean_sq - mean**2) * (n / (n - 1))).sqrt().nan_to_num(0)
    return baseline, std


def baseline_reward_pcts(
    prompt_ids: torch.Tensor, rewards: torch.Tensor, leave_one_out_baseline: bool = True
) -> dict[str, torch.Tensor]:
    r"""`train/baseline_reward/pct_0`, `pct_1`, `pct_mixed`: percent of samples whose baseline is 0, 1, other.

    $\text{pct}_0 = 100\cdot\frac{1}{B}\sum_i [b_i = 0]$, likewise for 1; `pct_mixed` $= 100 -
    \text{pct}_0 - \text{pct}_1$, with $b_i$ from [`baseline_and_std()`][baseline_and_std]
    (`nemo_rl/algorithms/grpo.py:2441-2445@7ea279ab`). With leave-one-out, $b_i = 1$ means
    every *other* sample of the group scored 1.

    Args:
        prompt_ids: `(B,)` group ids or `(B, S)` prompt rows.
        rewards: `(B,)` rewards after scaling and shaping.
        leave_one_out_baseline: `grpo.use_leave_one_out_baseline`.

    Returns:
        The three percentages (0 to 100).
    """
    baseline, _ = baseline_and_std(prompt_ids, rewards, None, leave_one_out_baseline)
    pct_0 = 100 * (baseline == 0).to(torch.float64).mean()
    pct_1 = 100 * (baseline == 1).to(torch.float64).mean()
    return {"pct_0": pct_0, "pct_1": pct_1, "pct_mixed": 100 - pct_0 - pct_1}


def advantage_stats(advantages: torch.Tensor, token_loss_mask: torch.Tensor) -> dict[str, torch.Tensor]:
    r"""`train/advantages/{mean,max,min}` over response tokens, and `advantages/sum` over the padded tensor.

    Mean, max and min are taken over every position with `token_loss_mask = 1` (0.0 when there is
    none), so a sample counts once per response token and `sample_mask` is ignored
    (`nemo_rl/algorithms/grpo.py:3426-3447@7ea279ab`). `sum` adds the whole `(B, S)` tensor,
    prompt and padding positions included (`nemo_rl/algorithms/grpo.py:2450@7ea279ab`).

    Args:
        advantages: `(B, S)` per-token advantages (NeMo-RL expands each sample's value over its row),
            or `(B,)` per-sample values, expanded here over `S`.
        token_loss_mask: `(B, S)` generated-token mask.

    Returns:
        `mean`, `max`, `min`, `sum`.
    """
    mask = as_bool_mask(token_loss_mask)
    adv = as_float(advantages)
    if adv.dim() == 1:
        adv = adv.unsqueeze(-1).expand(mask.shape)
    selected = adv[mask]
    zero = torch.zeros((), dtype=adv.dtype)
    empty = selected.numel() == 0
    return {
        "mean": zero if empty else selected.mean(),
        "max": zero if empty else selected.max(),
        "min": zero if empty else selected.min(),
        "sum": adv.sum(),
    }


def batch_token_stats(prompt_lengths: torch.Tensor, total_lengths: torch.Tensor) -> dict[str, torch.Tensor]:
    r"""`train/mean_prompt_length` and `train/total_num_tokens` of the step's training batch.

    `mean_prompt_length` $= \frac1B\sum_b \ell^{prompt}_b$ (the dataset's `length`: prompt tokens with
    the chat template); `total_num_tokens` $= \sum_b \ell_b$, the unpadded lengths of the whole
    sequences (prompt, every assistant turn and environment tokens), masked samples included
    (`nemo_rl/algorithms/grpo.py:3436-3437@7ea279ab`).

    Args:
        prompt_lengths: `(B,)` prompt tokens per sample.
        total_lengths: `(B,)` unpadded tokens per sample.

    Returns:
        `mean_prompt_length` and `total_num_tokens`.
    """
    return {
        "mean_prompt_length": as_float(prompt_lengths).mean(),
        "total_num_tokens": as_float(total_lengths).sum(),
    }


def dapo_reward(
    unfiltered_rewards: Sequence[torch.Tensor] | torch.Tensor, train_batch_size: int
) -> torch.Tensor:
    r"""`train/reward` under dynamic sampling: mean of the first $N$ *unfiltered* rewards of the step.

    The unfiltered rewards of every generation batch of the step are concatenated and cut to
    $N$ = `num_prompts_per_step × num_generations_per_prompt`
    (`nemo_rl/algorithms/grpo.py:1768,1819@7ea279ab`): neither the mean of the kept samples
    (that is `filtered_reward`) nor of all generated ones.

    Args:
        unfiltered_rewards: the rewards of each generation batch, in generation order (a list of
            `(n,)` tensors, or one `(K, n)` tensor).
        train_batch_size: $N$.

    Returns:
        The logged mean.
    """
    rewards = torch.cat([as_float(r).reshape(-1) for r in unfiltered_rewards])
    return rewards[:train_batch_size].mean()


def rollout_length_stats(
    gen_tokens: torch.Tensor,
    env_tokens: torch.Tensor,
    turns: torch.Tensor,
    *,
    terminated: torch.Tensor,
    truncated: torch.Tensor,
    max_turns_reached: torch.Tensor,
) -> dict[str, torch.Tensor]:
    r"""Rollout metrics of the native multi-turn rollout, one value per sample averaged over the batch.

    Args:
        gen_tokens: `(B,)` assistant (generated) tokens per sample, all turns.
        env_tokens: `(B,)` environment-observation tokens per sample.
        turns: `(B,)` turns per sample.
        terminated: `(B,)` sample ended (environment done **or** observation truncated).
        truncated: `(B,)` a response hit `max_tokens` or an observation was cut.
        max_turns_reached: `(B,)` still active after `max_rollout_turns`.

    Returns:
        `mean_gen_tokens_per_sample`, `max_gen_tokens_per_sample`, `mean_total_tokens_per_sample`
        (generated + environment tokens, prompt excluded), `mean_env_tokens_per_sample`,
        `total_turns`, `avg_turns_per_sample`, `max_turns_per_sample`, `natural_termination_rate`,
        `truncation_rate`, `max_turns_reached_rate` (`nemo_rl/experience/rollouts.py:1066-1087@7ea279ab`).
    """
    gen, env, turns_f = as_float(gen_tokens), as_float(env_tokens), as_float(turns)

    def rate(flags: torch.Tensor) -> torch.Tensor:
        return as_bool_mask(flags).to(torch.float64).mean()

    return {
        "mean_gen_tokens_per_sample": gen.mean(),
        "max_gen_tokens_per_sample": gen.max(),
        "mean_total_tokens_per_sample": (gen + env).mean(),
        "mean_env_tokens_per_sample": env.mean(),
        "total_turns": turns_f.sum(),
        "avg_turns_per_sample": turns_f.mean(),
        "max_turns_per_sample": turns_f.max(),
        "natural_termination_rate": rate(terminated),
        "truncation_rate": rate(truncated),
        "max_turns_reached_rate": rate(max_turns_reached),
    }


def validation_stats(
    rewards: torch.Tensor, batch_mean_lengths: torch.Tensor, val_num_generations_per_prompt: int = 1
) -> dict[str, torch.Tensor]:
    r"""`validation/accuracy`, `validation/avg_length` and `validation/pass_k`.

    `accuracy` $= \frac1N\sum_i r_i$ (a mean reward); `avg_length` = the unweighted mean of the
    per-batch `mean_gen_tokens_per_sample`; `pass_k` (only when $k > 1$) = the fraction of prompts
    with any of their $k$ consecutive rollouts scoring $> 0$
    (`nemo_rl/algorithms/grpo.py:3953-3983@7ea279ab`).

    Args:
        rewards: `(N,)` total rewards of every validation rollout, prompts' rollouts consecutive.
        batch_mean_lengths: `(n_batches,)` the mean generated tokens per sample of each batch.
        val_num_generations_per_prompt: $k$.

    Returns:
        `accuracy`, `avg_length`, and `pass_k` when $k > 1$.
    """
    r = as_float(rewards).reshape(-1)
    lengths = as_float(batch_mean_lengths).reshape(-1)
    zero = torch.zeros((), dtype=torch.float64)
    out = {
        "accuracy": r.mean() if r.numel() else zero,
        "avg_length": lengths.mean() if lengths.numel() else zero,
    }
    if val_num_generations_per_prompt > 1 and r.numel():
        out["pass_k"] = (
            (r.reshape(-1, val_num_generations_per_prompt) > 0).any(dim=1).to(torch.float64).mean()
        )
    return out


def grad_norm(gradients_per_global_batch: Sequence[Sequence[torch.Tensor]] | torch.Tensor) -> torch.Tensor:
    r"""`train/grad_norm`: global L2 norm of the gradient of the **last** global batch of the step.

    $\lVert g^{(n_{GB})}\rVert_2 = \sqrt{\sum_p \lVert g^{(n_{GB})}_p\rVert_2^2}$ before clipping;
    the norms of earlier optimizer steps of the same RL step are overwritten
    (`nemo_rl/models/policy/workers/megatron_policy_worker.py:1070@7ea279ab`).

    Args:
        gradients_per_global_batch: for each global batch, the gradient tensors of all parameters
            (a `(G, P)` tensor is read as one flat gradient per global batch).

    Returns:
        The logged norm.
    """
    last = gradients_per_global_batch[-1]
    parts = [last] if isinstance(last, torch.Tensor) else list(last)
    return torch.sqrt(sum((as_float(p) ** 2).sum() for p in parts))


def gym_stats(values: torch.Tensor, batch_size: int | None = None) -> dict[str, torch.Tensor]:
    r"""NeMo-Gym rollout statistics `<name>/{mean,max,min,median,stddev,p95,p99}` of per-sample values.

    `mean` $= \sum_i x_i / B$ with $B$ the batch size (not the number of values); `median` is the
    middle value (mean of the two middle ones for an even count); `stddev` is the Bessel-corrected
    sample deviation, NaN for a single value; `p95`/`p99` take the sorted value at index
    $\min(\lfloor n p / 100 \rfloor, n - 1)$ (`nemo_rl/experience/metric_utils.py:24-54@7ea279ab`).

    Args:
        values: `(n,)` one value per sample (reward, turns, tokens...).
        batch_size: the denominator of the mean; `n` when `None`.

    Returns:
        The statistics, keyed by the last segment of the logged key.
    """
    xs = [float(v) for v in as_float(values).reshape(-1)]
    n = len(xs)
    ordered = sorted(xs)

    def pct(p: float) -> float:
        return ordered[min(int(n * p / 100), n - 1)] if n else 0.0

    out = {
        "mean": sum(xs) / (batch_size if batch_size is not None else n),
        "max": max(xs),
        "min": min(xs),
        "median": statistics.median(xs),
        "stddev": statistics.stdev(xs) if n > 1 else math.nan,
        "p95": pct(95),
        "p99": pct(99),
    }
    return {name: torch.tensor(value, dtype=torch.float64) for name, value in out.items()}


def async_reward_stats(group_rewards: torch.Tensor) -> dict[str, torch.Tensor]:
    r"""Async GRPO `train/mean_total_reward`, `max_total_reward`, `min_total_reward`.

    Each trajectory group (the rollouts of one prompt) reports the mean, max and min of its total
    rewards (`nemo_rl/experience/rollouts.py:1453-1456@7ea279ab`); `aggregate_rollout_metrics`
    then averages the means over groups and takes the max of the maxima and the min of the minima
    (`nemo_rl/algorithms/grpo.py:4033-4071@7ea279ab`).

    Args:
        group_rewards: `(G, n)` total rewards, one row per trajectory group.

    Returns:
        `mean_total_reward` (the mean of group means), `max_total_reward`, `min_total_reward`.
    """
    rewards = as_float(group_rewards)
    return {
        "mean_total_reward": rewards.mean(dim=-1).mean(),
        "max_total_reward": rewards.max(),
        "min_total_reward": rewards.min(),
    }


def advantages_histogram(advantages: torch.Tensor, padded_length: int) -> torch.Tensor:
    r"""The values of `train/advantages/histogram`: every per-sample advantage repeated over the padded row.

    NeMo-RL logs the whole `(B, S)` advantage tensor, prompt and padding positions included
    (`nemo_rl/algorithms/grpo.py:2447-2449@7ea279ab`), so each sample weighs $S$ times in the
    histogram whatever its response length.

    Args:
        advantages: `(B,)` per-sample advantages.
        padded_length: $S$, the padded sequence length of the batch.

    Returns:
        The `B·S` values the histogram is built from, row by row.
    """
    return as_float(advantages).reshape(-1, 1).expand(-1, padded_length).reshape(-1)


def baseline_histogram(
    prompt_ids: torch.Tensor, rewards: torch.Tensor, leave_one_out_baseline: bool = True
) -> torch.Tensor:
    r"""The values of `train/baseline_reward/histogram`: one baseline per sample.

    The baselines of [`baseline_and_std()`][baseline_and_std] with every sample valid, as the driver
    logs them (`nemo_rl/algorithms/grpo.py:2438-2440@7ea279ab`).

    Args:
        prompt_ids: `(B,)` group ids or `(B, S)` prompt rows.
        rewards: `(B,)` rewards.
        leave_one_out_baseline: `grpo.use_leave_one_out_baseline`.

    Returns:
        `(B,)` baselines.
    """
    return baseline_and_std(prompt_ids, rewards, None, leave_one_out_baseline)[0]

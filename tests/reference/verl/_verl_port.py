"""Verbatim copies of the few verl functions the verl references reproduce (not a test module).

verl does not install on this CPU machine (it needs ray, vLLM/SGLang and a
GPU stack), so its loss and metric bodies are copied here, line for line,
with the `path:line@commit` they come from. Only imports are adapted
(`verl_F.masked_*` are defined below from verl's own bodies).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import torch

# verl's signatures are kept as they are, positional arguments included
# ruff: noqa: PLR0917
# verl's lines are longer than ours; they are copied as they are
# ruff: noqa: E501

# ------------------------------------------------- verl/utils/torch_functional.py@1dda039


def masked_sum(values, mask, axis=None):
    # verl/utils/torch_functional.py:290-291@1dda039
    valid_values = torch.where(mask.bool(), values, 0.0)
    return (valid_values * mask).sum(axis=axis)


def masked_mean(values, mask, axis=None):
    # verl/utils/torch_functional.py:294-308@1dda039
    s = masked_sum(values, mask, axis)
    return s / (mask.sum(axis=axis) + 1e-8)


# ------------------------------------------------- verl/trainer/ppo/core_algos.py@1dda039


def agg_loss(
    loss_mat,
    loss_mask,
    loss_agg_mode,
    dp_size=1,
    batch_num_tokens=None,
    global_batch_size=None,
    loss_scale_factor=None,
):
    # verl/trainer/ppo/core_algos.py:1170-1206@1dda039
    if loss_agg_mode == "token-mean":
        if batch_num_tokens is None:
            if dp_size > 1:
                raise ValueError("(global) batch_num_tokens is required when dp_size > 1")
            batch_num_tokens = loss_mask.sum()
        loss = masked_sum(loss_mat, loss_mask) / batch_num_tokens * dp_size
    elif loss_agg_mode == "token-sum":
        loss = masked_sum(loss_mat, loss_mask) * dp_size
    elif loss_agg_mode in ["seq-mean-token-sum", "seq-mean-token-sum-norm"]:
        seq_losses = torch.sum(loss_mat * loss_mask, dim=-1)  # token-sum
        seq_mask = (torch.sum(loss_mask, dim=-1) > 0).float()  # exclude fully masked sequences
        if global_batch_size is None:
            if dp_size > 1:
                raise ValueError("global_batch_size is required when dp_size > 1")
            global_batch_size = seq_mask.sum()
        loss = masked_sum(seq_losses, seq_mask) / global_batch_size * dp_size  # seq-mean
        if loss_agg_mode == "seq-mean-token-sum-norm":
            if loss_scale_factor is None:
                horizon = loss_mask.shape[-1]
                loss_scale_factor = horizon
            loss /= loss_scale_factor
    elif loss_agg_mode == "seq-mean-token-mean":
        seq_mask = torch.sum(loss_mask, dim=-1)  # per-sequence token count
        seq_losses = torch.sum(loss_mat * loss_mask, dim=-1) / (seq_mask + 1e-8)  # token-mean
        seq_mask = (seq_mask > 0).float()  # exclude fully masked sequences
        if global_batch_size is None:
            if dp_size > 1:
                raise ValueError("global_batch_size is required when dp_size > 1")
            global_batch_size = seq_mask.sum()
        loss = masked_sum(seq_losses, seq_mask) / global_batch_size * dp_size  # seq-mean
    else:
        raise ValueError(f"Invalid loss_agg_mode: {loss_agg_mode}")
    return loss


def compute_policy_loss_vanilla(
    old_log_prob,
    log_prob,
    advantages,
    response_mask,
    loss_agg_mode="token-mean",
    clip_ratio_low=0.2,
    clip_ratio_high=0.2,
    clip_ratio_c=3.0,
    global_batch_info=None,
    rollout_is_weights=None,
):
    # verl/trainer/ppo/core_algos.py:1336-1376@1dda039 (config fields passed as arguments)
    cliprange_low, cliprange_high = clip_ratio_low, clip_ratio_high
    negative_approx_kl = log_prob - old_log_prob
    negative_approx_kl = torch.clamp(negative_approx_kl, min=-20.0, max=20.0)
    ratio = torch.exp(negative_approx_kl)
    ppo_kl = masked_mean(-negative_approx_kl, response_mask)

    pg_losses1 = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1 - cliprange_low, 1 + cliprange_high)
    clip_pg_losses1 = torch.maximum(pg_losses1, pg_losses2)
    pg_clipfrac = masked_mean(torch.gt(pg_losses2, pg_losses1).float(), response_mask)

    pg_losses3 = -advantages * clip_ratio_c
    clip_pg_losses2 = torch.min(pg_losses3, clip_pg_losses1)
    pg_clipfrac_lower = masked_mean(
        torch.gt(clip_pg_losses1, pg_losses3) * (advantages < 0).float(), response_mask
    )

    pg_losses = torch.where(advantages < 0, clip_pg_losses2, clip_pg_losses1)
    if rollout_is_weights is not None:
        pg_losses = pg_losses * rollout_is_weights

    pg_loss = agg_loss(
        loss_mat=pg_losses, loss_mask=response_mask, loss_agg_mode=loss_agg_mode, **(global_batch_info or {})
    )
    pg_metrics = {
        "actor/pg_clipfrac": pg_clipfrac.detach().item(),
        "actor/ppo_kl": ppo_kl.detach().item(),
        "actor/pg_clipfrac_lower": pg_clipfrac_lower.detach().item(),
    }
    return pg_loss, pg_metrics


def kl_penalty_forward(logprob, ref_logprob, kl_penalty):
    # verl/trainer/ppo/core_algos.py:2227-2250@1dda039
    if kl_penalty in ("kl", "k1"):
        return logprob - ref_logprob
    if kl_penalty == "abs":
        return (logprob - ref_logprob).abs()
    if kl_penalty in ("mse", "k2"):
        return 0.5 * (logprob - ref_logprob).square()
    if kl_penalty in ("low_var_kl", "k3"):
        kl = ref_logprob - logprob
        kl = torch.clamp(kl, min=-20, max=20)
        ratio = torch.exp(kl)
        kld = (ratio - kl - 1).contiguous()
        return torch.clamp(kld, min=-10, max=10)
    raise NotImplementedError


def kl_penalty(logprob, ref_logprob, kl_penalty):
    # verl/trainer/ppo/core_algos.py:2200-2212@1dda039
    base_kl_penalty = kl_penalty[:-1] if kl_penalty.endswith("+") else kl_penalty
    forward_score = kl_penalty_forward(logprob, ref_logprob, base_kl_penalty)
    if not kl_penalty.endswith("+") or kl_penalty in ("mse", "k2"):
        return forward_score
    backward_score = 0.5 * (logprob - ref_logprob).square()
    return backward_score - backward_score.detach() + forward_score.detach()


def compute_value_loss(vpreds, returns, values, response_mask, cliprange_value, loss_agg_mode, **global_info):
    # verl/trainer/ppo/core_algos.py:2170-2184@1dda039
    vpredclipped = torch.clamp(
        vpreds, values - cliprange_value, values + cliprange_value
    )  # verl_F.clip_by_value
    vf_losses1 = (vpreds - returns) ** 2
    vf_losses2 = (vpredclipped - returns) ** 2
    clipped_vf_losses = torch.max(vf_losses1, vf_losses2)
    vf_loss = 0.5 * agg_loss(
        loss_mat=clipped_vf_losses, loss_mask=response_mask, loss_agg_mode=loss_agg_mode, **global_info
    )
    vf_clipfrac = masked_mean(torch.gt(vf_losses2, vf_losses1).float(), response_mask)
    return vf_loss, vf_clipfrac


# ------------------------------------------------- verl/utils/metric/utils.py@1dda039


def reduce_metrics(metrics):
    # verl/utils/metric/utils.py:49-57@1dda039 (Metric instances left out)
    for key, val in metrics.items():
        if "max" in key:
            metrics[key] = np.max(val)
        elif "min" in key:
            metrics[key] = np.min(val)
        else:
            metrics[key] = np.mean(val)
    return metrics


def aggregate_dp(value_lists, aggregation):
    # verl/utils/metric/utils.py:139-156@1dda039 (Metric.aggregate_dp on the value lists)
    value_arrays = np.array(value_lists)  # [num_dp, num_grad_accumulation]
    if aggregation == "sum":
        return np.sum(np.mean(value_arrays, axis=0))
    return np.mean(np.mean(value_arrays, axis=0))


# ------------------------------------------------- verl/trainer/ppo/ray_trainer.py@1dda039


def apply_kl_penalty_metric(old_log_probs, ref_log_prob, response_mask, kl_penalty_name):
    # verl/trainer/ppo/ray_trainer.py:100-109@1dda039
    kld = kl_penalty(old_log_probs, ref_log_prob, kl_penalty=kl_penalty_name)
    kld = kld * response_mask
    current_kl = masked_mean(kld, mask=response_mask, axis=-1)  # average over sequence
    return torch.mean(current_kl, dim=0).item()


# ------------------------------------------------- verl/workers/actor/dp_actor.py@bec9ef7


def legacy_dp_actor_loop(micro_batch_losses_per_step, gradient_accumulation):
    """verl/workers/actor/dp_actor.py:552-555,585,669@bec9ef7: the accumulator of `actor/pg_loss`."""
    metrics = {"actor/pg_loss": 0.0}
    loss_scale_factor = 1 / gradient_accumulation
    for step in micro_batch_losses_per_step:  # every (epoch, mini-batch)
        for pg_loss in step:  # every micro-batch
            metrics["actor/pg_loss"] += pg_loss * loss_scale_factor
    return metrics["actor/pg_loss"]


# ------------------------------------------------- verl/trainer/ppo/metric_utils.py@1dda039


def bootstrap_metric(data, subset_size, reduce_fns, n_bootstrap=1000, seed=42):
    # verl/trainer/ppo/metric_utils.py:835-857@1dda039
    np.random.seed(seed)
    data_np = np.array(data, dtype=object)
    n_data = len(data_np)
    bootstrap_idxs = np.random.choice(n_data, size=(n_bootstrap, subset_size), replace=True)
    n_fns = len(reduce_fns)
    metric_results = np.empty((n_fns, n_bootstrap), dtype=np.float64)
    for fn_idx, reduce_fn in enumerate(reduce_fns):
        for boot_idx in range(n_bootstrap):
            sample = data_np[bootstrap_idxs[boot_idx]]
            metric_results[fn_idx, boot_idx] = reduce_fn(sample)
    return [(float(np.mean(metric_results[i])), float(np.std(metric_results[i]))) for i in range(n_fns)]


def calc_maj_val(data, vote_key, val_key):
    # verl/trainer/ppo/metric_utils.py:884-893@1dda039
    vote2vals = defaultdict(list)
    for d in data:
        vote2vals[d[vote_key]].append(d[val_key])
    vote2cnt = {k: len(v) for k, v in vote2vals.items()}
    maj_vote = max(vote2cnt, key=vote2cnt.get)
    return vote2vals[maj_vote][0]


def compute_data_metrics(
    token_level_scores, token_level_rewards, advantages, returns, response_mask, response_length, values=None
):
    # verl/trainer/ppo/metric_utils.py:453-571@1dda039 (scores, rewards, advantages, returns, values)
    sequence_score = token_level_scores.sum(-1)
    sequence_reward = token_level_rewards.sum(-1)
    response_mask = response_mask.bool()
    aborted_mask = (response_length == 0).bool()
    non_aborted_mask = ~aborted_mask
    non_aborted_sequence_score = sequence_score[non_aborted_mask]
    non_aborted_sequence_reward = sequence_reward[non_aborted_mask]
    score_mean = torch.mean(non_aborted_sequence_score).detach().item()
    score_max = torch.max(non_aborted_sequence_score).detach().item()
    score_min = torch.min(non_aborted_sequence_score).detach().item()
    reward_mean = torch.mean(non_aborted_sequence_reward).detach().item()
    reward_max = torch.max(non_aborted_sequence_reward).detach().item()
    reward_min = torch.min(non_aborted_sequence_reward).detach().item()
    valid_adv = torch.masked_select(advantages, response_mask)
    valid_returns = torch.masked_select(returns, response_mask)
    metrics = {
        "critic/score/mean": score_mean,
        "critic/score/max": score_max,
        "critic/score/min": score_min,
        "critic/rewards/mean": reward_mean,
        "critic/rewards/max": reward_max,
        "critic/rewards/min": reward_min,
        "critic/advantages/mean": torch.mean(valid_adv).detach().item(),
        "critic/advantages/max": torch.max(valid_adv).detach().item(),
        "critic/advantages/min": torch.min(valid_adv).detach().item(),
        "critic/returns/mean": torch.mean(valid_returns).detach().item(),
        "critic/returns/max": torch.max(valid_returns).detach().item(),
        "critic/returns/min": torch.min(valid_returns).detach().item(),
    }
    if values is not None:
        valid_values = torch.masked_select(values, response_mask)
        return_diff_var = torch.var(valid_returns - valid_values)
        return_var = torch.var(valid_returns)
        metrics["critic/values/mean"] = torch.mean(valid_values).detach().item()
        metrics["critic/values/max"] = torch.max(valid_values).detach().item()
        metrics["critic/values/min"] = torch.min(valid_values).detach().item()
        metrics["critic/vf_explained_var"] = (1.0 - return_diff_var / (return_var + 1e-5)).detach().item()
    return metrics


def compute_length_metrics(response_length, prompt_length, max_response_length, max_prompt_length):
    # verl/trainer/ppo/metric_utils.py:468-470,511-526,573-593@1dda039
    aborted_mask = (response_length == 0).bool()
    non_aborted_mask = ~aborted_mask
    aborted_ratio = torch.mean(aborted_mask.float()).detach().item()
    non_aborted_response_length = response_length[non_aborted_mask]
    return {
        "response_length/mean": torch.mean(response_length).detach().item(),
        "response_length/max": torch.max(response_length).detach().item(),
        "response_length/min": torch.min(response_length).detach().item(),
        "response_length/clip_ratio": torch.mean(torch.eq(response_length, max_response_length).float())
        .detach()
        .item(),
        "response_length_non_aborted/mean": torch.mean(non_aborted_response_length).detach().item(),
        "response_length_non_aborted/max": torch.max(non_aborted_response_length).detach().item(),
        "response_length_non_aborted/min": torch.min(non_aborted_response_length).detach().item(),
        "response_length_non_aborted/clip_ratio": (
            torch.mean(torch.eq(non_aborted_response_length, max_response_length).float()).detach().item()
        ),
        "response/aborted_ratio": aborted_ratio,
        "prompt_length/mean": torch.mean(prompt_length).detach().item(),
        "prompt_length/max": torch.max(prompt_length).detach().item(),
        "prompt_length/min": torch.min(prompt_length).detach().item(),
        "prompt_length/clip_ratio": torch.mean(torch.eq(prompt_length, max_prompt_length).float())
        .detach()
        .item(),
    }


def log_seqlen_unbalance(seqlen_list, partitions, prefix):
    # verl/utils/seqlen_balancing.py:270-302@1dda039
    k_partition = len(partitions)
    batch_size = len(seqlen_list) // k_partition
    min_sum_seqlen = None
    max_sum_seqlen = None
    total_sum_seqlen = 0
    for offset in range(0, len(seqlen_list), batch_size):
        cur_sum_seqlen = sum(seqlen_list[offset : offset + batch_size])
        if min_sum_seqlen is None or cur_sum_seqlen < min_sum_seqlen:
            min_sum_seqlen = cur_sum_seqlen
        if max_sum_seqlen is None or cur_sum_seqlen > max_sum_seqlen:
            max_sum_seqlen = cur_sum_seqlen
        total_sum_seqlen += cur_sum_seqlen
    balanced_sum_seqlen_list = []
    for partition in partitions:
        cur_sum_seqlen_balanced = sum([seqlen_list[i] for i in partition])
        balanced_sum_seqlen_list.append(cur_sum_seqlen_balanced)
    min_sum_seqlen_balanced = min(balanced_sum_seqlen_list)
    max_sum_seqlen_balanced = max(balanced_sum_seqlen_list)
    return {
        f"{prefix}/min": min_sum_seqlen,
        f"{prefix}/max": max_sum_seqlen,
        f"{prefix}/minmax_diff": max_sum_seqlen - min_sum_seqlen,
        f"{prefix}/balanced_min": min_sum_seqlen_balanced,
        f"{prefix}/balanced_max": max_sum_seqlen_balanced,
        f"{prefix}/mean": total_sum_seqlen / len(partitions),
    }


def compute_timing_metrics(prompt_length, response_length, timing_raw):
    # verl/trainer/ppo/metric_utils.py:635-652@1dda039
    num_prompt_tokens = torch.sum(prompt_length).item()
    num_response_tokens = torch.sum(response_length).item()
    num_overall_tokens = num_prompt_tokens + num_response_tokens
    num_tokens_of_section = {
        "gen": num_response_tokens,
        **{name: num_overall_tokens for name in ["ref", "values", "adv", "update_critic", "update_actor"]},  # noqa: C420
    }
    return {
        **{f"timing_s/{name}": value for name, value in timing_raw.items()},
        **{
            f"timing_per_token_ms/{name}": (
                timing_raw[name] * 1000 / num_tokens_of_section[name]
                if num_tokens_of_section[name] > 0
                else 0.0
            )
            for name in set(num_tokens_of_section.keys()) & set(timing_raw.keys())
        },
    }


def compute_throughout_metrics(global_token_num, timing_raw, n_gpus):
    # verl/trainer/ppo/metric_utils.py:679-688@1dda039
    total_num_tokens = sum(global_token_num)
    time = timing_raw["step"]
    return {
        "perf/total_num_tokens": total_num_tokens,
        "perf/time_per_step": time,
        "perf/throughput": total_num_tokens / (time * n_gpus),
    }


SAFETY_BOUND = 20.0


def compute_offpolicy_metrics(old_log_prob, rollout_log_prob, response_mask):
    # verl/trainer/ppo/rollout_corr_helper.py:942-1010@1dda039
    metrics = {}
    mean_log_prob_training = masked_mean(old_log_prob, response_mask, axis=-1)
    training_ppl = torch.exp(-mean_log_prob_training).mean()
    metrics["training_ppl"] = training_ppl.detach().item()
    metrics["training_log_ppl"] = (-mean_log_prob_training).mean().detach().item()
    metrics["kl"] = masked_mean(rollout_log_prob - old_log_prob, response_mask).detach().item()
    log_ratio = old_log_prob - rollout_log_prob
    k3_kl_matrix = torch.exp(log_ratio) - log_ratio - 1
    metrics["k3_kl"] = masked_mean(k3_kl_matrix, response_mask).detach().item()
    mean_log_prob_rollout = masked_mean(rollout_log_prob, response_mask, axis=-1)
    rollout_ppl = torch.exp(-mean_log_prob_rollout).mean()
    metrics["rollout_ppl"] = rollout_ppl.detach().item()
    metrics["rollout_log_ppl"] = (-mean_log_prob_rollout).mean().detach().item()
    log_ppl_diff = mean_log_prob_rollout - mean_log_prob_training
    metrics["log_ppl_diff"] = log_ppl_diff.mean().detach().item()
    metrics["log_ppl_abs_diff"] = log_ppl_diff.abs().mean().detach().item()
    metrics["log_ppl_diff_max"] = log_ppl_diff.max().detach().item()
    metrics["log_ppl_diff_min"] = log_ppl_diff.min().detach().item()
    ppl_ratio = torch.exp(log_ppl_diff).mean()
    metrics["ppl_ratio"] = ppl_ratio.detach().item()
    log_ratio_safe = torch.clamp(log_ratio, min=-SAFETY_BOUND, max=SAFETY_BOUND)
    rho_token = torch.exp(log_ratio_safe)
    rho_squared_token = rho_token.square()
    chi2_token = masked_mean(rho_squared_token, response_mask) - 1.0
    metrics["chi2_token"] = chi2_token.detach().item()
    log_ratio_sum = masked_sum(log_ratio, response_mask, axis=-1)
    log_ratio_sum_safe = torch.clamp(log_ratio_sum, min=-SAFETY_BOUND, max=SAFETY_BOUND)
    rho_squared_seq = torch.exp(2.0 * log_ratio_sum_safe)
    chi2_seq = rho_squared_seq.mean() - 1.0
    metrics["chi2_seq"] = chi2_seq.detach().item()
    return {f"rollout_corr/{k}": v for k, v in metrics.items()}


def compute_rollout_correction_weights(log_ratio, response_mask, rollout_is, upper, lower, batch_normalize):
    # verl/trainer/ppo/rollout_corr_helper.py:569-657@1dda039 (threshold already parsed, no torch.distributed)
    use_icepop = lower is not None
    if rollout_is == "token":
        log_ratio_for_metrics = log_ratio
        log_ratio_safe = torch.clamp(log_ratio, min=-SAFETY_BOUND, max=SAFETY_BOUND)
        raw_rollout_is_weights = torch.exp(log_ratio_safe)
    else:
        log_ratio_sum = masked_sum(log_ratio, response_mask, axis=-1).unsqueeze(-1)
        log_ratio_for_metrics = log_ratio_sum
        log_ratio_sum_safe = torch.clamp(log_ratio_sum, min=-SAFETY_BOUND, max=SAFETY_BOUND)
        raw_rollout_is_weights = torch.exp(log_ratio_sum_safe).expand_as(log_ratio)
    raw_rollout_is_weights = raw_rollout_is_weights * response_mask
    if not use_icepop:
        rollout_is_weights = raw_rollout_is_weights.clamp(max=upper)
    else:
        token_kept_mask = (raw_rollout_is_weights >= lower) & (raw_rollout_is_weights <= upper)
        rollout_is_weights = torch.where(
            token_kept_mask, raw_rollout_is_weights, torch.zeros_like(raw_rollout_is_weights)
        )
    metrics = compute_is_metrics(
        rollout_is_weights,
        raw_rollout_is_weights,
        log_ratio_for_metrics,
        response_mask,
        rollout_is,
        upper,
        lower,
    )
    if use_icepop:
        oob_mask = (raw_rollout_is_weights < lower) | (raw_rollout_is_weights > upper)
        metrics["rollout_is_oob_ratio"] = masked_mean(oob_mask.float(), response_mask).item()
    if batch_normalize:
        if rollout_is == "token":
            weights_mean = masked_mean(rollout_is_weights, response_mask)
        else:
            seq_weights = masked_mean(rollout_is_weights, response_mask, axis=-1)
            seq_mask = (response_mask.sum(dim=-1) > 0).to(dtype=rollout_is_weights.dtype)
            weights_mean = (seq_weights * seq_mask).sum() / seq_mask.sum().clamp_min(1e-8)
        metrics["rollout_is_batch_norm_factor"] = weights_mean.item() if weights_mean > 1e-8 else 1.0
    return {f"rollout_corr/{k}": v for k, v in metrics.items()}


def compute_is_metrics(
    rollout_is_weights,
    raw_rollout_is_weights,
    log_ratio_for_metrics,
    response_mask,
    rollout_is,
    rollout_is_threshold,
    rollout_is_threshold_lower=None,
):
    # verl/trainer/ppo/rollout_corr_helper.py:692-783@1dda039
    metrics = {}
    device = rollout_is_weights.device
    rollout_is_threshold_lower = (
        1.0 / rollout_is_threshold if rollout_is_threshold_lower is None else rollout_is_threshold_lower
    )
    log_threshold_upper = torch.log(torch.tensor(rollout_is_threshold, device=device))
    log_threshold_lower = torch.log(torch.tensor(rollout_is_threshold_lower, device=device))
    if rollout_is == "sequence":
        log_max = log_ratio_for_metrics.max()
        log_min = log_ratio_for_metrics.min()
        metrics["rollout_is_max"] = torch.exp(torch.clamp(log_max, max=SAFETY_BOUND)).item()
        metrics["rollout_is_min"] = torch.exp(log_min).item()
        metrics["rollout_is_mean"] = masked_mean(rollout_is_weights, response_mask).item()
        exceeds_upper = log_ratio_for_metrics > log_threshold_upper
        below_lower = log_ratio_for_metrics < log_threshold_lower
        metrics["rollout_is_ratio_fraction_high"] = exceeds_upper.float().mean().item()
        metrics["rollout_is_ratio_fraction_low"] = below_lower.float().mean().item()
    else:
        metrics["rollout_is_mean"] = masked_mean(rollout_is_weights, response_mask).item()
        rollout_is_above_threshold = raw_rollout_is_weights > rollout_is_threshold
        rollout_is_below_threshold = raw_rollout_is_weights < rollout_is_threshold_lower
        metrics["rollout_is_ratio_fraction_high"] = masked_mean(
            rollout_is_above_threshold.float(), response_mask
        ).item()
        metrics["rollout_is_ratio_fraction_low"] = masked_mean(
            rollout_is_below_threshold.float(), response_mask
        ).item()
        mask_bool = response_mask.bool()
        metrics["rollout_is_max"] = rollout_is_weights.masked_fill(~mask_bool, float("-inf")).max().item()
        metrics["rollout_is_min"] = rollout_is_weights.masked_fill(~mask_bool, float("inf")).min().item()
    mask_count = response_mask.sum()
    if mask_count > 1:
        weights_for_std = rollout_is_weights.clamp(min=0.0, max=rollout_is_threshold)
        mean_clamped = masked_mean(weights_for_std, response_mask)
        rollout_is_var = masked_mean(weights_for_std.square(), response_mask) - mean_clamped.square()
        metrics["rollout_is_std"] = torch.sqrt(torch.clamp(rollout_is_var, min=0.0)).item()
    else:
        metrics["rollout_is_std"] = 0.0
    weights_for_ess = rollout_is_weights.clamp(min=0.0, max=rollout_is_threshold)
    mean_for_ess = masked_mean(weights_for_ess, response_mask)
    is_weights_normalized = weights_for_ess / (mean_for_ess + 1e-8)
    metrics["rollout_is_eff_sample_size"] = (
        1.0 / masked_mean(is_weights_normalized.square(), response_mask).item()
    )
    if rollout_is_weights.dim() > 1:
        seq_mean_weights = masked_mean(rollout_is_weights, response_mask, axis=-1)
        metrics["rollout_is_seq_mean"] = seq_mean_weights.mean().item()
        metrics["rollout_is_seq_std"] = seq_mean_weights.std().item() if seq_mean_weights.numel() > 1 else 0.0
        metrics["rollout_is_seq_max"] = seq_mean_weights.max().item()
        metrics["rollout_is_seq_min"] = seq_mean_weights.min().item()
        seq_deviation = (seq_mean_weights - 1.0).abs()
        metrics["rollout_is_seq_max_deviation"] = seq_deviation.max().item()
        raw_seq_mean_weights = masked_mean(raw_rollout_is_weights, response_mask, axis=-1)
        metrics["rollout_is_seq_fraction_high"] = (
            (raw_seq_mean_weights > rollout_is_threshold).float().mean().item()
        )
        metrics["rollout_is_seq_fraction_low"] = (
            (raw_seq_mean_weights < rollout_is_threshold_lower).float().mean().item()
        )
    return metrics


def calculate_debug_metrics(old_log_probs, rollout_log_probs, response_mask):
    # verl/utils/debug/metrics.py:52-60,98-121@1dda039
    actor_probs = torch.exp(old_log_probs)
    rollout_probs = torch.exp(rollout_log_probs)
    response_mask_bool = response_mask.bool()
    mt1 = torch.masked_select(actor_probs, response_mask_bool)
    mt2 = torch.masked_select(rollout_probs, response_mask_bool)
    pearson_corrcoef = torch.corrcoef(torch.stack([mt1, mt2], dim=0))[0][1].detach().item()
    rollout_probs_diff = torch.masked_select(torch.abs(actor_probs - rollout_probs), response_mask_bool)
    return {
        "training/rollout_probs_diff_valid": 1,
        "training/rollout_probs_diff_max": torch.max(rollout_probs_diff).detach().item(),
        "training/rollout_probs_diff_mean": torch.mean(rollout_probs_diff).detach().item(),
        "training/rollout_probs_diff_std": torch.std(rollout_probs_diff).detach().item(),
        "training/rollout_actor_probs_pearson_corr": pearson_corrcoef,
    }


# ------------------------------------------------- verl/trainer/ppo/metric_utils.py@1dda039 (rollout MoE)


class _Logger:
    # stands in for verl's module logger (the warnings are not under test)
    def warning(self, *args):
        pass


logger = _Logger()


def _compute_rollout_moe_load_balance_metrics_from_counts(
    load_counts: torch.Tensor | None,
    prefix: str = "rollout/moe",
) -> dict[str, Any]:
    # verl/trainer/ppo/metric_utils.py:176-202@1dda039
    if load_counts is None or load_counts.numel() == 0:
        return {}

    load_matrix = load_counts.float()
    load_matrix = load_matrix / load_matrix.sum(dim=1, keepdim=True).clamp_min(1.0)
    num_experts = load_matrix.shape[1]
    deviation = load_matrix * num_experts - 1.0
    max_vio = deviation.max(dim=1).values
    min_vio = deviation.min(dim=1).values
    avg_vio = deviation.abs().mean(dim=1)

    metrics: dict[str, Any] = {}
    for i in range(load_matrix.shape[0]):
        metrics[f"{prefix}/max_vio/layer_{i}"] = max_vio[i].detach().item()
        metrics[f"{prefix}/min_vio/layer_{i}"] = min_vio[i].detach().item()
        metrics[f"{prefix}/avg_vio/layer_{i}"] = avg_vio[i].detach().item()
    metrics[f"{prefix}/max_vio/max"] = max_vio.max().detach().item()
    metrics[f"{prefix}/max_vio/avg"] = max_vio.mean().detach().item()
    metrics[f"{prefix}/min_vio/max"] = min_vio.max().detach().item()
    metrics[f"{prefix}/min_vio/avg"] = min_vio.mean().detach().item()
    metrics[f"{prefix}/avg_vio/max"] = avg_vio.max().detach().item()
    metrics[f"{prefix}/avg_vio/avg"] = avg_vio.mean().detach().item()
    return metrics


def _compute_rollout_moe_load_counts(
    routed_experts: torch.Tensor | None,
    response_mask: torch.Tensor | None,
    num_experts: int | None,
) -> torch.Tensor | None:
    # verl/trainer/ppo/metric_utils.py:205-271@1dda039
    """Count routed experts in response tokens as [num_layers, num_experts].

    Each sequence's last valid response position is excluded: that token is
    sampled but never fed back through the model, so it carries no routing
    record (its slot is filler, not data).
    """
    if routed_experts is None or response_mask is None or num_experts is None or num_experts <= 0:
        return None
    if routed_experts.dim() != 4:
        logger.warning(
            "Expected routed_experts with shape [bsz, seqlen, layers, topk], got %s", routed_experts.shape
        )
        return None
    if response_mask.dim() != 2 or response_mask.shape[0] != routed_experts.shape[0]:
        logger.warning(
            "Response mask shape %s is incompatible with routed_experts %s",
            response_mask.shape,
            routed_experts.shape,
        )
        return None

    response_len = response_mask.shape[1]
    if response_len == 0:
        return None
    if routed_experts.shape[1] < response_len:
        logger.warning(
            "routed_experts sequence length %s is shorter than response length %s",
            routed_experts.shape[1],
            response_len,
        )
        return None

    response_routed_experts = routed_experts[:, -response_len:]
    response_mask = response_mask.to(device=response_routed_experts.device, dtype=torch.bool)
    # The final response token is sampled but never fed back through the model,
    # so it has no routing record; its slot holds filler from batch assembly
    # (zeros, see AgentLoopWorker._postprocess). Counting it would credit
    # expert 0 with num_layers * topk phantom assignments per sequence, so drop
    # each sequence's last valid position. This is the metrics counterpart of
    # build_r3_replay_mask, which skips the same row on the replay side.
    positions = torch.arange(response_len, device=response_mask.device)
    last_valid = torch.where(response_mask, positions, positions.new_full((), -1)).amax(dim=-1)
    has_valid = last_valid >= 0
    is_last_valid = (positions.unsqueeze(0) == last_valid.unsqueeze(1)) & has_valid.unsqueeze(1)
    response_mask = response_mask & ~is_last_valid
    selected = response_routed_experts[response_mask]
    selected = selected.detach().to(device="cpu", dtype=torch.long)
    if selected.numel() == 0:
        return None
    if selected.min() < 0 or selected.max() >= num_experts:
        logger.warning(
            "Skipping rollout MoE load-balance metrics because routed expert ids are outside [0, %s): min=%s max=%s",
            num_experts,
            selected.min().item(),
            selected.max().item(),
        )
        return None

    # selected: [num_response_tokens, num_layers, topk]. Count every top-k slot
    # without materializing a large [tokens, layers, topk, experts] one-hot tensor.
    return torch.stack(
        [
            torch.bincount(selected[:, layer_idx, :].flatten(), minlength=num_experts)
            for layer_idx in range(selected.shape[1])
        ]
    )


# ------------------------------------------------- verl/trainer/ppo/metric_utils.py@1dda039 (variance)


def compute_variance_proxy_metrics(batch, gradient_norm: float | None = None) -> dict[str, float]:
    # verl/trainer/ppo/metric_utils.py:691-802@1dda039 (masked_* are masked_* above)
    """
    Compute variance proxy metrics using the simplified expected squared norm approach.

    This metric provides a computationally efficient way to monitor gradient variance
    during training. It works for any advantage estimator as long as sum_pi_squared
    is available from the actor.

    Theory:
    - Full variance: Var(g̃) = E[||g̃||²] - ||g_true||²
    - Simplified proxy (when ||g_true||² ≈ 0): Var(g̃) ≈ E[||g̃||²]
    - Using W-score approximation: E[||g̃||²] ≈ E[A² × W(τ)]

    Where W(τ) = Σ_t[1 - 2π_t(y_t) + Σπ²] is the score-norm proxy.
    """
    metrics = {}

    # Check if we have the necessary data (sum_pi_squared is required for W-score)
    if (
        "sum_pi_squared" not in batch.batch
        or "old_log_probs" not in batch.batch
        or "advantages" not in batch.batch
    ):
        return metrics

    # Compute W(τ) = Σ_t[1 - 2π_t(y_t) + Σπ²]
    pi_t = torch.exp(batch.batch["old_log_probs"])
    w_per_timestep = 1 - 2 * pi_t + batch.batch["sum_pi_squared"]

    # Get response mask to only consider valid tokens
    response_mask = batch.batch["response_mask"]

    # Use pre-computed rollout IS weights from batch (for variance proxy consistency with training loss)
    # IS weights are computed centrally in ray_trainer.py to avoid duplication
    rollout_is_weights = None
    if "rollout_is_weights" in batch.batch:
        # Extract pre-computed IS weights from batch (already computed in trainer)
        rollout_is_weights = batch.batch["rollout_is_weights"]

        # Scale W by (rollout IS weight)² for optimal baseline under biased estimation
        w_per_timestep = w_per_timestep * (rollout_is_weights**2).detach()

        # Note: IS weight statistics and mismatch metrics are logged in ray_trainer.py

    # Get scalar advantages (mean over timesteps)
    advantages = batch.batch["advantages"]
    # Compute mean advantage per trajectory using masked_mean
    advantages_scalar = masked_mean(advantages, response_mask, axis=-1)

    # Compute W values (sum over timesteps)
    w_values = masked_sum(w_per_timestep, response_mask, axis=-1)

    # ====== COMPUTE VARIANCE PROXIES ======
    # Variance proxy should match the actual gradient computation:
    # - If IS weights were computed/applied: use them in variance proxy calculation
    # - Otherwise: compute on-policy variance proxy

    # ====== PROXY 1: Signal Strength ||ḡ||² ======
    # The squared norm of the mean gradient (provided from training loop)
    proxy1_signal_strength = gradient_norm**2 if gradient_norm is not None else None

    # ====== PROXY 2: Total Power E[||ĝ_τ||²] ======
    # Measures the average of squared gradient norms (Signal + Noise)
    if rollout_is_weights is not None:
        # Off-policy with IS correction applied: use clamped weights consistently with actual gradient computation
        rollout_is_weights_scalar = masked_mean(rollout_is_weights, response_mask, axis=-1)
        # Recover original W (before IS correction was applied in line 657)
        # Clamp to avoid division by zero when IS weights are zero
        w_original = masked_sum(
            w_per_timestep / torch.clamp((rollout_is_weights**2).detach(), min=1e-10), response_mask, axis=-1
        )
        # Clamp W to avoid negative values (which would cause NaN in sqrt)
        w_original = torch.clamp(w_original, min=0.0)
        # Proxy 2 for off-policy: E[ρ̄² × A² × W]
        proxy2_total_power = ((rollout_is_weights_scalar**2) * (advantages_scalar**2) * w_original).mean()

    else:
        # On-policy Proxy 2: E[A² × W]
        # Clamp W to avoid negative values (which would cause NaN in sqrt)
        w_values_clamped = torch.clamp(w_values, min=0.0)
        proxy2_total_power = (advantages_scalar**2 * w_values_clamped).mean()

    # ====== PROXY 3: Pure Noise - Variance of Mean Vector ======
    # Requires ||ḡ||² from actual batch gradient
    # Formula: (1/(N-1)) × (Proxy2 - Proxy1)
    proxy3_pure_noise = None
    if proxy1_signal_strength is not None:
        batch_size = advantages_scalar.shape[0]
        if batch_size > 1:
            proxy3_pure_noise = (1.0 / (batch_size - 1)) * (proxy2_total_power - proxy1_signal_strength)
            # Ensure non-negative (can be negative due to numerical errors)
            proxy3_pure_noise = max(
                0.0, proxy3_pure_noise.item() if torch.is_tensor(proxy3_pure_noise) else proxy3_pure_noise
            )

    # Decompose into components for analysis
    expected_a_squared = (advantages_scalar**2).mean()
    expected_w = w_values.mean()

    metrics.update(
        {
            # Proxy 1: Signal Strength ||ḡ||²
            "variance_proxy/proxy1_signal_strength": (
                proxy1_signal_strength if proxy1_signal_strength is not None else 0.0
            ),
            # Proxy 2: Total Power E[||ĝ_τ||²]
            "variance_proxy/proxy2_total_power": proxy2_total_power.detach().item(),
            # Proxy 3: Pure Noise - Variance of Mean Vector
            "variance_proxy/proxy3_pure_noise": proxy3_pure_noise if proxy3_pure_noise is not None else 0.0,
            # Component metrics for debugging
            "variance_proxy/expected_a_squared": expected_a_squared.detach().item(),
            "variance_proxy/expected_w": expected_w.detach().item(),
        }
    )

    return metrics

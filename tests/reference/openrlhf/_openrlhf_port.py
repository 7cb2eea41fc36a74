"""OpenRLHF's own code (v0.11.0, commit 3c3be623), copied for the reference tests.

OpenRLHF needs Ray, DeepSpeed, vLLM and a GPU; it does not install on this CPU
machine. The few lines that compute and reduce each metric are copied here
verbatim (only `self.` state turned into arguments, distributed calls replaced
by a simulated world: each rank's values in a list, `all_reduce(op="mean")`
= sum / world size, as `openrlhf/utils/deepspeed/deepspeed.py:593-614` does).
"""

# ruff: noqa: PLR0917, PLR1730, PLW2901, E501, SIM118  (upstream code kept verbatim)

from __future__ import annotations

import torch


def masked_mean(tensor, mask, dim=None):  # openrlhf/models/utils.py (masked_mean)@3c3be623
    if mask is None:
        return tensor.mean(axis=dim)
    return (tensor * mask).sum(axis=dim) / mask.sum(axis=dim)


# openrlhf/models/loss.py:11-39@3c3be623
def aggregate_loss(
    loss, loss_mask, token_level_loss=True, dp_size=1, batch_num_tokens=None, global_batch_size=None
):
    if token_level_loss:
        if batch_num_tokens is None:
            return masked_mean(loss, loss_mask, dim=None)
        return (loss * loss_mask).sum() / batch_num_tokens * dp_size

    token_counts = loss_mask.sum(dim=-1)
    seq_loss = (loss * loss_mask).sum(dim=-1) / (token_counts + 1e-8)
    seq_mask = (token_counts > 0).float()  # exclude fully masked sequences
    if global_batch_size is None:
        return masked_mean(seq_loss, seq_mask, dim=None)
    return (seq_loss * seq_mask).sum() / global_batch_size * dp_size


# openrlhf/models/loss.py:166-230@3c3be623 (policy_loss_type="ppo"; IS correction kept for vllm_kl)
def policy_loss_forward(
    log_probs,
    old_log_probs,
    advantages,
    action_mask,
    clip_eps_low=0.2,
    clip_eps_high=0.2,
    dual_clip=None,
    rollout_log_probs=None,
    dp_size=1,
    batch_num_tokens=None,
    global_batch_size=None,
):
    raw_policy_log_ratio = log_probs - old_log_probs
    policy_log_ratio = raw_policy_log_ratio.clamp(min=-20.0, max=20.0)
    ratio = policy_log_ratio.exp()
    surr1 = ratio * advantages
    surr2 = ratio.clamp(1 - clip_eps_low, 1 + clip_eps_high) * advantages
    if dual_clip is None:
        loss = -torch.min(surr1, surr2)
    else:
        clip1 = torch.min(surr1, surr2)
        clip2 = torch.max(clip1, dual_clip * advantages)
        loss = -torch.where(advantages < 0, clip2, clip1)
    vllm_kl = None
    if rollout_log_probs is not None:  # enable_vllm_is_correction, "tis"
        rollout_log_ratio = old_log_probs - rollout_log_probs
        vllm_is = torch.exp(rollout_log_ratio).clamp(min=0.5, max=2.0).detach()
        loss = vllm_is * loss
        vllm_kl = masked_mean(rollout_log_probs - old_log_probs, action_mask, dim=None)
    loss = aggregate_loss(
        loss,
        action_mask,
        token_level_loss=True,
        dp_size=dp_size,
        batch_num_tokens=batch_num_tokens,
        global_batch_size=global_batch_size,
    )
    clip_ratio = masked_mean(torch.lt(surr2, surr1).float(), action_mask, dim=None)
    ppo_kl = masked_mean(-raw_policy_log_ratio.detach(), action_mask, dim=None)
    return loss, clip_ratio, ppo_kl, vllm_kl


# openrlhf/models/loss.py:253-269@3c3be623
def value_loss_forward(values, old_values, returns, action_mask, clip_eps=0.5, **loss_batch_info):
    if clip_eps is not None:
        values_clipped = old_values + (values - old_values).clamp(-clip_eps, clip_eps)
        surr1 = (values_clipped - returns) ** 2
        surr2 = (values - returns) ** 2
        loss = torch.max(surr1, surr2)
    else:
        loss = (values - returns) ** 2
    loss = aggregate_loss(loss, action_mask, token_level_loss=True, **loss_batch_info)
    return 0.5 * loss


# openrlhf/models/utils.py:64-95@3c3be623
def compute_approx_kl(log_probs, log_probs_base, kl_estimator="k1"):
    log_ratio = log_probs.float() - log_probs_base.float()
    if kl_estimator == "k1":
        pass
    elif kl_estimator == "k2":
        log_ratio = log_ratio**2 / 2.0
    elif kl_estimator == "k3":
        log_ratio = (-log_ratio).exp() - 1 + log_ratio
    else:
        raise ValueError(f"Unknown kl_estimator: {kl_estimator}")
    return log_ratio.clamp(min=-10, max=10)


# openrlhf/models/utils.py:98-126@3c3be623
def compute_reward(r, kl_coef, kl, action_mask=None, reward_clip_range=None):
    if kl_coef <= 0.0:
        kl_coef = 0.0
    if reward_clip_range:
        r = r.clamp(min=reward_clip_range[0], max=reward_clip_range[1])
    kl_reward = -kl_coef * kl
    eos_indices = action_mask.size(1) - 1 - action_mask.long().fliplr().argmax(dim=1, keepdim=True)
    last_reward = torch.zeros_like(kl).scatter_(dim=1, index=eos_indices, src=r.unsqueeze(1).to(kl.dtype))
    reward = last_reward + kl_reward
    return reward


# openrlhf/trainer/ppo_utils/experience_maker.py:252-272@3c3be623
def shape_rewards(rewards, n_samples_per_prompt, advantage_estimator):
    rewards = rewards.reshape(-1, n_samples_per_prompt)
    group_reward_std = None
    if n_samples_per_prompt > 1:
        group_reward_std = rewards.std(-1, keepdim=True).repeat(1, n_samples_per_prompt).reshape(-1)
    if advantage_estimator == "rloo":
        baseline = (rewards.sum(-1, keepdim=True) - rewards) / (n_samples_per_prompt - 1)
        rewards = rewards - baseline
    elif advantage_estimator in ["reinforce_baseline", "dr_grpo"]:
        rewards = rewards - rewards.mean(-1, keepdim=True)
    elif advantage_estimator == "group_norm":
        rewards = (rewards - rewards.mean(-1, keepdim=True)) / (rewards.std(-1, keepdim=True) + 1e-9)
    return rewards.reshape(-1), group_reward_std


# openrlhf/utils/loss_utils.py:54-77@3c3be623 (one process per rank: the SUM all-reduce is a sum over ranks)
def optimizer_step_loss_norm(masks_of_all_ranks, dp_size, gas):
    num_tokens = torch.zeros((), dtype=torch.float32)
    num_samples = torch.zeros((), dtype=torch.float32)
    for mask in masks_of_all_ranks:
        mask = mask.to(dtype=torch.float32)
        num_tokens += mask.sum()
        num_samples += (mask.reshape(mask.shape[0], -1).sum(dim=-1) > 0).sum()
    return {"dp_size": dp_size, "batch_num_tokens": num_tokens / gas, "global_batch_size": num_samples / gas}


def all_reduce_mean(dicts):  # openrlhf/utils/deepspeed/deepspeed.py:593-614@3c3be623, op="mean"
    world = len(dicts)
    return {k: sum(d[k] for d in dicts) / world for k in dicts[0]}


# openrlhf/trainer/ray/ppo_actor.py:197-258@3c3be623; step_metrics[i][r] = (metrics, weights, n_samples, n_tokens)
def actor_ppo_train_reduce(step_metrics):
    status_list = []
    for per_rank in step_metrics:
        reduced_per_rank = []
        last_metrics = {}
        for metrics, weights, n_samples, n_tokens in per_rank:
            reduced_status = {"_num_action_tokens": n_tokens, "_num_samples": n_samples}
            for k, value in metrics.items():
                weight = weights[k]
                if weight is None:
                    last_metrics[k] = value
                    continue
                scale = n_tokens if weight == "token" else n_samples
                reduced_status[k] = (
                    value.float().mean().item() * scale if isinstance(value, torch.Tensor) else value * scale
                )
            reduced_per_rank.append(reduced_status)
        reduced_status = all_reduce_mean(reduced_per_rank)
        n_tokens = reduced_status.pop("_num_action_tokens")
        n_samples = reduced_status.pop("_num_samples")
        merged_status = {}
        for k, value in reduced_status.items():
            denom = n_tokens if weights[k] == "token" else n_samples
            merged_status[k] = value / denom
        merged_status.update(last_metrics)
        merged_status["_num_samples"] = n_samples
        merged_status["_num_action_tokens"] = n_tokens
        merged_status["_weights"] = weights
        status_list.append(merged_status)

    total_tokens = sum(s["_num_action_tokens"] for s in status_list)
    total_samples = sum(s["_num_samples"] for s in status_list)
    status_mean = {}
    for k in set().union(*(s.keys() for s in status_list)):
        if k in ("_num_samples", "_num_action_tokens", "_weights"):
            continue
        if k in ("actor_grad_norm", "actor_lr"):
            vals = [s[k] for s in status_list if k in s]
            status_mean[k] = vals[-1] if vals else 0.0
        elif status_list[0].get("_weights", {}).get(k) == "token":
            status_mean[k] = sum(s.get(k, 0) * s["_num_action_tokens"] for s in status_list) / total_tokens
        else:
            status_mean[k] = sum(s.get(k, 0) * s["_num_samples"] for s in status_list) / total_samples
    return status_mean


# openrlhf/trainer/ray/ppo_critic.py:102-118@3c3be623; step_status[i][r] = the status dict of rank r
def critic_ppo_train_reduce(step_status):
    status_list = [all_reduce_mean(per_rank) for per_rank in step_status]
    status_mean = status_list[0]
    for m in status_list[1:]:
        for k, v in m.items():
            status_mean[k] += v
    for k in status_mean.keys():
        status_mean[k] /= len(status_list)
    return status_mean


# openrlhf/trainer/ppo_utils/samples_generator.py:276-279@3c3be623
def span_and_clip(action_mask, attention_mask, truncate_length):
    ones_indices = torch.where(action_mask)[0]
    response_length = (ones_indices[-1] - ones_indices[0] + 1).item() if len(ones_indices) else 0
    total_length = attention_mask.float().sum()
    is_clipped = total_length >= truncate_length
    return response_length, is_clipped


# openrlhf/trainer/ppo_trainer.py:106-131@3c3be623 (one datasource)
def eval_pass(all_rewards, n_samples_per_prompt):
    rewards = torch.tensor(all_rewards).reshape(-1, n_samples_per_prompt)
    m = {f"pass{n_samples_per_prompt}": 0, "pass1": 0, "count": 0}
    for i in range(len(all_rewards) // n_samples_per_prompt):
        chunk = rewards[i]
        if n_samples_per_prompt > 1:
            m[f"pass{n_samples_per_prompt}"] += chunk.max().float().item()
        m["pass1"] += chunk.mean().float().item()
        m["count"] += 1
    return {
        f"pass{n_samples_per_prompt}": m[f"pass{n_samples_per_prompt}"] / m["count"],
        "pass1": m["pass1"] / m["count"],
    }

"""NeMo-RL's own metric code, copied from NVIDIA-NeMo/RL at 7ea279ab (the framework needs CUDA and Ray).

Bodies are verbatim except ``self.`` -> ``cfg.``, the distributed all-reduce
(here a plain sum over the micro-batches of every rank), printing, and the
loss options these tests do not exercise (CISPO, VAPO NLL, top-k filtering).
Not a test module: the tests import it.
"""

# ruff: noqa
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch


# nemo_rl/algorithms/utils.py:212-224@7ea279ab
def masked_mean(values, mask, dim=None, global_normalization_factor=None):
    normalization_factor = (
        torch.sum(mask, dim=dim) if global_normalization_factor is None else global_normalization_factor
    )
    return torch.sum(values * mask, dim=dim) / (normalization_factor + 1e-8)


# nemo_rl/algorithms/utils.py:40-99@7ea279ab
def calculate_kl(
    logprobs,
    logprobs_reference,
    kl_type="k3",
    input_clamp_value=20.0,
    output_clamp_value=10.0,
    importance_sampling_weights=None,
):
    logr = logprobs_reference - logprobs
    if input_clamp_value is not None:
        logr_clamped = logr.clamp(min=-input_clamp_value, max=input_clamp_value)
        if importance_sampling_weights is not None:
            importance_sampling_weights = torch.where(
                logr == logr_clamped, importance_sampling_weights, importance_sampling_weights.detach()
            )
        logr = logr_clamped
    if kl_type == "k1":
        kl = -logr
    elif kl_type == "k2":
        kl = torch.square(logr) / 2
    elif kl_type == "k3":
        kl = torch.exp(logr) - 1 - logr
    else:
        raise ValueError(f"Invalid KL type: {kl_type}")
    if importance_sampling_weights is not None:
        kl = importance_sampling_weights * kl
    if output_clamp_value is not None:
        kl = kl.clamp(min=-output_clamp_value, max=output_clamp_value)
    return kl


@dataclass
class Cfg:
    """The ClippedPGLossConfig fields used below, with their defaults (loss_functions.py:120-135)."""

    ratio_clip_min: float = 0.2
    ratio_clip_max: float = 0.2
    ratio_clip_c: Optional[float] = None
    reference_policy_kl_penalty: float = 0.01
    reference_policy_kl_type: str = "k3"
    kl_input_clamp_value: Optional[float] = 20.0
    kl_output_clamp_value: Optional[float] = 10.0
    token_level_loss: bool = True
    disable_ppo_ratio: bool = False
    force_on_policy_ratio: bool = False
    use_on_policy_kl_approximation: bool = False
    use_importance_sampling_correction: bool = False
    sequence_level_importance_ratios: bool = False
    truncated_importance_sampling_type: Optional[str] = None
    truncated_importance_sampling_ratio: Optional[float] = None
    truncated_importance_sampling_ratio_min: Optional[float] = None


# nemo_rl/algorithms/loss/loss_functions.py:374-790@7ea279ab (ClippedPGLossFn.__call__)
def clipped_pg_loss(cfg: Cfg, next_token_logprobs, data, global_valid_seqs, global_valid_toks):
    curr_logprobs = next_token_logprobs
    token_mask = data["token_mask"][:, 1:]
    sample_mask = data["sample_mask"]
    advantages = data["advantages"][:, 1:]
    prev_logprobs = None if cfg.force_on_policy_ratio else data["prev_logprobs"][:, 1:]
    generation_logprobs = data["generation_logprobs"][:, 1:]
    if cfg.reference_policy_kl_penalty != 0:
        reference_policy_logprobs = data["reference_policy_logprobs"][:, 1:]
        curr_logprobs_unfiltered = data.get("curr_logprobs_unfiltered", curr_logprobs)
    mask = token_mask * sample_mask.unsqueeze(-1)
    if cfg.force_on_policy_ratio:
        prev_logprobs = curr_logprobs.detach()
    lp_error = torch.abs(generation_logprobs - prev_logprobs)
    mult_prob_error = masked_mean(
        torch.exp(lp_error * mask), mask, global_normalization_factor=global_valid_toks
    ).item()
    gen_kl_error = calculate_kl(
        logprobs=generation_logprobs,
        logprobs_reference=prev_logprobs,
        kl_type=cfg.reference_policy_kl_type,
        input_clamp_value=None,
        output_clamp_value=None,
    )
    gen_kl_error = masked_mean(gen_kl_error, mask, global_normalization_factor=global_valid_toks).item()
    policy_kl_error = calculate_kl(
        logprobs=prev_logprobs,
        logprobs_reference=generation_logprobs,
        kl_type=cfg.reference_policy_kl_type,
        input_clamp_value=None,
        output_clamp_value=None,
    )
    policy_kl_error = masked_mean(policy_kl_error, mask, global_normalization_factor=global_valid_toks).item()
    log_mixture = torch.log(0.5 * torch.exp(prev_logprobs) + 0.5 * torch.exp(generation_logprobs))
    kl_prev_to_mixture = torch.exp(prev_logprobs - log_mixture) - (prev_logprobs - log_mixture) - 1
    kl_gen_to_mixture = torch.exp(generation_logprobs - log_mixture) - (generation_logprobs - log_mixture) - 1
    js_divergence_error = masked_mean(
        0.5 * kl_prev_to_mixture + 0.5 * kl_gen_to_mixture,
        mask,
        global_normalization_factor=global_valid_toks,
    ).item()
    if cfg.reference_policy_kl_penalty != 0:
        if cfg.use_on_policy_kl_approximation:
            kl_importance_weights = torch.exp(curr_logprobs_unfiltered - generation_logprobs)
        else:
            kl_importance_weights = torch.exp(curr_logprobs_unfiltered - curr_logprobs_unfiltered.detach())
        kl_importance_weights = torch.nan_to_num(kl_importance_weights, nan=0.0, posinf=0.0, neginf=0.0)
        kl = cfg.reference_policy_kl_penalty * calculate_kl(
            logprobs=curr_logprobs_unfiltered,
            logprobs_reference=reference_policy_logprobs,
            kl_type=cfg.reference_policy_kl_type,
            input_clamp_value=cfg.kl_input_clamp_value,
            output_clamp_value=cfg.kl_output_clamp_value,
            importance_sampling_weights=kl_importance_weights,
        )
        if cfg.token_level_loss:
            kl = masked_mean(kl, mask, global_normalization_factor=global_valid_toks)
        else:
            kl = masked_mean(
                masked_mean(kl, token_mask, dim=-1),
                sample_mask,
                global_normalization_factor=global_valid_seqs,
            )
    else:
        kl = torch.tensor(0.0)
    if cfg.force_on_policy_ratio:
        log_ratios = curr_logprobs - curr_logprobs.detach()
        ratios = log_ratios.exp()
        ratios_clamped = ratios
    elif not cfg.disable_ppo_ratio:
        log_ratios = curr_logprobs - prev_logprobs
        if cfg.sequence_level_importance_ratios:
            seq_log_ratio_mean = masked_mean(log_ratios, token_mask, dim=-1).unsqueeze(-1)
            seq_ratio = seq_log_ratio_mean.exp()
            ratios = seq_ratio.repeat(1, advantages.shape[1])
        else:
            ratios = log_ratios.exp()
        ratios_clamped = ratios.clamp(1.0 - cfg.ratio_clip_min, 1.0 + cfg.ratio_clip_max)
    else:
        ratios = curr_logprobs
        ratios_clamped = curr_logprobs
    loss1 = -advantages * ratios
    loss2 = -advantages * ratios_clamped
    clip_loss = torch.max(loss1, loss2)
    if cfg.ratio_clip_c is not None:
        loss3 = -advantages * cfg.ratio_clip_c
        clip_loss = torch.where(advantages < 0, torch.min(clip_loss, loss3), clip_loss)
    _is_filter_metrics: dict = {}
    if cfg.sequence_level_importance_ratios:
        seq_lp_diff = ((prev_logprobs - generation_logprobs) * mask).sum(dim=-1)
        actor_importance_weights = torch.exp(seq_lp_diff).detach()
        actor_importance_weights = torch.nan_to_num(actor_importance_weights, nan=0.0, posinf=0.0, neginf=0.0)
        actor_importance_weights_expanded = actor_importance_weights.unsqueeze(-1)
    else:
        actor_importance_weights_expanded = torch.exp(prev_logprobs - generation_logprobs)
        actor_importance_weights_expanded = torch.nan_to_num(
            actor_importance_weights_expanded, nan=0.0, posinf=0.0, neginf=0.0
        )
    if cfg.truncated_importance_sampling_ratio is not None:
        if cfg.truncated_importance_sampling_type == "tis":
            tis_min = cfg.truncated_importance_sampling_ratio_min
            if tis_min is None:
                tis_min = 0.0
            token_oob_mask = (actor_importance_weights_expanded > cfg.truncated_importance_sampling_ratio) | (
                actor_importance_weights_expanded < tis_min
            )
            _is_filter_metrics = {
                "is_oob_ratio": masked_mean(
                    token_oob_mask.float(), mask, global_normalization_factor=global_valid_toks
                ).item()
            }
            actor_importance_weights_expanded = torch.clamp(
                actor_importance_weights_expanded, min=tis_min, max=cfg.truncated_importance_sampling_ratio
            )
        elif cfg.truncated_importance_sampling_type == "icepop":
            token_kept_mask = (
                actor_importance_weights_expanded >= cfg.truncated_importance_sampling_ratio_min
            ) & (actor_importance_weights_expanded <= cfg.truncated_importance_sampling_ratio)
            _is_filter_metrics = {
                "is_oob_ratio": masked_mean(
                    (~token_kept_mask).float(), mask, global_normalization_factor=global_valid_toks
                ).item()
            }
            actor_importance_weights_expanded = torch.where(
                token_kept_mask,
                actor_importance_weights_expanded,
                torch.zeros_like(actor_importance_weights_expanded),
            )
        elif cfg.truncated_importance_sampling_type == "seq-mask-tis":
            log_is_ratio = torch.nan_to_num(
                prev_logprobs - generation_logprobs, nan=0.0, posinf=0.0, neginf=0.0
            )
            seq_log_is_ratio_mean = masked_mean(log_is_ratio, token_mask, dim=-1)
            seq_geomean_is_ratio = torch.exp(seq_log_is_ratio_mean).detach()
            seq_kept_mask = (
                (seq_geomean_is_ratio >= cfg.truncated_importance_sampling_ratio_min)
                & (seq_geomean_is_ratio <= cfg.truncated_importance_sampling_ratio)
            ).float()
            _is_filter_metrics = {
                "is_oob_ratio": masked_mean(
                    1.0 - seq_kept_mask, sample_mask, global_normalization_factor=global_valid_seqs
                ).item()
            }
            actor_importance_weights_expanded = actor_importance_weights_expanded * seq_kept_mask.unsqueeze(
                -1
            )
    actor_importance_weights = actor_importance_weights_expanded
    if cfg.use_importance_sampling_correction:
        importance_weights_to_use = actor_importance_weights
    else:
        importance_weights_to_use = torch.ones_like(prev_logprobs)
    if cfg.token_level_loss:
        actor_loss = masked_mean(
            importance_weights_to_use * clip_loss, mask, global_normalization_factor=global_valid_toks
        )
    else:
        actor_loss = masked_mean(
            masked_mean(importance_weights_to_use * clip_loss, token_mask, dim=-1),
            sample_mask,
            global_normalization_factor=global_valid_seqs,
        )
    if cfg.sequence_level_importance_ratios:
        sample_importance_ratio = masked_mean(
            actor_importance_weights, sample_mask, global_normalization_factor=global_valid_seqs
        )
    else:
        sample_importance_ratio = masked_mean(
            actor_importance_weights, mask, global_normalization_factor=global_valid_toks
        )
    with torch.no_grad():
        seq_entropy_approx = -masked_mean(
            torch.exp(curr_logprobs - generation_logprobs) * curr_logprobs,
            mask,
            global_normalization_factor=global_valid_toks,
        )
    loss = actor_loss + kl
    with torch.no_grad():
        probs_ratio = masked_mean(ratios.detach(), mask, global_normalization_factor=global_valid_toks).item()
        probs_ratio_clamped = masked_mean(
            ratios_clamped.detach(), mask, global_normalization_factor=global_valid_toks
        ).item()
        masked_ratios = ratios.detach()[mask.bool()]
        masked_ratios_clamped = ratios_clamped.detach()[mask.bool()]
        if masked_ratios.numel() > 0:
            probs_ratio_min = masked_ratios.min().item()
            probs_ratio_max = masked_ratios.max().item()
            probs_ratio_clamped_min = masked_ratios_clamped.min().item()
            probs_ratio_clamped_max = masked_ratios_clamped.max().item()
        else:
            probs_ratio_min = float("inf")
            probs_ratio_max = float("-inf")
            probs_ratio_clamped_min = float("inf")
            probs_ratio_clamped_max = float("-inf")
    return loss, {
        "loss": loss.item(),
        "probs_ratio": probs_ratio,
        "probs_ratio_clamped": probs_ratio_clamped,
        "probs_ratio_min": probs_ratio_min,
        "probs_ratio_max": probs_ratio_max,
        "probs_ratio_clamped_min": probs_ratio_clamped_min,
        "probs_ratio_clamped_max": probs_ratio_clamped_max,
        "kl_penalty": kl.item() / cfg.reference_policy_kl_penalty if kl else 0,
        "token_mult_prob_error": mult_prob_error,
        "gen_kl_error": gen_kl_error,
        "policy_kl_error": policy_kl_error,
        "js_divergence_error": js_divergence_error,
        "sampling_importance_ratio": sample_importance_ratio.item(),
        "num_valid_samples": sample_mask.sum().item(),
        "approx_entropy": seq_entropy_approx.item(),
        **_is_filter_metrics,
    }


def train_step(cfg: Cfg, global_batches):
    """Worker + driver: per GB the global counts (automodel/data.py:409-419), the loss per mb, the
    division by the number of GBs (automodel/train.py:527-534), the concatenation over ranks
    (lm_policy.py:851-856) and the driver's reduction (grpo.py:3469-3493), all @7ea279ab.

    ``global_batches`` is a list (GB) of lists (mb, all ranks) of ``(curr_logprobs, data)``.
    """
    num_global_batches = len(global_batches)
    all_mb_metrics = defaultdict(list)
    for gb in global_batches:
        global_valid_seqs = sum(torch.sum(d["sample_mask"]) for _, d in gb)
        global_valid_toks = sum(
            torch.sum(d["token_mask"][:, 1:] * d["sample_mask"].unsqueeze(-1)) for _, d in gb
        )
        for curr, data in gb:
            _, metrics = clipped_pg_loss(cfg, curr, data, global_valid_seqs, global_valid_toks)
            for k in metrics.keys():
                if "_min" in k or "_max" in k:
                    continue
                metrics[k] /= num_global_batches
            for k, v in metrics.items():
                all_mb_metrics[k].append(v)
    metrics = dict(all_mb_metrics)
    for k, v in metrics.items():
        if k in {"probs_ratio_min", "probs_ratio_clamped_min"}:
            valid_values = [x for x in v if not np.isinf(x)]
            metrics[k] = np.min(valid_values).item() if valid_values else -1.0
        elif k in {"probs_ratio_max", "probs_ratio_clamped_max"}:
            valid_values = [x for x in v if not np.isinf(x)]
            metrics[k] = np.max(valid_values).item() if valid_values else -1.0
        elif k in {
            "lr",
            "wd",
            "reward",
            "filtered_reward",
            "global_valid_seqs",
            "global_valid_toks",
            "mean_prompt_length",
        }:
            metrics[k] = np.mean(v).item()
        elif isinstance(v, (np.ndarray, list)):
            metrics[k] = np.sum(v).item()
    return metrics


# nemo_rl/algorithms/utils.py:104-199@7ea279ab
def calculate_baseline_and_std_per_prompt(prompts, rewards, valid_mask, leave_one_out_baseline=True):
    std_rewards = rewards
    unique_prompts = torch.unique(prompts, dim=0)
    baseline = torch.zeros_like(rewards)
    sq_baseline = torch.zeros_like(rewards)
    std = torch.zeros_like(rewards)
    reward_device = torch.device("cpu")
    for i in range(len(unique_prompts)):
        is_matching_prompt = (prompts == unique_prompts[i]).all(1)
        prompt_idx = torch.arange(len(prompts), device=reward_device)[is_matching_prompt]
        if leave_one_out_baseline:
            baseline_mask_matrix = (1 - torch.eye(len(prompt_idx))).to(reward_device).to(rewards.dtype)
        else:
            baseline_mask_matrix = (
                torch.ones((len(prompt_idx), len(prompt_idx))).to(reward_device).to(rewards.dtype)
            )
        if valid_mask[prompt_idx].sum() <= 1:
            baseline[prompt_idx] = rewards[prompt_idx]
        else:
            num_valid = valid_mask[prompt_idx].float().sum() - int(leave_one_out_baseline)
            prompt_baseline = (
                torch.matmul(baseline_mask_matrix, rewards[prompt_idx] * valid_mask[prompt_idx]) / num_valid
            )
            std_prompt_baseline = prompt_baseline
            std_prompt_baseline_square = (
                torch.matmul(
                    baseline_mask_matrix, torch.pow(std_rewards[prompt_idx], 2) * valid_mask[prompt_idx]
                )
                / num_valid
            )
            baseline[prompt_idx] = prompt_baseline
            sq_baseline[prompt_idx] = std_prompt_baseline_square
            std[prompt_idx] = (
                ((std_prompt_baseline_square - std_prompt_baseline.square()) * (num_valid / (num_valid - 1)))
                .sqrt()
                .nan_to_num(0)
            )
    return baseline, std


# nemo_rl/algorithms/grpo.py:2441-2451@7ea279ab
def log_mixed_rewards_and_advantages_information(metrics, baseline, advantages):
    metrics["baseline_reward/pct_0"] = 100 * (baseline == 0).float().mean().item()
    metrics["baseline_reward/pct_1"] = 100 * (baseline == 1).float().mean().item()
    metrics["baseline_reward/pct_mixed"] = (
        100 - metrics["baseline_reward/pct_0"] - metrics["baseline_reward/pct_1"]
    )
    metrics["advantages/sum"] = advantages.float().sum().item()


# nemo_rl/algorithms/grpo.py:3426-3447@7ea279ab
def masked_advantage_metrics(flat_advantages, flat_token_mask):
    response_advantages = torch.masked_select(flat_advantages, flat_token_mask.bool())
    return {
        "advantages/mean": torch.mean(response_advantages).detach().item()
        if response_advantages.numel() > 0
        else 0.0,
        "advantages/max": torch.max(response_advantages).detach().item()
        if response_advantages.numel() > 0
        else 0.0,
        "advantages/min": torch.min(response_advantages).detach().item()
        if response_advantages.numel() > 0
        else 0.0,
    }


# nemo_rl/algorithms/grpo.py:2513-2641@7ea279ab (compute_and_apply_seq_logprob_error_masking, prints dropped)
def seq_logprob_error_metrics(train_data, rewards, seq_logprob_error_threshold):
    token_mask = train_data["token_mask"][:, 1:]
    sample_mask = train_data["sample_mask"]
    prev_logprobs = train_data["prev_logprobs"][:, 1:]
    generation_logprobs = train_data["generation_logprobs"][:, 1:]
    lp_error = torch.abs(generation_logprobs - prev_logprobs)
    mask = token_mask * sample_mask.unsqueeze(-1)
    denom = mask.sum(dim=-1)
    valid_seq_mask = denom > 0
    seq_mult_prob_error = torch.zeros_like(denom, dtype=lp_error.dtype)
    if valid_seq_mask.any():
        num = (torch.exp(lp_error * mask) * mask).sum(dim=-1)
        seq_mult_prob_error[valid_seq_mask] = num[valid_seq_mask] / denom[valid_seq_mask].clamp(min=1)
        valid_errors = seq_mult_prob_error[valid_seq_mask]
        max_e, mean_e, min_e = (
            valid_errors.max().item(),
            valid_errors.mean().item(),
            valid_errors.min().item(),
        )
    else:
        max_e = mean_e = min_e = 0.0
    num_masked_seqs = 0
    masked_correct_pct = 0.0
    max_a, mean_a, min_a = max_e, mean_e, min_e
    if seq_logprob_error_threshold is not None:
        original_sample_mask = sample_mask.clone()
        seq_error_mask = (seq_mult_prob_error <= seq_logprob_error_threshold).float() * original_sample_mask
        diff_mask = original_sample_mask - seq_error_mask
        num_masked_seqs = int(diff_mask.sum().item())
        if num_masked_seqs > 0:
            diff_mask_bool = diff_mask.bool()
            masked_correct_count = int((rewards.view(-1)[diff_mask_bool] == 1).sum().item())
            masked_correct_pct = masked_correct_count / num_masked_seqs
        kept_mask = seq_error_mask.bool() & valid_seq_mask
        if kept_mask.sum() > 0:
            kept_errors = seq_mult_prob_error[kept_mask]
            max_a, mean_a, min_a = (
                kept_errors.max().item(),
                kept_errors.mean().item(),
                kept_errors.min().item(),
            )
        else:
            max_a = mean_a = min_a = 0.0
    return {
        "max_seq_mult_prob_error": max_e,
        "mean_seq_mult_prob_error": mean_e,
        "min_seq_mult_prob_error": min_e,
        "max_seq_mult_prob_error_after_mask": max_a,
        "mean_seq_mult_prob_error_after_mask": mean_a,
        "min_seq_mult_prob_error_after_mask": min_a,
        "num_masked_seqs_by_logprob_error": num_masked_seqs,
        "masked_correct_pct": masked_correct_pct,
    }


# nemo_rl/algorithms/loss/loss_functions.py:1218-1340@7ea279ab (MseValueLossFn.__call__, values given directly)
def mse_value_loss(values, data, global_valid_toks, scale=1.0, cliprange=None):
    token_mask = data["token_mask"]
    sample_mask = data["sample_mask"]
    returns = data["returns"]
    mask = token_mask * sample_mask.unsqueeze(-1)
    if cliprange and cliprange > 0:
        old_values = data["values"]
        vpred_clipped = torch.clamp(values, old_values - cliprange, old_values + cliprange)
        vf_losses_unclipped = (values - returns) ** 2
        vf_losses_clipped = (vpred_clipped - returns) ** 2
        vf_losses = torch.max(vf_losses_unclipped, vf_losses_clipped)
        loss = 0.5 * scale * masked_mean(vf_losses, mask, global_normalization_factor=global_valid_toks)
        vf_clipfrac = masked_mean(
            (vf_losses_clipped > vf_losses_unclipped).float(),
            mask,
            global_normalization_factor=global_valid_toks,
        ).item()
    else:
        loss = torch.nn.functional.mse_loss(values, returns, reduction="none")
        loss = 0.5 * scale * masked_mean(loss, mask, global_normalization_factor=global_valid_toks)
        vf_clipfrac = 0.0
    returns_mean = masked_mean(returns, mask, global_normalization_factor=global_valid_toks).item()
    values_mean = masked_mean(values, mask, global_normalization_factor=global_valid_toks).item()
    masked_values = values[mask.bool()]
    values_min = masked_values.min().item() if masked_values.numel() > 0 else 0.0
    values_max = masked_values.max().item() if masked_values.numel() > 0 else 0.0
    returns_sq_mean = masked_mean(returns**2, mask, global_normalization_factor=global_valid_toks).item()
    residual_sq_mean = masked_mean(
        (returns - values) ** 2, mask, global_normalization_factor=global_valid_toks
    ).item()
    return loss, {
        "loss": float(loss.item()),
        "vf_clipfrac": vf_clipfrac,
        "returns_mean": returns_mean,
        "values_mean": values_mean,
        "values_min": values_min,
        "values_max": values_max,
        "returns_sq_mean": returns_sq_mean,
        "residual_sq_mean": residual_sq_mean,
        "num_valid_samples": int(values.shape[0]),
    }


def value_train_step(global_batches, scale=1.0, cliprange=None):
    """Worker scaling (automodel/train.py:527-534) and _compute_critic_metrics (ppo.py:1165-1191), @7ea279ab."""
    num_global_batches = len(global_batches)
    all_mb_metrics = defaultdict(list)
    for gb in global_batches:
        global_valid_toks = sum(torch.sum(d["token_mask"] * d["sample_mask"].unsqueeze(-1)) for _, d in gb)
        for values, data in gb:
            _, metrics = mse_value_loss(values, data, global_valid_toks, scale, cliprange)
            for k in metrics.keys():
                if "_min" in k or "_max" in k:
                    continue
                metrics[k] /= num_global_batches
            for k, v in metrics.items():
                all_mb_metrics[k].append(v)
    critic_metrics = {}
    for key, value in all_mb_metrics.items():
        metric_name = f"critic/{key}"
        if key == "values_min":
            critic_metrics[metric_name] = np.min(value).item()
        elif key == "values_max":
            critic_metrics[metric_name] = np.max(value).item()
        else:
            critic_metrics[metric_name] = np.sum(value).item()
    returns_mean = critic_metrics.get("critic/returns_mean", 0)
    values_mean = critic_metrics.get("critic/values_mean", 0)
    returns_sq_mean = critic_metrics.get("critic/returns_sq_mean", 0)
    residual_sq_mean = critic_metrics.get("critic/residual_sq_mean", 0)
    returns_var = returns_sq_mean - returns_mean**2
    residual_var = residual_sq_mean - (returns_mean - values_mean) ** 2
    critic_metrics["critic/explained_var"] = 1.0 - residual_var / max(returns_var, 1e-8)
    return critic_metrics


# nemo_rl/experience/metric_utils.py:24-54@7ea279ab (the wandb Histogram left out)
def calculate_single_metric(values, batch_size, key_name):
    import math as _math
    import statistics as _statistics

    return {
        f"{key_name}/mean": sum(values) / batch_size,
        f"{key_name}/max": max(values),
        f"{key_name}/min": min(values),
        f"{key_name}/median": _statistics.median(values),
        f"{key_name}/stddev": _statistics.stdev(values) if len(values) > 1 else _math.nan,
    }


def pct(values, p):
    if not values:
        return 0.0
    sorted_v = sorted(values)
    idx = min(int(len(sorted_v) * p / 100), len(sorted_v) - 1)
    return float(sorted_v[idx])


# nemo_rl/experience/rollouts.py:393-465@7ea279ab (EffortLevelsConfig is any object with its four fields)
@dataclass
class _EffortShapingMetrics:
    length_rewards_low: list[float]
    rewards_low: list[float]
    low_lengths: list[int]
    high_lengths: list[int]


def _apply_effort_shaping(
    results: list[dict],
    nemo_gym_rows: list[dict],
    effort_config,
) -> _EffortShapingMetrics:
    """Apply length-based reward shaping for low-effort prompts.

    Modifies ``results[i]["full_result"]["reward"]`` in place for samples whose
    last user-turn prompt contains ``effort_config.low_string``.  Returns per-sample
    tracking lists used to populate rollout metrics.

    No-ops (returns empty lists) when ``effort_config`` is ``None``,
    ``low_weight`` is zero, or ``low_string`` is empty.
    """
    length_rewards_low: list[float] = []
    rewards_low: list[float] = []
    low_lengths: list[int] = []
    high_lengths: list[int] = []

    if effort_config is None or effort_config.low_weight <= 0 or not effort_config.low_string:
        return _EffortShapingMetrics(length_rewards_low, rewards_low, low_lengths, high_lengths)

    lengths = [
        len(r["message_log"][-1]["token_ids"]) if r["message_log"][-1]["role"] == "assistant" else 0
        for r in results
    ]
    orig_rewards = [r["full_result"]["reward"] for r in results]
    for i, result in enumerate(results):
        prompt = next(
            (
                msg["content"]
                for msg in reversed(nemo_gym_rows[i]["responses_create_params"]["input"])
                if msg.get("role") == "user" and "content" in msg
            ),
            "",
        )
        if effort_config.low_string in prompt:
            length_reward = min(
                1.0,
                effort_config.low_weight * (1.0 - lengths[i] / effort_config.low_ub),
            )
            new_reward = (
                orig_rewards[i]
                + orig_rewards[i] * max(length_reward, 0.0)
                + effort_config.low_penalty * min(length_reward, 0.0)
            )
            result["full_result"]["reward"] = new_reward
            length_rewards_low.append(length_reward)
            rewards_low.append(new_reward)
            low_lengths.append(lengths[i])
        else:
            high_lengths.append(lengths[i])

    return _EffortShapingMetrics(length_rewards_low, rewards_low, low_lengths, high_lengths)


# nemo_rl/experience/rollouts.py:2796-2807@7ea279ab, the rollout metrics of the shaping
def effort_shaping_metrics(shaping):
    length_rewards_low = shaping.length_rewards_low
    rewards_low = shaping.rewards_low
    low_lengths = shaping.low_lengths
    high_lengths = shaping.high_lengths
    import statistics

    rollout_metrics = {}
    if length_rewards_low:
        rollout_metrics["mean_length_reward_low"] = sum(length_rewards_low) / len(length_rewards_low)
    if rewards_low:
        rollout_metrics["mean_reward_low"] = sum(rewards_low) / len(rewards_low)
    if low_lengths:
        rollout_metrics["mean_length_low"] = sum(low_lengths) / len(low_lengths)
        rollout_metrics["median_length_low"] = float(statistics.median(low_lengths))
    if high_lengths:
        rollout_metrics["mean_length_high"] = sum(high_lengths) / len(high_lengths)
        rollout_metrics["median_length_high"] = float(statistics.median(high_lengths))
    return rollout_metrics

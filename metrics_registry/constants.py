"""Metric keys as constants, generated from the registry: do not edit.

Regenerate with ``metrics-registry --no-config export --format python -o metrics_registry/constants.py``;
a test fails when this file is out of date. Each constant is ``<FAMILY>_<KEY>``;
templated keys are format strings, e.g.
``GRPO_REWARDS_REWARD_FUNC_NAME_MEAN.format(reward_func_name="accuracy_reward")``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "GRPO_AUX_LOSS",
    "GRPO_CISPO_CLIP_RATIO",
    "GRPO_CLIP_RATIO",
    "GRPO_CLIP_RATIO_HIGH_MAX",
    "GRPO_CLIP_RATIO_HIGH_MEAN",
    "GRPO_CLIP_RATIO_LOW_MEAN",
    "GRPO_CLIP_RATIO_LOW_MIN",
    "GRPO_CLIP_RATIO_REGION_MEAN",
    "GRPO_COMPLETIONS",
    "GRPO_COMPLETIONS_CLIPPED_RATIO",
    "GRPO_COMPLETIONS_MAX_LENGTH",
    "GRPO_COMPLETIONS_MAX_TERMINATED_LENGTH",
    "GRPO_COMPLETIONS_MEAN_LENGTH",
    "GRPO_COMPLETIONS_MEAN_TERMINATED_LENGTH",
    "GRPO_COMPLETIONS_MIN_LENGTH",
    "GRPO_COMPLETIONS_MIN_TERMINATED_LENGTH",
    "GRPO_COMPLETION_LENGTH",
    "GRPO_ENTROPY",
    "GRPO_ENTROPY_COEF",
    "GRPO_EPOCH",
    "GRPO_FRAC_REWARD_ZERO_STD",
    "GRPO_GRAD_NORM",
    "GRPO_KL",
    "GRPO_LEARNING_RATE",
    "GRPO_LOSS",
    "GRPO_NUM_TOKENS",
    "GRPO_POLICY_LOSS",
    "GRPO_REWARD",
    "GRPO_REWARDS_REWARD_FUNC_NAME",
    "GRPO_REWARDS_REWARD_FUNC_NAME_MEAN",
    "GRPO_REWARDS_REWARD_FUNC_NAME_STD",
    "GRPO_REWARD_STD",
    "GRPO_RUNTIME",
    "GRPO_SAMPLES_PER_SECOND",
    "GRPO_SAMPLING_IMPORTANCE_SAMPLING_RATIO_MAX",
    "GRPO_SAMPLING_IMPORTANCE_SAMPLING_RATIO_MEAN",
    "GRPO_SAMPLING_IMPORTANCE_SAMPLING_RATIO_MIN",
    "GRPO_SAMPLING_SAMPLING_LOGP_DIFFERENCE_MAX",
    "GRPO_SAMPLING_SAMPLING_LOGP_DIFFERENCE_MEAN",
    "GRPO_STEPS_PER_SECOND",
    "GRPO_STEP_TIME",
    "GRPO_TOOLS_CALL_FREQUENCY",
    "GRPO_TOOLS_FAILURE_FREQUENCY",
    "GRPO_TOTAL_FLOS",
    "GRPO_TRAIN_LOSS",
    "GRPO_TRAIN_RUNTIME",
    "GRPO_TRAIN_SAMPLES_PER_SECOND",
    "GRPO_TRAIN_STEPS_PER_SECOND",
    "GRPO_TRAIN_TOKENS_PER_SECOND",
    "GRPO_VESPO_PHI_SEQ_MEAN",
    "LEGACY_PPO_ENV_REWARD_DIST",
    "LEGACY_PPO_ENV_REWARD_MEAN",
    "LEGACY_PPO_ENV_REWARD_STD",
    "LEGACY_PPO_GAME_LOG",
    "LEGACY_PPO_OBJECTIVE_ENTROPY",
    "LEGACY_PPO_OBJECTIVE_KL",
    "LEGACY_PPO_OBJECTIVE_KL_COEF",
    "LEGACY_PPO_OBJECTIVE_KL_DIST",
    "LEGACY_PPO_OBJECTIVE_LOGPROBS",
    "LEGACY_PPO_OBJECTIVE_REF_LOGPROBS",
    "LEGACY_PPO_PPO_LEARNING_RATE",
    "LEGACY_PPO_PPO_LOSS_POLICY",
    "LEGACY_PPO_PPO_LOSS_TOTAL",
    "LEGACY_PPO_PPO_LOSS_VALUE",
    "LEGACY_PPO_PPO_MEAN_NON_SCORE_REWARD",
    "LEGACY_PPO_PPO_MEAN_SCORES",
    "LEGACY_PPO_PPO_POLICY_ADVANTAGES",
    "LEGACY_PPO_PPO_POLICY_ADVANTAGES_MEAN",
    "LEGACY_PPO_PPO_POLICY_APPROXKL",
    "LEGACY_PPO_PPO_POLICY_CLIPFRAC",
    "LEGACY_PPO_PPO_POLICY_ENTROPY",
    "LEGACY_PPO_PPO_POLICY_POLICYKL",
    "LEGACY_PPO_PPO_POLICY_RATIO",
    "LEGACY_PPO_PPO_RETURNS_MEAN",
    "LEGACY_PPO_PPO_RETURNS_VAR",
    "LEGACY_PPO_PPO_STD_SCORES",
    "LEGACY_PPO_PPO_TIME_PPO_OPTIMIZER_STEP",
    "LEGACY_PPO_PPO_VAL_CLIPFRAC",
    "LEGACY_PPO_PPO_VAL_ERROR",
    "LEGACY_PPO_PPO_VAL_MEAN",
    "LEGACY_PPO_PPO_VAL_VAR",
    "LEGACY_PPO_PPO_VAL_VAR_EXPLAINED",
    "LEGACY_PPO_PPO_VAL_VPRED",
    "LEGACY_PPO_TIME_PPO_CALC_STATS",
    "LEGACY_PPO_TIME_PPO_COMPUTE_ADVANTAGES",
    "LEGACY_PPO_TIME_PPO_COMPUTE_REWARDS",
    "LEGACY_PPO_TIME_PPO_FORWARD_PASS",
    "LEGACY_PPO_TIME_PPO_OPTIMIZE_STEP",
    "LEGACY_PPO_TIME_PPO_TOTAL",
    "LEGACY_PPO_TOKENS_QUERIES_DIST",
    "LEGACY_PPO_TOKENS_QUERIES_LEN_MEAN",
    "LEGACY_PPO_TOKENS_QUERIES_LEN_STD",
    "LEGACY_PPO_TOKENS_RESPONSES_DIST",
    "LEGACY_PPO_TOKENS_RESPONSES_LEN_MEAN",
    "LEGACY_PPO_TOKENS_RESPONSES_LEN_STD",
    "NEMO_RL_CRITIC_EXPLAINED_VAR",
    "NEMO_RL_CRITIC_GLOBAL_VALID_SEQS",
    "NEMO_RL_CRITIC_GLOBAL_VALID_TOKS",
    "NEMO_RL_CRITIC_GRAD_NORM",
    "NEMO_RL_CRITIC_LOSS",
    "NEMO_RL_CRITIC_LR",
    "NEMO_RL_CRITIC_NUM_VALID_SAMPLES",
    "NEMO_RL_CRITIC_RESIDUAL_SQ_MEAN",
    "NEMO_RL_CRITIC_RETURNS_MEAN",
    "NEMO_RL_CRITIC_RETURNS_SQ_MEAN",
    "NEMO_RL_CRITIC_VALUES_MAX",
    "NEMO_RL_CRITIC_VALUES_MEAN",
    "NEMO_RL_CRITIC_VALUES_MIN",
    "NEMO_RL_CRITIC_VF_CLIPFRAC",
    "NEMO_RL_CRITIC_WD",
    "NEMO_RL_EFFICIENCY_NAME",
    "NEMO_RL_PERFORMANCE_AVERAGE_TOKEN_IMBALANCE",
    "NEMO_RL_PERFORMANCE_GENERATION_TOKENS_PER_SEC",
    "NEMO_RL_PERFORMANCE_GENERATION_TOKENS_PER_SEC_PER_GPU",
    "NEMO_RL_PERFORMANCE_POLICY_AND_REFERENCE_LOGPROBS_TOKENS_PER_SEC_PER_GPU",
    "NEMO_RL_PERFORMANCE_POLICY_TRAINING_TOKENS_PER_SEC_PER_GPU",
    "NEMO_RL_PERFORMANCE_SAMPLES_PER_SEC",
    "NEMO_RL_PERFORMANCE_SAMPLES_PER_SEC_PER_GPU",
    "NEMO_RL_PERFORMANCE_TOKENS_PER_SEC",
    "NEMO_RL_PERFORMANCE_TOKENS_PER_SEC_PER_GPU",
    "NEMO_RL_PERFORMANCE_TRAINING_WORKER_GROUP_TOKENS_PER_SEC",
    "NEMO_RL_PERFORMANCE_TRAINING_WORKER_GROUP_TOKENS_PER_SEC_PER_GPU",
    "NEMO_RL_PERFORMANCE_TRAINING_WORKER_IDLE_TIME_RATIO",
    "NEMO_RL_PERFORMANCE_TRAIN_FLOPS_PER_GPU",
    "NEMO_RL_PERFORMANCE_TRAIN_FP_UTILIZATION",
    "NEMO_RL_TIMING_SETUP_NAME",
    "NEMO_RL_TIMING_TRAIN_ADVANTAGE_CALCULATION",
    "NEMO_RL_TIMING_TRAIN_CHECKPOINTING",
    "NEMO_RL_TIMING_TRAIN_DATA_PROCESSING",
    "NEMO_RL_TIMING_TRAIN_DYNAMIC_SAMPLING",
    "NEMO_RL_TIMING_TRAIN_EXPOSED_GENERATION",
    "NEMO_RL_TIMING_TRAIN_GENERATION",
    "NEMO_RL_TIMING_TRAIN_GET_LOGPROBS_PHASE",
    "NEMO_RL_TIMING_TRAIN_GET_REFERENCE_POLICY_LOGPROBS_PHASE",
    "NEMO_RL_TIMING_TRAIN_IDLE_BUFFER_STARVATION",
    "NEMO_RL_TIMING_TRAIN_IDLE_REFIT_BUBBLE",
    "NEMO_RL_TIMING_TRAIN_IDLE_VALIDATION",
    "NEMO_RL_TIMING_TRAIN_INIT_TOTAL",
    "NEMO_RL_TIMING_TRAIN_LOGPROB_INFERENCE_PREP",
    "NEMO_RL_TIMING_TRAIN_MASK_SAMPLE_FILTER",
    "NEMO_RL_TIMING_TRAIN_OFFLOAD_BEFORE_REFIT",
    "NEMO_RL_TIMING_TRAIN_OVERLONG_FILTER",
    "NEMO_RL_TIMING_TRAIN_POLICY_AND_REFERENCE_LOGPROBS",
    "NEMO_RL_TIMING_TRAIN_POLICY_OFFLOAD_AFTER_REFIT",
    "NEMO_RL_TIMING_TRAIN_POLICY_TRAINING",
    "NEMO_RL_TIMING_TRAIN_POLICY_TRAINING_PHASE",
    "NEMO_RL_TIMING_TRAIN_PREPARE_FOR_GENERATION_TOTAL",
    "NEMO_RL_TIMING_TRAIN_PREPARE_FOR_GENERATION_TRANSFER_AND_UPDATE_WEIGHTS",
    "NEMO_RL_TIMING_TRAIN_RECOMPUTE_KV_SCALES",
    "NEMO_RL_TIMING_TRAIN_REWARD_CALCULATION",
    "NEMO_RL_TIMING_TRAIN_TOTAL_STEP_TIME",
    "NEMO_RL_TIMING_TRAIN_TRAINING_PREP",
    "NEMO_RL_TIMING_TRAIN_VALID_TOKENS_PER_SEC_PER_GPU",
    "NEMO_RL_TIMING_TRAIN_VALUE_INFERENCE",
    "NEMO_RL_TIMING_TRAIN_VALUE_TRAINING",
    "NEMO_RL_TIMING_TRAIN_VALUE_TRAINING_PHASE",
    "NEMO_RL_TIMING_TRAIN_VALUE_TRAINING_PREP",
    "NEMO_RL_TIMING_TRAIN_WEIGHT_SYNC",
    "NEMO_RL_TIMING_VALIDATION_TOTAL_VALIDATION_TIME",
    "NEMO_RL_TRAIN_ADVANTAGES_HISTOGRAM",
    "NEMO_RL_TRAIN_ADVANTAGES_MAX",
    "NEMO_RL_TRAIN_ADVANTAGES_MEAN",
    "NEMO_RL_TRAIN_ADVANTAGES_MIN",
    "NEMO_RL_TRAIN_ADVANTAGES_SUM",
    "NEMO_RL_TRAIN_APPROX_ENTROPY",
    "NEMO_RL_TRAIN_AVG_TRAJECTORY_AGE",
    "NEMO_RL_TRAIN_AVG_TURNS_PER_SAMPLE",
    "NEMO_RL_TRAIN_BASELINE_REWARD_HISTOGRAM",
    "NEMO_RL_TRAIN_BASELINE_REWARD_PCT_0",
    "NEMO_RL_TRAIN_BASELINE_REWARD_PCT_1",
    "NEMO_RL_TRAIN_BASELINE_REWARD_PCT_MIXED",
    "NEMO_RL_TRAIN_BUFFER_SIZE",
    "NEMO_RL_TRAIN_DRAFT_GRAD_NORM",
    "NEMO_RL_TRAIN_DRAFT_LOSS",
    "NEMO_RL_TRAIN_DYNAMIC_SAMPLING_NUM_DISCARDED_VALID_SAMPLES",
    "NEMO_RL_TRAIN_DYNAMIC_SAMPLING_NUM_GEN_BATCHES",
    "NEMO_RL_TRAIN_EMPTY_FINAL_ANSWER_RATE",
    "NEMO_RL_TRAIN_FILTERED_REWARD",
    "NEMO_RL_TRAIN_GENERATION_LOGGER_METRICS",
    "NEMO_RL_TRAIN_GEN_KL_ERROR",
    "NEMO_RL_TRAIN_GEN_TOKENS_PER_SAMPLE_STAT",
    "NEMO_RL_TRAIN_GLOBAL_VALID_SEQS",
    "NEMO_RL_TRAIN_GLOBAL_VALID_TOKS",
    "NEMO_RL_TRAIN_GRAD_NORM",
    "NEMO_RL_TRAIN_HISTOGRAM_NAME",
    "NEMO_RL_TRAIN_INVALID_TOOL_CALL_RATE",
    "NEMO_RL_TRAIN_IS_OOB_RATIO",
    "NEMO_RL_TRAIN_JS_DIVERGENCE_ERROR",
    "NEMO_RL_TRAIN_KL_PENALTY",
    "NEMO_RL_TRAIN_LOSS",
    "NEMO_RL_TRAIN_LR",
    "NEMO_RL_TRAIN_MALFORMED_THINKING_RATE",
    "NEMO_RL_TRAIN_MALFORMED_THINK_TAG_RATE",
    "NEMO_RL_TRAIN_MASKED_CORRECT_PCT",
    "NEMO_RL_TRAIN_MAX_GEN_TOKENS_PER_SAMPLE",
    "NEMO_RL_TRAIN_MAX_GEN_TOKENS_PER_TURN_STAT",
    "NEMO_RL_TRAIN_MAX_SEQ_MULT_PROB_ERROR",
    "NEMO_RL_TRAIN_MAX_SEQ_MULT_PROB_ERROR_AFTER_MASK",
    "NEMO_RL_TRAIN_MAX_TOTAL_REWARD",
    "NEMO_RL_TRAIN_MAX_TURNS_PER_SAMPLE",
    "NEMO_RL_TRAIN_MAX_TURNS_REACHED_RATE",
    "NEMO_RL_TRAIN_MEAN_ENV_TOKENS_PER_SAMPLE",
    "NEMO_RL_TRAIN_MEAN_GEN_TOKENS_PER_SAMPLE",
    "NEMO_RL_TRAIN_MEAN_LENGTH_HIGH",
    "NEMO_RL_TRAIN_MEAN_LENGTH_LOW",
    "NEMO_RL_TRAIN_MEAN_LENGTH_REWARD_LOW",
    "NEMO_RL_TRAIN_MEAN_PROMPT_LENGTH",
    "NEMO_RL_TRAIN_MEAN_REWARD_LOW",
    "NEMO_RL_TRAIN_MEAN_SEQ_MULT_PROB_ERROR",
    "NEMO_RL_TRAIN_MEAN_SEQ_MULT_PROB_ERROR_AFTER_MASK",
    "NEMO_RL_TRAIN_MEAN_TOTAL_REWARD",
    "NEMO_RL_TRAIN_MEAN_TOTAL_TOKENS_PER_SAMPLE",
    "NEMO_RL_TRAIN_MEDIAN_LENGTH_HIGH",
    "NEMO_RL_TRAIN_MEDIAN_LENGTH_LOW",
    "NEMO_RL_TRAIN_MIN_SEQ_MULT_PROB_ERROR",
    "NEMO_RL_TRAIN_MIN_SEQ_MULT_PROB_ERROR_AFTER_MASK",
    "NEMO_RL_TRAIN_MIN_TOTAL_REWARD",
    "NEMO_RL_TRAIN_MOE_AUX_LOSS",
    "NEMO_RL_TRAIN_MOE_MOE_AUX_LOSS_LAYER_LAYER",
    "NEMO_RL_TRAIN_MTP_GRAD_NORM",
    "NEMO_RL_TRAIN_MTP_MTP_LAYER_ACCEPTANCE_RATE",
    "NEMO_RL_TRAIN_MTP_MTP_LAYER_LOSS",
    "NEMO_RL_TRAIN_NATURAL_TERMINATION_RATE",
    "NEMO_RL_TRAIN_NUM_ASSISTANT_MESSAGES",
    "NEMO_RL_TRAIN_NUM_INVALID_TOOL_CALLS",
    "NEMO_RL_TRAIN_NUM_MALFORMED_THINKING",
    "NEMO_RL_TRAIN_NUM_MASKED_SEQS_BY_LOGPROB_ERROR",
    "NEMO_RL_TRAIN_NUM_MASK_SAMPLE_FILTERED",
    "NEMO_RL_TRAIN_NUM_VALID_SAMPLES",
    "NEMO_RL_TRAIN_POLICY_KL_ERROR",
    "NEMO_RL_TRAIN_POSITIVE_NLL_LOSS",
    "NEMO_RL_TRAIN_PROBS_RATIO",
    "NEMO_RL_TRAIN_PROBS_RATIO_CLAMPED",
    "NEMO_RL_TRAIN_PROBS_RATIO_CLAMPED_MAX",
    "NEMO_RL_TRAIN_PROBS_RATIO_CLAMPED_MIN",
    "NEMO_RL_TRAIN_PROBS_RATIO_MAX",
    "NEMO_RL_TRAIN_PROBS_RATIO_MIN",
    "NEMO_RL_TRAIN_REASONING_EQUAL_TO_FINAL_ANSWER_RATE",
    "NEMO_RL_TRAIN_REWARD",
    "NEMO_RL_TRAIN_SAMPLING_IMPORTANCE_RATIO",
    "NEMO_RL_TRAIN_TIMING_ROLLOUT_NAME",
    "NEMO_RL_TRAIN_TOKEN_MULT_PROB_ERROR",
    "NEMO_RL_TRAIN_TOTAL_NUM_TOKENS",
    "NEMO_RL_TRAIN_TOTAL_REWARD_STAT",
    "NEMO_RL_TRAIN_TOTAL_TOKENS_PER_SAMPLE_STAT",
    "NEMO_RL_TRAIN_TOTAL_TURNS",
    "NEMO_RL_TRAIN_TRAJECTORY_DURATION_S",
    "NEMO_RL_TRAIN_TRAJECTORY_DURATION_S_STAT",
    "NEMO_RL_TRAIN_TRUNCATION_RATE",
    "NEMO_RL_TRAIN_TURNS_PER_SAMPLE_STAT",
    "NEMO_RL_TRAIN_UNWANTED_TOKEN_RATE",
    "NEMO_RL_TRAIN_VLLM_COUNTER_PER_POS_POSITION",
    "NEMO_RL_TRAIN_VLLM_SPEC_ACCEPTANCE_LENGTH",
    "NEMO_RL_TRAIN_VLLM_SPEC_ACCEPTANCE_RATE",
    "NEMO_RL_TRAIN_VLLM_SPEC_ACCEPTANCE_RATE_POS_POSITION",
    "NEMO_RL_TRAIN_VLLM_SPEC_NUM_ACCEPTED_TOKENS",
    "NEMO_RL_TRAIN_VLLM_SPEC_NUM_DRAFTS",
    "NEMO_RL_TRAIN_VLLM_SPEC_NUM_DRAFT_TOKENS",
    "NEMO_RL_TRAIN_WD",
    "NEMO_RL_VALIDATION_ACCURACY",
    "NEMO_RL_VALIDATION_AVG_LENGTH",
    "NEMO_RL_VALIDATION_PASS_K",
    "OPENRLHF_ACTOR_GRAD_NORM",
    "OPENRLHF_ACTOR_LR",
    "OPENRLHF_CRITIC_GRAD_NORM",
    "OPENRLHF_CRITIC_LOSS",
    "OPENRLHF_CRITIC_LR",
    "OPENRLHF_DYNAMIC_FILTERING_PASS_RATE",
    "OPENRLHF_ENTROPY_LOSS",
    "OPENRLHF_EVAL_DATASOURCE_PASS_K",
    "OPENRLHF_EVAL_DATASOURCE_RESPONSE_LENGTH_MEAN",
    "OPENRLHF_EVAL_DATASOURCE_TRUNCATED_RATE",
    "OPENRLHF_EVAL_GLOBAL_STEP",
    "OPENRLHF_EVAL_NUM_SAMPLES",
    "OPENRLHF_EVAL_RESPONSE_LENGTH_MEAN",
    "OPENRLHF_EVAL_TRUNCATED_RATE",
    "OPENRLHF_GENERATED_SAMPLES",
    "OPENRLHF_GROUP_REWARD_STD",
    "OPENRLHF_KL",
    "OPENRLHF_LOGPROBS_DIFF",
    "OPENRLHF_POLICY_LOSS",
    "OPENRLHF_PPO_CLIP_RATIO",
    "OPENRLHF_PPO_KL",
    "OPENRLHF_RESPONSE_CLIP_RATIO",
    "OPENRLHF_RESPONSE_LENGTH",
    "OPENRLHF_RETURN",
    "OPENRLHF_REWARD",
    "OPENRLHF_ROLLOUT_NUM_SAMPLES",
    "OPENRLHF_ROLLOUT_RESPONSE_LENGTH_MEAN",
    "OPENRLHF_ROLLOUT_REWARD_MEAN",
    "OPENRLHF_ROLLOUT_REWARD_STD",
    "OPENRLHF_ROLLOUT_TRUNCATED_RATE",
    "OPENRLHF_SCORE",
    "OPENRLHF_TIMING_BROADCAST",
    "OPENRLHF_TIMING_GENERATION",
    "OPENRLHF_TIMING_MAKE_EXPERIENCE",
    "OPENRLHF_TIMING_PPO_TRAIN",
    "OPENRLHF_TIMING_STEP_TOTAL",
    "OPENRLHF_TOTAL_LENGTH",
    "OPENRLHF_TRAIN_GLOBAL_STEP",
    "OPENRLHF_TRUNCATED",
    "OPENRLHF_VALUES",
    "OPENRLHF_VLLM_KL",
    "PPO_COMPLETIONS",
    "PPO_EPISODE",
    "PPO_EPOCH",
    "PPO_EPS",
    "PPO_LOSS_POLICY_AVG",
    "PPO_LOSS_VALUE_AVG",
    "PPO_LR",
    "PPO_OBJECTIVE_ENTROPY",
    "PPO_OBJECTIVE_KL",
    "PPO_OBJECTIVE_NON_SCORE_REWARD",
    "PPO_OBJECTIVE_RLHF_REWARD",
    "PPO_OBJECTIVE_SCORES",
    "PPO_POLICY_APPROXKL_AVG",
    "PPO_POLICY_CLIPFRAC_AVG",
    "PPO_POLICY_ENTROPY_AVG",
    "PPO_VAL_CLIPFRAC_AVG",
    "PPO_VAL_NUM_EOS_TOKENS",
    "PPO_VAL_RATIO",
    "PPO_VAL_RATIO_VAR",
    "VERL_ACTOR_ENTROPY",
    "VERL_ACTOR_ENTROPY_LOSS",
    "VERL_ACTOR_GRAD_NORM",
    "VERL_ACTOR_KL_COEF",
    "VERL_ACTOR_KL_LOSS",
    "VERL_ACTOR_LOSS",
    "VERL_ACTOR_LR",
    "VERL_ACTOR_MTP_LOSSES_NAME",
    "VERL_ACTOR_PG_CLIPFRAC",
    "VERL_ACTOR_PG_CLIPFRAC_LOWER",
    "VERL_ACTOR_PG_LOSS",
    "VERL_ACTOR_PPO_KL",
    "VERL_ACTOR_REWARD_KL_PENALTY",
    "VERL_ACTOR_REWARD_KL_PENALTY_COEFF",
    "VERL_CHECKPOINT_ENGINE_NAME",
    "VERL_CRITIC_ADVANTAGES_MAX",
    "VERL_CRITIC_ADVANTAGES_MEAN",
    "VERL_CRITIC_ADVANTAGES_MIN",
    "VERL_CRITIC_GRAD_NORM",
    "VERL_CRITIC_LOSS",
    "VERL_CRITIC_LR",
    "VERL_CRITIC_RETURNS_MAX",
    "VERL_CRITIC_RETURNS_MEAN",
    "VERL_CRITIC_RETURNS_MIN",
    "VERL_CRITIC_REWARDS_MAX",
    "VERL_CRITIC_REWARDS_MEAN",
    "VERL_CRITIC_REWARDS_MIN",
    "VERL_CRITIC_SCORE_MAX",
    "VERL_CRITIC_SCORE_MEAN",
    "VERL_CRITIC_SCORE_MIN",
    "VERL_CRITIC_VALUES_MAX",
    "VERL_CRITIC_VALUES_MEAN",
    "VERL_CRITIC_VALUES_MIN",
    "VERL_CRITIC_VF_CLIPFRAC",
    "VERL_CRITIC_VF_EXPLAINED_VAR",
    "VERL_CRITIC_VF_LOSS",
    "VERL_CRITIC_VPRED_MEAN",
    "VERL_GDPO_REWARD_KEY_STAT",
    "VERL_GLOBAL_SEQLEN_BALANCED_MAX",
    "VERL_GLOBAL_SEQLEN_BALANCED_MIN",
    "VERL_GLOBAL_SEQLEN_MAX",
    "VERL_GLOBAL_SEQLEN_MEAN",
    "VERL_GLOBAL_SEQLEN_MIN",
    "VERL_GLOBAL_SEQLEN_MINMAX_DIFF",
    "VERL_NUM_TURNS_MAX",
    "VERL_NUM_TURNS_MEAN",
    "VERL_NUM_TURNS_MIN",
    "VERL_PARTITION_FILTER_GROUPS_DISCARDED_SURPLUS_SAMPLES",
    "VERL_PARTITION_FILTER_GROUPS_EVICTED_SAMPLES",
    "VERL_PARTITION_OFF_POLICY_EVICTED_SAMPLES",
    "VERL_PARTITION_OFF_POLICY_EVICTED_SAMPLES_STALENESS_STAT",
    "VERL_PARTITION_ROLLOUT_FAILURE_EVICTED_SAMPLES",
    "VERL_PERF_MFU_ROLE",
    "VERL_PERF_THROUGHPUT",
    "VERL_PERF_TIME_PER_STEP",
    "VERL_PERF_TOTAL_NUM_TOKENS",
    "VERL_PROMPT_LENGTH_CLIP_RATIO",
    "VERL_PROMPT_LENGTH_MAX",
    "VERL_PROMPT_LENGTH_MEAN",
    "VERL_PROMPT_LENGTH_MIN",
    "VERL_RESPONSE_ABORTED_RATIO",
    "VERL_RESPONSE_LENGTH_CLIP_RATIO",
    "VERL_RESPONSE_LENGTH_MAX",
    "VERL_RESPONSE_LENGTH_MEAN",
    "VERL_RESPONSE_LENGTH_MIN",
    "VERL_RESPONSE_LENGTH_NON_ABORTED_CLIP_RATIO",
    "VERL_RESPONSE_LENGTH_NON_ABORTED_MAX",
    "VERL_RESPONSE_LENGTH_NON_ABORTED_MEAN",
    "VERL_RESPONSE_LENGTH_NON_ABORTED_MIN",
    "VERL_ROLE_PERF_CPU_MEMORY_USED_GB",
    "VERL_ROLE_PERF_MAX_MEMORY_ALLOCATED_GB",
    "VERL_ROLE_PERF_MAX_MEMORY_RESERVED_GB",
    "VERL_ROLLOUT_CORR_CHI2_SEQ",
    "VERL_ROLLOUT_CORR_CHI2_TOKEN",
    "VERL_ROLLOUT_CORR_K3_KL",
    "VERL_ROLLOUT_CORR_KL",
    "VERL_ROLLOUT_CORR_LOG_PPL_ABS_DIFF",
    "VERL_ROLLOUT_CORR_LOG_PPL_DIFF",
    "VERL_ROLLOUT_CORR_LOG_PPL_DIFF_MAX",
    "VERL_ROLLOUT_CORR_LOG_PPL_DIFF_MIN",
    "VERL_ROLLOUT_CORR_PPL_RATIO",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_BATCH_NORM_FACTOR",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_EFF_SAMPLE_SIZE",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_MAX",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_MEAN",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_MIN",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_OOB_RATIO",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_RATIO_FRACTION_HIGH",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_RATIO_FRACTION_LOW",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_FRACTION_HIGH",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_FRACTION_LOW",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MAX",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MAX_DEVIATION",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MEAN",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MIN",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_STD",
    "VERL_ROLLOUT_CORR_ROLLOUT_IS_STD",
    "VERL_ROLLOUT_CORR_ROLLOUT_LOG_PPL",
    "VERL_ROLLOUT_CORR_ROLLOUT_PPL",
    "VERL_ROLLOUT_CORR_ROLLOUT_RS_MASKED_FRACTION",
    "VERL_ROLLOUT_CORR_ROLLOUT_RS_OPTION_STAT",
    "VERL_ROLLOUT_CORR_ROLLOUT_RS_SEQ_MASKED_FRACTION",
    "VERL_ROLLOUT_CORR_TRAINING_LOG_PPL",
    "VERL_ROLLOUT_CORR_TRAINING_PPL",
    "VERL_ROLLOUT_MOE_AVG_VIO_LAYER_OR_STAT",
    "VERL_ROLLOUT_MOE_MAX_VIO_LAYER_OR_STAT",
    "VERL_ROLLOUT_MOE_MIN_VIO_LAYER_OR_STAT",
    "VERL_ROLLOUT_MOE_ROUTED_EXPERTS_FOUND",
    "VERL_ROLLOUT_MOE_ROUTED_EXPERT_ASSIGNMENTS",
    "VERL_ROLLOUT_SPEC_ACCEPT_LENGTH",
    "VERL_ROLLOUT_SPEC_ACCEPT_RATE",
    "VERL_SEPARATE_ASYNC_DECISION_NAME",
    "VERL_SEPARATE_ASYNC_SWITCH_NAME",
    "VERL_TIMING_PER_TOKEN_MS_STAGE",
    "VERL_TIMING_S_AGENT_LOOP_PHASE_STAT",
    "VERL_TIMING_S_GEN",
    "VERL_TIMING_S_STAGE",
    "VERL_TIMING_S_STEP",
    "VERL_TOOL_CALL_COUNTS_MAX",
    "VERL_TOOL_CALL_COUNTS_MEAN",
    "VERL_TOOL_CALL_COUNTS_MIN",
    "VERL_TRAINING_EPOCH",
    "VERL_TRAINING_GLOBAL_STEP",
    "VERL_TRAINING_OFF_POLICY_TRAJECTORY_SPANS_STAT",
    "VERL_TRAINING_OFF_POLICY_TRAJECTORY_STALENESS_STAT",
    "VERL_TRAINING_OFF_POLICY_TRAJECTORY_STALENESS_WORST_STAT",
    "VERL_TRAINING_ROLLOUT_ACTOR_PROBS_PEARSON_CORR",
    "VERL_TRAINING_ROLLOUT_PROBS_DIFF_MAX",
    "VERL_TRAINING_ROLLOUT_PROBS_DIFF_MEAN",
    "VERL_TRAINING_ROLLOUT_PROBS_DIFF_STD",
    "VERL_TRAINING_ROLLOUT_PROBS_DIFF_VALID",
    "VERL_VAL_AUX_DATA_SOURCE_VARIABLE_STAT_AT_N",
    "VERL_VAL_AUX_DATA_SOURCE_VARIABLE_VOTE_AT_N_PART",
    "VERL_VAL_AUX_NUM_TURNS_STAT",
    "VERL_VAL_CORE_DATA_SOURCE_VARIABLE_STAT_AT_N",
    "VERL_VAL_CORE_DATA_SOURCE_VARIABLE_VOTE_AT_N_PART",
    "VERL_VARIANCE_PROXY_EXPECTED_A_SQUARED",
    "VERL_VARIANCE_PROXY_EXPECTED_W",
    "VERL_VARIANCE_PROXY_PROXY1_SIGNAL_STRENGTH",
    "VERL_VARIANCE_PROXY_PROXY2_TOTAL_POWER",
    "VERL_VARIANCE_PROXY_PROXY3_PURE_NOISE",
]


# grpo: GRPOTrainer, TRL 0.16.0 and later

#: Cumulative number of prompt and completion tokens generated for training so far, summed over all
#: processes.
GRPO_NUM_TOKENS: Final = "num_tokens"

#: Mean length in tokens of all completions of the generation batch, truncated ones included, gathered
#: from all processes.
GRPO_COMPLETIONS_MEAN_LENGTH: Final = "completions/mean_length"

#: Length in tokens of the shortest completion of the generation batch across all processes.
GRPO_COMPLETIONS_MIN_LENGTH: Final = "completions/min_length"

#: Length in tokens of the longest completion of the generation batch across all processes.
GRPO_COMPLETIONS_MAX_LENGTH: Final = "completions/max_length"

#: Fraction of the completions of the generation batch that stopped at the length limit without an EOS
#: token.
GRPO_COMPLETIONS_CLIPPED_RATIO: Final = "completions/clipped_ratio"

#: Mean length in tokens of the completions of the generation batch that ended with an EOS token, gathered
#: from all processes.
GRPO_COMPLETIONS_MEAN_TERMINATED_LENGTH: Final = "completions/mean_terminated_length"

#: Length in tokens of the shortest completion of the generation batch that ended with an EOS token.
GRPO_COMPLETIONS_MIN_TERMINATED_LENGTH: Final = "completions/min_terminated_length"

#: Length in tokens of the longest completion of the generation batch that ended with an EOS token.
GRPO_COMPLETIONS_MAX_TERMINATED_LENGTH: Final = "completions/max_terminated_length"

#: Mean number of completion tokens up to and including the first EOS, over all completions of all
#: processes.
#: Legacy name, replaced by completions/mean_length.
GRPO_COMPLETION_LENGTH: Final = "completion_length"

#: Mean raw reward returned by one reward function over the completions it scored, gathered from all
#: processes.
#: Templated: fill the placeholders with str.format().
GRPO_REWARDS_REWARD_FUNC_NAME_MEAN: Final = "rewards/{reward_func_name}/mean"

#: Sample standard deviation of one reward function's raw rewards over the whole generation batch,
#: gathered from all processes.
#: Templated: fill the placeholders with str.format().
GRPO_REWARDS_REWARD_FUNC_NAME_STD: Final = "rewards/{reward_func_name}/std"

#: Mean raw reward of one reward function over all completions, the pre-0.17 name of the per-function
#: mean.
#: Legacy name, replaced by rewards/{reward_func_name}/mean.
#: Templated: fill the placeholders with str.format().
GRPO_REWARDS_REWARD_FUNC_NAME: Final = "rewards/{reward_func_name}"

#: Mean over the generation batch of the weighted sum of the raw rewards of all reward functions, before
#: any group normalisation.
GRPO_REWARD: Final = "reward"

#: Sample standard deviation of the weighted total reward over the whole generation batch (since 0.27;
#: earlier the mean of per-group standard deviations).
GRPO_REWARD_STD: Final = "reward_std"

#: Fraction of prompt groups whose completions all received the same total reward, so that their
#: advantages are all zero.
GRPO_FRAC_REWARD_ZERO_STD: Final = "frac_reward_zero_std"

#: Mean over completion tokens of the k3 estimate of the KL divergence from the policy to the reference
#: model.
GRPO_KL: Final = "kl"

#: Mean over completion tokens of the entropy of the policy's next-token distribution, computed during the
#: loss forward pass.
GRPO_ENTROPY: Final = "entropy"

#: Coefficient of the entropy bonus in effect at the end of each optimizer step, constant unless adaptive
#: entropy control is on.
GRPO_ENTROPY_COEF: Final = "entropy_coef"

#: Fraction of completion tokens whose ratio fell below 1 - epsilon_low while their advantage was
#: negative, so that the clip removed their gradient.
GRPO_CLIP_RATIO_LOW_MEAN: Final = "clip_ratio/low_mean"

#: Minimum, over the sequences of the micro-batch on all processes, of each sequence's fraction of lower-
#: clipped tokens.
GRPO_CLIP_RATIO_LOW_MIN: Final = "clip_ratio/low_min"

#: Fraction of completion tokens whose ratio rose above 1 + epsilon_high while their advantage was
#: positive, so that the clip removed their gradient.
GRPO_CLIP_RATIO_HIGH_MEAN: Final = "clip_ratio/high_mean"

#: Maximum, over the sequences of the micro-batch on all processes, of each sequence's fraction of upper-
#: clipped tokens.
GRPO_CLIP_RATIO_HIGH_MAX: Final = "clip_ratio/high_max"

#: Fraction of completion tokens for which the clipped objective was active, lower bound with negative
#: advantage or upper bound with positive advantage.
GRPO_CLIP_RATIO_REGION_MEAN: Final = "clip_ratio/region_mean"

#: Single clip fraction, logged by the standard loss in 0.16 (with an inverted test) and afterwards only
#: by the Liger fused loss until 1.13.
#: Legacy name, replaced by clip_ratio/region_mean.
GRPO_CLIP_RATIO: Final = "clip_ratio"

#: Fraction of completion tokens whose importance ratio exceeded the CISPO cap epsilon_high while their
#: advantage was positive.
GRPO_CISPO_CLIP_RATIO: Final = "cispo_clip_ratio"

#: Mean over sequences of the VESPO gamma weight phi(w) applied to each sequence's policy-gradient term.
GRPO_VESPO_PHI_SEQ_MEAN: Final = "vespo/phi_seq_mean"

#: The GRPO objective of the micro-batch (policy term plus any KL penalty) before the entropy bonus and
#: the MoE auxiliary loss are applied.
GRPO_POLICY_LOSS: Final = "policy_loss"

#: Router load-balancing loss returned by a Mixture-of-Experts policy, before multiplication by
#: router_aux_loss_coef.
GRPO_AUX_LOSS: Final = "aux_loss"

#: Seconds spent in training_step summed over the micro-steps of one optimizer step, generation included
#: when it happens.
GRPO_STEP_TIME: Final = "step_time"

#: Mean absolute difference between the token log-probabilities reported by vLLM and those recomputed by
#: the training model.
GRPO_SAMPLING_SAMPLING_LOGP_DIFFERENCE_MEAN: Final = "sampling/sampling_logp_difference/mean"

#: Largest absolute per-token difference between vLLM's and the training model's log-probabilities in the
#: generation batch, over all processes.
GRPO_SAMPLING_SAMPLING_LOGP_DIFFERENCE_MAX: Final = "sampling/sampling_logp_difference/max"

#: Smallest importance-sampling ratio between the training model and vLLM after truncation or masking,
#: over all processes.
GRPO_SAMPLING_IMPORTANCE_SAMPLING_RATIO_MIN: Final = "sampling/importance_sampling_ratio/min"

#: Mean importance-sampling ratio between the training model and vLLM after truncation or masking,
#: averaged over processes.
GRPO_SAMPLING_IMPORTANCE_SAMPLING_RATIO_MEAN: Final = "sampling/importance_sampling_ratio/mean"

#: Largest importance-sampling ratio between the training model and vLLM after truncation or masking, over
#: all processes.
GRPO_SAMPLING_IMPORTANCE_SAMPLING_RATIO_MAX: Final = "sampling/importance_sampling_ratio/max"

#: Average number of tool calls made per completion in the generation batch, over all processes.
GRPO_TOOLS_CALL_FREQUENCY: Final = "tools/call_frequency"

#: Fraction of the tool calls of the generation batch that failed, 0 when no tool was called.
GRPO_TOOLS_FAILURE_FREQUENCY: Final = "tools/failure_frequency"

#: A table of the latest prompts, completions, per-function rewards and advantages, sent to W&B or Trackio
#: at each logging step.
GRPO_COMPLETIONS: Final = "completions"

#: The loss that was back-propagated, averaged over the optimizer steps since the last log and over
#: processes (logged by transformers' Trainer).
GRPO_LOSS: Final = "loss"

#: Global L2 norm of the gradients at the optimizer step just before the log, measured before clipping
#: (logged by transformers' Trainer).
GRPO_GRAD_NORM: Final = "grad_norm"

#: Learning rate used by the optimizer step just before the log, read from the scheduler (logged by
#: transformers' Trainer).
GRPO_LEARNING_RATE: Final = "learning_rate"

#: Fractional number of passes over the training dataloader so far (logged by transformers' Trainer).
GRPO_EPOCH: Final = "epoch"

#: Wall-clock seconds of the whole train() call, logged once at the end of training (by transformers'
#: Trainer).
GRPO_TRAIN_RUNTIME: Final = "train_runtime"

#: Training samples divided by the training time, logged once at the end of training (by transformers'
#: Trainer).
GRPO_TRAIN_SAMPLES_PER_SECOND: Final = "train_samples_per_second"

#: Optimizer steps divided by the training time, logged once at the end of training (by transformers'
#: Trainer).
GRPO_TRAIN_STEPS_PER_SECOND: Final = "train_steps_per_second"

#: GRPO's prompt-plus-completion token counter divided by the elapsed training time, added to every log
#: when token counting is enabled (by transformers' Trainer).
GRPO_TRAIN_TOKENS_PER_SECOND: Final = "train_tokens_per_second"

#: Mean of the training loss over all optimizer steps of the run, logged once at the end of training (by
#: transformers' Trainer).
GRPO_TRAIN_LOSS: Final = "train_loss"

#: Floating-point operations counted by transformers for the run, which stays 0 for GRPO because its
#: batches carry no input_ids.
GRPO_TOTAL_FLOS: Final = "total_flos"

#: Wall-clock seconds of one evaluation pass, generation included (logged by transformers' Trainer as
#: eval_runtime).
GRPO_RUNTIME: Final = "runtime"

#: Evaluation samples divided by the evaluation time (logged by transformers' Trainer as
#: eval_samples_per_second).
GRPO_SAMPLES_PER_SECOND: Final = "samples_per_second"

#: Evaluation batches divided by the evaluation time (logged by transformers' Trainer as
#: eval_steps_per_second).
GRPO_STEPS_PER_SECOND: Final = "steps_per_second"


# legacy-ppo: PPOTrainer (v0.7), TRL 0.2.0 up to (not including) 0.12.0

#: Mean of the rewards that the training loop passes to `log_stats`, pooled over all processes.
#: Legacy name, replaced by ppo:objective/scores.
LEGACY_PPO_ENV_REWARD_MEAN: Final = "env/reward_mean"

#: Unbiased standard deviation of the rewards passed to `log_stats`, pooled over all processes.
LEGACY_PPO_ENV_REWARD_STD: Final = "env/reward_std"

#: Histogram of the rewards passed to `log_stats`, with one value per sample from all processes.
LEGACY_PPO_ENV_REWARD_DIST: Final = "env/reward_dist"

#: Mean over the batch of the per-sequence sum of the token-level KL penalty between the policy and the
#: frozen reference model.
#: Legacy name, replaced by ppo:objective/kl.
LEGACY_PPO_OBJECTIVE_KL: Final = "objective/kl"

#: Histogram over the batch of the per-sequence summed KL penalty whose mean is `objective/kl`.
LEGACY_PPO_OBJECTIVE_KL_DIST: Final = "objective/kl_dist"

#: The coefficient $\beta$ that multiplies the per-token KL penalty in the rewards of this step, adapted
#: after the step when `adap_kl_ctrl` is on.
LEGACY_PPO_OBJECTIVE_KL_COEF: Final = "objective/kl_coef"

#: Masked mean over response tokens of the non-score reward $-\beta \cdot$ KL penalty, i.e. the KL
#: penalty's share of the reward, negative when the policy moves away from the reference.
#: Legacy name, replaced by ppo:objective/non_score_reward.
LEGACY_PPO_PPO_MEAN_NON_SCORE_REWARD: Final = "ppo/mean_non_score_reward"

#: Mean over the batch of the summed negative log-probabilities of the sampled response tokens, a one-
#: sample estimate of the policy's sequence entropy.
#: Legacy name, replaced by ppo:objective/entropy.
LEGACY_PPO_OBJECTIVE_ENTROPY: Final = "objective/entropy"

#: Mean of the scores passed to `step`, after optional score scaling, normalisation and clipping, averaged
#: across processes.
#: Legacy name, replaced by ppo:objective/scores.
LEGACY_PPO_PPO_MEAN_SCORES: Final = "ppo/mean_scores"

#: Unbiased standard deviation of the scores passed to `step`, after optional scaling and clipping,
#: computed per process and then averaged over processes.
LEGACY_PPO_PPO_STD_SCORES: Final = "ppo/std_scores"

#: The learning rate of the optimizer's first parameter group, read after this step's PPO updates and
#: before the scheduler steps.
#: Legacy name, replaced by ppo:lr.
LEGACY_PPO_PPO_LEARNING_RATE: Final = "ppo/learning_rate"

#: Masked mean over response tokens of the full-vocabulary entropy of the current policy, averaged over
#: all minibatches and PPO epochs.
#: Legacy name, replaced by ppo:policy/entropy_avg.
LEGACY_PPO_PPO_POLICY_ENTROPY: Final = "ppo/policy/entropy"

#: Masked fraction of response tokens where the clipped surrogate term wins the PPO max, averaged over all
#: minibatches and PPO epochs.
#: Legacy name, replaced by ppo:policy/clipfrac_avg.
LEGACY_PPO_PPO_POLICY_CLIPFRAC: Final = "ppo/policy/clipfrac"

#: Masked mean over response tokens of half the squared log-ratio between the current and the rollout
#: policy (Schulman's k2 estimator), averaged over all minibatches and PPO epochs.
#: Legacy name, replaced by ppo:policy/approxkl_avg.
LEGACY_PPO_PPO_POLICY_APPROXKL: Final = "ppo/policy/approxkl"

#: Masked mean over response tokens of the log-ratio between the rollout and the current policy
#: (Schulman's k1 estimator), averaged over all minibatches and PPO epochs.
LEGACY_PPO_PPO_POLICY_POLICYKL: Final = "ppo/policy/policykl"

#: Histogram of the per-token ratios between the current and the rollout policy, over every position of
#: every minibatch of every PPO epoch in the step.
#: Legacy name, replaced by ppo:val/ratio.
LEGACY_PPO_PPO_POLICY_RATIO: Final = "ppo/policy/ratio"

#: Masked mean over response tokens of the whitened GAE advantages, averaged over all minibatches and PPO
#: epochs, close to 0 by construction.
LEGACY_PPO_PPO_POLICY_ADVANTAGES_MEAN: Final = "ppo/policy/advantages_mean"

#: Histogram of the whitened GAE advantages at every position of every minibatch of every PPO epoch in the
#: step.
LEGACY_PPO_PPO_POLICY_ADVANTAGES: Final = "ppo/policy/advantages"

#: Masked mean of the returns (raw GAE advantages plus rollout values) used as value targets, averaged
#: over all minibatches and PPO epochs.
LEGACY_PPO_PPO_RETURNS_MEAN: Final = "ppo/returns/mean"

#: Bessel-corrected masked variance of the returns within each minibatch, averaged over all minibatches
#: and PPO epochs.
LEGACY_PPO_PPO_RETURNS_VAR: Final = "ppo/returns/var"

#: Masked mean of the value head's estimates from the rollout pass (before this step's updates), averaged
#: over all minibatches and PPO epochs.
LEGACY_PPO_PPO_VAL_MEAN: Final = "ppo/val/mean"

#: Bessel-corrected masked variance of the rollout value estimates within each minibatch, averaged over
#: all minibatches and PPO epochs.
LEGACY_PPO_PPO_VAL_VAR: Final = "ppo/val/var"

#: One minus the ratio of the averaged value error `ppo/val/error` to the averaged return variance
#: `ppo/returns/var`, showing how much of the returns the value head predicts.
LEGACY_PPO_PPO_VAL_VAR_EXPLAINED: Final = "ppo/val/var_explained"

#: Masked fraction of response tokens where the clipped value loss is larger than the unclipped one,
#: averaged over all minibatches and PPO epochs.
#: Legacy name, replaced by ppo:val/clipfrac_avg.
LEGACY_PPO_PPO_VAL_CLIPFRAC: Final = "ppo/val/clipfrac"

#: Masked mean of the value head's predictions in each minibatch's training forward pass, averaged over
#: all minibatches and PPO epochs.
LEGACY_PPO_PPO_VAL_VPRED: Final = "ppo/val/vpred"

#: Masked mean squared difference between the training-time value predictions and the returns, averaged
#: over all minibatches and PPO epochs.
LEGACY_PPO_PPO_VAL_ERROR: Final = "ppo/val/error"

#: Masked mean over response tokens of the clipped PPO surrogate loss, averaged over all minibatches and
#: PPO epochs.
#: Legacy name, replaced by ppo:loss/policy_avg.
LEGACY_PPO_PPO_LOSS_POLICY: Final = "ppo/loss/policy"

#: Half the masked mean of the larger of the clipped and unclipped squared value errors, averaged over all
#: minibatches and PPO epochs, before the `vf_coef` weight.
#: Legacy name, replaced by ppo:loss/value_avg.
LEGACY_PPO_PPO_LOSS_VALUE: Final = "ppo/loss/value"

#: The policy loss plus `vf_coef` times the value loss, per minibatch, averaged over all minibatches and
#: PPO epochs.
LEGACY_PPO_PPO_LOSS_TOTAL: Final = "ppo/loss/total"

#: Mean length in tokens of the query tensors passed to `step` on the main process.
LEGACY_PPO_TOKENS_QUERIES_LEN_MEAN: Final = "tokens/queries_len_mean"

#: Unbiased standard deviation of the query lengths in tokens on the main process.
LEGACY_PPO_TOKENS_QUERIES_LEN_STD: Final = "tokens/queries_len_std"

#: Histogram of the query lengths in tokens on the main process.
LEGACY_PPO_TOKENS_QUERIES_DIST: Final = "tokens/queries_dist"

#: Mean length in tokens of the response tensors passed to `step` on the main process.
LEGACY_PPO_TOKENS_RESPONSES_LEN_MEAN: Final = "tokens/responses_len_mean"

#: Unbiased standard deviation of the response lengths in tokens on the main process.
LEGACY_PPO_TOKENS_RESPONSES_LEN_STD: Final = "tokens/responses_len_std"

#: Histogram of the response lengths in tokens on the main process.
LEGACY_PPO_TOKENS_RESPONSES_DIST: Final = "tokens/responses_dist"

#: Histogram of the policy's log-probabilities of the batch tokens from the rollout forward pass, over
#: every position of the padded batch.
LEGACY_PPO_OBJECTIVE_LOGPROBS: Final = "objective/logprobs"

#: Histogram of the reference model's log-probabilities of the batch tokens, over every position of the
#: padded batch.
LEGACY_PPO_OBJECTIVE_REF_LOGPROBS: Final = "objective/ref_logprobs"

#: Wall-clock seconds spent in `step` preparing the inputs and running the no-grad forward passes of the
#: policy and the reference model over the batch.
LEGACY_PPO_TIME_PPO_FORWARD_PASS: Final = "time/ppo/forward_pass"

#: Wall-clock seconds spent computing the per-token KL penalty and rewards in `step`.
LEGACY_PPO_TIME_PPO_COMPUTE_REWARDS: Final = "time/ppo/compute_rewards"

#: Wall-clock seconds spent running GAE and whitening the advantages over the batch in `step`.
LEGACY_PPO_TIME_PPO_COMPUTE_ADVANTAGES: Final = "time/ppo/compute_advantages"

#: Wall-clock seconds spent on all PPO epochs and minibatches of the step, including their forward passes,
#: backward passes and optimizer steps.
LEGACY_PPO_TIME_PPO_OPTIMIZE_STEP: Final = "time/ppo/optimize_step"

#: Wall-clock seconds spent stacking the minibatch stats, computing the step statistics and reducing them
#: across processes.
LEGACY_PPO_TIME_PPO_CALC_STATS: Final = "time/ppo/calc_stats"

#: Wall-clock seconds from the start of the forward passes to the KL controller update in `step`.
LEGACY_PPO_TIME_PPO_TOTAL: Final = "time/ppo/total"

#: A wandb table with one row per sample, holding the logged batch columns (by default query and response)
#: and the reward.
LEGACY_PPO_GAME_LOG: Final = "game_log"

#: Mean wall-clock seconds of one `optimizer.step()` call over the minibatches of a step, logged by
#: releases 0.2.0 to 0.4.7.
LEGACY_PPO_PPO_TIME_PPO_OPTIMIZER_STEP: Final = "ppo/time/ppo/optimizer_step"


# nemo-rl: grpo_train, NeMo-RL 0.1.0 and later

#: The clipped policy-gradient surrogate plus β times the reference KL, averaged over the valid tokens of
#: each global batch and then over the global batches of the step.
NEMO_RL_TRAIN_LOSS: Final = "train/loss"

#: The unweighted estimate of KL(π_θ ‖ π_ref) on the sampled tokens, with β divided out; the penalty the
#: loss adds is β times this value.
NEMO_RL_TRAIN_KL_PENALTY: Final = "train/kl_penalty"

#: Token-weighted mean of the probability ratio π_θ/π_prev of the sampled tokens, per global batch,
#: averaged over the global batches of the step.
NEMO_RL_TRAIN_PROBS_RATIO: Final = "train/probs_ratio"

#: Token-weighted mean of the probability ratio clamped to [1 − ratio_clip_min, 1 + ratio_clip_max],
#: reduced like train/probs_ratio.
NEMO_RL_TRAIN_PROBS_RATIO_CLAMPED: Final = "train/probs_ratio_clamped"

#: Minimum of the probability ratio π_θ/π_prev over every valid token of the step, or -1.0 when there is
#: none.
NEMO_RL_TRAIN_PROBS_RATIO_MIN: Final = "train/probs_ratio_min"

#: Maximum of the probability ratio π_θ/π_prev over every valid token of the step, or -1.0 when there is
#: none.
NEMO_RL_TRAIN_PROBS_RATIO_MAX: Final = "train/probs_ratio_max"

#: Minimum over every valid token of the step of the ratio clamped to [1 − ratio_clip_min, 1 +
#: ratio_clip_max], or -1.0 when there is none.
NEMO_RL_TRAIN_PROBS_RATIO_CLAMPED_MIN: Final = "train/probs_ratio_clamped_min"

#: Maximum over every valid token of the step of the ratio clamped to [1 − ratio_clip_min, 1 +
#: ratio_clip_max], or -1.0 when there is none.
NEMO_RL_TRAIN_PROBS_RATIO_CLAMPED_MAX: Final = "train/probs_ratio_clamped_max"

#: Importance-weighted mean surprisal −(π_θ/π_gen)·log π_θ of the sampled tokens, token-weighted per
#: global batch and averaged over the global batches.
NEMO_RL_TRAIN_APPROX_ENTROPY: Final = "train/approx_entropy"

#: Token-weighted mean of exp(|log π_gen − log π_prev|) over the valid tokens, 1 when the inference engine
#: and the training framework agree exactly.
NEMO_RL_TRAIN_TOKEN_MULT_PROB_ERROR: Final = "train/token_mult_prob_error"

#: Token-weighted mean of the reference-KL estimator applied to log π_prev − log π_gen, which with k3
#: estimates KL(π_gen ‖ π_train) on the engine's samples.
NEMO_RL_TRAIN_GEN_KL_ERROR: Final = "train/gen_kl_error"

#: Token-weighted mean of the reference-KL estimator applied to log π_gen − log π_prev on the engine's
#: samples, labelled KL(π_train ‖ π_gen) but not an unbiased estimate of it.
NEMO_RL_TRAIN_POLICY_KL_ERROR: Final = "train/policy_kl_error"

#: Token-weighted mean of a k3-shaped Jensen-Shannon term between the inference and training probabilities
#: of each sampled token.
NEMO_RL_TRAIN_JS_DIVERGENCE_ERROR: Final = "train/js_divergence_error"

#: Token-weighted mean of the importance weight π_prev/π_gen after truncated importance sampling, or per
#: sample with sequence-level ratios.
NEMO_RL_TRAIN_SAMPLING_IMPORTANCE_RATIO: Final = "train/sampling_importance_ratio"

#: Fraction of valid tokens (of valid samples with seq-mask-tis) whose inference/training importance
#: weight falls outside the truncated-importance-sampling bounds.
NEMO_RL_TRAIN_IS_OOB_RATIO: Final = "train/is_oob_ratio"

#: Number of samples not masked out (sample_mask), per global batch on average, not for the whole step.
NEMO_RL_TRAIN_NUM_VALID_SAMPLES: Final = "train/num_valid_samples"

#: Mean negative log-probability of the tokens of samples with reward above 0, the VAPO term weighted by
#: positive_example_nll_weight; always 0 in GRPO.
NEMO_RL_TRAIN_POSITIVE_NLL_LOSS: Final = "train/positive_nll_loss"

#: Largest per-sequence mean of exp(|log π_gen − log π_prev|) over the sequences of the step's batch with
#: at least one valid token.
NEMO_RL_TRAIN_MAX_SEQ_MULT_PROB_ERROR: Final = "train/max_seq_mult_prob_error"

#: Mean over sequences (not tokens) of the per-sequence mean of exp(|log π_gen − log π_prev|) over the
#: step's training batch.
NEMO_RL_TRAIN_MEAN_SEQ_MULT_PROB_ERROR: Final = "train/mean_seq_mult_prob_error"

#: Smallest per-sequence mean of exp(|log π_gen − log π_prev|) over the sequences of the step's batch with
#: at least one valid token.
NEMO_RL_TRAIN_MIN_SEQ_MULT_PROB_ERROR: Final = "train/min_seq_mult_prob_error"

#: Largest per-sequence multiplicative probability error among the sequences kept by
#: seq_logprob_error_threshold; equals the value before masking when no threshold is set.
NEMO_RL_TRAIN_MAX_SEQ_MULT_PROB_ERROR_AFTER_MASK: Final = "train/max_seq_mult_prob_error_after_mask"

#: Mean per-sequence multiplicative probability error over the sequences kept by
#: seq_logprob_error_threshold; equals the value before masking when no threshold is set.
NEMO_RL_TRAIN_MEAN_SEQ_MULT_PROB_ERROR_AFTER_MASK: Final = "train/mean_seq_mult_prob_error_after_mask"

#: Smallest per-sequence multiplicative probability error over the sequences kept by
#: seq_logprob_error_threshold; equals the value before masking when no threshold is set.
NEMO_RL_TRAIN_MIN_SEQ_MULT_PROB_ERROR_AFTER_MASK: Final = "train/min_seq_mult_prob_error_after_mask"

#: Number of sequences of the step that seq_logprob_error_threshold removed from the loss because their
#: multiplicative probability error exceeded it.
NEMO_RL_TRAIN_NUM_MASKED_SEQS_BY_LOGPROB_ERROR: Final = "train/num_masked_seqs_by_logprob_error"

#: Fraction, from 0 to 1 despite the name, of the sequences masked by seq_logprob_error_threshold whose
#: reward is exactly 1.
NEMO_RL_TRAIN_MASKED_CORRECT_PCT: Final = "train/masked_correct_pct"

#: Mean over the step's training samples of the total reward after reward scaling and DAPO reward shaping;
#: under dynamic sampling, the mean of the first unfiltered rewards of the step.
NEMO_RL_TRAIN_REWARD: Final = "train/reward"

#: Mean reward over the samples DAPO's dynamic sampling kept for training (groups whose reward spread is
#: not 0).
NEMO_RL_TRAIN_FILTERED_REWARD: Final = "train/filtered_reward"

#: Mean of the advantages over every response token of the training batch, so long responses weigh more;
#: masked-out samples included.
NEMO_RL_TRAIN_ADVANTAGES_MEAN: Final = "train/advantages/mean"

#: Largest advantage over the response tokens of the training batch, after penalties and advantage
#: clipping.
NEMO_RL_TRAIN_ADVANTAGES_MAX: Final = "train/advantages/max"

#: Smallest advantage over the response tokens of the training batch, after penalties and advantage
#: clipping.
NEMO_RL_TRAIN_ADVANTAGES_MIN: Final = "train/advantages/min"

#: Sum of the advantages over the whole padded (samples × positions) tensor, prompt and padding positions
#: included, before penalties and clipping.
NEMO_RL_TRAIN_ADVANTAGES_SUM: Final = "train/advantages/sum"

#: Percentage (0-100) of the training samples whose GRPO baseline is exactly 0, i.e. with 0/1 rewards
#: every other rollout of the group failed.
NEMO_RL_TRAIN_BASELINE_REWARD_PCT_0: Final = "train/baseline_reward/pct_0"

#: Percentage (0-100) of the training samples whose GRPO baseline is exactly 1, i.e. with 0/1 rewards
#: every other rollout of the group succeeded.
NEMO_RL_TRAIN_BASELINE_REWARD_PCT_1: Final = "train/baseline_reward/pct_1"

#: 100 minus the two other percentages; with 0/1 rewards, the share of samples whose other rollouts
#: disagree.
NEMO_RL_TRAIN_BASELINE_REWARD_PCT_MIXED: Final = "train/baseline_reward/pct_mixed"

#: Number of training samples whose environment set the mask_sample flag, which then get a loss multiplier
#: of 0.
NEMO_RL_TRAIN_NUM_MASK_SAMPLE_FILTERED: Final = "train/num_mask_sample_filtered"

#: Number of generation batches DAPO's dynamic sampling generated in this step to collect enough samples
#: with reward spread.
NEMO_RL_TRAIN_DYNAMIC_SAMPLING_NUM_GEN_BATCHES: Final = "train/dynamic_sampling_num_gen_batches"

#: Number of samples that passed DAPO's filter but were dropped because the training batch was already
#: full.
NEMO_RL_TRAIN_DYNAMIC_SAMPLING_NUM_DISCARDED_VALID_SAMPLES: Final = (
    "train/dynamic_sampling_num_discarded_valid_samples"
)

#: Mean length in tokens of the prompts of the training samples, chat template included.
NEMO_RL_TRAIN_MEAN_PROMPT_LENGTH: Final = "train/mean_prompt_length"

#: Sum of the unpadded lengths (prompt, every assistant turn and environment tokens) of all samples of the
#: step's training batch, masked samples included.
NEMO_RL_TRAIN_TOTAL_NUM_TOKENS: Final = "train/total_num_tokens"

#: Number of response tokens of unmasked samples in one global batch (all ranks), averaged over micro-
#: batch entries; not the step's total.
NEMO_RL_TRAIN_GLOBAL_VALID_TOKS: Final = "train/global_valid_toks"

#: Number of unmasked samples in one global batch (all ranks), averaged over micro-batch entries; not the
#: step's total.
NEMO_RL_TRAIN_GLOBAL_VALID_SEQS: Final = "train/global_valid_seqs"

#: Mean over the samples of the generation batch of the tokens the model generated, summed over all
#: assistant turns.
NEMO_RL_TRAIN_MEAN_GEN_TOKENS_PER_SAMPLE: Final = "train/mean_gen_tokens_per_sample"

#: Largest number of generated tokens of one sample (all assistant turns) in the generation batch.
NEMO_RL_TRAIN_MAX_GEN_TOKENS_PER_SAMPLE: Final = "train/max_gen_tokens_per_sample"

#: Mean over the samples of the generation batch of the generated plus environment-observation tokens, the
#: prompt excluded.
NEMO_RL_TRAIN_MEAN_TOTAL_TOKENS_PER_SAMPLE: Final = "train/mean_total_tokens_per_sample"

#: Mean over the samples of the generation batch of the tokens of the environment observations inserted
#: between turns.
NEMO_RL_TRAIN_MEAN_ENV_TOKENS_PER_SAMPLE: Final = "train/mean_env_tokens_per_sample"

#: Sum over the samples of the generation batch of their number of turns.
NEMO_RL_TRAIN_TOTAL_TURNS: Final = "train/total_turns"

#: Mean over the samples of the generation batch of their number of turns.
NEMO_RL_TRAIN_AVG_TURNS_PER_SAMPLE: Final = "train/avg_turns_per_sample"

#: Largest number of turns of one sample in the generation batch.
NEMO_RL_TRAIN_MAX_TURNS_PER_SAMPLE: Final = "train/max_turns_per_sample"

#: Fraction of the samples of the generation batch marked as terminated; on the native rollout path that
#: includes samples whose observation was truncated, so it is not one minus the truncation rate.
NEMO_RL_TRAIN_NATURAL_TERMINATION_RATE: Final = "train/natural_termination_rate"

#: Fraction of the samples of the generation batch with a response that hit the generation limit without a
#: stop token, or an environment observation that was cut.
NEMO_RL_TRAIN_TRUNCATION_RATE: Final = "train/truncation_rate"

#: Fraction of the samples of the generation batch still active when max_rollout_turns was reached.
NEMO_RL_TRAIN_MAX_TURNS_REACHED_RATE: Final = "train/max_turns_reached_rate"

#: Global L2 norm of the policy gradient at the last global batch (optimizer step) of the RL step, before
#: clipping.
NEMO_RL_TRAIN_GRAD_NORM: Final = "train/grad_norm"

#: The policy optimizer's learning rate during the step, averaged over the micro-batch entries of every
#: global batch.
NEMO_RL_TRAIN_LR: Final = "train/lr"

#: The Megatron scheduler's weight decay during the step, averaged over micro-batch entries; logged by the
#: Megatron backend only.
NEMO_RL_TRAIN_WD: Final = "train/wd"

#: Seconds from the start of the step to the end of its logging, generation, training and checkpointing
#: included.
NEMO_RL_TIMING_TRAIN_TOTAL_STEP_TIME: Final = "timing/train/total_step_time"

#: Seconds the step spent in rollout generation (inference engine and environment turns), summed over the
#: step's generation batches.
NEMO_RL_TIMING_TRAIN_GENERATION: Final = "timing/train/generation"

#: Seconds of the policy update of the step, i.e. the forward, backward and optimizer step of every global
#: batch.
NEMO_RL_TIMING_TRAIN_POLICY_TRAINING: Final = "timing/train/policy_training"

#: Seconds spent recomputing the rollout's log-probabilities with the training framework and with the
#: reference policy before the update.
NEMO_RL_TIMING_TRAIN_POLICY_AND_REFERENCE_LOGPROBS: Final = "timing/train/policy_and_reference_logprobs"

#: Seconds spent in the reward step after generation (scaling and shaping of the environment rewards).
NEMO_RL_TIMING_TRAIN_REWARD_CALCULATION: Final = "timing/train/reward_calculation"

#: Seconds spent before generation to get the inference engine ready, weight refit included.
NEMO_RL_TIMING_TRAIN_PREPARE_FOR_GENERATION_TOTAL: Final = "timing/train/prepare_for_generation/total"

#: Seconds spent transferring the updated policy weights to the inference engine before generation.
NEMO_RL_TIMING_TRAIN_PREPARE_FOR_GENERATION_TRANSFER_AND_UPDATE_WEIGHTS: Final = (
    "timing/train/prepare_for_generation/transfer_and_update_weights"
)

#: Seconds spent loading and preparing the batch of prompts and the training data, over the two blocks the
#: step times under this label.
NEMO_RL_TIMING_TRAIN_DATA_PROCESSING: Final = "timing/train/data_processing"

#: Seconds spent computing baselines and advantages for the step's batch.
NEMO_RL_TIMING_TRAIN_ADVANTAGE_CALCULATION: Final = "timing/train/advantage_calculation"

#: Seconds spent switching the policy workers to training (model to train mode, optimizer back onto the
#: GPU).
NEMO_RL_TIMING_TRAIN_TRAINING_PREP: Final = "timing/train/training_prep"

#: Seconds spent getting the policy workers ready for the log-probability forward passes.
NEMO_RL_TIMING_TRAIN_LOGPROB_INFERENCE_PREP: Final = "timing/train/logprob_inference_prep"

#: Seconds spent saving a checkpoint in this step; absent or small in steps without one.
NEMO_RL_TIMING_TRAIN_CHECKPOINTING: Final = "timing/train/checkpointing"

#: Seconds spent filtering groups and assembling the training batch under DAPO's dynamic sampling.
NEMO_RL_TIMING_TRAIN_DYNAMIC_SAMPLING: Final = "timing/train/dynamic_sampling"

#: The per-global-batch valid-token count divided by the step time and the number of GPUs; it undercounts
#: by the number of global batches per step.
NEMO_RL_TIMING_TRAIN_VALID_TOKENS_PER_SEC_PER_GPU: Final = "timing/train/valid_tokens_per_sec_per_gpu"

#: Seconds spent in one validation pass (generation and scoring of the validation prompts).
NEMO_RL_TIMING_VALIDATION_TOTAL_VALIDATION_TIME: Final = "timing/validation/total_validation_time"

#: Samples of the step (prompts × generations per prompt) divided by the step's wall-clock time.
NEMO_RL_PERFORMANCE_SAMPLES_PER_SEC: Final = "performance/samples_per_sec"

#: Samples of the step divided by the step's wall-clock time and by every GPU of the cluster.
NEMO_RL_PERFORMANCE_SAMPLES_PER_SEC_PER_GPU: Final = "performance/samples_per_sec_per_gpu"

#: Tokens of the training batch, prompts included, divided by the step's wall-clock time.
NEMO_RL_PERFORMANCE_TOKENS_PER_SEC: Final = "performance/tokens_per_sec"

#: Tokens of the training batch, prompts included, divided by the step's wall-clock time and by every GPU
#: of the cluster.
NEMO_RL_PERFORMANCE_TOKENS_PER_SEC_PER_GPU: Final = "performance/tokens_per_sec_per_gpu"

#: Tokens of the training batch divided by the policy-training time and by the training GPUs.
NEMO_RL_PERFORMANCE_POLICY_TRAINING_TOKENS_PER_SEC_PER_GPU: Final = (
    "performance/policy_training_tokens_per_sec_per_gpu"
)

#: Tokens of the training batch divided by the time of the training and reference log-probability passes
#: and by the training GPUs.
NEMO_RL_PERFORMANCE_POLICY_AND_REFERENCE_LOGPROBS_TOKENS_PER_SEC_PER_GPU: Final = (
    "performance/policy_and_reference_logprobs_tokens_per_sec_per_gpu"
)

#: Tokens of the training batch divided by the training plus log-probability time and by the training
#: GPUs.
NEMO_RL_PERFORMANCE_TRAINING_WORKER_GROUP_TOKENS_PER_SEC_PER_GPU: Final = (
    "performance/training_worker_group_tokens_per_sec_per_gpu"
)

#: Tokens of the training batch divided by the training plus log-probability time, for the whole training
#: group.
NEMO_RL_PERFORMANCE_TRAINING_WORKER_GROUP_TOKENS_PER_SEC: Final = (
    "performance/training_worker_group_tokens_per_sec"
)

#: Tokens of the training batch, prompts included, divided by the generation time and by the generation
#: GPUs.
NEMO_RL_PERFORMANCE_GENERATION_TOKENS_PER_SEC_PER_GPU: Final = "performance/generation_tokens_per_sec_per_gpu"

#: Tokens of the training batch, prompts included, divided by the generation time, for the whole
#: generation group.
NEMO_RL_PERFORMANCE_GENERATION_TOKENS_PER_SEC: Final = "performance/generation_tokens_per_sec"

#: One minus the mean ratio of each generation worker's tokens to the busiest worker's, 0 when the load is
#: even.
NEMO_RL_PERFORMANCE_AVERAGE_TOKEN_IMBALANCE: Final = "performance/average_token_imbalance"

#: Floating-point operations of the policy training divided by its time, in TFLOPS per rank.
NEMO_RL_PERFORMANCE_TRAIN_FLOPS_PER_GPU: Final = "performance/train_flops_per_gpu"

#: Achieved training TFLOPS as a fraction of the GPUs' theoretical peak.
NEMO_RL_PERFORMANCE_TRAIN_FP_UTILIZATION: Final = "performance/train_fp_utilization"

#: Mean total reward over every validation rollout; an accuracy only when the rewards are 0 or 1.
NEMO_RL_VALIDATION_ACCURACY: Final = "validation/accuracy"

#: Fraction of validation prompts for which at least one of their k rollouts has a reward above 0; logged
#: only when k > 1.
NEMO_RL_VALIDATION_PASS_K: Final = "validation/pass_k"

#: Unweighted mean over validation batches of each batch's mean generated tokens per sample.
NEMO_RL_VALIDATION_AVG_LENGTH: Final = "validation/avg_length"

#: Half the scaled mean squared error between the value predictions and the returns, clipped PPO-style
#: when cliprange is set; logged by ppo_train only.
NEMO_RL_CRITIC_LOSS: Final = "critic/loss"

#: Fraction of valid tokens whose clipped squared error exceeds the unclipped one, so the value prediction
#: gets no gradient there; 0 without cliprange.
NEMO_RL_CRITIC_VF_CLIPFRAC: Final = "critic/vf_clipfrac"

#: One minus the variance of the returns left unexplained by the value predictions over the variance of
#: the returns, computed by the driver from the logged moments.
NEMO_RL_CRITIC_EXPLAINED_VAR: Final = "critic/explained_var"

#: Token-weighted mean of the value targets (returns) over the valid tokens, per global batch, averaged
#: over global batches.
NEMO_RL_CRITIC_RETURNS_MEAN: Final = "critic/returns_mean"

#: Token-weighted mean of the value model's predictions over the valid tokens, per global batch, averaged
#: over global batches.
NEMO_RL_CRITIC_VALUES_MEAN: Final = "critic/values_mean"

#: Token-weighted mean of the squared returns, one of the moments the driver uses for
#: critic/explained_var.
NEMO_RL_CRITIC_RETURNS_SQ_MEAN: Final = "critic/returns_sq_mean"

#: Token-weighted mean of (return − prediction)², the unclipped squared error of the value model.
NEMO_RL_CRITIC_RESIDUAL_SQ_MEAN: Final = "critic/residual_sq_mean"

#: Minimum of the value predictions over the valid tokens of every micro-batch; a micro-batch without
#: valid tokens counts as 0.
NEMO_RL_CRITIC_VALUES_MIN: Final = "critic/values_min"

#: Maximum of the value predictions over the valid tokens of every micro-batch; a micro-batch without
#: valid tokens counts as 0.
NEMO_RL_CRITIC_VALUES_MAX: Final = "critic/values_max"

#: Rows of every micro-batch, masked samples included, divided by the number of global batches and summed.
NEMO_RL_CRITIC_NUM_VALID_SAMPLES: Final = "critic/num_valid_samples"

#: Global L2 norm of the value model's gradient at the last global batch of the step, before clipping.
NEMO_RL_CRITIC_GRAD_NORM: Final = "critic/grad_norm"

#: The value optimizer's learning rate during the step, averaged over micro-batch entries.
NEMO_RL_CRITIC_LR: Final = "critic/lr"

#: Gradient norm of the speculative-decoding draft model trained next to the policy, at the last global
#: batch of the step (Megatron).
NEMO_RL_TRAIN_DRAFT_GRAD_NORM: Final = "train/draft_grad_norm"

#: Soft cross-entropy of the speculative-decoding draft model trained next to the policy, per valid token
#: of each global batch, averaged over the global batches of the step.
NEMO_RL_TRAIN_DRAFT_LOSS: Final = "train/draft_loss"

#: One auxiliary loss of a mixture-of-experts policy's router (e.g. `load_balancing_loss`), averaged over
#: the micro-batches of the step and over the MoE layers (Megatron).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_MOE_AUX_LOSS: Final = "train/moe/{aux_loss}"

#: One layer's value of a router auxiliary loss, scaled by 1 / (micro-batches of the step), logged with
#: `megatron_cfg.moe_per_layer_logging`.
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_MOE_MOE_AUX_LOSS_LAYER_LAYER: Final = "train/moe/moe/{aux_loss}_layer_{layer}"

#: Loss of the multi-token-prediction (MTP) head numbered from 1, averaged over the micro-batches of the
#: step (Megatron).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_MTP_MTP_LAYER_LOSS: Final = "train/mtp/mtp_{layer}_loss"

#: Percentage of the positions where the MTP head numbered from 1 predicted the right token, over the step
#: (Megatron).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_MTP_MTP_LAYER_ACCEPTANCE_RATE: Final = "train/mtp/mtp_{layer}_acceptance_rate"

#: Norm of the gradient of the multi-token-prediction heads when they are trained detached from the policy
#: (`mtp_detach_heads`), at the last optimizer step.
NEMO_RL_TRAIN_MTP_GRAD_NORM: Final = "train/mtp/grad_norm"

#: Number of trajectory groups in async GRPO's replay buffer when the step's batch was sampled.
NEMO_RL_TRAIN_BUFFER_SIZE: Final = "train/buffer_size"

#: Current weight version minus the mean weight version that generated the trajectories of the step, in
#: steps.
NEMO_RL_TRAIN_AVG_TRAJECTORY_AGE: Final = "train/avg_trajectory_age"

#: Seconds from the start of a trajectory group's generation until it entered the replay buffer, averaged
#: over the groups the step trained on.
NEMO_RL_TRAIN_TRAJECTORY_DURATION_S: Final = "train/trajectory_duration_s"

#: `max`: the longest collection time of the step's trajectory groups; `p95`: the sorted value at index
#: min(floor(0.95·n), n − 1).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_TRAJECTORY_DURATION_S_STAT: Final = "train/trajectory_duration_s/{stat}"

#: Seconds the trainer waited for trajectories in the step, i.e. the part of generation not hidden behind
#: training.
NEMO_RL_TIMING_TRAIN_EXPOSED_GENERATION: Final = "timing/train/exposed_generation"

#: Seconds the trainer waited because the replay buffer held too few trajectories for the step.
NEMO_RL_TIMING_TRAIN_IDLE_BUFFER_STARVATION: Final = "timing/train/idle/buffer_starvation"

#: Seconds spent pushing the updated policy weights to the generation workers in async GRPO.
NEMO_RL_TIMING_TRAIN_WEIGHT_SYNC: Final = "timing/train/weight_sync"

#: Seconds the workers sat idle while generation paused for a weight refit in async GRPO.
NEMO_RL_TIMING_TRAIN_IDLE_REFIT_BUBBLE: Final = "timing/train/idle/refit_bubble"

#: Share of the training workers' time spent idle waiting for generation in non-colocated async GRPO;
#: forced to 0 when more than 0.1 s of generation is exposed.
NEMO_RL_PERFORMANCE_TRAINING_WORKER_IDLE_TIME_RATIO: Final = "performance/training_worker_idle_time_ratio"

#: Seconds the PPO step spent running the value model on the rollouts before the update.
NEMO_RL_TIMING_TRAIN_VALUE_INFERENCE: Final = "timing/train/value_inference"

#: Seconds the PPO step spent training the value model, summed over the PPO epochs.
NEMO_RL_TIMING_TRAIN_VALUE_TRAINING: Final = "timing/train/value_training"

#: Seconds the PPO step spent moving the value model and its optimizer state back to the GPUs before each
#: of its training passes, summed over the PPO epochs.
NEMO_RL_TIMING_TRAIN_VALUE_TRAINING_PREP: Final = "timing/train/value_training_prep"

#: Seconds the value model's train call spent in one phase, `sharding_data` (splitting the batch over the
#: data-parallel workers) or `submit_training_futures` (starting the workers), summed over the PPO epochs.
#: Templated: fill the placeholders with str.format().
NEMO_RL_TIMING_TRAIN_VALUE_TRAINING_PHASE: Final = "timing/train/value_training/{phase}"

#: Seconds the PPO step spent moving the policy to CPU memory after sending its weights to a non-colocated
#: inference engine, so the value model can use the training GPUs.
NEMO_RL_TIMING_TRAIN_POLICY_OFFLOAD_AFTER_REFIT: Final = "timing/train/policy_offload_after_refit"

#: Seconds spent setting up one component before training (e.g. vllm_init_time_s, policy_init_time_s,
#: total_setup_time_s), logged once at step 0.
#: Templated: fill the placeholders with str.format().
NEMO_RL_TIMING_SETUP_NAME: Final = "timing/setup/{name}"

#: Accepted draft tokens divided by proposed draft tokens during the step's generation (vLLM counters), 0
#: when nothing was proposed.
NEMO_RL_TRAIN_VLLM_SPEC_ACCEPTANCE_RATE: Final = "train/vllm/spec_acceptance_rate"

#: One plus the accepted draft tokens per draft, i.e. the mean number of tokens each verification step
#: produced (1 when nothing was drafted).
NEMO_RL_TRAIN_VLLM_SPEC_ACCEPTANCE_LENGTH: Final = "train/vllm/spec_acceptance_length"

#: Number of speculative-decoding draft proposals vLLM made during the step's generation.
NEMO_RL_TRAIN_VLLM_SPEC_NUM_DRAFTS: Final = "train/vllm/spec_num_drafts"

#: Number of tokens the draft model proposed during the step's generation.
NEMO_RL_TRAIN_VLLM_SPEC_NUM_DRAFT_TOKENS: Final = "train/vllm/spec_num_draft_tokens"

#: Number of draft tokens the policy accepted during the step's generation.
NEMO_RL_TRAIN_VLLM_SPEC_NUM_ACCEPTED_TOKENS: Final = "train/vllm/spec_num_accepted_tokens"

#: Accepted tokens at draft position {position} divided by the number of drafts in the step's generation.
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_VLLM_SPEC_ACCEPTANCE_RATE_POS_POSITION: Final = "train/vllm/spec_acceptance_rate-pos-{position}"

#: Change during the step's generation of vLLM's per-position count of accepted draft tokens, summed over
#: the vLLM workers; `position` is the draft position, counted from 1.
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_VLLM_COUNTER_PER_POS_POSITION: Final = "train/vllm/{counter}_per_pos-{position}"

#: Mean, extremes, median or standard deviation of the reward each NeMo-Gym agent returned, over the
#: samples of the generation batch.
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_TOTAL_REWARD_STAT: Final = "train/total_reward/{stat}"

#: Statistics over the generation batch of the assistant tokens of each sample, all turns included (NeMo-
#: Gym path).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_GEN_TOKENS_PER_SAMPLE_STAT: Final = "train/gen_tokens_per_sample/{stat}"

#: Statistics over the generation batch of the tokens of every message of each sample, prompt included
#: (NeMo-Gym path).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_TOTAL_TOKENS_PER_SAMPLE_STAT: Final = "train/total_tokens_per_sample/{stat}"

#: Statistics over the generation batch of the number of user messages of each sample, the NeMo-Gym path's
#: turn count.
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_TURNS_PER_SAMPLE_STAT: Final = "train/turns_per_sample/{stat}"

#: Statistics over the generation batch of each sample's longest assistant message in tokens (NeMo-Gym
#: path).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_MAX_GEN_TOKENS_PER_TURN_STAT: Final = "train/max_gen_tokens_per_turn/{stat}"

#: Seconds spent in one phase of a NeMo-Gym rollout (total, run_rollouts, prepare_for_metrics_calculation,
#: aggregate_metrics, per_agent_misc_metrics).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_TIMING_ROLLOUT_NAME: Final = "train/timing/rollout/{name}"

#: Seconds the driver spent in one phase of dispatching the policy update (sharding_data,
#: submit_training_futures).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TIMING_TRAIN_POLICY_TRAINING_PHASE: Final = "timing/train/policy_training/{phase}"

#: Seconds the driver spent sharding data and submitting the training framework's log-probability calls
#: (shard_data, submit_logprob_futures).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TIMING_TRAIN_GET_LOGPROBS_PHASE: Final = "timing/train/get_logprobs/{phase}"

#: Seconds the driver spent sharding data and submitting the reference policy's log-probability calls
#: (shard_data, submit_reference_policy_logprob_futures).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TIMING_TRAIN_GET_REFERENCE_POLICY_LOGPROBS_PHASE: Final = (
    "timing/train/get_reference_policy_logprobs/{phase}"
)

#: Seconds spent recomputing the FP8 KV-cache scales of the inference engine after a weight update.
NEMO_RL_TIMING_TRAIN_RECOMPUTE_KV_SCALES: Final = "timing/train/recompute_kv_scales"

#: Seconds async GRPO spent applying overlong filtering to the sampled trajectories.
NEMO_RL_TIMING_TRAIN_OVERLONG_FILTER: Final = "timing/train/overlong_filter"

#: Seconds async GRPO spent applying the environments' mask_sample flags to the sampled trajectories.
NEMO_RL_TIMING_TRAIN_MASK_SAMPLE_FILTER: Final = "timing/train/mask_sample_filter"

#: Seconds spent offloading the training workers' state before pushing new weights to generation in async
#: GRPO.
NEMO_RL_TIMING_TRAIN_OFFLOAD_BEFORE_REFIT: Final = "timing/train/offload_before_refit"

#: Seconds the async GRPO trainer sat idle while a validation pass ran.
NEMO_RL_TIMING_TRAIN_IDLE_VALIDATION: Final = "timing/train/idle/validation"

#: Seconds async GRPO spent starting its generation and replay-buffer machinery, logged with the first
#: step.
NEMO_RL_TIMING_TRAIN_INIT_TOTAL: Final = "timing/train/init/total"

#: Seconds or percentages of the thread-time accounting of async GRPO (e.g. efficiency_pct, total_waste_s,
#: productive_time_s), logged without a prefix.
#: Templated: fill the placeholders with str.format().
NEMO_RL_EFFICIENCY_NAME: Final = "efficiency/{name}"

#: A nested dictionary from vLLM's logger (metric name, then worker, then a list of values such as
#: inflight_batch_sizes and num_pending_samples), possibly empty.
NEMO_RL_TRAIN_GENERATION_LOGGER_METRICS: Final = "train/generation_logger_metrics"

#: The list of token counts of every turn of every sample in the step's rollouts: `gen_tokens_length`
#: (tokens generated), `input_tokens_length` (tokens fed to the engine) or `total_tokens_length` (both).
#: Templated: fill the placeholders with str.format().
NEMO_RL_TRAIN_HISTOGRAM_NAME: Final = "train/histogram/{name}"

#: Invalid tool calls divided by the generated assistant messages of the batch, counted when
#: invalid_tool_call_advantage is set.
NEMO_RL_TRAIN_INVALID_TOOL_CALL_RATE: Final = "train/invalid_tool_call_rate"

#: Messages with malformed thinking tags divided by the generated assistant messages of the batch, counted
#: when malformed_thinking_advantage is set.
NEMO_RL_TRAIN_MALFORMED_THINKING_RATE: Final = "train/malformed_thinking_rate"

#: Number of generated assistant messages of the batch penalized for an invalid tool call.
NEMO_RL_TRAIN_NUM_INVALID_TOOL_CALLS: Final = "train/num_invalid_tool_calls"

#: Number of generated assistant messages of the batch penalized for malformed thinking tags.
NEMO_RL_TRAIN_NUM_MALFORMED_THINKING: Final = "train/num_malformed_thinking"

#: Number of generated assistant messages in the step's training batch, the denominator of the penalty
#: rates.
NEMO_RL_TRAIN_NUM_ASSISTANT_MESSAGES: Final = "train/num_assistant_messages"

#: Fraction of the NeMo-Gym rollouts whose final answer repeats the text of the reasoning item before it
#: word for word, which sets their reward to 0.
NEMO_RL_TRAIN_REASONING_EQUAL_TO_FINAL_ANSWER_RATE: Final = "train/reasoning_equal_to_final_answer_rate"

#: Fraction of the NeMo-Gym rollouts with no final message or an empty one (not counting a rollout that
#: ends in a tool call), whose reward is then set to 0.
NEMO_RL_TRAIN_EMPTY_FINAL_ANSWER_RATE: Final = "train/empty_final_answer_rate"

#: Fraction of the NeMo-Gym rollouts that generated one of the configured unwanted token ids anywhere in
#: an assistant turn, whose reward is then set to 0.
NEMO_RL_TRAIN_UNWANTED_TOKEN_RATE: Final = "train/unwanted_token_rate"

#: Fraction of the NeMo-Gym rollouts with malformed think tags (an opening tag generated, or a number of
#: closing tags other than the prompt's thinking mode expects, by token id or spelled out), whose reward
#: is then set to 0.
NEMO_RL_TRAIN_MALFORMED_THINK_TAG_RATE: Final = "train/malformed_think_tag_rate"

#: Mean over the NeMo-Gym samples whose prompt asks for low effort of the length term that scales or
#: penalizes their reward; near 1 for short answers, negative past the length bound.
NEMO_RL_TRAIN_MEAN_LENGTH_REWARD_LOW: Final = "train/mean_length_reward_low"

#: Mean over the NeMo-Gym samples whose prompt asks for low effort of their reward after the length
#: shaping.
NEMO_RL_TRAIN_MEAN_REWARD_LOW: Final = "train/mean_reward_low"

#: Mean over the NeMo-Gym samples whose prompt asks for low effort of the tokens of the rollout's last
#: message, the length the effort shaping acts on.
NEMO_RL_TRAIN_MEAN_LENGTH_LOW: Final = "train/mean_length_low"

#: Median over the NeMo-Gym samples whose prompt asks for low effort of the tokens of the rollout's last
#: message.
NEMO_RL_TRAIN_MEDIAN_LENGTH_LOW: Final = "train/median_length_low"

#: Mean over the NeMo-Gym samples whose prompt does not ask for low effort of the tokens of the rollout's
#: last message.
NEMO_RL_TRAIN_MEAN_LENGTH_HIGH: Final = "train/mean_length_high"

#: Median over the NeMo-Gym samples whose prompt does not ask for low effort of the tokens of the
#: rollout's last message.
NEMO_RL_TRAIN_MEDIAN_LENGTH_HIGH: Final = "train/median_length_high"

#: The value model's per-global-batch count of valid tokens, averaged over micro-batch entries; not the
#: step's total.
NEMO_RL_CRITIC_GLOBAL_VALID_TOKS: Final = "critic/global_valid_toks"

#: The value model's per-global-batch count of unmasked samples, averaged over micro-batch entries; not
#: the step's total.
NEMO_RL_CRITIC_GLOBAL_VALID_SEQS: Final = "critic/global_valid_seqs"

#: The value model's weight decay during the step, averaged over micro-batch entries; Megatron backend
#: only.
NEMO_RL_CRITIC_WD: Final = "critic/wd"

#: Mean of the per-group mean total rewards of the trajectory groups trained on in this async GRPO step.
NEMO_RL_TRAIN_MEAN_TOTAL_REWARD: Final = "train/mean_total_reward"

#: Largest total reward of any rollout of the trajectory groups trained on in this async GRPO step.
NEMO_RL_TRAIN_MAX_TOTAL_REWARD: Final = "train/max_total_reward"

#: Smallest total reward of any rollout of the trajectory groups trained on in this async GRPO step.
NEMO_RL_TRAIN_MIN_TOTAL_REWARD: Final = "train/min_total_reward"

#: A W&B histogram of the whole (samples × positions) advantage tensor, each sample's advantage repeated
#: over the padded length.
NEMO_RL_TRAIN_ADVANTAGES_HISTOGRAM: Final = "train/advantages/histogram"

#: A W&B histogram of the GRPO baseline of every training sample (leave-one-out by default).
NEMO_RL_TRAIN_BASELINE_REWARD_HISTOGRAM: Final = "train/baseline_reward/histogram"


# openrlhf: PPOTrainer (Ray), OpenRLHF 0.7.0 and later

#: The PPO (or GSPO) clipped surrogate loss of the actor, averaged over every micro-batch the global step
#: trained on.
OPENRLHF_POLICY_LOSS: Final = "policy_loss"

#: Share of action tokens on which the clipped surrogate term is the binding one, over every micro-batch
#: of the global step.
OPENRLHF_PPO_CLIP_RATIO: Final = "ppo_clip_ratio"

#: The k1 estimate of KL(π_old ‖ π_θ) on the action tokens, how far the update has moved the policy from
#: the one that made the experience.
OPENRLHF_PPO_KL: Final = "ppo_kl"

#: The k1 estimate of KL(π_vLLM ‖ π_old) on the action tokens, the mismatch between the generation engine
#: and the trainer.
OPENRLHF_VLLM_KL: Final = "vllm_kl"

#: An estimate of KL(π_θ ‖ π_ref) on the action tokens, from the reward shaping (default) or from the KL
#: loss term, depending on the KL mode.
OPENRLHF_KL: Final = "kl"

#: Mean of log π_θ − log π_ref over the action tokens (the k1 estimate without the clamp), reduced like
#: `kl` in the same KL mode.
OPENRLHF_LOGPROBS_DIFF: Final = "logprobs_diff"

#: Mean entropy in nats of the actor's next-token distribution on the action tokens, logged under a loss
#: name but positive.
OPENRLHF_ENTROPY_LOSS: Final = "entropy_loss"

#: The actor scheduler's learning rate after the last micro-batch of the global step.
OPENRLHF_ACTOR_LR: Final = "actor_lr"

#: DeepSpeed's global gradient norm of the actor, before clipping, at the last optimizer step of the
#: global step.
OPENRLHF_ACTOR_GRAD_NORM: Final = "actor_grad_norm"

#: Mean over the trained samples of the raw reward from the reward model, reward function or agent, with
#: the length penalties but without KL, baseline or clipping.
OPENRLHF_REWARD: Final = "reward"

#: Mean over the trained samples of the score the reward function or agent returns next to the reward, the
#: value dynamic filtering looks at.
OPENRLHF_SCORE: Final = "score"

#: Mean over the trained samples of the summed shaped token rewards, i.e. the baseline-adjusted, clipped
#: reward minus β times the summed KL.
OPENRLHF_RETURN: Final = "return"

#: Mean over the trained samples of the Bessel-corrected standard deviation of the rewards of the sample's
#: prompt group.
OPENRLHF_GROUP_REWARD_STD: Final = "group_reward_std"

#: Mean over the trained samples of the number of positions from the first to the last action token of
#: each response.
OPENRLHF_RESPONSE_LENGTH: Final = "response_length"

#: Mean over the trained samples of the prompt plus response tokens (and environment tokens) after
#: truncation to `data.max_len`.
OPENRLHF_TOTAL_LENGTH: Final = "total_length"

#: Share of the trained samples that vLLM stopped because they reached the maximum number of new tokens.
OPENRLHF_TRUNCATED: Final = "truncated"

#: Share of the trained samples whose total length reached `data.max_len`, the context cap.
OPENRLHF_RESPONSE_CLIP_RATIO: Final = "response_clip_ratio"

#: Exact mean reward over all samples the step generated, computed on the controller before training.
OPENRLHF_ROLLOUT_REWARD_MEAN: Final = "rollout/reward_mean"

#: Bessel-corrected standard deviation of the rewards over all samples the step generated, not per prompt
#: group.
OPENRLHF_ROLLOUT_REWARD_STD: Final = "rollout/reward_std"

#: Exact mean over all samples the step generated of the response span, computed before training.
OPENRLHF_ROLLOUT_RESPONSE_LENGTH_MEAN: Final = "rollout/response_length_mean"

#: Share of all samples the step generated that vLLM stopped at the maximum number of new tokens, computed
#: before training.
OPENRLHF_ROLLOUT_TRUNCATED_RATE: Final = "rollout/truncated_rate"

#: Number of samples with a reward that the global step generated and trained on.
OPENRLHF_ROLLOUT_NUM_SAMPLES: Final = "rollout/num_samples"

#: Accepted samples divided by the prompts consumed in the generation call, times 100, with dynamic
#: filtering on.
OPENRLHF_DYNAMIC_FILTERING_PASS_RATE: Final = "dynamic_filtering_pass_rate"

#: Clipped squared error of the critic against the GAE returns, a plain mean over ranks and then over
#: every micro-batch of the global step.
OPENRLHF_CRITIC_LOSS: Final = "critic_loss"

#: The critic's mean value prediction on the action tokens during training, a mean of micro-batch means.
OPENRLHF_VALUES: Final = "values"

#: The critic scheduler's learning rate, averaged over every micro-batch of the global step.
OPENRLHF_CRITIC_LR: Final = "critic_lr"

#: DeepSpeed's global gradient norm of the critic before clipping, averaged over every micro-batch of the
#: global step, stale values included.
OPENRLHF_CRITIC_GRAD_NORM: Final = "critic_grad_norm"

#: Wall-clock seconds of the global step spent scoring the samples and computing log-probabilities, values
#: and advantages.
OPENRLHF_TIMING_MAKE_EXPERIENCE: Final = "timing/make_experience"

#: Wall-clock seconds of the global step spent training the actor and the critic on the replay buffer.
OPENRLHF_TIMING_PPO_TRAIN: Final = "timing/ppo_train"

#: Wall-clock seconds of the global step spent sending the updated actor weights to the vLLM engines.
OPENRLHF_TIMING_BROADCAST: Final = "timing/broadcast"

#: Wall-clock seconds of the global step spent sampling responses with vLLM, refills for dynamic filtering
#: included.
OPENRLHF_TIMING_GENERATION: Final = "timing/generation"

#: Wall-clock seconds of the global step, the sum of its phases (synchronous) or the time since the
#: previous step (asynchronous).
OPENRLHF_TIMING_STEP_TOTAL: Final = "timing/step_total"

#: The first decoded sequence of each logged step with its reward, as a growing W&B table or TensorBoard
#: text.
OPENRLHF_GENERATED_SAMPLES: Final = "generated_samples"

#: The number of the global step being logged, counted from 1, which the W&B logger adds to every logged
#: training step and declares as the step axis of the `train/*` keys.
OPENRLHF_TRAIN_GLOBAL_STEP: Final = "train/global_step"

#: Mean reward (`pass1`) or mean best-of-n reward (`pass<n>`, n = `eval.n_samples_per_prompt`) over the
#: datasource's evaluation prompts.
#: Templated: fill the placeholders with str.format().
OPENRLHF_EVAL_DATASOURCE_PASS_K: Final = "eval_{datasource}_pass{k}"

#: Mean response span over the datasource's evaluation samples.
#: Templated: fill the placeholders with str.format().
OPENRLHF_EVAL_DATASOURCE_RESPONSE_LENGTH_MEAN: Final = "eval_{datasource}_response_length_mean"

#: Mean response span over all evaluation samples of every datasource.
OPENRLHF_EVAL_RESPONSE_LENGTH_MEAN: Final = "eval_response_length_mean"

#: Share of the datasource's evaluation samples that vLLM stopped at the maximum number of new tokens.
#: Templated: fill the placeholders with str.format().
OPENRLHF_EVAL_DATASOURCE_TRUNCATED_RATE: Final = "eval_{datasource}_truncated_rate"

#: Share of all evaluation samples that vLLM stopped at the maximum number of new tokens.
OPENRLHF_EVAL_TRUNCATED_RATE: Final = "eval_truncated_rate"

#: Number of evaluation samples generated, the evaluation prompts times `eval.n_samples_per_prompt`.
OPENRLHF_EVAL_NUM_SAMPLES: Final = "eval_num_samples"

#: The global step after which the evaluation ran, added by the W&B logger to every logged evaluation.
OPENRLHF_EVAL_GLOBAL_STEP: Final = "eval/global_step"


# ppo: PPOTrainer, TRL 0.9.2 up to (not including) 1.13.0

#: Average number of prompts (episodes) processed per second since training began, truncated to an
#: integer.
PPO_EPS: Final = "eps"

#: Mean over the rollout batch of the per-completion sum of token-level KL estimates between the sampling
#: policy and the frozen reference model.
PPO_OBJECTIVE_KL: Final = "objective/kl"

#: Mean over the rollout batch of the summed negative log-probabilities of the sampled completion tokens,
#: a Monte-Carlo estimate of the entropy of a whole completion.
PPO_OBJECTIVE_ENTROPY: Final = "objective/entropy"

#: Mean over the rollout batch of the per-completion sum of the KL penalty, minus `kl_coef` times the
#: token KL estimate, which is negative whenever the policy has moved away from the reference.
PPO_OBJECTIVE_NON_SCORE_REWARD: Final = "objective/non_score_reward"

#: Mean over the rollout batch of the reward model's score plus the summed KL penalty, i.e. the KL-
#: regularised return that the PPO updates maximise.
PPO_OBJECTIVE_RLHF_REWARD: Final = "objective/rlhf_reward"

#: Mean reward-model score of the sampled completions in the rollout batch, including any penalty for
#: completions without an EOS token.
PPO_OBJECTIVE_SCORES: Final = "objective/scores"

#: Half the mean squared log-ratio (the k2 estimator) between the policy being optimised and the policy
#: that sampled the batch, averaged over every micro-batch of the update.
PPO_POLICY_APPROXKL_AVG: Final = "policy/approxkl_avg"

#: Fraction of completion tokens on which the clipped term of PPO's surrogate loss is the binding one,
#: averaged over every micro-batch of the update.
PPO_POLICY_CLIPFRAC_AVG: Final = "policy/clipfrac_avg"

#: Clipped PPO surrogate loss on the whitened advantages, averaged over every micro-batch of the update.
PPO_LOSS_POLICY_AVG: Final = "loss/policy_avg"

#: Half the clipped squared error of the value model against the GAE returns, averaged over every micro-
#: batch of the update.
PPO_LOSS_VALUE_AVG: Final = "loss/value_avg"

#: Fraction of value predictions whose clipped squared error exceeds the unclipped one, averaged over
#: every micro-batch of the update.
PPO_VAL_CLIPFRAC_AVG: Final = "val/clipfrac_avg"

#: Mean categorical entropy of the policy's temperature-scaled next-token distribution over the response
#: positions, averaged over every micro-batch of the update.
PPO_POLICY_ENTROPY_AVG: Final = "policy/entropy_avg"

#: Mean probability ratio between the policy being optimised and the policy that sampled the batch,
#: averaged over every micro-batch of the update.
PPO_VAL_RATIO: Final = "val/ratio"

#: Sample variance, across micro-batches and processes, of the per-micro-batch mean probability ratio that
#: `val/ratio` averages.
PPO_VAL_RATIO_VAR: Final = "val/ratio_var"

#: Number of tokens equal to the EOS id in the raw sampled completions of the main process's share of the
#: rollout batch.
PPO_VAL_NUM_EOS_TOKENS: Final = "val/num_eos_tokens"

#: Learning rate of the first optimizer parameter group for the current rollout batch, read from the
#: scheduler.
PPO_LR: Final = "lr"

#: Cumulative number of prompts sampled across all processes since training started.
PPO_EPISODE: Final = "episode"

#: Number of passes over the training dataset so far, computed as sampled prompts divided by the dataset
#: size.
PPO_EPOCH: Final = "epoch"

#: Table of completions generated for evaluation prompts with their reward-model scores, logged a few
#: times during training.
PPO_COMPLETIONS: Final = "completions"


# verl: RayPPOTrainer / PPOTrainer (verl), verl 0.1.0 and later

#: The PPO-clip (dual-clip) policy loss of each mini-batch, aggregated with loss_agg_mode and averaged
#: over the mini-batches and epochs of the step.
VERL_ACTOR_PG_LOSS: Final = "actor/pg_loss"

#: Fraction of response tokens on which the clipped PPO term is the binding one, on either side of the
#: trust region, as a mean of micro-batch means.
VERL_ACTOR_PG_CLIPFRAC: Final = "actor/pg_clipfrac"

#: Fraction of response tokens with a negative advantage whose ratio exceeds clip_ratio_c, so that the
#: dual clip caps their loss.
VERL_ACTOR_PG_CLIPFRAC_LOWER: Final = "actor/pg_clipfrac_lower"

#: Mean over response tokens of log pi_old minus log pi_theta, the k1 estimate of KL(pi_old || pi_theta),
#: as a mean of micro-batch means.
VERL_ACTOR_PPO_KL: Final = "actor/ppo_kl"

#: Entropy of pi_old on the step's response tokens, from the log-probability recompute pass before the
#: update, aggregated once over the whole batch with loss_agg_mode.
VERL_ACTOR_ENTROPY: Final = "actor/entropy"

#: Entropy of the current policy pi_theta in the update forward pass, aggregated like the policy loss
#: (exact mini-batch value, then a mean over mini-batches).
VERL_ACTOR_ENTROPY_LOSS: Final = "actor/entropy_loss"

#: The kl_loss_type estimate of KL(pi_theta || pi_ref) on the update's response tokens, aggregated like
#: the policy loss; logged only with use_kl_loss.
VERL_ACTOR_KL_LOSS: Final = "actor/kl_loss"

#: The configured actor.kl_loss_coef, logged with actor/kl_loss.
VERL_ACTOR_KL_COEF: Final = "actor/kl_coef"

#: The loss the actor minimises, pg_loss minus entropy_coeff times entropy_loss plus kl_loss_coef times
#: kl_loss, per mini-batch and averaged over the step.
VERL_ACTOR_LOSS: Final = "actor/loss"

#: Global norm of the actor's gradient at each optimizer step, before clipping, averaged over the mini-
#: batches and epochs of the step.
VERL_ACTOR_GRAD_NORM: Final = "actor/grad_norm"

#: The actor optimizer's learning rate read after the scheduler step of this training step, i.e. the rate
#: the next step will use.
VERL_ACTOR_LR: Final = "actor/lr"

#: The loss of one multi-token-prediction (MTP) layer of a Megatron actor, named after Megatron's tracker
#: (e.g. `mtp_1_loss`), averaged over the mini-batches of the step.
#: Templated: fill the placeholders with str.format().
VERL_ACTOR_MTP_LOSSES_NAME: Final = "actor/mtp_losses/{name}"

#: Mean over sequences of the per-sequence token mean of the in-reward KL estimate between pi_old and the
#: reference model, logged with use_kl_in_reward.
VERL_ACTOR_REWARD_KL_PENALTY: Final = "actor/reward_kl_penalty"

#: The coefficient beta that multiplied the in-reward KL this step, read before the adaptive controller's
#: update.
VERL_ACTOR_REWARD_KL_PENALTY_COEFF: Final = "actor/reward_kl_penalty_coeff"

#: Half the clipped squared error of the critic against the returns, aggregated with loss_agg_mode over
#: each mini-batch and averaged over the mini-batches and epochs of the step.
VERL_CRITIC_VF_LOSS: Final = "critic/vf_loss"

#: Fraction of response tokens where the clipped value loss exceeds the unclipped one, averaged over every
#: micro-batch of every rank, mini-batch and epoch.
VERL_CRITIC_VF_CLIPFRAC: Final = "critic/vf_clipfrac"

#: Mean over response tokens of the critic's outputs in the update forward pass, averaged over every
#: micro-batch of every rank, mini-batch and epoch.
VERL_CRITIC_VPRED_MEAN: Final = "critic/vpred_mean"

#: Global norm of the critic's gradient at each optimizer step, before clipping, averaged over the mini-
#: batches and epochs of the step.
VERL_CRITIC_GRAD_NORM: Final = "critic/grad_norm"

#: The critic optimizer's learning rate, read after this step's scheduler step on the engine workers.
VERL_CRITIC_LR: Final = "critic/lr"

#: Mean over the non-aborted responses of the batch of the reward function's (or reward model's) score,
#: summed over each response's tokens, before any KL penalty.
VERL_CRITIC_SCORE_MEAN: Final = "critic/score/mean"

#: Highest summed score of a non-aborted response of the batch.
VERL_CRITIC_SCORE_MAX: Final = "critic/score/max"

#: Lowest summed score of a non-aborted response of the batch.
VERL_CRITIC_SCORE_MIN: Final = "critic/score/min"

#: Mean over the non-aborted responses of the summed token-level rewards, which are the scores minus beta
#: times the KL when use_kl_in_reward is on and equal to the scores otherwise.
VERL_CRITIC_REWARDS_MEAN: Final = "critic/rewards/mean"

#: Highest summed token-level reward of a non-aborted response of the batch.
VERL_CRITIC_REWARDS_MAX: Final = "critic/rewards/max"

#: Lowest summed token-level reward of a non-aborted response of the batch.
VERL_CRITIC_REWARDS_MIN: Final = "critic/rewards/min"

#: Mean of the advantages over every valid response token of the batch, so long responses weigh more; not
#: 0 for GRPO whenever length correlates with the advantage.
VERL_CRITIC_ADVANTAGES_MEAN: Final = "critic/advantages/mean"

#: Highest advantage over the valid response tokens of the batch.
VERL_CRITIC_ADVANTAGES_MAX: Final = "critic/advantages/max"

#: Lowest advantage over the valid response tokens of the batch.
VERL_CRITIC_ADVANTAGES_MIN: Final = "critic/advantages/min"

#: Mean of the returns over every valid response token of the batch; identical to the advantage mean for
#: GRPO-style estimators.
VERL_CRITIC_RETURNS_MEAN: Final = "critic/returns/mean"

#: Highest return over the valid response tokens of the batch.
VERL_CRITIC_RETURNS_MAX: Final = "critic/returns/max"

#: Lowest return over the valid response tokens of the batch.
VERL_CRITIC_RETURNS_MIN: Final = "critic/returns/min"

#: Mean over every valid response token of the batch of the critic's values computed before this step's
#: update.
VERL_CRITIC_VALUES_MEAN: Final = "critic/values/mean"

#: Highest pre-update critic value over the valid response tokens of the batch.
VERL_CRITIC_VALUES_MAX: Final = "critic/values/max"

#: Lowest pre-update critic value over the valid response tokens of the batch.
VERL_CRITIC_VALUES_MIN: Final = "critic/values/min"

#: One minus the variance of returns minus pre-update values over the variance of the returns, over the
#: valid response tokens of the batch.
VERL_CRITIC_VF_EXPLAINED_VAR: Final = "critic/vf_explained_var"

#: Mean number of response tokens per sample of the train batch, aborted samples (length 0) included.
VERL_RESPONSE_LENGTH_MEAN: Final = "response_length/mean"

#: Number of tokens of the longest response of the train batch.
VERL_RESPONSE_LENGTH_MAX: Final = "response_length/max"

#: Number of tokens of the shortest response of the train batch, 0 when a sample was aborted.
VERL_RESPONSE_LENGTH_MIN: Final = "response_length/min"

#: Fraction of samples whose response length equals the width of the padded response tensor, meant as the
#: truncation rate but measured against the longest response of the batch in the V1 trainer.
VERL_RESPONSE_LENGTH_CLIP_RATIO: Final = "response_length/clip_ratio"

#: Mean number of response tokens over the samples whose response is not empty.
VERL_RESPONSE_LENGTH_NON_ABORTED_MEAN: Final = "response_length_non_aborted/mean"

#: Number of tokens of the longest non-empty response of the train batch.
VERL_RESPONSE_LENGTH_NON_ABORTED_MAX: Final = "response_length_non_aborted/max"

#: Number of tokens of the shortest non-empty response of the train batch.
VERL_RESPONSE_LENGTH_NON_ABORTED_MIN: Final = "response_length_non_aborted/min"

#: Fraction of non-aborted samples whose response length equals the width of the padded response tensor.
VERL_RESPONSE_LENGTH_NON_ABORTED_CLIP_RATIO: Final = "response_length_non_aborted/clip_ratio"

#: Fraction of the samples of the train batch whose response has length 0 (generation aborted).
VERL_RESPONSE_ABORTED_RATIO: Final = "response/aborted_ratio"

#: Mean number of prompt tokens per sample of the train batch.
VERL_PROMPT_LENGTH_MEAN: Final = "prompt_length/mean"

#: Number of tokens of the longest prompt of the train batch.
VERL_PROMPT_LENGTH_MAX: Final = "prompt_length/max"

#: Number of tokens of the shortest prompt of the train batch.
VERL_PROMPT_LENGTH_MIN: Final = "prompt_length/min"

#: Fraction of samples whose prompt length equals the width of the padded prompt tensor.
VERL_PROMPT_LENGTH_CLIP_RATIO: Final = "prompt_length/clip_ratio"

#: The loss the critic minimises (the value loss), summed over micro-batches, averaged over ranks and then
#: over the mini-batches and epochs of the step.
VERL_CRITIC_LOSS: Final = "critic/loss"

#: The 1-based number of the training step being logged, also used as the tracker's step axis.
VERL_TRAINING_GLOBAL_STEP: Final = "training/global_step"

#: The 0-based number of the pass over the training prompts that the step belongs to.
VERL_TRAINING_EPOCH: Final = "training/epoch"

#: Mean over the samples of the batch of the number of chat messages of each rollout (user and assistant
#: turns plus one), logged for agent-loop rollouts.
VERL_NUM_TURNS_MEAN: Final = "num_turns/mean"

#: Largest number of chat messages of a sample of the batch.
VERL_NUM_TURNS_MAX: Final = "num_turns/max"

#: Smallest number of chat messages of a sample of the batch.
VERL_NUM_TURNS_MIN: Final = "num_turns/min"

#: Mean over the samples of the train batch of the number of tool calls each made, when the batch carries
#: a `tool_call_counts` field.
VERL_TOOL_CALL_COUNTS_MEAN: Final = "tool_call_counts/mean"

#: Largest per-sample number of tool calls in the train batch, when the batch carries a `tool_call_counts`
#: field.
VERL_TOOL_CALL_COUNTS_MAX: Final = "tool_call_counts/max"

#: Smallest per-sample number of tool calls in the train batch, when the batch carries a
#: `tool_call_counts` field.
VERL_TOOL_CALL_COUNTS_MIN: Final = "tool_call_counts/min"

#: Smallest per-rank total of prompt and response tokens when the batch is cut into equal contiguous
#: chunks in its original order, before sequence-length balancing.
VERL_GLOBAL_SEQLEN_MIN: Final = "global_seqlen/min"

#: Largest per-rank total of prompt and response tokens for equal contiguous chunks of the batch, before
#: balancing.
VERL_GLOBAL_SEQLEN_MAX: Final = "global_seqlen/max"

#: Difference between the largest and the smallest per-rank token total before balancing.
VERL_GLOBAL_SEQLEN_MINMAX_DIFF: Final = "global_seqlen/minmax_diff"

#: Smallest per-rank total of prompt and response tokens after the sequence-length balancer assigned
#: samples to ranks.
VERL_GLOBAL_SEQLEN_BALANCED_MIN: Final = "global_seqlen/balanced_min"

#: Largest per-rank total of prompt and response tokens after balancing.
VERL_GLOBAL_SEQLEN_BALANCED_MAX: Final = "global_seqlen/balanced_max"

#: Total prompt and response tokens of the batch divided by the number of data-parallel ranks.
VERL_GLOBAL_SEQLEN_MEAN: Final = "global_seqlen/mean"

#: Wall-clock seconds of the whole training step, from waiting for rollouts to the weight update,
#: validation excluded.
VERL_TIMING_S_STEP: Final = "timing_s/step"

#: Wall-clock seconds the step spent obtaining its batch of rollouts; in the V1 trainer the time blocked
#: waiting for the replay buffer, not the generation time itself.
VERL_TIMING_S_GEN: Final = "timing_s/gen"

#: Wall-clock seconds spent in one phase of the training step, summed over the phase's timed sections
#: within the step.
#: Templated: fill the placeholders with str.format().
VERL_TIMING_S_STAGE: Final = "timing_s/{stage}"

#: Statistics over the rollout requests of the step of the agent loop's per-request timings, and the
#: timings of the slowest request.
#: Templated: fill the placeholders with str.format().
VERL_TIMING_S_AGENT_LOOP_PHASE_STAT: Final = "timing_s/agent_loop/{phase}/{stat}"

#: A phase's seconds times 1000 divided by its tokens, response tokens for gen and prompt plus response
#: tokens for ref, values, adv, update_critic and update_actor.
#: Templated: fill the placeholders with str.format().
VERL_TIMING_PER_TOKEN_MS_STAGE: Final = "timing_per_token_ms/{stage}"

#: Total prompt and response tokens of the samples of the step's batch.
VERL_PERF_TOTAL_NUM_TOKENS: Final = "perf/total_num_tokens"

#: The step's wall-clock seconds, the same value as timing_s/step.
VERL_PERF_TIME_PER_STEP: Final = "perf/time_per_step"

#: Prompt and response tokens of the step divided by the step's seconds and by the number of GPUs of the
#: trainer.
VERL_PERF_THROUGHPUT: Final = "perf/throughput"

#: Estimated model FLOPs of each update mini-batch divided by its time, the GPUs' promised peak FLOPs and
#: the world size, averaged over mini-batches.
#: Templated: fill the placeholders with str.format().
VERL_PERF_MFU_ROLE: Final = "perf/mfu/{role}"

#: Peak memory allocated by torch on the reporting rank of the actor or critic worker, in GiB, the maximum
#: over the update's mini-batches.
#: Templated: fill the placeholders with str.format().
VERL_ROLE_PERF_MAX_MEMORY_ALLOCATED_GB: Final = "{role}/perf/max_memory_allocated_gb"

#: Peak memory reserved by torch's caching allocator on the reporting rank of the actor or critic worker,
#: in GiB, the maximum over the update's mini-batches.
#: Templated: fill the placeholders with str.format().
VERL_ROLE_PERF_MAX_MEMORY_RESERVED_GB: Final = "{role}/perf/max_memory_reserved_gb"

#: Host memory in use on the node of the reporting actor or critic rank, in GiB, averaged over the
#: update's mini-batches.
#: Templated: fill the placeholders with str.format().
VERL_ROLE_PERF_CPU_MEMORY_USED_GB: Final = "{role}/perf/cpu_memory_used_gb"

#: For one data source, the mean@N of the core variable (acc if the reward function returns it, else
#: reward), the mean of each prompt's N validation responses averaged over prompts.
#: Templated: fill the placeholders with str.format().
VERL_VAL_CORE_DATA_SOURCE_VARIABLE_STAT_AT_N: Final = "val-core/{data_source}/{variable}/{stat_at_n}"

#: Bootstrap estimate, over resamples of N responses per prompt, of the best (best@N) or majority-vote
#: (maj@N) value of the core variable, averaged over prompts; part is mean or std.
#: Templated: fill the placeholders with str.format().
VERL_VAL_CORE_DATA_SOURCE_VARIABLE_VOTE_AT_N_PART: Final = (
    "val-core/{data_source}/{variable}/{vote_at_n}/{part}"
)

#: The validation statistics that are not core, with one part after the variable, such as std@N or the
#: mean@N of a non-core variable, averaged over prompts.
#: Templated: fill the placeholders with str.format().
VERL_VAL_AUX_DATA_SOURCE_VARIABLE_STAT_AT_N: Final = "val-aux/{data_source}/{variable}/{stat_at_n}"

#: Bootstrap best@n, worst@n and maj@n statistics for n = 2, 4, 8 and so on below N, worst@N, and those of
#: non-core variables, averaged over prompts.
#: Templated: fill the placeholders with str.format().
VERL_VAL_AUX_DATA_SOURCE_VARIABLE_VOTE_AT_N_PART: Final = (
    "val-aux/{data_source}/{variable}/{vote_at_n}/{part}"
)

#: Minimum, maximum or mean over the validation samples of the number of chat messages of each multi-turn
#: rollout.
#: Templated: fill the placeholders with str.format().
VERL_VAL_AUX_NUM_TURNS_STAT: Final = "val-aux/num_turns/{stat}"

#: Mean over valid response tokens of log pi_rollout minus log pi_old, the k1 estimate of KL(pi_rollout ||
#: pi_old) between the inference engine and the trainer's recompute.
VERL_ROLLOUT_CORR_KL: Final = "rollout_corr/kl"

#: Mean over valid response tokens of rho minus log rho minus 1 with rho = pi_old / pi_rollout, the non-
#: negative k3 estimate of KL(pi_rollout || pi_old).
VERL_ROLLOUT_CORR_K3_KL: Final = "rollout_corr/k3_kl"

#: Mean over sequences of each response's perplexity, exp of minus its token-mean log-probability, under
#: the trainer.
VERL_ROLLOUT_CORR_TRAINING_PPL: Final = "rollout_corr/training_ppl"

#: Mean over sequences of each response's perplexity, exp of minus its token-mean log-probability, under
#: the rollout engine.
VERL_ROLLOUT_CORR_ROLLOUT_PPL: Final = "rollout_corr/rollout_ppl"

#: Mean over sequences of minus each response's token-mean log-probability under the trainer.
VERL_ROLLOUT_CORR_TRAINING_LOG_PPL: Final = "rollout_corr/training_log_ppl"

#: Mean over sequences of minus each response's token-mean log-probability under the rollout engine.
VERL_ROLLOUT_CORR_ROLLOUT_LOG_PPL: Final = "rollout_corr/rollout_log_ppl"

#: Mean over sequences of the token-mean log-probability under the rollout engine minus that under the
#: trainer, i.e. training log-PPL minus rollout log-PPL.
VERL_ROLLOUT_CORR_LOG_PPL_DIFF: Final = "rollout_corr/log_ppl_diff"

#: Mean over sequences of the absolute per-sequence log-perplexity difference between trainer and rollout
#: engine.
VERL_ROLLOUT_CORR_LOG_PPL_ABS_DIFF: Final = "rollout_corr/log_ppl_abs_diff"

#: Largest per-sequence log-perplexity difference (trainer minus rollout engine) of the batch.
VERL_ROLLOUT_CORR_LOG_PPL_DIFF_MAX: Final = "rollout_corr/log_ppl_diff_max"

#: Smallest per-sequence log-perplexity difference (trainer minus rollout engine) of the batch.
VERL_ROLLOUT_CORR_LOG_PPL_DIFF_MIN: Final = "rollout_corr/log_ppl_diff_min"

#: Arithmetic mean over sequences of each response's training perplexity divided by its rollout
#: perplexity.
VERL_ROLLOUT_CORR_PPL_RATIO: Final = "rollout_corr/ppl_ratio"

#: Mean over valid tokens of the squared importance ratio pi_old / pi_rollout, minus 1, which is the chi-
#: squared divergence of the trainer from the rollout engine, per token.
VERL_ROLLOUT_CORR_CHI2_TOKEN: Final = "rollout_corr/chi2_token"

#: Mean over all rows of the batch of the squared sequence importance ratio, minus 1.
VERL_ROLLOUT_CORR_CHI2_SEQ: Final = "rollout_corr/chi2_seq"

#: Mean over valid tokens of the truncated (or IcePop-filtered) importance weights pi_old / pi_rollout
#: applied to the loss.
VERL_ROLLOUT_CORR_ROLLOUT_IS_MEAN: Final = "rollout_corr/rollout_is_mean"

#: Largest importance weight of the batch, after truncation in token mode, the untruncated exp of the
#: largest sequence log-ratio in sequence mode.
VERL_ROLLOUT_CORR_ROLLOUT_IS_MAX: Final = "rollout_corr/rollout_is_max"

#: Smallest importance weight of the batch (processed in token mode, untruncated sequence weight in
#: sequence mode).
VERL_ROLLOUT_CORR_ROLLOUT_IS_MIN: Final = "rollout_corr/rollout_is_min"

#: Standard deviation over valid tokens of the importance weights clamped to [0, threshold].
VERL_ROLLOUT_CORR_ROLLOUT_IS_STD: Final = "rollout_corr/rollout_is_std"

#: One over the mean squared normalised importance weight, an effective sample size as a fraction in (0,
#: 1], 1 when all weights are equal.
VERL_ROLLOUT_CORR_ROLLOUT_IS_EFF_SAMPLE_SIZE: Final = "rollout_corr/rollout_is_eff_sample_size"

#: Fraction of valid tokens (token mode) or of sequences (sequence mode) whose raw weight exceeds the
#: upper threshold.
VERL_ROLLOUT_CORR_ROLLOUT_IS_RATIO_FRACTION_HIGH: Final = "rollout_corr/rollout_is_ratio_fraction_high"

#: Fraction of valid tokens (token mode) or of sequences (sequence mode) whose raw weight is below the
#: lower threshold, 1/upper unless IcePop sets one.
VERL_ROLLOUT_CORR_ROLLOUT_IS_RATIO_FRACTION_LOW: Final = "rollout_corr/rollout_is_ratio_fraction_low"

#: Mean over sequences of each sequence's token-mean processed importance weight.
VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MEAN: Final = "rollout_corr/rollout_is_seq_mean"

#: Standard deviation over sequences of the per-sequence mean weights.
VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_STD: Final = "rollout_corr/rollout_is_seq_std"

#: Largest per-sequence mean of the processed importance weights.
VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MAX: Final = "rollout_corr/rollout_is_seq_max"

#: Smallest per-sequence mean of the processed importance weights.
VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MIN: Final = "rollout_corr/rollout_is_seq_min"

#: Largest absolute difference from 1 of the per-sequence mean weights.
VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_MAX_DEVIATION: Final = "rollout_corr/rollout_is_seq_max_deviation"

#: Fraction of sequences whose raw (untruncated) per-sequence mean weight exceeds the upper threshold.
VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_FRACTION_HIGH: Final = "rollout_corr/rollout_is_seq_fraction_high"

#: Fraction of sequences whose raw per-sequence mean weight is below the lower threshold.
VERL_ROLLOUT_CORR_ROLLOUT_IS_SEQ_FRACTION_LOW: Final = "rollout_corr/rollout_is_seq_fraction_low"

#: Fraction of valid tokens whose raw weight lies outside [lower, upper], logged only with an IcePop
#: threshold.
VERL_ROLLOUT_CORR_ROLLOUT_IS_OOB_RATIO: Final = "rollout_corr/rollout_is_oob_ratio"

#: The mean processed weight that the weights are divided by when rollout_is_batch_normalize is on.
VERL_ROLLOUT_CORR_ROLLOUT_IS_BATCH_NORM_FACTOR: Final = "rollout_corr/rollout_is_batch_norm_factor"

#: Largest absolute difference, over valid response tokens, between the probability the trainer and the
#: rollout engine give the sampled token.
VERL_TRAINING_ROLLOUT_PROBS_DIFF_MAX: Final = "training/rollout_probs_diff_max"

#: Mean absolute difference, over valid response tokens, between the probabilities the trainer and the
#: rollout engine give the sampled tokens.
VERL_TRAINING_ROLLOUT_PROBS_DIFF_MEAN: Final = "training/rollout_probs_diff_mean"

#: Standard deviation over valid response tokens of the absolute probability differences between trainer
#: and rollout engine.
VERL_TRAINING_ROLLOUT_PROBS_DIFF_STD: Final = "training/rollout_probs_diff_std"

#: Pearson correlation over valid response tokens between the probabilities the trainer and the rollout
#: engine give the sampled tokens.
VERL_TRAINING_ROLLOUT_ACTOR_PROBS_PEARSON_CORR: Final = "training/rollout_actor_probs_pearson_corr"

#: 1 when the probability-gap statistics were computed, 0 when the response mask was empty.
VERL_TRAINING_ROLLOUT_PROBS_DIFF_VALID: Final = "training/rollout_probs_diff_valid"

#: Minimum, maximum or mean over the trajectories of the batch of how many model versions the newest
#: weights used to generate a trajectory lag behind the weights being trained.
#: Templated: fill the placeholders with str.format().
VERL_TRAINING_OFF_POLICY_TRAJECTORY_STALENESS_STAT: Final = "training/off_policy/trajectory_staleness/{stat}"

#: Minimum, maximum or mean over the trajectories of the batch of how many model versions the oldest
#: weights used to generate a trajectory lag behind the weights being trained.
#: Templated: fill the placeholders with str.format().
VERL_TRAINING_OFF_POLICY_TRAJECTORY_STALENESS_WORST_STAT: Final = (
    "training/off_policy/trajectory_staleness_worst/{stat}"
)

#: Minimum, maximum or mean over the trajectories of the batch of the number of model weight versions used
#: while generating one trajectory.
#: Templated: fill the placeholders with str.format().
VERL_TRAINING_OFF_POLICY_TRAJECTORY_SPANS_STAT: Final = "training/off_policy/trajectory_spans/{stat}"

#: Number of prompt groups the V1 replay buffer dropped this step because they were older than the allowed
#: off-policy lag.
#: Templated: fill the placeholders with str.format().
VERL_PARTITION_OFF_POLICY_EVICTED_SAMPLES: Final = "{partition}/off_policy/evicted_samples"

#: Minimum, maximum or mean over the evicted prompt groups of their age in model versions when the replay
#: buffer dropped them.
#: Templated: fill the placeholders with str.format().
VERL_PARTITION_OFF_POLICY_EVICTED_SAMPLES_STALENESS_STAT: Final = (
    "{partition}/off_policy/evicted_samples_staleness/{stat}"
)

#: Number of prompt groups the DAPO-style group filter dropped this step because their responses gave no
#: learning signal.
#: Templated: fill the placeholders with str.format().
VERL_PARTITION_FILTER_GROUPS_EVICTED_SAMPLES: Final = "{partition}/filter_groups/evicted_samples"

#: Number of prompt groups that passed the group filter but were discarded because the batch was already
#: full.
#: Templated: fill the placeholders with str.format().
VERL_PARTITION_FILTER_GROUPS_DISCARDED_SURPLUS_SAMPLES: Final = (
    "{partition}/filter_groups/discarded_surplus_samples"
)

#: Number of prompt groups the V1 replay buffer dropped this step because their rollout failed.
#: Templated: fill the placeholders with str.format().
VERL_PARTITION_ROLLOUT_FAILURE_EVICTED_SAMPLES: Final = "{partition}/rollout_failure/evicted_samples"

#: The state behind lending idle trainer GPUs to generation in the V1 `separate_async` mode:
#: `threshold_ratio`, `wait_samples` or `idle`.
#: Templated: fill the placeholders with str.format().
VERL_SEPARATE_ASYNC_SWITCH_NAME: Final = "separate_async/switch/{name}"

#: The inputs and outcome of the end-of-step decision to lend the hybrid trainer GPUs to generation (V1
#: `separate_async` mode), e.g. `should_switch_to_rollout` (1 or 0).
#: Templated: fill the placeholders with str.format().
VERL_SEPARATE_ASYNC_DECISION_NAME: Final = "separate_async/decision/{name}"

#: What the `delta_sharded` checkpoint engine sent to the standalone rollout engine at the step's weight
#: sync: `changed_ratio` (share of the weights that changed), `changed_elems`, `payload_mbytes` (MiB on
#: the wire) and `flushes`.
#: Templated: fill the placeholders with str.format().
VERL_CHECKPOINT_ENGINE_NAME: Final = "checkpoint_engine/{name}"

#: Mean over generation requests of accepted draft tokens divided by proposed draft tokens, with MTP
#: speculative decoding in the rollout engine.
VERL_ROLLOUT_SPEC_ACCEPT_RATE: Final = "rollout/spec_accept_rate"

#: Mean over generation requests of one plus the accepted draft tokens per verification step.
VERL_ROLLOUT_SPEC_ACCEPT_LENGTH: Final = "rollout/spec_accept_length"

#: Mean, standard deviation, maximum or minimum over the samples of the train batch of one reward
#: component that GDPO normalizes on its own.
#: Templated: fill the placeholders with str.format().
VERL_GDPO_REWARD_KEY_STAT: Final = "gdpo/{reward_key}/{stat}"

#: Fraction of the valid response tokens that rollout rejection sampling removed from the loss, all
#: rollout_rs options together.
VERL_ROLLOUT_CORR_ROLLOUT_RS_MASKED_FRACTION: Final = "rollout_corr/rollout_rs_masked_fraction"

#: Fraction of the rows of the batch with at least one valid response token removed by rollout rejection
#: sampling.
VERL_ROLLOUT_CORR_ROLLOUT_RS_SEQ_MASKED_FRACTION: Final = "rollout_corr/rollout_rs_seq_masked_fraction"

#: One statistic of the divergence one `rollout_rs` option tests, logged as `rollout_rs_<option>_<stat>`
#: (e.g. `rollout_rs_token_k1_mean`, `rollout_rs_seq_mean_k3_masked_fraction`).
#: Templated: fill the placeholders with str.format().
VERL_ROLLOUT_CORR_ROLLOUT_RS_OPTION_STAT: Final = "rollout_corr/rollout_rs_{option_stat}"

#: How far the most-used expert of an MoE layer is above an even share of the rollout's response tokens,
#: as a multiple of that share minus 1; per layer (`layer_<l>`) or the maximum (`max`) or mean (`avg`)
#: over the layers.
#: Templated: fill the placeholders with str.format().
VERL_ROLLOUT_MOE_MAX_VIO_LAYER_OR_STAT: Final = "rollout/moe/max_vio/{layer_or_stat}"

#: How far the least-used expert of an MoE layer is below an even share of the rollout's response tokens,
#: as a multiple of that share minus 1; per layer (`layer_<l>`) or the maximum (`max`) or mean (`avg`)
#: over the layers.
#: Templated: fill the placeholders with str.format().
VERL_ROLLOUT_MOE_MIN_VIO_LAYER_OR_STAT: Final = "rollout/moe/min_vio/{layer_or_stat}"

#: Mean over the experts of an MoE layer of the absolute deviation of each expert's load from an even
#: share, as a multiple of that share; per layer (`layer_<l>`) or the maximum (`max`) or mean (`avg`) over
#: the layers.
#: Templated: fill the placeholders with str.format().
VERL_ROLLOUT_MOE_AVG_VIO_LAYER_OR_STAT: Final = "rollout/moe/avg_vio/{layer_or_stat}"

#: 1 when the rollout's routing records gave at least one expert choice to count since the last logged
#: value, else 0 (and the `rollout/moe/*_vio/*` keys are missing).
VERL_ROLLOUT_MOE_ROUTED_EXPERTS_FOUND: Final = "rollout/moe/routed_experts_found"

#: Number of top-k expert choices counted for the rollout MoE load-balance keys since the last logged
#: value, summed over the MoE layers.
VERL_ROLLOUT_MOE_ROUTED_EXPERT_ASSIGNMENTS: Final = "rollout/moe/routed_expert_assignments"

#: The square of the step's `actor/grad_norm`, read as the "signal" part of the policy gradient; 0 when no
#: gradient norm was logged.
VERL_VARIANCE_PROXY_PROXY1_SIGNAL_STRENGTH: Final = "variance_proxy/proxy1_signal_strength"

#: Mean over the sequences of the batch of the squared sequence advantage times the sequence's logit-
#: gradient score norm $W$, an estimate of the mean squared norm of the per-sequence policy gradients.
VERL_VARIANCE_PROXY_PROXY2_TOTAL_POWER: Final = "variance_proxy/proxy2_total_power"

#: The total power minus the squared gradient norm, divided by the number of sequences minus one and
#: clamped at 0; 0 when no gradient norm was logged.
VERL_VARIANCE_PROXY_PROXY3_PURE_NOISE: Final = "variance_proxy/proxy3_pure_noise"

#: Mean over the sequences of the batch of the square of each sequence's token-mean advantage, a component
#: of the variance proxies.
VERL_VARIANCE_PROXY_EXPECTED_A_SQUARED: Final = "variance_proxy/expected_a_squared"

#: Mean over the sequences of the batch of $W$, the sum over a sequence's response tokens of $1 - 2\pi_t +
#: \sum_v \pi_t(v)^2$, a component of the variance proxies.
VERL_VARIANCE_PROXY_EXPECTED_W: Final = "variance_proxy/expected_w"

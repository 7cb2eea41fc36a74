"""A seeded GRPO-shaped capture (four micro-batches in two mini-batches, rewards of two functions)."""

from __future__ import annotations

import torch

from metrics_registry.conformance import StepCapture
from metrics_registry.conformance.synthetic import synthetic_capture

SPEC = {
    "seed": 16,
    "micro_batches": 4,
    "batch": 16,
    "width": 12,
    "vocab": 7,
    "drift": 0.4,
    "tensors": ["logprobs", "old_logprobs", "ref_logprobs", "advantages", "mask", "logits"],
    "layout": {"mini_batches": 2, "grad_accum": 2},
    "config": {"epsilon_low": 0.2, "epsilon_high": 0.28, "num_generations": 4, "temperature": 0.7},
    "grads": [20, 6],
}


def grpo_capture(dtype: str = "float32") -> StepCapture:
    capture = synthetic_capture({**SPEC, "dtype": dtype})
    generator = torch.Generator().manual_seed(61)
    capture.step["rewards_per_func"] = torch.rand(16, 2, generator=generator).round(decimals=1)
    capture.step["reward_weights"] = torch.tensor([1.0, 0.5])
    capture.reward_names = ["accuracy", "format"]
    return capture

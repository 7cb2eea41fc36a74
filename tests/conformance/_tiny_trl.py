"""A tiny TRL GRPO trainer built here (2-layer Llama of width 16, word-level tokenizer), nothing downloaded.

The same construction as tests/integrations/test_integrations_transformers.py,
with two reward functions that disagree so that rewards, their spread and the
advantages are not constant, `beta > 0` so that `kl` is logged, and two
iterations per generation with a small `epsilon` so that the clip ratios are
not all 0.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers reads it: nothing may come from the hub

import torch
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

EOS = 3
WORDS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"] + [f"w{i}" for i in range(28)]


def count_w1(completions: list[str], **_kwargs: Any) -> list[float]:
    return [float(text.count("w1")) for text in completions]


def shortness(completions: list[str], **_kwargs: Any) -> list[float]:
    return [1.0 / (1 + len(text.split())) for text in completions]


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    """A word-level tokenizer over WORDS (pad 0, BOS 2, EOS 3)."""
    words = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=words, pad_token="[PAD]", unk_token="[UNK]", bos_token="[BOS]", eos_token="[EOS]"
    )


def tiny_llama_config(**extra: Any) -> LlamaConfig:
    """A 2-layer Llama of width 16 over WORDS; `extra` adds fields (`num_labels=1` for a value head)."""
    return LlamaConfig(
        vocab_size=len(WORDS),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
        pad_token_id=0,
        bos_token_id=2,
        eos_token_id=EOS,
        **extra,
    )


def tiny_grpo(trainer_class: type, tmp_path: Path, max_steps: int = 3, **overrides: Any) -> Any:
    from trl import GRPOConfig

    tokenizer = tiny_tokenizer()
    torch.manual_seed(0)
    config = tiny_llama_config()
    # saved, then loaded by path: with beta > 0 TRL builds the reference model from the same path
    model_dir = tmp_path / "tiny-llama"
    LlamaForCausalLM(config).save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    prompts = Dataset.from_dict({"prompt": [f"w{i} w{i + 1} w{i + 2}" for i in range(16)]})
    settings: dict[str, Any] = {
        "output_dir": str(tmp_path / "grpo"),
        "per_device_train_batch_size": 4,
        "gradient_accumulation_steps": 2,
        "num_generations": 4,
        "max_completion_length": 8,
        "beta": 0.1,
        "num_iterations": 2,
        "epsilon": 0.02,
        "max_grad_norm": 1.0,
        "max_steps": max_steps,
        "logging_steps": 1,
        "learning_rate": 0.05,
        "report_to": "none",
        "use_cpu": True,
        "save_strategy": "no",
        "disable_tqdm": True,
        "seed": 0,
    }
    settings.update(overrides)
    return trainer_class(
        model=str(model_dir),
        reward_funcs=[count_w1, shortness],
        args=GRPOConfig(**settings),
        train_dataset=prompts,
        processing_class=tokenizer,
    )

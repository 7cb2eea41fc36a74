"""Real TRL 1.12 PPO runs on tiny local models, captured: run as a script with TRL 1.12 first on the path.

`python _tiny_trl_ppo.py OUT` trains three tiny PPO runs with the capture
adapter and saves `{run: [{"capture": ..., "logged": ...}]}` to OUT with
`torch.save` (captures as `StepCapture.to_dict`):

* `clean`: 2 PPO epochs × 1 mini-batch × 2 accumulation steps, 2 rollout
  batches; every grid cell is written;
* `diluted`: 2 epochs × 2 mini-batches × 2 accumulation steps, the layout in
  which TRL ≤ 1.12 leaves half the statistics grid at 0;
* `broken`: the `clean` layout on a copy of TRL's `ppo_trainer` module with
  the BREAKS applied (logging only; the training is unchanged).

Policy, reference, value and reward models are 2-layer Llamas of width 16
built here from a config (the value and reward models with a one-output
`score` head, as `AutoModelForSequenceClassification` builds them); nothing
is downloaded. The test environment's TRL is 1.16, which has no PPO trainer:
tests/conformance/test_trl_ppo_adapter.py runs this file in a subprocess with
TRL 1.12's files (`.venv/trl-1.12`) first on PYTHONPATH.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

#: key -> (the line of TRL 1.12's ppo_trainer.py, its broken form, the diagnosis expected)
BREAKS: dict[str, tuple[str, str, str]] = {
    "policy/approxkl_avg": (
        "approxkl = 0.5 * (logprobs_diff**2).mean()",
        "approxkl = ((logprobs_diff.exp() - 1) - logprobs_diff).mean()",  # k3 instead of k2
        "other_estimator",
    ),
    "loss/policy_avg": (
        "pg_loss_stats[ppo_epoch_idx, minibatch_idx, gradient_accumulation_idx] = pg_loss",
        # the mean of per-sequence means (of the non-empty sequences), not the token-weighted mean
        "pg_loss_stats[ppo_epoch_idx, minibatch_idx, gradient_accumulation_idx] = torch.stack("
        "[row[keep].mean() for row, keep in zip(pg_loss_max, ~padding_mask[micro_batch_inds]) if keep.any()]"
        ").mean()",
        "mean_of_sequence_means",
    ),
    "policy/clipfrac_avg": (
        "(pg_losses2 > pg_losses).float(), ~padding_mask[micro_batch_inds]",
        "(((ratio > 1 + args.cliprange) & (mb_advantage < 0)) | ((ratio < 1 - args.cliprange)"
        " & (mb_advantage > 0))).float(), ~padding_mask[micro_batch_inds]",
        "advantage_sign_paired_wrong",
    ),
    "loss/value_avg": (
        "vf_loss_stats[ppo_epoch_idx, minibatch_idx, gradient_accumulation_idx] = vf_loss",
        "vf_loss_stats[ppo_epoch_idx, minibatch_idx, gradient_accumulation_idx] = "
        "vf_loss * args.gradient_accumulation_steps",
        "layout_factor",
    ),
    "objective/non_score_reward": (
        "self.accelerator.gather_for_metrics(mean_non_score_reward)",
        "self.accelerator.gather_for_metrics(-mean_non_score_reward)",
        "sign_flipped",
    ),
}

#: PPOConfig of each run (besides the shared settings of `tiny_ppo`)
RUNS: dict[str, dict[str, Any]] = {
    "clean": {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2, "num_mini_batches": 1},
    "diluted": {
        "per_device_train_batch_size": 2,
        "gradient_accumulation_steps": 2,
        "num_mini_batches": 2,
        "kl_estimator": "k3",
        "total_episodes": 8,
    },
    "broken": {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2, "num_mini_batches": 1},
}


def broken_trainer_class() -> type:
    """TRL's PPOTrainer from a copy of its module with the BREAKS applied (the installed TRL untouched)."""
    import importlib.util
    import inspect
    import types

    from trl.experimental.ppo import ppo_trainer

    source = inspect.getsource(ppo_trainer)
    for key, (line, broken, _) in BREAKS.items():
        if source.count(line) != 1:
            raise AssertionError(f"TRL's logging of {key} changed; update BREAKS")
        source = source.replace(line, broken)
    name = "trl.experimental.ppo._broken_ppo_trainer"
    module = types.ModuleType(name)
    module.__package__ = "trl.experimental.ppo"
    module.__spec__ = importlib.util.spec_from_loader(name, loader=None)
    sys.modules[name] = module
    exec(compile(source, f"<broken copy of {ppo_trainer.__file__}>", "exec"), module.__dict__)
    return module.PPOTrainer


def tiny_ppo(trainer_class: type, out: Path, **overrides: Any) -> Any:
    from _tiny_trl import tiny_llama_config, tiny_tokenizer
    from datasets import Dataset
    from transformers import AutoModelForSequenceClassification, LlamaForCausalLM, set_seed
    from trl.experimental.ppo import PPOConfig

    tokenizer = tiny_tokenizer()
    set_seed(0)  # torch and numpy: the PPO loop shuffles with numpy's global generator
    policy = LlamaForCausalLM(tiny_llama_config())
    reference = LlamaForCausalLM(tiny_llama_config())
    reference.load_state_dict(policy.state_dict())
    heads = tiny_llama_config(id2label={0: "score"})
    value = AutoModelForSequenceClassification.from_config(heads)
    reward = AutoModelForSequenceClassification.from_config(heads)
    prompts = Dataset.from_dict(
        {"input_ids": [tokenizer(f"w{i} w{i + 1} w{i + 2}")["input_ids"] for i in range(16)]}
    )
    settings: dict[str, Any] = {
        "output_dir": str(out),
        "num_ppo_epochs": 2,
        "total_episodes": 16,
        "response_length": 8,
        "stop_token": "eos",
        "missing_eos_penalty": 1.0,
        "cliprange": 0.02,
        "cliprange_value": 0.01,
        "learning_rate": 0.05,
        "num_sample_generations": 0,
        "logging_steps": 1,
        "report_to": "none",
        "use_cpu": True,
        "save_strategy": "no",
        "disable_tqdm": True,
        "seed": 0,
    }
    settings.update(overrides)
    return trainer_class(
        args=PPOConfig(**settings),
        processing_class=tokenizer,
        model=policy,
        ref_model=reference,
        reward_model=reward,
        value_model=value,
        train_dataset=prompts,
    )


def main(out: Path) -> None:
    import torch
    import trl
    from trl.experimental.ppo import PPOTrainer

    from metrics_registry.conformance.trl_ppo_adapter import capturing

    runs: dict[str, Any] = {"trl_version": trl.__version__}
    for name, overrides in RUNS.items():
        trainer_class = broken_trainer_class() if name == "broken" else PPOTrainer
        trainer = tiny_ppo(capturing(trainer_class), out.parent / name, **overrides)
        trainer.train()
        runs[name] = [{"capture": c.to_dict(), "logged": logged} for c, logged in trainer.conformance_steps]
    torch.save(runs, str(out))


if __name__ == "__main__":
    os.environ["HF_HUB_OFFLINE"] = "1"  # nothing may come from the hub
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    main(Path(sys.argv[1]))

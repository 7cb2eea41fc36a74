"""Training logs written the way real trainers write them, with healthy and unhealthy series.

Each scenario is a dict ``{key as the trainer logs it: [value per step]}``
plus the findings ``(rule id, logged key, step)`` the checker must report.
The writers produce the real formats:

- ``trainer_state.json``: the shape of transformers' ``TrainerState.save_to_json``
  (``json.dumps(dataclasses.asdict(state), indent=2, sort_keys=True) + "\\n"``;
  ``log_history`` holds each ``Trainer.log`` dict with ``step`` added, eval
  dicts with ``eval_`` keys, and the final ``train()`` summary). transformers
  is not installed here, so the JSON is written directly, field for field.
- TensorBoard: ``torch.utils.tensorboard.SummaryWriter``, with the key
  rewrite of transformers' ``TensorBoardCallback`` (``rewrite_logs``:
  ``train/<key>``, ``eval/<key>``) and its ``add_text("args", ...)``.
- W&B CSV: the panel export (``Step``, ``<run> - <key>``, ``__MIN``, ``__MAX``).
- W&B JSON lines: ``wandb-history.jsonl`` rows (``_step``, ``_runtime``,
  ``_timestamp``; ``train/global_step`` when transformers' ``WandbCallback`` logged).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

STEPS = range(1, 51)
T0 = 1_700_000_000.0


def wobble(step: int, size: float) -> float:
    """Deterministic noise."""
    return size * math.sin(1.7 * step)


def _series(function: object) -> list[float]:
    return [function(s) for s in STEPS]  # type: ignore[operator]


def _set(values: list[float], step: int, value: float) -> list[float]:
    values = list(values)
    values[step - 1] = value
    return values


# --------------------------------------------------------------------- GRPO


def grpo_healthy() -> dict[str, list[float]]:
    return {
        "kl": _series(lambda s: 0.02 + 0.0002 * s + wobble(s, 0.002)),
        "completions/clipped_ratio": _series(lambda s: 0.1 + wobble(s, 0.02)),
        "clip_ratio/low_mean": _series(lambda s: 0.01 + wobble(s, 0.002)),
        "clip_ratio/high_mean": _series(lambda s: 0.05 + wobble(s, 0.005)),
        "entropy": _series(lambda s: 0.9 - 0.001 * s + wobble(s, 0.01)),
        "frac_reward_zero_std": _series(lambda s: 0.2 + wobble(s, 0.05)),
        "reward_std": _series(lambda s: 0.3 + wobble(s, 0.02)),
        "reward": _series(lambda s: 0.2 + 0.01 * s + wobble(s, 0.02)),
        "rewards/accuracy_reward/mean": _series(lambda s: 0.1 + 0.01 * s + wobble(s, 0.02)),
        "loss": _series(lambda s: 0.01 + wobble(s, 0.001)),
        "grad_norm": _series(lambda s: 1.0 + wobble(s, 0.1)),
        "learning_rate": _series(lambda s: 1e-6),
        "num_tokens": _series(lambda s: 1000.0 * s),
    }


def grpo_unhealthy() -> dict[str, list[float]]:
    series = grpo_healthy()
    series["kl"] = _set(_set(series["kl"], 12, -0.05), 30, 5.0)
    series["completions/clipped_ratio"] = [
        v if s <= 45 else 0.7 for s, v in zip(STEPS, series["completions/clipped_ratio"], strict=True)
    ]
    series["clip_ratio/high_mean"] = [0.05 if s <= 10 else 0.35 for s in STEPS]
    series["entropy"] = _series(lambda s: 1.0 - 0.019 * (s - 1))
    series["frac_reward_zero_std"] = _series(lambda s: 1.0)
    series["reward_std"] = _series(lambda s: 0.0)
    series["reward"] = _series(lambda s: 0.5)
    series["rewards/accuracy_reward/mean"] = _series(lambda s: 0.0)
    series["loss"] = _set(series["loss"], 33, math.nan)
    series["grad_norm"] = _set(series["grad_norm"], 40, 50.0)
    series["completion_length"] = _series(lambda s: 100.0 + s)  # legacy name
    series["my_custom/metric"] = _series(float)  # not in the registry
    return series


GRPO_UNHEALTHY_FINDINGS = {
    ("non-negative", "kl", 12),
    ("not-exploding", "kl", 30),
    ("mostly-terminated", "completions/clipped_ratio", 46),
    ("small", "clip_ratio/high_mean", 11),
    ("no-collapse", "entropy", 1),
    ("enough-signal", "frac_reward_zero_std", 1),
    ("not-all-saturated", "frac_reward_zero_std", 1),
    ("has-signal", "reward_std", 1),
    ("improving", "reward", 1),
    ("not-stuck", "rewards/accuracy_reward/mean", 1),
    ("finite", "loss", 33),
    ("no-spikes", "grad_norm", 40),
}


def write_trainer_state(path: Path, series: dict[str, list[float]], *, eval_every: int = 25) -> Path:
    """``trainer_state.json`` as ``TrainerState.save_to_json`` writes it after ``train()``."""
    history: list[dict[str, object]] = []
    last = max(STEPS)
    for step in STEPS:
        record: dict[str, object] = {key: values[step - 1] for key, values in series.items()}
        record["epoch"] = step / last
        record["step"] = step
        history.append(record)
        if step % eval_every == 0:
            history.append(
                {
                    "epoch": step / last,
                    "eval_loss": 0.02,
                    "eval_reward": 0.4 + step / 1000,
                    "eval_runtime": 12.5,
                    "eval_samples_per_second": 8.0,
                    "eval_steps_per_second": 1.0,
                    "step": step,
                }
            )
    history.append(
        {
            "epoch": 1.0,
            "step": last,
            "total_flos": 0.0,
            "train_loss": 0.011,
            "train_runtime": 600.5,
            "train_samples_per_second": 2.7,
            "train_steps_per_second": 0.083,
        }
    )
    state = {
        "best_global_step": None,
        "best_metric": None,
        "best_model_checkpoint": None,
        "epoch": 1.0,
        "eval_steps": eval_every,
        "global_step": last,
        "is_hyper_param_search": False,
        "is_local_process_zero": True,
        "is_world_process_zero": True,
        "log_history": history,
        "logging_steps": 1,
        "max_steps": last,
        "num_input_tokens_seen": 0,
        "num_train_epochs": 1,
        "save_steps": 500,
        "stateful_callbacks": {
            "TrainerControl": {
                "args": {
                    "should_epoch_stop": False,
                    "should_evaluate": False,
                    "should_log": False,
                    "should_save": True,
                    "should_training_stop": True,
                },
                "attributes": {},
            }
        },
        "total_flos": 0.0,
        "train_batch_size": 8,
        "trial_name": None,
        "trial_params": None,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------- PPO


def ppo_healthy() -> dict[str, list[float]]:
    return {
        "objective/kl": _series(lambda s: 0.5 + wobble(s, 0.05)),
        "objective/entropy": _series(lambda s: 50.0 + wobble(s, 1.0)),
        "objective/non_score_reward": _series(lambda s: -0.05 + wobble(s, 0.005)),
        "objective/rlhf_reward": _series(lambda s: 1.0 + 0.02 * s + wobble(s, 0.01)),
        "objective/scores": _series(lambda s: 1.0 + 0.02 * s + wobble(s, 0.01)),
        "policy/approxkl_avg": _series(lambda s: 0.01 + wobble(s, 0.001)),
        "policy/clipfrac_avg": _series(lambda s: 0.1 + wobble(s, 0.01)),
        "loss/policy_avg": _series(lambda s: -0.01 + wobble(s, 0.002)),
        "loss/value_avg": _series(lambda s: 1.0 + wobble(s, 0.1)),
        "val/clipfrac_avg": _series(lambda s: 0.05 + wobble(s, 0.005)),
        "policy/entropy_avg": _series(lambda s: 2.0 + wobble(s, 0.05)),
        "val/ratio": _series(lambda s: 1.0 + wobble(s, 0.01)),
        "val/ratio_var": _series(lambda s: 0.001 + wobble(s, 0.0001)),
        "val/num_eos_tokens": _series(lambda s: 30.0 + round(wobble(s, 2.0))),
        "lr": _series(lambda s: 3e-6),
        "episode": _series(lambda s: 64.0 * s),
        "eps": _series(lambda s: 4.0),
    }


def ppo_unhealthy() -> dict[str, list[float]]:
    series = ppo_healthy()
    series["objective/kl"] = [
        -0.2 if 5 <= s <= 20 else v for s, v in zip(STEPS, series["objective/kl"], strict=True)
    ]
    series["val/ratio"] = [v if s <= 30 else 1.6 for s, v in zip(STEPS, series["val/ratio"], strict=True)]
    series["loss/value_avg"] = _set(_set(series["loss/value_avg"], 25, math.nan), 40, 100.0)
    series["policy/clipfrac_avg"] = [0.1 if s <= 20 else 0.5 for s in STEPS]
    series["objective/scores"] = _series(lambda s: 2.0 - 0.02 * s + wobble(s, 0.01))
    series["val/num_eos_tokens"] = _series(lambda s: 0.0)
    return series


#: As logged through transformers' TensorBoardCallback: every key gets ``train/``.
PPO_UNHEALTHY_FINDINGS = {
    ("non-negative", "train/objective/kl", 5),
    ("near-one", "train/val/ratio", 31),
    ("finite", "train/loss/value_avg", 25),
    ("no-spikes", "train/loss/value_avg", 40),
    ("not-too-high", "train/policy/clipfrac_avg", 21),
    ("going-up", "train/objective/scores", 1),
    ("some-eos", "train/val/num_eos_tokens", 1),
}


def write_tensorboard(folder: Path, series: dict[str, list[float]]) -> Path:
    """Event files as transformers' TensorBoardCallback writes a Trainer's logs."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(log_dir=str(folder))
    writer.add_text("args", json.dumps({"output_dir": "out", "logging_steps": 1}))
    last = max(STEPS)
    for step in STEPS:
        logs = {key: values[step - 1] for key, values in series.items()}
        logs["epoch"] = step / last
        for key, value in logs.items():  # transformers' rewrite_logs: no eval_ keys here
            writer.add_scalar(f"train/{key}", value, step)
    writer.close()
    return folder


# --------------------------------------------------------------- W&B CSV


def write_wandb_csv(path: Path, runs: dict[str, dict[str, list[float]]]) -> Path:
    """A W&B panel export: ``Step`` then ``<run> - <key>``, ``__MIN``, ``__MAX`` per run and key."""
    header = ["Step"]
    columns: list[tuple[str, str]] = []
    for run, series in runs.items():
        for key in series:
            name = f"{run} - train/{key}"
            header += [name, f"{name}__MIN", f"{name}__MAX"]
            columns.append((run, key))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        writer.writerow(header)
        for step in STEPS:
            row: list[object] = [step]
            for run, key in columns:
                value = runs[run][key][step - 1]
                text = "NaN" if math.isnan(value) else repr(value)
                row += [text, text, text]
            writer.writerow(row)
    return path


CSV_KEYS = ("kl", "completions/clipped_ratio", "frac_reward_zero_std")
CSV_UNHEALTHY_FINDINGS = {
    ("non-negative", "train/kl", 12),
    ("not-exploding", "train/kl", 30),
    ("mostly-terminated", "train/completions/clipped_ratio", 46),
    ("enough-signal", "train/frac_reward_zero_std", 1),
    ("not-all-saturated", "train/frac_reward_zero_std", 1),
}


# ------------------------------------------------------------- W&B JSONL


def legacy_ppo_unhealthy() -> dict[str, list[float]]:
    """TRL 0.7 PPOTrainer, logged straight to W&B through accelerate (no prefixes)."""
    series = {
        "env/reward_mean": _series(lambda s: 0.1 + 0.02 * s + wobble(s, 0.01)),
        "env/reward_std": _series(lambda s: 0.5 + wobble(s, 0.02)),
        "objective/kl": _series(lambda s: 0.3 + wobble(s, 0.02)),
        "objective/kl_coef": _series(lambda s: 0.2 + 0.005 * s),
        "objective/entropy": _series(lambda s: 30.0 + wobble(s, 1.0)),
        "ppo/mean_scores": _series(lambda s: 0.1 + 0.02 * s + wobble(s, 0.01)),
        "ppo/std_scores": _series(lambda s: 0.5 + wobble(s, 0.02)),
        "ppo/loss/value": _series(lambda s: 0.5 + wobble(s, 0.05)),
        "ppo/loss/policy": _series(lambda s: -0.02 + wobble(s, 0.005)),
        "ppo/policy/clipfrac": _series(lambda s: 0.1 + wobble(s, 0.01)),
        "ppo/policy/approxkl": _series(lambda s: 0.01 + wobble(s, 0.001)),
        "ppo/policy/entropy": _series(lambda s: 2.0 + wobble(s, 0.05)),
        "ppo/val/var_explained": _series(lambda s: 0.5 + wobble(s, 0.05)),
    }
    series["ppo/loss/value"] = _set(series["ppo/loss/value"], 20, math.nan)
    series["ppo/policy/clipfrac"] = _set(series["ppo/policy/clipfrac"], 7, 1.2)
    series["ppo/val/var_explained"] = _set(series["ppo/val/var_explained"], 3, 1.5)
    return series


#: W&B's ``_step`` counts log calls from 0: the value of trainer step s is at ``_step`` s - 1.
LEGACY_UNHEALTHY_FINDINGS = {
    ("finite", "ppo/loss/value", 19),
    ("valid-fraction", "ppo/policy/clipfrac", 6),
    ("not-spiking", "ppo/policy/clipfrac", 6),
    ("at-most-one", "ppo/val/var_explained", 2),
    ("stable-coefficient", "objective/kl_coef", 0),
}


def write_wandb_jsonl(path: Path, series: dict[str, list[float]], *, transformers: bool = False) -> Path:
    """``wandb-history.jsonl``: one ``wandb.log`` call per line.

    ``transformers``: logged by transformers' WandbCallback (``train/`` keys,
    ``train/global_step``, ``eval/`` rows every 25 steps).
    """
    lines = []
    counter = 0
    for step in STEPS:
        row: dict[str, object] = {}
        for key, values in series.items():
            value = values[step - 1]
            row[f"train/{key}" if transformers and not key.startswith("train/") else key] = value
        if transformers:
            row["train/epoch"] = step / max(STEPS)
            row["train/global_step"] = step
        else:
            row["env/reward_dist"] = {"_type": "histogram", "values": [1, 2, 1], "bins": [0.0, 0.5, 1.0, 1.5]}
        row.update({"_step": counter, "_runtime": 5.0 * step, "_timestamp": T0 + 5.0 * step})
        lines.append(row)
        counter += 1
        if transformers and step % 25 == 0:
            lines.append(
                {
                    "eval/reward": 0.4,
                    "eval/loss": 0.02,
                    "train/global_step": step,
                    "_step": counter,
                    "_runtime": 5.0 * step + 1,
                    "_timestamp": T0 + 5.0 * step + 1,
                }
            )
            counter += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    # json.dumps writes NaN as NaN, as W&B's history writer does
    path.write_text("".join(json.dumps(row) + "\n" for row in lines), encoding="utf-8")
    return path


def grpo_multiturn_unhealthy() -> dict[str, list[float]]:
    """A GRPO run logged by transformers' WandbCallback, plus the multi-turn trainer's own ``train/`` key."""
    series = {key: grpo_unhealthy()[key] for key in ("kl", "reward")}
    series["reward"] = grpo_healthy()["reward"]
    series["train/groups_kept"] = _series(lambda s: 0.0)
    return series


JSONL_TRANSFORMERS_FINDINGS = {
    ("non-negative", "train/kl", 12),
    ("not-exploding", "train/kl", 30),
    ("not-always-zero", "train/groups_kept", 1),
}

"""HealthCheckCallback in a Trainer: a real tiny TRL GRPO training on CPU (integrations.transformers).

The model (a 2-layer Llama of width 16) and its word-level tokenizer are
built here, nothing is downloaded (``HF_HUB_OFFLINE=1``). The reward
function gives every completion the same reward, so every group of
completions has zero spread: ``frac_reward_zero_std`` is 1 from the first
step, which breaks its ``enough-signal`` range rule (a warning).
"""

from __future__ import annotations

import io
import json
import logging
import math
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers reads it: nothing may come from the hub

import pytest
import torch
from datasets import Dataset
from rich.console import Console
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedTokenizerFast,
    TrainerCallback,
    TrainerControl,
    TrainerState,
    TrainingArguments,
)

from metrics_registry.integrations.transformers import HealthCheckCallback
from metrics_registry.registry import Registry
from metrics_registry.runs.locale import Localizer
from metrics_registry.runs.wording import severity_label

EOS = 3


def console() -> Console:
    return Console(file=io.StringIO(), width=200, color_system=None)


def output(callback: HealthCheckCallback) -> str:
    return callback.console.file.getvalue()  # type: ignore[attr-defined]


def fake_run(tmp_path: Path) -> tuple[TrainingArguments, TrainerState, TrainerControl]:
    args = TrainingArguments(output_dir=str(tmp_path / "out"), report_to="none", use_cpu=True)
    return args, TrainerState(), TrainerControl()


def log(callback: HealthCheckCallback, run: tuple[Any, Any, Any], step: int, logs: dict[str, float]) -> None:
    args, state, control = run
    state.global_step = step
    callback.on_log(args, state, control, logs=logs)


# ------------------------------------------------------- the callback alone


def test_stop_on_error_stops_at_an_error_not_at_a_warning(registry: Registry, tmp_path: Path) -> None:
    callback = HealthCheckCallback(registry=registry, stop_on="error", console=console())
    run = fake_run(tmp_path)
    for step in range(1, 6):
        log(callback, run, step, {"frac_reward_zero_std": 1.0, "loss": 0.1})
    assert not run[2].should_training_stop
    assert "frac_reward_zero_std" in output(callback)
    log(callback, run, 6, {"frac_reward_zero_std": 1.0, "loss": math.nan})
    assert run[2].should_training_stop
    assert callback.stopped_by is not None
    assert (callback.stopped_by.key, callback.stopped_by.rule_id, callback.stopped_by.severity) == (
        "loss",
        "finite",
        "error",
    )
    assert "stopping the training at step 6: loss broke finite" in output(callback)


def test_findings_are_printed_once_in_the_language_asked_for(registry: Registry, tmp_path: Path) -> None:
    callback = HealthCheckCallback(registry=registry, lang="vi", console=console())
    run = fake_run(tmp_path)
    for step in range(1, 11):
        log(callback, run, step, {"frac_reward_zero_std": 1.0})
    text = output(callback)
    warning = severity_label("warning", Localizer("vi")).upper()
    assert warning != "WARNING"
    assert text.count(f"{warning}  frac_reward_zero_std  enough-signal") == 1
    assert "vi/reference/grpo/frac_reward_zero_std/" in text
    assert not run[2].should_training_stop  # stop_on defaults to never


def test_escape_sequences_in_a_logged_key_are_shown_escaped(registry: Registry, tmp_path: Path) -> None:
    callback = HealthCheckCallback(registry=registry, console=console())
    log(callback, fake_run(tmp_path), 1, {"loss\x1b[2J": math.nan})
    assert "\x1b" not in output(callback)
    assert "loss\\x1b[2J" in output(callback)


def test_only_the_main_process_prints_and_writes_but_every_process_stops(
    registry: Registry, tmp_path: Path
) -> None:
    callback = HealthCheckCallback(registry=registry, stop_on="warning", console=console())
    args, state, control = run = fake_run(tmp_path)
    state.is_world_process_zero = False
    log(callback, run, 1, {"frac_reward_zero_std": 1.0})
    assert control.should_training_stop
    callback.on_train_end(args, state, control)
    assert output(callback) == ""
    assert not Path(args.output_dir).exists()


def test_the_report_is_written_next_to_the_checkpoints(registry: Registry, tmp_path: Path) -> None:
    callback = HealthCheckCallback(registry=registry, lang="zh", console=console())
    args, state, control = run = fake_run(tmp_path)
    callback.on_train_begin(args, state, control)
    for step in range(1, 4):
        log(callback, run, step, {"frac_reward_zero_std": 1.0, "loss": 0.1})
    callback.on_train_end(args, state, control)
    out = Path(args.output_dir)
    assert callback.report_paths == (out / "health-report.json", out / "health-report.md")
    document = json.loads((out / "health-report.json").read_text(encoding="utf-8"))
    assert document["lang"] == "zh"
    (report,) = document["runs"]
    assert report["source"] == str(out)
    assert {(f["key"], f["rule"]) for f in report["findings"] if f["kind"] == "rule"} == {
        ("frac_reward_zero_std", "enough-signal"),
        ("frac_reward_zero_std", "not-all-saturated"),
    }
    assert "frac_reward_zero_std" in (out / "health-report.md").read_text(encoding="utf-8")
    assert str(out / "health-report.md") in output(callback).replace("\n", "")


def test_wrong_options_are_refused_up_front(registry: Registry) -> None:
    with pytest.raises(ValueError, match="stop_on must be one of error, warning or None"):
        HealthCheckCallback(registry=registry, stop_on="info")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lang must be one of en, vi, zh"):
        HealthCheckCallback(registry=registry, lang="fr")


def test_a_finding_raises_a_wandb_alert_when_a_wandb_run_is_active(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """wandb is not installed here: a minimal fake ``wandb`` module is in ``sys.modules`` for this test only.

    It stands for what the callback touches of wandb (``wandb.run`` and
    ``wandb.alert``); everything else in this module runs the real thing.
    """
    alerts: list[dict[str, Any]] = []
    fake = types.ModuleType("wandb")
    fake.run = None  # type: ignore[attr-defined]
    fake.alert = lambda **kwargs: alerts.append(kwargs)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "wandb", fake)
    callback = HealthCheckCallback(registry=registry, console=console())
    run = fake_run(tmp_path)
    log(callback, run, 1, {"loss": math.nan})
    assert alerts == []  # wandb imported, but no run: no alert
    fake.run = object()  # type: ignore[attr-defined]
    log(callback, run, 2, {"frac_reward_zero_std": 1.0})
    assert [(a["title"], a["level"]) for a in alerts] == [
        ("metrics-registry: WARNING frac_reward_zero_std (enough-signal)", "WARN")
    ]
    assert "between 0 and 0.8" in alerts[0]["text"]
    assert "en/reference/grpo/frac_reward_zero_std/" in alerts[0]["text"]

    def refuse(**_kwargs: Any) -> None:
        raise RuntimeError("offline")

    fake.alert = refuse  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING):
        log(callback, run, 3, {"kl": -1.0, "grad_norm": math.inf})
    assert [r.getMessage() for r in caplog.records if "wandb.alert failed" in r.getMessage()] == [
        "metrics-registry: wandb.alert failed (offline); findings are still printed"
    ]
    assert "kl" in output(callback)


# ------------------------------------------------------- a real GRPO training


WORDS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"] + [f"w{i}" for i in range(28)]


def tiny_grpo(tmp_path: Path, callback: HealthCheckCallback, max_steps: int) -> Any:
    """A GRPO trainer on a 2-layer Llama of width 16 with a word-level tokenizer, all built here."""
    from trl import GRPOConfig, GRPOTrainer

    words = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=words, pad_token="[PAD]", unk_token="[UNK]", bos_token="[BOS]", eos_token="[EOS]"
    )
    torch.manual_seed(0)
    config = LlamaConfig(
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
    )
    prompts = Dataset.from_dict({"prompt": [f"w{i} w{i + 1} w{i + 2}" for i in range(16)]})

    def same_reward(completions: list[str], **_kwargs: Any) -> list[float]:
        return [1.0] * len(completions)  # every completion of a prompt alike: zero spread in each group

    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"),
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=8,
        # the last token is EOS, so completions count as terminated: only the reward is unhealthy
        generation_kwargs={"forced_eos_token_id": EOS},
        max_steps=max_steps,
        logging_steps=1,
        learning_rate=1e-3,
        report_to="none",
        use_cpu=True,
        save_strategy="no",
        disable_tqdm=True,
        seed=0,
    )
    return GRPOTrainer(
        model=LlamaForCausalLM(config),
        reward_funcs=same_reward,
        args=args,
        train_dataset=prompts,
        processing_class=tokenizer,
        callbacks=[callback],
    )


class StepRecorder(TrainerCallback):
    """The findings the health callback had reported after each logging step (it runs after it)."""

    def __init__(self, health: HealthCheckCallback) -> None:
        self.health = health
        self.seen: dict[int, set[tuple[str | None, str | None]]] = {}

    def on_log(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.seen[state.global_step] = {(f.key, f.rule_id) for f in self.health.monitor.findings}


def test_a_grpo_run_with_equal_rewards_is_flagged_while_it_trains(registry: Registry, tmp_path: Path) -> None:
    """stop_on="error": the zero-spread warning does not stop the run, but is reported from step 1 on."""
    health = HealthCheckCallback(registry=registry, stop_on="error", console=console())
    trainer = tiny_grpo(tmp_path, health, max_steps=4)
    recorder = StepRecorder(health)
    trainer.add_callback(recorder)
    trainer.train()
    assert trainer.state.global_step == 4
    assert health.stopped_by is None
    zero_spread = ("frac_reward_zero_std", "enough-signal")
    assert zero_spread in recorder.seen[1]  # during the training, at its first logged step
    assert ("reward_std", "has-signal") in recorder.seen[3]  # not_constant: from its third value
    assert "WARNING  frac_reward_zero_std  enough-signal (range)  step 1" in output(health)
    report = json.loads((tmp_path / "grpo" / "health-report.json").read_text(encoding="utf-8"))
    (run,) = report["runs"]
    assert run["family"] == "grpo"
    assert run["keys"]["frac_reward_zero_std"]["points"] == 4
    rules = {(f["key"], f["rule"]) for f in run["findings"] if f["kind"] == "rule"}
    assert zero_spread in rules
    assert ("completions/clipped_ratio", "mostly-terminated") not in rules


def test_stop_on_warning_stops_the_grpo_run_at_the_zero_spread_finding(
    registry: Registry, tmp_path: Path
) -> None:
    health = HealthCheckCallback(registry=registry, stop_on="warning", console=console())
    trainer = tiny_grpo(tmp_path, health, max_steps=20)
    trainer.train()
    assert trainer.state.global_step < 20
    assert health.stopped_by is not None
    assert (health.stopped_by.key, health.stopped_by.rule_id) == ("frac_reward_zero_std", "enough-signal")
    text = output(health)
    assert text.index("stopping the training at step 1") < text.index("health report written")
    assert (tmp_path / "grpo" / "health-report.md").is_file()


def test_without_transformers_the_import_error_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['transformers'] = None\n"
        "try:\n    import metrics_registry.integrations.transformers\n"
        "except ImportError as error:\n    print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == (
        "metrics_registry.integrations.transformers needs transformers: pip install transformers"
    )

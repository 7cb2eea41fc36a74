"""Real log files, written once per session by the real writers (see ``_runlogs``)."""

from __future__ import annotations

from pathlib import Path

import _runlogs as logs
import pytest


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("logs")


@pytest.fixture(scope="session")
def grpo_state(log_dir: Path) -> Path:
    """An unhealthy GRPO run's output folder, with two checkpoints (the latest has the full history)."""
    out = log_dir / "grpo-out"
    logs.write_trainer_state(out / "checkpoint-10" / "trainer_state.json", {"kl": [0.01] * 50})
    logs.write_trainer_state(out / "checkpoint-50" / "trainer_state.json", logs.grpo_unhealthy())
    return out


@pytest.fixture(scope="session")
def grpo_healthy_state(log_dir: Path) -> Path:
    return logs.write_trainer_state(log_dir / "healthy" / "trainer_state.json", logs.grpo_healthy())


@pytest.fixture(scope="session")
def ppo_tensorboard(log_dir: Path) -> Path:
    """A logging_dir with two runs: an unhealthy and a healthy PPO run."""
    folder = log_dir / "tb"
    logs.write_tensorboard(folder / "unhealthy", logs.ppo_unhealthy())
    logs.write_tensorboard(folder / "healthy", logs.ppo_healthy())
    return folder


@pytest.fixture(scope="session")
def grpo_csv(log_dir: Path) -> Path:
    unhealthy, healthy = logs.grpo_unhealthy(), logs.grpo_healthy()
    return logs.write_wandb_csv(
        log_dir / "wandb_export.csv",
        {
            "grpo-unhealthy": {key: unhealthy[key] for key in logs.CSV_KEYS},
            "grpo-healthy": {key: healthy[key] for key in logs.CSV_KEYS},
        },
    )


@pytest.fixture(scope="session")
def legacy_jsonl(log_dir: Path) -> Path:
    return logs.write_wandb_jsonl(log_dir / "legacy-run.jsonl", logs.legacy_ppo_unhealthy())


@pytest.fixture(scope="session")
def wandb_run_dir(log_dir: Path) -> Path:
    """A W&B run folder (``files/wandb-history.jsonl``) of a run logged through transformers."""
    folder = log_dir / "wandb" / "run-20240101_000000-abc123"
    logs.write_wandb_jsonl(
        folder / "files" / "wandb-history.jsonl", logs.grpo_multiturn_unhealthy(), transformers=True
    )
    return folder


@pytest.fixture(scope="session")
def unhealthy_logs(grpo_state: Path, ppo_tensorboard: Path, grpo_csv: Path, legacy_jsonl: Path) -> list[Path]:
    """One log of each format, each with unhealthy series."""
    return [grpo_state, ppo_tensorboard, grpo_csv, legacy_jsonl]

"""Logs for the integrations' tests, by the real writers check-run's tests use (tests/runs/_runlogs.py).

Not a conftest.py: two folders' conftest modules without packages clash in one pytest run. Test
modules import ``logs`` and the fixture from here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

import _runlogs as logs
import pytest


@pytest.fixture(scope="session", name="finished_logs")
def finished_logs_fixture(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished log of each format watch follows, written by the real writers."""
    folder = tmp_path_factory.mktemp("finished")
    out = folder / "grpo-out"
    logs.write_trainer_state(out / "checkpoint-10" / "trainer_state.json", {"kl": [0.01] * 50})
    logs.write_trainer_state(out / "checkpoint-50" / "trainer_state.json", logs.grpo_unhealthy())
    logs.write_tensorboard(folder / "tb" / "unhealthy", logs.ppo_unhealthy())
    logs.write_tensorboard(folder / "tb" / "healthy", logs.ppo_healthy())
    wandb = folder / "wandb" / "run-20240101_000000-abc123"
    logs.write_wandb_jsonl(
        wandb / "files" / "wandb-history.jsonl", logs.grpo_multiturn_unhealthy(), transformers=True
    )
    return {
        "trainer-state folder": out,
        "tensorboard folder": folder / "tb",
        "wandb-jsonl": logs.write_wandb_jsonl(folder / "legacy-run.jsonl", logs.legacy_ppo_unhealthy()),
        "wandb run folder": wandb,
    }

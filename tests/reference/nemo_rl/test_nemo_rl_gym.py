"""NeMo-Gym effort-level shaping against NeMo-RL's own code (copied in _nemo_port)."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import _nemo_port as nemo
import pytest
import torch

from metrics_registry.reference.nemo_rl import gym


def _close(ours: float, theirs: float) -> bool:
    if math.isnan(theirs):
        return math.isnan(ours)
    return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)


def _gym_batch(seed: int, n: int = 10):
    rng = random.Random(seed)
    rows, results, rewards, lengths, low = [], [], [], [], []
    for _ in range(n):
        is_low = rng.random() < 0.5
        ends_with_assistant = rng.random() < 0.85
        length = rng.randint(10, 900)
        reward = rng.choice([0.0, 1.0, 0.3])
        prompt = "please think briefly: " if is_low else "solve: "
        rows.append({"responses_create_params": {"input": [{"role": "user", "content": prompt + "2+2"}]}})
        last = {"role": "assistant" if ends_with_assistant else "tool", "token_ids": [0] * length}
        results.append(
            {"message_log": [{"role": "user", "token_ids": [1]}, last], "full_result": {"reward": reward}}
        )
        rewards.append(reward)
        lengths.append(length if ends_with_assistant else 0)
        low.append(is_low)
    return rows, results, rewards, lengths, low


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize(("weight", "penalty", "ub"), [(1.0, 1.0, 500), (0.5, 2.0, 64000), (0.0, 1.0, 500)])
def test_effort_shaping_matches_nemo(seed: int, weight: float, penalty: float, ub: int) -> None:
    rows, results, rewards, lengths, low = _gym_batch(seed)
    config = SimpleNamespace(low_weight=weight, low_penalty=penalty, low_ub=ub, low_string="think briefly")
    theirs = nemo.effort_shaping_metrics(nemo._apply_effort_shaping(results, rows, config))
    ours = gym.effort_shaping(
        torch.tensor(rewards, dtype=torch.float64),
        torch.tensor(lengths),
        torch.tensor(low),
        low_weight=weight,
        low_penalty=penalty,
        low_ub=ub,
    )
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert _close(ours[key], value), key


def test_a_long_low_effort_answer_is_penalized_below_its_reward() -> None:
    got = gym.effort_shaping(
        torch.tensor([1.0, 1.0], dtype=torch.float64),
        torch.tensor([100, 300]),
        torch.tensor([True, True]),
        low_weight=1.0,
        low_ub=200,
    )
    # term 0.5 doubles half of the reward for the short answer; −0.5 is subtracted for the long one
    assert got["mean_length_reward_low"] == 0.0
    assert got["mean_reward_low"] == (1.5 + 0.5) / 2
    assert "mean_length_high" not in got

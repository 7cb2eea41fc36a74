"""NeMo-RL PPO value-model keys against NeMo-RL's MseValueLossFn and _compute_critic_metrics (copied)."""

from __future__ import annotations

import math

import pytest
import torch
from _nemo_port import value_train_step

from metrics_registry.reference import nemo_rl


def _layout(seed: int, n_gb: int = 2, n_mb: int = 3, batch: int = 3, width: int = 6) -> dict:
    g = torch.Generator().manual_seed(seed)
    shape = (n_gb, n_mb, batch, width)
    lengths = torch.randint(1, width + 1, shape[:3], generator=g)
    return {
        "values": torch.randn(shape, generator=g, dtype=torch.float64),
        "old_values": torch.randn(shape, generator=g, dtype=torch.float64),
        "returns": torch.randn(shape, generator=g, dtype=torch.float64) + 0.5,
        "token_mask": (torch.arange(width) < lengths.unsqueeze(-1)).to(torch.float64),
        "sample_mask": (torch.rand(shape[:3], generator=g) > 0.2).to(torch.float64),
    }


def _nemo(layout: dict, cliprange: float | None, scale: float) -> dict:
    gbs = [
        [
            (
                layout["values"][g, m],
                {
                    "token_mask": layout["token_mask"][g, m],
                    "sample_mask": layout["sample_mask"][g, m],
                    "returns": layout["returns"][g, m],
                    "values": layout["old_values"][g, m],
                },
            )
            for m in range(layout["values"].shape[1])
        ]
        for g in range(layout["values"].shape[0])
    ]
    return value_train_step(gbs, scale=scale, cliprange=cliprange)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("cliprange", "scale"), [(None, 1.0), (0.2, 0.5)])
def test_critic_stats_match_nemo(seed: int, cliprange: float | None, scale: float) -> None:
    layout = _layout(seed)
    want = _nemo(layout, cliprange, scale)
    got = nemo_rl.critic_stats(
        layout["values"],
        layout["returns"],
        layout["token_mask"],
        layout["sample_mask"],
        old_values=layout["old_values"],
        cliprange=cliprange,
        scale=scale,
    )
    for key, value in got.items():
        assert math.isclose(value.item(), want[f"critic/{key}"], rel_tol=1e-9, abs_tol=1e-9), key


def test_explained_variance_of_a_single_global_batch_is_the_textbook_one() -> None:
    layout = _layout(7, n_gb=1)
    mask = (layout["token_mask"] * layout["sample_mask"].unsqueeze(-1)) != 0
    r, v = layout["returns"][mask], layout["values"][mask]
    want = 1 - torch.var(r - v, unbiased=False) / torch.var(r, unbiased=False)
    got = nemo_rl.critic_stats(
        layout["values"], layout["returns"], layout["token_mask"], layout["sample_mask"]
    )
    assert math.isclose(got["explained_var"].item(), want.item(), abs_tol=1e-6)


def test_an_empty_micro_batch_drags_the_extrema_to_zero() -> None:
    layout = _layout(3)
    layout["values"] = layout["values"].abs() + 1.0  # every prediction above 1
    layout["sample_mask"][1, 2] = 0
    got = nemo_rl.critic_stats(
        layout["values"], layout["returns"], layout["token_mask"], layout["sample_mask"]
    )
    assert got["values_min"].item() == 0.0
    assert math.isclose(got["values_min"].item(), _nemo(layout, None, 1.0)["critic/values_min"])

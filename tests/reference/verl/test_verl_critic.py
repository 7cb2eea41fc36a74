"""verl `critic/*` references against a port of verl's value loss and `compute_data_metrics`."""

from __future__ import annotations

import math

import _verl_port as port
import numpy as np
import pytest
import torch

from metrics_registry.reference.verl import critic


def _tensors(seed: int, rows: int = 8, width: int = 7) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, width + 1, (rows,), generator=g)
    mask = torch.arange(width).unsqueeze(0) < lengths.unsqueeze(-1)
    values = torch.randn(rows, width, generator=g, dtype=torch.float64)
    return {
        "mask": mask,
        "lengths": lengths,
        "values": values,
        "vpreds": values + torch.randn(rows, width, generator=g, dtype=torch.float64) * 0.8,
        "returns": values + torch.randn(rows, width, generator=g, dtype=torch.float64),
        "scores": torch.zeros(rows, width, dtype=torch.float64).scatter(
            1, (lengths - 1).unsqueeze(-1), torch.randn(rows, 1, generator=g, dtype=torch.float64)
        ),
        "kl": torch.rand(rows, width, generator=g, dtype=torch.float64) * mask,
        "adv": torch.randn(rows, 1, generator=g, dtype=torch.float64).expand(rows, width).clone(),
    }


@pytest.mark.parametrize("mode", ["token-mean", "seq-mean-token-sum", "seq-mean-token-mean"])
@pytest.mark.parametrize(("mini", "dp", "micro"), [(8, 1, 8), (4, 2, 1), (8, 2, 2)])
def test_value_metrics_match_verl(mode: str, mini: int, dp: int, micro: int) -> None:
    b = _tensors(seed=mini * 10 + dp + micro)
    vf_loss, clipfrac, vpred = [], [], []
    for start in range(0, 8, mini):
        info = {
            "dp_size": dp,
            "batch_num_tokens": b["mask"][start : start + mini].sum(),
            "global_batch_size": mini,
        }
        grid = [[] for _ in range(dp)]
        for r in range(dp):
            for k in range(0, mini // dp, micro):
                idx = list(range(start + r * (mini // dp) + k, start + r * (mini // dp) + k + micro))
                m = b["mask"][idx]
                w = max(int(m.sum(-1).max()), 1)
                loss, frac = port.compute_value_loss(
                    b["vpreds"][idx][:, :w],
                    b["returns"][idx][:, :w],
                    b["values"][idx][:, :w],
                    m[:, :w],
                    0.5,
                    mode,
                    **info,
                )
                grid[r].append(float(loss))
                clipfrac.append(float(frac))
                vpred.append(float(port.masked_mean(b["vpreds"][idx], m)))
        vf_loss.append(port.aggregate_dp(grid, "sum"))
    ours = critic.value_metrics(
        b["vpreds"],
        b["values"],
        b["returns"],
        b["mask"],
        loss_agg_mode=mode,
        mini_batch_size=mini,
        dp_size=dp,
        micro_batch_size=micro,
    )
    assert math.isclose(ours["vf_loss"], np.mean(vf_loss), rel_tol=1e-7)
    # verl computes the clip flags as float32 (`torch.gt(...).float()`): agreement to float32 precision
    assert math.isclose(ours["vf_clipfrac"], np.mean(clipfrac), rel_tol=1e-6, abs_tol=1e-9)
    assert math.isclose(ours["vpred_mean"], np.mean(vpred), rel_tol=1e-7)


def test_vf_loss_token_mean_is_half_the_clipped_squared_error_per_token() -> None:
    b = _tensors(seed=4)
    clipped = torch.clamp(b["vpreds"], b["values"] - 0.5, b["values"] + 0.5)
    per_token = torch.maximum((b["vpreds"] - b["returns"]) ** 2, (clipped - b["returns"]) ** 2)
    direct = 0.5 * float(per_token[b["mask"]].mean())
    ours = critic.value_metrics(b["vpreds"], b["values"], b["returns"], b["mask"], micro_batch_size=1)
    assert math.isclose(ours["vf_loss"], direct, rel_tol=1e-12)
    # the local-mean reduction of v0.8.0 (mean of micro-batch means) is a different number
    local = np.mean([0.5 * float(per_token[i][b["mask"][i]].mean()) for i in range(8)])
    assert not math.isclose(ours["vf_loss"], local, rel_tol=1e-3)


@pytest.mark.parametrize("with_values", [True, False])
def test_data_metrics_match_verl(with_values: bool) -> None:
    b = _tensors(seed=9)
    lengths = b["lengths"].clone()
    lengths[2] = 0  # an aborted sample: left out of score and reward statistics
    rewards = b["scores"] - 0.1 * b["kl"]
    values = b["values"] if with_values else None
    ours = critic.data_metrics(
        b["scores"], rewards, b["adv"], b["returns"], b["mask"], response_length=lengths, values=values
    )
    theirs = port.compute_data_metrics(
        b["scores"], rewards, b["adv"], b["returns"], b["mask"], lengths, values
    )
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert math.isclose(ours[key], value, rel_tol=1e-9, abs_tol=1e-12), key


def test_advantage_mean_is_token_weighted_not_zero_for_grpo() -> None:
    """GRPO advantages sum to 0 over sequences, but the logged mean weighs each by its length."""
    adv = torch.tensor([[1.0, 1.0, 1.0], [-1.0, 0.0, 0.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, True], [True, False, False]])
    zeros = torch.zeros(2, 3, dtype=torch.float64)
    ours = critic.data_metrics(zeros, zeros, adv, adv, mask, response_length=torch.tensor([3, 1]))
    assert ours["critic/advantages/mean"] == pytest.approx(0.5)

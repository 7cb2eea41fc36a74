"""NeMo-RL loss-function keys: the references against NeMo-RL's own code (copied) and plain torch."""

from __future__ import annotations

import math

import pytest
import torch
from _nemo_port import Cfg, train_step

from metrics_registry.reference import nemo_rl

TOL = 1e-9


def _layout(seed: int, *, n_gb: int = 2, n_mb: int = 3, batch: int = 4, width: int = 7, drop: float = 0.25):
    """Random global batches: uneven response lengths (right padding), some samples masked out."""
    g = torch.Generator().manual_seed(seed)

    def tokens(scale: float = 1.0) -> torch.Tensor:
        return -torch.rand(n_gb, n_mb, batch, width, generator=g, dtype=torch.float64) * 3 * scale

    lengths = torch.randint(1, width + 1, (n_gb, n_mb, batch), generator=g)
    token_mask = (torch.arange(width) < lengths.unsqueeze(-1)).to(torch.float64)
    sample_mask = (torch.rand(n_gb, n_mb, batch, generator=g) > drop).to(torch.float64)
    prev = tokens()
    layout = {
        "curr": prev + 0.3 * torch.randn(n_gb, n_mb, batch, width, generator=g, dtype=torch.float64),
        "prev": prev,
        "gen": prev + 0.2 * torch.randn(n_gb, n_mb, batch, width, generator=g, dtype=torch.float64),
        "ref": tokens(),
        "adv": torch.randn(n_gb, n_mb, batch, 1, generator=g, dtype=torch.float64)
        .expand(-1, -1, -1, width)
        .clone(),
        "token_mask": token_mask,
        "sample_mask": sample_mask,
    }
    return layout


def _pad(x: torch.Tensor) -> torch.Tensor:
    """NeMo-RL's data holds one leading position more than the next-token log-probabilities."""
    return torch.cat([torch.zeros_like(x[..., :1]), x], dim=-1)


def _nemo(layout: dict, cfg: Cfg) -> dict:
    gbs = []
    for g in range(layout["curr"].shape[0]):
        mbs = []
        for m in range(layout["curr"].shape[1]):
            data = {
                "token_mask": _pad(layout["token_mask"][g, m]),
                "sample_mask": layout["sample_mask"][g, m],
                "advantages": _pad(layout["adv"][g, m]),
                "prev_logprobs": _pad(layout["prev"][g, m]),
                "generation_logprobs": _pad(layout["gen"][g, m]),
                "reference_policy_logprobs": _pad(layout["ref"][g, m]),
            }
            mbs.append((layout["curr"][g, m], data))
        gbs.append(mbs)
    return train_step(cfg, gbs)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("token_level_loss", [True, False])
@pytest.mark.parametrize("kl_type", ["k1", "k2", "k3"])
def test_loss_and_kl_penalty_match_nemo(seed: int, token_level_loss: bool, kl_type: str) -> None:
    layout = _layout(seed)
    cfg = Cfg(
        reference_policy_kl_penalty=0.05, reference_policy_kl_type=kl_type, token_level_loss=token_level_loss
    )
    want = _nemo(layout, cfg)
    common = {"token_mask": layout["token_mask"], "sample_mask": layout["sample_mask"]}
    kl = nemo_rl.kl_penalty(
        layout["curr"],
        layout["ref"],
        **common,
        reference_policy_kl_penalty=0.05,
        reference_policy_kl_type=kl_type,
        token_level_loss=token_level_loss,
    )
    assert math.isclose(kl.item(), want["kl_penalty"], abs_tol=TOL)
    total = nemo_rl.loss(
        layout["curr"],
        layout["prev"],
        layout["adv"],
        **common,
        token_level_loss=token_level_loss,
        reference_logprobs=layout["ref"],
        reference_policy_kl_penalty=0.05,
        reference_policy_kl_type=kl_type,
    )
    assert math.isclose(total.item(), want["loss"], abs_tol=TOL)


@pytest.mark.parametrize("seed", range(3))
def test_loss_options_match_nemo(seed: int) -> None:
    layout = _layout(seed + 10)
    cfg = Cfg(
        ratio_clip_min=0.1,
        ratio_clip_max=0.28,
        ratio_clip_c=3.0,
        reference_policy_kl_penalty=0.0,
        use_importance_sampling_correction=True,
    )
    want = _nemo(layout, cfg)
    got = nemo_rl.loss(
        layout["curr"],
        layout["prev"],
        layout["adv"],
        layout["token_mask"],
        layout["sample_mask"],
        ratio_clip_min=0.1,
        ratio_clip_max=0.28,
        ratio_clip_c=3.0,
        generation_logprobs=layout["gen"],
        use_importance_sampling_correction=True,
    )
    assert math.isclose(got.item(), want["loss"], abs_tol=TOL)
    assert want["kl_penalty"] == 0  # beta = 0: no KL term, and the key logs 0
    assert (
        nemo_rl.kl_penalty(
            layout["curr"], layout["ref"], layout["token_mask"], reference_policy_kl_penalty=0.0
        )
        == 0
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("sequence_level", [False, True])
def test_probs_ratio_stats_match_nemo(seed: int, sequence_level: bool) -> None:
    layout = _layout(seed + 20)
    cfg = Cfg(ratio_clip_min=0.1, ratio_clip_max=0.2, sequence_level_importance_ratios=sequence_level)
    want = _nemo(layout, cfg)
    got = nemo_rl.probs_ratio_stats(
        layout["curr"],
        layout["prev"],
        layout["token_mask"],
        layout["sample_mask"],
        ratio_clip_min=0.1,
        ratio_clip_max=0.2,
        sequence_level_importance_ratios=sequence_level,
    )
    for key, value in got.items():
        assert math.isclose(value.item(), want[key], abs_tol=TOL), key


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kl_type", ["k1", "k3"])
def test_mismatch_and_entropy_match_nemo(seed: int, kl_type: str) -> None:
    layout = _layout(seed + 30)
    want = _nemo(layout, Cfg(reference_policy_kl_type=kl_type))
    got = nemo_rl.mismatch_stats(
        layout["gen"],
        layout["prev"],
        layout["token_mask"],
        layout["sample_mask"],
        reference_policy_kl_type=kl_type,
    )
    for key, value in got.items():
        assert math.isclose(value.item(), want[key], abs_tol=TOL), key
    entropy = nemo_rl.approx_entropy(
        layout["curr"], layout["gen"], layout["token_mask"], layout["sample_mask"]
    )
    assert math.isclose(entropy.item(), want["approx_entropy"], abs_tol=TOL)
    valid = nemo_rl.num_valid_samples(layout["sample_mask"])
    assert math.isclose(valid.item(), want["num_valid_samples"], abs_tol=TOL)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    ("tis", "high", "low", "sequence_level"),
    [
        (None, None, None, False),
        ("tis", 1.2, None, False),
        ("icepop", 1.3, 0.8, False),
        ("seq-mask-tis", 1.05, 0.95, False),
        (None, None, None, True),
        ("tis", 2.0, 0.5, True),
    ],
)
def test_sampling_importance_ratio_matches_nemo(seed, tis, high, low, sequence_level) -> None:
    layout = _layout(seed + 40)
    cfg = Cfg(
        truncated_importance_sampling_type=tis,
        truncated_importance_sampling_ratio=high,
        truncated_importance_sampling_ratio_min=low,
        sequence_level_importance_ratios=sequence_level,
    )
    want = _nemo(layout, cfg)
    got = nemo_rl.sampling_importance_ratio(
        layout["gen"],
        layout["prev"],
        layout["token_mask"],
        layout["sample_mask"],
        sequence_level_importance_ratios=sequence_level,
        truncated_importance_sampling_type=tis,
        truncated_importance_sampling_ratio=high,
        truncated_importance_sampling_ratio_min=low,
    )
    assert math.isclose(
        got["sampling_importance_ratio"].item(), want["sampling_importance_ratio"], abs_tol=TOL
    )
    if tis is not None:
        assert math.isclose(got["is_oob_ratio"].item(), want["is_oob_ratio"], abs_tol=TOL)


def test_token_normalization_is_a_token_weighted_mean_per_global_batch() -> None:
    """Against plain torch: concatenate each GB's valid tokens, take their mean, average the GBs."""
    layout = _layout(7, n_gb=3)
    ratio = (layout["curr"] - layout["prev"]).exp()
    mask = layout["token_mask"] * layout["sample_mask"].unsqueeze(-1)
    per_gb = [ratio[g][mask[g] != 0].mean() for g in range(3)]
    want = torch.stack(per_gb).mean()
    got = nemo_rl.probs_ratio_stats(
        layout["curr"], layout["prev"], layout["token_mask"], layout["sample_mask"]
    )
    assert math.isclose(got["probs_ratio"].item(), want.item(), abs_tol=1e-7)
    # a mean of micro-batch means is a different number on uneven masks
    mb_means = torch.stack(
        [ratio[g, m][mask[g, m] != 0].mean() for g in range(3) for m in range(3) if (mask[g, m] != 0).any()]
    )
    assert not math.isclose(mb_means.mean().item(), want.item(), abs_tol=1e-4)
    # and the global token mean of the whole step weighs GBs by their token counts
    assert not math.isclose(ratio[mask != 0].mean().item(), want.item(), abs_tol=1e-4)


def test_kl_penalty_is_beta_free_and_k3_matches_the_estimator() -> None:
    layout = _layout(3)
    small = nemo_rl.kl_penalty(
        layout["curr"],
        layout["ref"],
        layout["token_mask"],
        layout["sample_mask"],
        reference_policy_kl_penalty=0.001,
    )
    large = nemo_rl.kl_penalty(
        layout["curr"],
        layout["ref"],
        layout["token_mask"],
        layout["sample_mask"],
        reference_policy_kl_penalty=0.5,
    )
    assert math.isclose(small.item(), large.item(), abs_tol=1e-9)
    log_r = layout["ref"] - layout["curr"]
    k3 = (log_r.exp() - 1 - log_r).clamp(-10, 10)
    mask = layout["token_mask"] * layout["sample_mask"].unsqueeze(-1)
    want = torch.stack([k3[g][mask[g] != 0].mean() for g in range(2)]).mean()
    assert math.isclose(small.item(), want.item(), abs_tol=1e-7)


def test_extrema_ignore_empty_micro_batches_and_default_to_minus_one() -> None:
    layout = _layout(5)
    layout["sample_mask"][0, 1] = 0  # one micro-batch without any valid sample
    want = _nemo(layout, Cfg())
    got = nemo_rl.probs_ratio_stats(
        layout["curr"], layout["prev"], layout["token_mask"], layout["sample_mask"]
    )
    assert math.isclose(got["probs_ratio_min"].item(), want["probs_ratio_min"], abs_tol=TOL)
    empty = nemo_rl.probs_ratio_stats(
        layout["curr"], layout["prev"], layout["token_mask"], torch.zeros_like(layout["sample_mask"])
    )
    assert empty["probs_ratio_max"].item() == -1.0


def test_sequence_level_sampling_ratio_is_inflated_by_the_micro_batch_size() -> None:
    """On-policy (gen == prev) every weight is 1: NeMo-RL logs the valid samples per micro-batch."""
    layout = _layout(9, n_gb=1, n_mb=2, batch=4, drop=0.0)
    got = nemo_rl.sampling_importance_ratio(
        layout["prev"],
        layout["prev"],
        layout["token_mask"],
        layout["sample_mask"],
        sequence_level_importance_ratios=True,
    )
    assert math.isclose(got["sampling_importance_ratio"].item(), 4.0, abs_tol=1e-6)
    assert math.isclose(got["sampling_importance_ratio_intended"].item(), 1.0, abs_tol=1e-6)


def test_ragged_micro_batches_are_accepted() -> None:
    g = torch.Generator().manual_seed(0)
    curr = [
        [
            -torch.rand(2, 5, generator=g, dtype=torch.float64),
            -torch.rand(3, 2, generator=g, dtype=torch.float64),
        ]
    ]
    gen = [[c + 0.1 for c in gb] for gb in curr]
    mask = [[torch.ones(2, 5), torch.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])]]
    got = nemo_rl.approx_entropy(curr, gen, mask)
    flat_c = torch.cat([curr[0][0].reshape(-1), curr[0][1].reshape(-1)])
    flat_m = torch.cat([mask[0][0].reshape(-1), mask[0][1].reshape(-1)]).bool()
    want = -(torch.exp(torch.tensor(-0.1, dtype=torch.float64)) * flat_c[flat_m]).mean()
    assert math.isclose(got.item(), want.item(), abs_tol=1e-7)


def test_global_valid_counts_are_per_global_batch_not_per_step() -> None:
    """Driver: np.mean over the entries of every micro-batch (grpo.py:3482-3489@7ea279ab)."""
    import numpy as np

    layout = _layout(12, n_gb=2, n_mb=2)
    mask = layout["token_mask"] * layout["sample_mask"].unsqueeze(-1)
    entries_toks = [mask[g].sum().item() for g in range(2) for _ in range(2)]
    entries_seqs = [layout["sample_mask"][g].sum().item() for g in range(2) for _ in range(2)]
    got = nemo_rl.global_valid_counts(layout["token_mask"], layout["sample_mask"])
    assert math.isclose(got["global_valid_toks"].item(), float(np.mean(entries_toks)))
    assert math.isclose(got["global_valid_seqs"].item(), float(np.mean(entries_seqs)))
    assert got["global_valid_toks"].item() < mask.sum().item()  # not the step total
    layout["sample_mask"][1, 0] = 0
    dropped = nemo_rl.global_valid_counts(
        layout["token_mask"], layout["sample_mask"], drop_empty_micro_batches=True
    )
    kept = [
        layout["sample_mask"][g].sum().item()
        for g in range(2)
        for m in range(2)
        if layout["sample_mask"][g, m].sum() > 0
    ]
    assert math.isclose(dropped["global_valid_seqs"].item(), float(np.mean(kept)))

"""KL estimators against torch.distributions: exact KL, Monte-Carlo unbiasedness of k1/k3, bias of k2."""

from __future__ import annotations

import math

import pytest
import torch
from _refutil import DTYPE_TOL, LOW_PRECISION, close, prefix_mask
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.distributions import Categorical, kl_divergence

from metrics_registry.reference.kl import (
    estimate,
    exact_categorical_kl,
    k1,
    k2,
    k3,
    k3_reverse,
    sequence_kl_mean,
)

logps = st.floats(min_value=-30.0, max_value=0.0, allow_nan=False)


def _samples(q_logits: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.multinomial(q_logits.softmax(-1), n, replacement=True, generator=g)


def _mc(estimator: str, q_logits: torch.Tensor, p_logits: torch.Tensor, n: int = 200_000, seed: int = 0):
    """Mean and standard error of an estimator over n samples from q."""
    x = _samples(q_logits, n, seed)
    logq = q_logits.log_softmax(-1)[x]
    logp = p_logits.log_softmax(-1)[x]
    values = estimate(logq, logp, estimator)  # type: ignore[arg-type]
    return values.mean().item(), values.std().item() / math.sqrt(n)


Q = torch.tensor([2.0, 1.0, 0.0, -1.0, 0.5, -2.0, 1.5, 0.0], dtype=torch.float64)
P = torch.tensor([0.0, 1.5, 1.0, -0.5, -1.0, 0.5, 2.0, -1.0], dtype=torch.float64)


def test_formulas_match_schulman_definitions() -> None:
    logq = torch.tensor([-1.0, -2.0, -0.5], dtype=torch.float64)
    logp = torch.tensor([-1.5, -1.0, -0.5], dtype=torch.float64)
    r = torch.exp(logp - logq)
    assert close(k1(logq, logp), -torch.log(r))
    assert close(k2(logq, logp), 0.5 * torch.log(r) ** 2)
    assert close(k3(logq, logp), (r - 1) - torch.log(r))
    assert close(k3_reverse(logq, logp), r * torch.log(r) - (r - 1))
    # TRL PPOv2: logr = ref - logprobs; k1 = -logr; k3 = (logr.exp() - 1) - logr
    logr = logp - logq
    assert close(estimate(logq, logp, "k3"), (logr.exp() - 1) - logr)
    with pytest.raises(ValueError, match="unknown estimator"):
        estimate(logq, logp, "k4")  # type: ignore[arg-type]


def test_exact_kl_matches_torch_distributions() -> None:
    g = torch.Generator().manual_seed(0)
    a = torch.randn(3, 5, 11, generator=g, dtype=torch.float64)
    b = torch.randn(3, 5, 11, generator=g, dtype=torch.float64)
    expected = kl_divergence(Categorical(logits=a), Categorical(logits=b))
    assert close(exact_categorical_kl(a, b), expected, 1e-12)
    # TRL v0.7 kl_penalty="full": F.kl_div(ref_logprob, logprob, log_target=True).sum(-1)
    trl = torch.nn.functional.kl_div(
        b.log_softmax(-1), a.log_softmax(-1), log_target=True, reduction="none"
    ).sum(-1)
    assert close(exact_categorical_kl(a, b), trl, 1e-12)


def test_k1_and_k3_are_unbiased_k2_is_not() -> None:
    true_kl = kl_divergence(Categorical(logits=Q), Categorical(logits=P)).item()
    for estimator in ("k1", "k3"):
        mean, se = _mc(estimator, Q, P)
        assert abs(mean - true_kl) < 4 * se, (estimator, mean, true_kl, se)
    mean, se = _mc("k2", Q, P)
    assert abs(mean - true_kl) > 10 * se  # the bias is far larger than the noise
    # k3 has the lower variance of the two unbiased estimators here
    assert _mc("k3", Q, P)[1] < _mc("k1", Q, P)[1]


def test_direction_k3_reverse_estimates_the_other_kl() -> None:
    reverse = kl_divergence(Categorical(logits=P), Categorical(logits=Q)).item()
    x = _samples(Q, 200_000, 1)
    values = k3_reverse(Q.log_softmax(-1)[x], P.log_softmax(-1)[x])
    se = values.std().item() / math.sqrt(values.numel())
    assert abs(values.mean().item() - reverse) < 4 * se
    forward = kl_divergence(Categorical(logits=Q), Categorical(logits=P)).item()
    assert abs(forward - reverse) > 0.05  # the two directions really differ here


def test_equal_distributions_give_zero() -> None:
    logq = torch.tensor([-0.1, -3.0, -7.5])
    for estimator in ("k1", "k2", "k3"):
        assert torch.equal(estimate(logq, logq, estimator), torch.zeros(3))  # type: ignore[arg-type]
    assert close(exact_categorical_kl(Q, Q), 0.0)


@settings(max_examples=100, deadline=None)
@given(logq=logps, logp=logps)
def test_k2_and_k3_are_never_negative(logq: float, logp: float) -> None:
    q = torch.tensor(logq, dtype=torch.float64)
    p = torch.tensor(logp, dtype=torch.float64)
    assert k3(q, p).item() >= 0.0
    assert k2(q, p).item() >= 0.0
    assert k3_reverse(q, p).item() >= -1e-12


def test_sequence_kl_mean_sums_tokens_then_averages_completions() -> None:
    logprobs = torch.tensor([[-1.0, -2.0, -0.5], [-0.3, -0.7, -9.0]], dtype=torch.float64)
    ref = torch.tensor([[-1.5, -1.0, -0.5], [-0.4, -0.2, -1.0]], dtype=torch.float64)
    mask = prefix_mask([3, 2], 3)
    loop = 0.0
    for b in range(2):
        loop += sum(logprobs[b, t].item() - ref[b, t].item() for t in range(3) if mask[b, t])
    assert close(sequence_kl_mean(logprobs, ref, mask), loop / 2)
    # TRL fills padding of both tensors with INVALID_LOGPROB = 1.0: zero contribution, same number
    filled, filled_ref = logprobs.clone(), ref.clone()
    filled[~mask], filled_ref[~mask] = 1.0, 1.0
    for estimator in ("k1", "k3"):
        trl = estimate(filled, filled_ref, estimator).sum(1).mean()  # type: ignore[arg-type]
        assert close(sequence_kl_mean(logprobs, ref, mask, estimator), trl)  # type: ignore[arg-type]


def test_sequence_kl_is_unbiased_for_the_sequence_kl() -> None:
    # i.i.d. tokens: the sequence KL is T times the per-token KL
    length, n = 4, 50_000
    x = _samples(Q, n * length, 2).view(n, length)
    logq, logp = Q.log_softmax(-1)[x], P.log_softmax(-1)[x]
    mask = torch.ones(n, length, dtype=torch.bool)
    true = length * kl_divergence(Categorical(logits=Q), Categorical(logits=P)).item()
    per_sequence = k3(logq, logp).sum(1)
    se = per_sequence.std().item() / math.sqrt(n)
    assert abs(sequence_kl_mean(logq, logp, mask, "k3").item() - true) < 4 * se


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(st.lists(st.tuples(logps, logps), min_size=1, max_size=5), min_size=1, max_size=4),
    extra=st.integers(min_value=1, max_value=4),
    junk=st.floats(allow_nan=True, allow_infinity=True),
)
def test_padding_never_changes_the_sequence_kl(rows: list, extra: int, junk: float) -> None:
    width = max(len(r) for r in rows)
    logq = torch.zeros(len(rows), width + extra, dtype=torch.float64)
    logp = torch.zeros_like(logq)
    for b, row in enumerate(rows):
        for t, (a, c) in enumerate(row):
            logq[b, t], logp[b, t] = a, c
    mask = prefix_mask([len(r) for r in rows], width + extra)
    base = sequence_kl_mean(logq[:, :width], logp[:, :width], mask[:, :width], "k3")
    logq[~mask], logp[~mask] = junk, -junk
    assert close(sequence_kl_mean(logq, logp, mask, "k3"), base, 1e-9)


def test_empty_batch_gives_nan() -> None:
    empty = torch.zeros(0, 3)
    assert math.isnan(sequence_kl_mean(empty, empty, torch.zeros(0, 3, dtype=torch.bool)).item())


def test_large_logits_stay_finite() -> None:
    a = torch.tensor([[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]])
    b = torch.tensor([[-1e4, 1e4, 0.0], [1e4, -1e4, 1e4]])
    kl = exact_categorical_kl(a, b)
    assert torch.isfinite(kl).all()
    assert close(kl[0], 2e4, 1e-2)  # q is one-hot on token 0, where p has log-prob -2e4


@pytest.mark.parametrize("dtype", LOW_PRECISION)
def test_low_precision_inputs(dtype: torch.dtype) -> None:
    g = torch.Generator().manual_seed(4)
    logq = -torch.rand(8, 6, generator=g, dtype=torch.float64) * 3
    logp = logq + 0.2 * torch.randn(8, 6, generator=g, dtype=torch.float64)
    mask = prefix_mask([6, 5, 4, 3, 6, 2, 1, 6], 6)
    lq, lp = logq.to(dtype), logp.to(dtype)
    for estimator in ("k1", "k2", "k3"):
        result = sequence_kl_mean(lq, lp, mask, estimator)  # type: ignore[arg-type]
        assert result.dtype == dtype
        # compared with float64 on the same rounded inputs; errors grow with the sum over 6 tokens
        reference = sequence_kl_mean(lq.double(), lp.double(), mask, estimator)  # type: ignore[arg-type]
        assert close(result.double(), reference, 6 * DTYPE_TOL[dtype]), estimator

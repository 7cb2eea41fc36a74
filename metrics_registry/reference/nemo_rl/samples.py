r"""NeMo-RL `ClippedPGLossFn` keys counted per sample: `num_valid_samples`, `positive_nll_loss`.

Both escape the global normalization of
[`batches`][metrics_registry.reference.nemo_rl.batches]: `num_valid_samples` is a raw count and
`positive_nll_loss` is normalized by the micro-batch's own token count
(`nemo_rl/algorithms/loss/loss_functions.py:331-371, 722-733, 783@7ea279ab`); the worker still
divides both by the number of global batches and the driver sums them.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference.masked import as_float
from metrics_registry.reference.nemo_rl.batches import as_global_batches, loss_masks

__all__ = ["global_valid_counts", "num_valid_samples", "positive_nll_loss"]

Tensors = torch.Tensor | Sequence


def positive_nll_loss(
    curr_logprobs: Tensors,
    rewards: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
    positive_example_nll_weight: float = 0.0,
) -> torch.Tensor:
    r"""`train/positive_nll_loss` (VAPO): mean of $-\log\pi_\theta$ over tokens of reward > 0 samples.

    Unlike the other keys it is normalized by the micro-batch's *own* count of such tokens, then
    divided by `n_GB` and summed, so it grows with the number of micro-batches (NeMo-RL PR #3791).

    Args:
        curr_logprobs: current-policy log-probabilities (token layout).
        rewards: per-sample rewards, `(G, M, B)` layout.
        token_mask: generated-token mask.
        sample_mask: per-sample mask; all ones if `None`.
        positive_example_nll_weight: μ; the key is 0 unless μ > 0 (and GRPO never passes rewards).

    Returns:
        The logged value.
    """
    if positive_example_nll_weight <= 0:
        return torch.zeros((), dtype=torch.float64)
    curr = as_global_batches(curr_logprobs, 2)
    masks = loss_masks(token_mask, sample_mask)
    rew = as_global_batches(rewards, 1)
    n_gb = len(curr)
    total = torch.zeros((), dtype=torch.float64)
    for curr_g, mask_g, rew_g in zip(curr, masks, rew, strict=True):
        for c, m, r in zip(curr_g, mask_g, rew_g, strict=True):
            correct = m * (as_float(r) > 0).to(m.dtype).unsqueeze(-1)
            count = correct.sum()
            if count > 0:
                total = total + (-as_float(c) * correct).sum() / (count + 1e-8) / n_gb
    return total


def num_valid_samples(sample_mask: Tensors) -> torch.Tensor:
    r"""`train/num_valid_samples`: the valid samples *per global batch*, not per step.

    $\frac{1}{n_{GB}}\sum_g\sum_m\sum_b s_b$.

    Args:
        sample_mask: per-sample mask, `(G, M, B)` layout.

    Returns:
        The average number of valid samples per global batch (not the step total).
    """
    samples = as_global_batches(sample_mask, 1)
    total = sum(as_float(s).sum().to(torch.float64) for gb in samples for s in gb)
    return torch.as_tensor(total, dtype=torch.float64) / len(samples)


def global_valid_counts(
    token_mask: Tensors, sample_mask: Tensors | None = None, *, drop_empty_micro_batches: bool = False
) -> dict[str, torch.Tensor]:
    r"""`train/global_valid_toks` and `train/global_valid_seqs`: per-global-batch counts, averaged.

    Each micro-batch entry carries the counts of its *global batch* (all ranks):
    $N^{tok}_g = \sum \text{token\_mask}\cdot\text{sample\_mask}$ and $N^{seq}_g = \sum \text{sample\_mask}$;
    the driver takes `np.mean` over all entries (`nemo_rl/algorithms/grpo.py:3482-3489@7ea279ab`), so
    the value is a typical global batch's count, not the step total (which is about `n_GB` times
    larger).

    Args:
        token_mask: token layout (see [`batches`][metrics_registry.reference.nemo_rl.batches]).
        sample_mask: the matching per-sample layout; all ones if `None`.
        drop_empty_micro_batches: DTensor-v2 leaves out the entries of micro-batches without any
            valid sample (`dtensor_policy_worker_v2.py:535-537@7ea279ab`); Megatron keeps them.

    Returns:
        `global_valid_toks` and `global_valid_seqs`.
    """
    masks = loss_masks(token_mask, sample_mask)
    tokens = as_global_batches(token_mask, 2)
    samples = (
        [[as_float(s) for s in gb] for gb in as_global_batches(sample_mask, 1)]
        if sample_mask is not None
        else [[torch.ones(t.shape[0], dtype=torch.float64) for t in gb] for gb in tokens]
    )
    toks: list[torch.Tensor] = []
    seqs: list[torch.Tensor] = []
    for masks_g, samples_g in zip(masks, samples, strict=True):
        gb_toks = sum(m.sum() for m in masks_g)
        gb_seqs = sum(s.sum() for s in samples_g)
        for smask in samples_g:
            if drop_empty_micro_batches and smask.sum() == 0:
                continue
            toks.append(torch.as_tensor(gb_toks, dtype=torch.float64))
            seqs.append(torch.as_tensor(gb_seqs, dtype=torch.float64))
    return {"global_valid_toks": torch.stack(toks).mean(), "global_valid_seqs": torch.stack(seqs).mean()}

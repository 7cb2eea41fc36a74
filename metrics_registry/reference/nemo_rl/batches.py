r"""NeMo-RL's reduction pipeline: micro-batches of global batches, globally normalized, then summed.

One GRPO (or PPO) step of NeMo-RL trains on `num_prompts_per_step ×
num_generations_per_prompt` samples in `n_GB` optimizer steps ("global
batches", GB) of `policy.train_global_batch_size` samples each; every GB is
split into micro-batches (mb) over the data-parallel ranks. The loss function
reduces each mb with

$$
c_{g,m} = \frac{\sum_{b,t} v_{b,t}\, M_{b,t}}{N_g + 10^{-8}}
$$

where $M = \text{token\_mask}\cdot\text{sample\_mask}$ and $N_g$ is the number
of valid tokens (or samples) of the *whole* GB, summed over all ranks
(`nemo_rl/algorithms/utils.py:212-224@7ea279ab`). The worker divides every
value whose key holds neither `_min` nor `_max` by `n_GB`
(`nemo_rl/models/automodel/train.py:527-534@7ea279ab`) and the driver sums
the list of all mb values of all ranks (`nemo_rl/algorithms/grpo.py:3469-3493@7ea279ab`):

$$
\text{logged} = \frac{1}{n_{GB}}\sum_{g=1}^{n_{GB}} \sum_{m} c_{g,m}
$$

a token-weighted mean over each GB, then an unweighted mean over the GBs.

Layout accepted by every function of this package: a tensor `(G, M, B, T)`
(global batches × micro-batches × samples × positions; per-sample tensors
`(G, M, B)`), a tensor `(M, B, T)` for a single global batch, or nested lists
`[[mb, mb, ...], [mb, ...]]` whose micro-batches may differ in shape. A
data-parallel rank's micro-batches are simply more micro-batches of the same
GB: the normalizer is already global, so ranks add up like micro-batches.
Token tensors are already shifted (`token_mask[:, 1:]` in NeMo-RL).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference.masked import as_float, masked_sum

__all__ = [
    "EPS",
    "GlobalBatches",
    "as_global_batches",
    "driver_extremum",
    "loss_masks",
    "sequence_normalized",
    "token_normalized",
]

#: NeMo-RL's `masked_mean` adds this to every denominator.
EPS = 1e-8

GlobalBatches = list[list[torch.Tensor]]


def as_global_batches(values: torch.Tensor | Sequence, item_dims: int) -> GlobalBatches:
    """`values` as a list of global batches, each a list of micro-batch tensors.

    Args:
        values: a tensor with `item_dims + 2` dimensions `(G, M, ...)`, one with
            `item_dims + 1` dimensions `(M, ...)` (a single global batch), or nested lists
            of tensors: `[[mb, ...], ...]` or `[mb, ...]`.
        item_dims: dimensions of one micro-batch, 2 for `(B, T)` token tensors, 1 for `(B,)`.

    Returns:
        `[[mb_0, mb_1, ...], ...]`, one inner list per global batch.
    """
    if isinstance(values, torch.Tensor):
        if values.dim() == item_dims + 2:
            return [list(gb) for gb in values]
        if values.dim() == item_dims + 1:
            return [list(values)]
        raise ValueError(
            f"expected {item_dims + 2} dimensions (global batches, micro-batches, ...) or"
            f" {item_dims + 1} (micro-batches, ...), got shape {tuple(values.shape)}"
        )
    items = list(values)
    if items and all(isinstance(item, torch.Tensor) and item.dim() == item_dims for item in items):
        return [[as_float(item) for item in items]]
    return [[torch.as_tensor(mb) for mb in gb] for gb in items]


def loss_masks(
    token_mask: torch.Tensor | Sequence, sample_mask: torch.Tensor | Sequence | None = None
) -> GlobalBatches:
    """Per micro-batch `token_mask · sample_mask[:, None]` as float: NeMo-RL's loss `mask`.

    Args:
        token_mask: token layout (see the module docstring), true on generated tokens.
        sample_mask: the matching per-sample layout (`(G, M, B)`...), 0 for samples masked out
            (overlong filtering, `mask_sample`, sequence log-prob error masking); all ones if `None`.

    Returns:
        The combined masks, one list of micro-batch tensors per global batch.
    """
    tokens = as_global_batches(token_mask, 2)
    if sample_mask is None:
        return [[as_float(m) for m in gb] for gb in tokens]
    samples = as_global_batches(sample_mask, 1)
    return [
        [as_float(t) * as_float(s).unsqueeze(-1) for t, s in zip(gb_t, gb_s, strict=True)]
        for gb_t, gb_s in zip(tokens, samples, strict=True)
    ]


def token_normalized(per_token: GlobalBatches, masks: GlobalBatches) -> torch.Tensor:
    r"""The logged value of a token-normalized key.

    $$
    \frac{1}{n_{GB}}\sum_g \sum_m \frac{\sum v M}{N_g + 10^{-8}}
    $$

    Args:
        per_token: per-token values, one list of `(B, T)` tensors per global batch.
        masks: the matching loss masks ([`loss_masks()`][loss_masks]).

    Returns:
        The token-weighted mean of each global batch, averaged over the global batches;
        a global batch without valid tokens contributes 0.
    """
    n_gb = len(per_token)
    total = torch.zeros((), dtype=torch.float64)
    for values_g, masks_g in zip(per_token, masks, strict=True):
        count = sum(m.sum() for m in masks_g)
        for values, mask in zip(values_g, masks_g, strict=True):
            total = total + masked_sum(values, mask != 0).to(torch.float64) / (count + EPS) / n_gb
    return total


def sequence_normalized(
    per_token: GlobalBatches, token_masks: GlobalBatches, sample_masks: GlobalBatches
) -> torch.Tensor:
    r"""The logged value of a sequence-normalized key (`token_level_loss: false`).

    Each sample's tokens are averaged first ($\sum_t v\,m / (\sum_t m + 10^{-8})$, with the
    token mask only), then the sample means are summed over the micro-batch with the sample mask and
    divided by the global number of valid samples of the GB, then averaged over the GBs.

    Args:
        per_token: per-token values, one list of `(B, T)` tensors per global batch.
        token_masks: the token masks, same layout.
        sample_masks: the sample masks, one list of `(B,)` tensors per global batch.

    Returns:
        The mean over valid samples of per-sample token means, per GB, averaged over the GBs.
    """
    n_gb = len(per_token)
    total = torch.zeros((), dtype=torch.float64)
    for values_g, tmask_g, smask_g in zip(per_token, token_masks, sample_masks, strict=True):
        count = sum(as_float(s).sum() for s in smask_g)
        for values, token_mask, smask in zip(values_g, tmask_g, smask_g, strict=True):
            tmask = as_float(token_mask)
            per_sample = masked_sum(values, tmask != 0, dim=-1) / (tmask.sum(dim=-1) + EPS)
            total = total + (per_sample * as_float(smask)).sum().to(torch.float64) / (count + EPS) / n_gb
    return total


def driver_extremum(per_token: GlobalBatches, masks: GlobalBatches, which: str) -> torch.Tensor:
    """`np.min` / `np.max` of the per-micro-batch extrema over valid tokens; `-1.0` when none.

    Args:
        per_token: per-token values, one list of `(B, T)` tensors per global batch.
        masks: the matching loss masks.
        which: `"min"` or `"max"`.

    Returns:
        The extremum over every valid token of the step. A micro-batch without valid tokens
        reports ±inf, which the driver drops; if nothing is left it logs `-1.0`
        (`nemo_rl/algorithms/grpo.py:3470-3479@7ea279ab`). Never divided by `n_GB`.
    """
    pick = torch.min if which == "min" else torch.max
    found = [
        pick(values[mask != 0])
        for gb_v, gb_m in zip(per_token, masks, strict=True)
        for values, mask in zip(gb_v, gb_m, strict=True)
        if bool((mask != 0).any())
    ]
    finite = [value for value in found if not torch.isinf(value)]
    if not finite:
        return torch.tensor(-1.0, dtype=torch.float64)
    return pick(torch.stack(finite).to(torch.float64))

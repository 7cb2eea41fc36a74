"""Masked reductions: sum, mean, variance and whitening over real tokens.

These are the building blocks of almost every token-level metric. They follow
TRL's `masked_mean` / `masked_var` / `masked_whiten` (`trl/core.py` in
v0.7, `trl/experimental/ppo/ppo_trainer.py` later) with two documented
differences at the edges:

* masked positions are *ignored* (`torch.where`), not multiplied by 0, so a
  NaN or an infinity in padding cannot leak into the result;
* an empty mask gives NaN instead of TRL's `ValueError` (`masked_var`) or
  silent 0/0.
"""

from __future__ import annotations

import torch

__all__ = [
    "as_bool_mask",
    "as_float",
    "masked_mean",
    "masked_sum",
    "masked_var",
    "masked_whiten",
]


def as_float(values: torch.Tensor | float | list) -> torch.Tensor:
    """`values` as a floating tensor: integers and booleans become float64, floats keep their dtype."""
    tensor = torch.as_tensor(values)
    return tensor if tensor.is_floating_point() else tensor.to(torch.float64)


def as_bool_mask(mask: torch.Tensor | list, like: torch.Tensor | None = None) -> torch.Tensor:
    """A 0/1 or boolean mask as `torch.bool`; `None` selects every element of `like`."""
    if mask is None:
        if like is None:
            raise ValueError("a mask of None needs a tensor to take its shape from")
        return torch.ones_like(torch.as_tensor(like), dtype=torch.bool)
    return torch.as_tensor(mask) != 0


def masked_sum(values: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    r"""Sum of `values` where `mask` is true.

    $$
    S = \sum_{i} m_i\,x_i
    $$

    Args:
        values: any shape.
        mask: same shape as `values` (bool or 0/1).
        dim: dimension to reduce; all dimensions when `None`.

    Masked positions contribute exactly 0, whatever they hold.
    """
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    selected = torch.where(keep, values, torch.zeros((), dtype=values.dtype))
    return selected.sum() if dim is None else selected.sum(dim=dim)


def masked_mean(values: torch.Tensor, mask: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    r"""Mean of `values` over the positions where `mask` is true.

    $$
    \bar x = \frac{\sum_i m_i\,x_i}{\sum_i m_i}
    $$

    Args:
        values: any shape.
        mask: same shape as `values`.
        dim: dimension to reduce (e.g. `-1` for one mean per sequence); all when `None`.

    Returns NaN where the mask selects nothing (0/0, as TRL's `masked_mean`).
    """
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    count = keep.sum() if dim is None else keep.sum(dim=dim)
    return masked_sum(values, keep, dim) / count.to(values.dtype)


def masked_var(values: torch.Tensor, mask: torch.Tensor, unbiased: bool = True) -> torch.Tensor:
    r"""Variance of `values` over the positions where `mask` is true, over all dimensions.

    $$
    \widehat{\mathrm{Var}}(x) = \frac{N}{N-1}\cdot\frac{\sum_i m_i (x_i - \bar x)^2}{N},
    \qquad N = \sum_i m_i
    $$

    Args:
        values: any shape.
        mask: same shape as `values`.
        unbiased: apply Bessel's correction $N/(N-1)$, as TRL does by default.

    Edges: NaN when the mask is empty (TRL raises `ValueError`), and NaN for a
    single selected element with `unbiased=True` (TRL divides by zero there).
    """
    values = as_float(values)
    keep = as_bool_mask(mask).expand_as(values)
    count = keep.sum().to(values.dtype)
    mean = masked_mean(values, keep)
    variance = masked_sum((values - mean) ** 2, keep) / count
    if unbiased:
        if count <= 1:
            return torch.full((), float("nan"), dtype=values.dtype)
        variance = variance * (count / (count - 1))
    return variance


def masked_whiten(
    values: torch.Tensor, mask: torch.Tensor, shift_mean: bool = True, eps: float = 1e-8
) -> torch.Tensor:
    r"""Whiten `values` with the masked mean and Bessel-corrected masked variance.

    $$
    \tilde x_i = \frac{x_i - \bar x}{\sqrt{\widehat{\mathrm{Var}}(x) + \epsilon}}
    \;(+\,\bar x \text{ if not shift\_mean})
    $$

    Args:
        values: any shape.
        mask: same shape; only the selected positions define the mean and variance.
        shift_mean: `False` adds the mean back (scale only), as TRL does for `whiten_rewards`.
        eps: added to the variance, `1e-8` in TRL.

    Every position is transformed, masked ones too (TRL fills them afterwards
    where it needs to). The statistics are taken over all dimensions at once.
    """
    values = as_float(values)
    mean, var = masked_mean(values, mask), masked_var(values, mask)
    whitened = (values - mean) * torch.rsqrt(var + eps)
    if not shift_mean:
        whitened = whitened + mean
    return whitened

"""Shared helpers of the reference-implementation tests (tests/reference/ and its per-family folders).

Tolerances per dtype compare a low-precision result with the float64 one:
bfloat16 keeps 8 bits of mantissa, float16 11, float32 24.
"""

from __future__ import annotations

import torch

# absolute tolerance for values of order 1, per input dtype
DTYPE_TOL = {
    torch.float64: 1e-10,
    torch.float32: 1e-5,
    torch.float16: 5e-3,
    torch.bfloat16: 4e-2,
}
LOW_PRECISION = [torch.float32, torch.float16, torch.bfloat16]


def prefix_mask(lengths: list[int] | torch.Tensor, width: int) -> torch.Tensor:
    """(B, width) bool mask, true for the first ``lengths[b]`` positions of row ``b``."""
    lengths = torch.as_tensor(lengths)
    return torch.arange(width).unsqueeze(0) < lengths.unsqueeze(-1)


def random_prefix_mask(
    generator: torch.Generator, batch: int, width: int, min_length: int = 1
) -> torch.Tensor:
    lengths = torch.randint(min_length, width + 1, (batch,), generator=generator)
    return prefix_mask(lengths, width)


def close(a: torch.Tensor | float, b: torch.Tensor | float, atol: float = 1e-10) -> bool:
    a = torch.as_tensor(a, dtype=torch.float64)
    b = torch.as_tensor(b, dtype=torch.float64)
    return bool(torch.allclose(a, b, rtol=0.0, atol=atol, equal_nan=True))

"""Run the registry's worked examples through their reference implementations.

A worked example (`examples:` of a metric) holds keyword arguments and the
expected result. Nested lists become tensors: booleans give `torch.bool`,
integers only give `torch.int64`, anything else `torch.float64`, where
`null` stands for NaN (a reward function that returned `None`). Scalars
and strings are passed unchanged. In `expected`, lists are compared as
tensors and `null` matches NaN.

>>> from metrics_registry.reference.examples import to_tensor
>>> to_tensor([[True, False]]).dtype, to_tensor([1, 2]).dtype, to_tensor([0.5, None]).tolist()
(torch.bool, torch.int64, [0.5, nan])
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from typing import Any

import torch

__all__ = [
    "ExampleMismatch",
    "build_inputs",
    "compare",
    "resolve",
    "run_example",
    "select_output",
    "to_tensor",
]


class ExampleMismatch(AssertionError):
    """A worked example's result differs from its expected value; the message says where."""


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def to_tensor(value: list) -> torch.Tensor:
    """A nested list as a tensor, with the dtype rules of the module docstring."""
    leaves = _leaves(value)
    if leaves and all(isinstance(leaf, bool) for leaf in leaves):
        return torch.tensor(value, dtype=torch.bool)
    if leaves and all(isinstance(leaf, int) and not isinstance(leaf, bool) for leaf in leaves):
        return torch.tensor(value, dtype=torch.int64)
    for leaf in leaves:
        if leaf is not None and not isinstance(leaf, int | float):
            raise TypeError(f"cannot make a tensor of a list holding {leaf!r}")

    def nan_for_none(item: Any) -> Any:
        if isinstance(item, list):
            return [nan_for_none(x) for x in item]
        return math.nan if item is None else float(item)

    try:
        return torch.tensor(nan_for_none(value), dtype=torch.float64)
    except ValueError as error:  # ragged lists
        raise TypeError(f"cannot make a tensor of {value!r}: {error}") from error


def build_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of a worked example, lists turned into tensors."""
    return {name: to_tensor(value) if isinstance(value, list) else value for name, value in inputs.items()}


def resolve(reference: str) -> Callable[..., Any]:
    """Import the function named by a dotted path such as `metrics_registry.reference.kl.k3`."""
    module_name, _, attribute = reference.rpartition(".")
    module = importlib.import_module(module_name)
    return getattr(module, attribute)


def select_output(result: Any, output: str | None) -> Any:
    """The field ``output`` of a reference's result (a mapping key or an attribute); all of it if ``None``."""
    if output is None:
        return result
    if isinstance(result, Mapping):
        return result[output]
    return getattr(result, output)


def compare(actual: Any, expected: Any, tolerance: float, where: str = "result") -> None:
    """Raise [`ExampleMismatch`][ExampleMismatch] unless `actual` matches `expected` within `tolerance`."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            raise ExampleMismatch(f"{where}: expected a mapping, got {type(actual).__name__}")
        for key, value in expected.items():
            if key not in actual:
                raise ExampleMismatch(f"{where}: no field {key!r} in the result")
            compare(actual[key], value, tolerance, f"{where}[{key!r}]")
        return
    if isinstance(expected, str):
        if actual != expected:
            raise ExampleMismatch(f"{where}: expected {expected!r}, got {actual!r}")
        return
    want = to_tensor(expected) if isinstance(expected, list) else None
    if want is None:
        want = torch.tensor(math.nan if expected is None else float(expected), dtype=torch.float64)
    got = torch.as_tensor(actual).detach().to("cpu")
    if torch.bool in (want.dtype, got.dtype):
        if got.shape != want.shape or not torch.equal(got.to(torch.bool), want.to(torch.bool)):
            raise ExampleMismatch(f"{where}: expected {want.tolist()}, got {got.tolist()}")
        return
    got = got.to(torch.float64)
    if got.shape != want.shape:
        raise ExampleMismatch(f"{where}: expected shape {tuple(want.shape)}, got {tuple(got.shape)}")
    if not torch.allclose(got, want.to(torch.float64), rtol=0.0, atol=tolerance, equal_nan=True):
        raise ExampleMismatch(
            f"{where}: expected {want.tolist()}, got {got.tolist()} (tolerance {tolerance})"
        )


def run_example(reference: str, example: Any) -> Any:
    """Call `reference` with the example's inputs and check its result; return the compared value.

    `example` is a `metrics_registry.models.WorkedExample` or a mapping with the
    same fields (`inputs`, `expected`, optional `output` and `tolerance`).
    """
    data = example if isinstance(example, Mapping) else example.model_dump()
    function = resolve(reference)
    result = select_output(function(**build_inputs(data["inputs"])), data.get("output"))
    compare(result, data["expected"], data.get("tolerance", 1e-6))
    return result

"""Reading a capture file: `torch.load(weights_only=True)` and a shape check, one-line errors.

A capture comes from someone else's training run, so it is untrusted: the
unpickler only rebuilds tensors and plain containers (no code runs), and
every field is checked before the kit reads it, so that a malformed file
gives a `CaptureError` naming the file and the field instead of a traceback.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

from metrics_registry.conformance.capture import (
    FORMAT,
    CaptureError,
    Layout,
    MicroBatch,
    StepCapture,
    tolerance,
)

__all__ = ["load_capture", "parse_capture"]

#: Bound on what a capture may hold, so that a hostile file cannot make the check run for hours.
MAX_MICRO_BATCHES = 10_000
MAX_ELEMENTS = 50_000_000


def load_capture(path: Path) -> StepCapture:
    import torch

    if not path.is_file():
        raise CaptureError(f"{path}: no such file; give the path of a capture saved with StepCapture.save")
    try:
        with warnings.catch_warnings():  # torch warns about the pickle protocol of files it then refuses
            warnings.simplefilter("ignore")
            data = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as error:  # torch's readers raise many types on arbitrary bytes
        if isinstance(error, MemoryError):
            raise CaptureError(f"{path}: too large to read; capture fewer steps") from None
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CaptureError(
            f"{path}: not a capture torch can read safely ({first[:200]}); save one with StepCapture.save"
        ) from None
    return parse_capture(data, str(path))


def _int(value: Any, where: str, source: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or value > 1_000_000:
        raise CaptureError(
            f"{source}: {where} must be an integer from {minimum} to 1000000, not {value!r:.60}"
        )
    return value


def _tensors(value: Any, where: str, source: str, budget: list[int]) -> dict[str, Any]:
    import torch

    if not isinstance(value, dict):
        raise CaptureError(f"{source}: {where} must be a mapping of names to tensors")
    out: dict[str, Any] = {}
    for name, tensor in value.items():
        if not isinstance(name, str):
            raise CaptureError(f"{source}: {where} has a name that is not a string")
        if isinstance(tensor, list | tuple) and all(isinstance(t, torch.Tensor) for t in tensor):
            parts = list(tensor)
        elif isinstance(tensor, torch.Tensor):
            parts = [tensor]
        else:
            raise CaptureError(f"{source}: {where}[{name!r:.40}] must be a tensor (or a list of tensors)")
        for part in parts:
            if part.is_complex() or part.layout != torch.strided:
                raise CaptureError(f"{source}: {where}[{name!r:.40}] must be a dense real tensor")
            budget[0] += part.numel()
            if budget[0] > MAX_ELEMENTS:
                raise CaptureError(f"{source}: more than {MAX_ELEMENTS} tensor elements; capture fewer steps")
        out[name] = tensor if isinstance(tensor, torch.Tensor) else parts
    return out


def _scalars(value: Any, where: str, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CaptureError(f"{source}: {where} must be a mapping")
    for name, item in value.items():
        if not isinstance(name, str) or not (item is None or isinstance(item, bool | int | float | str)):
            raise CaptureError(
                f"{source}: {where}[{name!r:.40}] must be a number, a string, a boolean or None"
            )
        if isinstance(item, float) and math.isnan(item):
            raise CaptureError(f"{source}: {where}[{name!r:.40}] is NaN")
    return dict(value)


def parse_capture(data: Any, source: str = "the capture") -> StepCapture:
    """A `StepCapture` from the plain data `StepCapture.to_dict` writes, every field checked."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CaptureError(
            f"{source}: not a capture (no 'format': {FORMAT!r}); save one with StepCapture.save"
        )
    micro = data.get("micro_batches")
    if not isinstance(micro, list) or not micro:
        raise CaptureError(f"{source}: 'micro_batches' must be a non-empty list")
    if len(micro) > MAX_MICRO_BATCHES:
        raise CaptureError(f"{source}: more than {MAX_MICRO_BATCHES} micro-batches")
    budget = [0]
    batches = []
    for index, item in enumerate(micro):
        where = f"micro_batches[{index}]"
        if not isinstance(item, dict):
            raise CaptureError(f"{source}: {where} must be a mapping")
        batches.append(
            MicroBatch(
                tensors=_tensors(item.get("tensors"), f"{where}.tensors", source, budget),
                mini_batch=_int(item.get("mini_batch", 0), f"{where}.mini_batch", source),
                epoch=_int(item.get("epoch", 0), f"{where}.epoch", source),
                rank=_int(item.get("rank", 0), f"{where}.rank", source),
            )
        )
    layout = data.get("layout", {})
    if not isinstance(layout, dict):
        raise CaptureError(f"{source}: 'layout' must be a mapping")
    others = layout.get("others", {})
    if not isinstance(others, dict) or not all(isinstance(k, str) for k in others):
        raise CaptureError(f"{source}: 'layout.others' must map names to integers")
    parsed_layout = Layout(
        mini_batches=_int(layout.get("mini_batches", 1), "layout.mini_batches", source, 1),
        epochs=_int(layout.get("epochs", 1), "layout.epochs", source, 1),
        grad_accum=_int(layout.get("grad_accum", 1), "layout.grad_accum", source, 1),
        world_size=_int(layout.get("world_size", 1), "layout.world_size", source, 1),
        others={
            name: _int(count, f"layout.others[{name!r:.40}]", source, 1) for name, count in others.items()
        },
    )
    names = data.get("reward_names", [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise CaptureError(f"{source}: 'reward_names' must be a list of strings")
    dtype = data.get("dtype", "float32")
    if not isinstance(dtype, str):
        raise CaptureError(f"{source}: 'dtype' must be a string such as 'float32'")
    try:
        tolerance(dtype)
    except CaptureError as error:
        raise CaptureError(f"{source}: {error}") from None
    return StepCapture(
        micro_batches=batches,
        layout=parsed_layout,
        config=_scalars(data.get("config", {}), "config", source),
        step=_tensors(data.get("step", {}), "step", source, budget),
        reward_names=names,
        dtype=dtype,
    )

"""Capture files: saved with torch.save, read with weights_only=True, malformed ones refused in one line."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from _grpo_capture import grpo_capture

from metrics_registry.conformance import CaptureError, StepCapture, check
from metrics_registry.conformance.capture import Layout, tolerance


def test_a_saved_capture_reads_back_and_checks_the_same(tmp_path: Path) -> None:
    capture = grpo_capture()
    path = tmp_path / "step.pt"
    capture.save(path)
    again = StepCapture.load(path)
    assert again.layout == capture.layout and again.reward_names == capture.reward_names
    assert torch.equal(again.micro_batches[3]["logits"], capture.micro_batches[3]["logits"])
    logged = {"kl": 0.0, "entropy": 1.0}
    assert [r.line() for r in check(again, logged)] == [r.line() for r in check(capture, logged)]


class Boom:
    def __reduce__(self) -> tuple:
        return (print, ("code ran",))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not a torch file", "not a capture torch can read safely"),
        ("pickle", "not a capture torch can read safely"),
        ({"format": "other"}, "not a capture (no 'format'"),
        (
            {"format": "metrics-registry-capture/1", "micro_batches": []},
            "'micro_batches' must be a non-empty list",
        ),
        (
            {"format": "metrics-registry-capture/1", "micro_batches": [{"tensors": {"mask": 3}}]},
            "must be a tensor",
        ),
        (
            {
                "format": "metrics-registry-capture/1",
                "micro_batches": [{"tensors": {}}],
                "layout": {"epochs": -1},
            },
            "layout.epochs must be an integer",
        ),
        (
            {"format": "metrics-registry-capture/1", "micro_batches": [{"tensors": {}}], "dtype": "float8"},
            "unknown dtype 'float8'",
        ),
    ],
    ids=[
        "garbage",
        "code-in-pickle",
        "other-format",
        "no-batches",
        "not-a-tensor",
        "bad-layout",
        "bad-dtype",
    ],
)
def test_a_malformed_capture_is_refused_in_one_line(tmp_path: Path, content: object, message: str) -> None:
    path = tmp_path / "bad.pt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content == "pickle":
        path.write_bytes(pickle.dumps(Boom()))
    else:
        torch.save(content, str(path))
    with pytest.raises(CaptureError) as error:
        StepCapture.load(path)
    assert message in str(error.value) and str(path) in str(error.value)
    assert "\n" not in str(error.value)


def test_a_missing_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="no such file"):
        StepCapture.load(tmp_path / "nothing.pt")


def test_layout_counts_name_every_count_and_pair() -> None:
    counts = Layout(mini_batches=2, epochs=3, others={"chunks": 4}).counts(micro_batches=6)
    assert counts["mini-batches × epochs"] == 6 and counts["epochs × chunks"] == 12
    assert "world size" not in counts  # a count of 1 cannot explain a factor


def test_tolerance_is_looser_for_lower_precision() -> None:
    assert (
        tolerance("float64")[0] < tolerance("float32")[0] < tolerance("float16")[0] < tolerance("bfloat16")[0]
    )
    with pytest.raises(CaptureError):
        tolerance("int8")


def test_importing_the_package_does_not_import_torch() -> None:
    code = "import sys, metrics_registry.conformance as c; c.__doc__; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)

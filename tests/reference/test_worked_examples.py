"""Every worked example stored in the registry, run through its reference implementation."""

from __future__ import annotations

from pathlib import Path

import pytest

import metrics_registry
from metrics_registry.reference.examples import ExampleMismatch, compare, run_example, to_tensor

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = metrics_registry.load([ROOT / "extensions" / "multiturn_grpo.yaml"])
CASES = [
    pytest.param(entry.metric.reference, example, id=f"{entry.id}#{position + 1}")
    for entry in REGISTRY
    if entry.metric.reference
    for position, example in enumerate(entry.metric.examples)
]


@pytest.mark.parametrize(("reference", "example"), CASES)
def test_worked_example(reference: str, example: metrics_registry.models.WorkedExample) -> None:
    run_example(reference, example)


def test_every_computable_metric_has_a_reference_and_an_example() -> None:
    lacking = [
        entry.id
        for entry in REGISTRY
        if entry.metric.computable and not (entry.metric.reference and entry.metric.examples)
    ]
    undeclared = [entry.id for entry in REGISTRY if entry.metric.computable is None]
    assert not lacking, lacking
    assert not undeclared, f"entries that do not say whether they are computable: {undeclared}"


def test_every_reference_module_is_covered_by_examples() -> None:
    # metrics_registry.reference.<shared module or family package>...
    modules = {entry.metric.reference.split(".")[2] for entry in REGISTRY if entry.metric.reference}
    assert modules >= {"kl", "entropy", "ppo", "legacy_ppo", "grpo", "lengths", "multiturn"}


def test_the_runner_reports_a_wrong_expected_value() -> None:
    example = {
        "inputs": {"logq": [-1.0], "logp": [-1.5]},
        "expected": [0.4],
        "tolerance": 1e-6,
    }
    with pytest.raises(ExampleMismatch, match="expected"):
        run_example("metrics_registry.reference.kl.k1", example)
    run_example("metrics_registry.reference.kl.k1", {**example, "expected": [0.5]})


def test_tensor_conversion_rules() -> None:
    import torch

    assert to_tensor([[True, False]]).dtype == torch.bool
    assert to_tensor([1, 2]).dtype == torch.int64
    assert to_tensor([1, 2.5]).dtype == torch.float64
    assert to_tensor([[None, 1]]).isnan().tolist() == [[True, False]]
    with pytest.raises(TypeError):
        to_tensor([[1.0], [1.0, 2.0]])
    with pytest.raises(ExampleMismatch, match="shape"):
        compare(torch.zeros(2), [0.0, 0.0, 0.0], 1e-6)
    compare({"a": torch.tensor(1.0), "b": float("nan")}, {"a": 1.0, "b": None}, 0.0)

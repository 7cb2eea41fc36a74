"""`metrics-registry conform CAPTURE --logged FILE`: exit codes, diagnoses, languages, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _grpo_capture import grpo_capture
from click.testing import CliRunner

from metrics_registry.cli import cli
from metrics_registry.conformance.families.trl_grpo import metrics
from metrics_registry.conformance.metric import evaluate


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, dict[str, float]]:
    capture = grpo_capture()
    capture.save(tmp_path / "step.pt")
    table = metrics(capture)
    values = {k: evaluate(m, capture) for k, m in table.items() if not k.startswith("completions/")}
    return tmp_path, values


def run(folder: Path, values: dict[str, float], *args: str) -> tuple[int, str]:
    (folder / "logged.json").write_text(json.dumps(values), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["conform", str(folder / "step.pt"), "--logged", str(folder / "logged.json"), *args]
    )
    return result.exit_code, result.output


def test_a_conforming_step_exits_0(files: tuple[Path, dict[str, float]]) -> None:
    folder, values = files
    code, output = run(folder, {**values, "learning_rate": 1e-6}, "--version", "1.16.0")
    assert code == 0, output
    assert "entropy: agrees" in output and "learning_rate: no reference, not checked" in output
    assert output.rstrip().endswith(f"{len(values)} agree, 0 disagree, 1 not checked")


def test_a_wrong_key_exits_1_with_its_diagnosis(files: tuple[Path, dict[str, float]]) -> None:
    folder, values = files
    code, output = run(folder, {**values, "grad_norm": values["grad_norm"] * 4})
    assert code == 1
    assert (
        "grad_norm: logged" in output
        and "layout_factor: multiplied by 4 = the number of micro-batches" in output
    )


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("vi", "bị nhân với 4 = số micro-batch"), ("zh", "乘以了 4 = 微批次")],
)
def test_the_report_is_translated(files: tuple[Path, dict[str, float]], lang: str, expected: str) -> None:
    folder, values = files
    code, output = run(folder, {**values, "grad_norm": values["grad_norm"] * 4}, "--lang", lang)
    assert code == 1 and expected in output, output


def test_json_output_is_data(files: tuple[Path, dict[str, float]]) -> None:
    folder, values = files
    code, output = run(folder, {**values, "kl": 0.0}, "--format", "json")
    rows = {row["key"]: row for row in json.loads(output)}
    assert code == 1
    assert rows["kl"]["diagnosis"] == "constant_zero" and rows["kl"]["status"] == "disagrees"
    assert rows["kl"]["reference"] == "metrics_registry.reference.grpo.loss.kl_mean"
    assert rows["entropy"]["status"] == "agrees"

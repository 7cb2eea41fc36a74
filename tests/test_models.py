"""Field-level rules of the models."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from metrics_registry.models import Metric, VersionRange


def _metric(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "key": "a/b",
        "category": "kl",
        "title": "T",
        "summary": "One sentence, e.g. this one.",
        "details": "D",
        "aggregation": {"reduce": "mean", "over": "tokens", "across_processes": "gather"},
        "unit": "nats",
    }
    data.update(overrides)
    return data


def test_minimal_metric_defaults() -> None:
    metric = Metric.model_validate(_metric())
    assert metric.modes == ["train"]
    assert metric.goal == "none"
    assert metric.kind == "scalar"
    assert metric.crucial is False


@pytest.mark.parametrize(
    "summary",
    ["No full stop", "First sentence. Second sentence.", "x" * 240 + "."],
)
def test_summary_is_one_short_sentence(summary: str) -> None:
    with pytest.raises(ValidationError):
        Metric.model_validate(_metric(summary=summary))


def test_summary_allows_abbreviations_and_code() -> None:
    Metric.model_validate(_metric(summary="Mean of `x.sum()` over tokens, i.e. the KL vs. the reference."))


def test_versions() -> None:
    versions = VersionRange(introduced="0.9.3", removed="0.29.0")
    assert versions.contains("0.11.0")
    assert not versions.contains("0.29.0")
    assert not versions.contains("0.7.10")
    assert VersionRange(introduced="0.14.0").contains("99.0")
    with pytest.raises(ValidationError, match="later than"):
        VersionRange(introduced="1.0", removed="1.0")
    with pytest.raises(ValidationError):
        VersionRange(introduced="v1")


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"id": "r", "kind": "range", "suggests": "s"}, "needs 'min', 'max'"),
        ({"id": "r", "kind": "range", "min": 2, "max": 1, "suggests": "s"}, "larger than"),
        ({"id": "r", "kind": "spike", "factor": 0.5, "suggests": "s"}, "greater than 1"),
        ({"id": "r", "kind": "wobble", "suggests": "s"}, "does not match any of the expected tags"),
        ({"id": "R", "kind": "finite", "suggests": "s"}, "should match pattern"),
    ],
)
def test_healthy_rules(rule: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Metric.model_validate(_metric(healthy=[rule]))


def test_unknown_field_and_duplicate_reference() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        Metric.model_validate(_metric(crucal=True))
    with pytest.raises(ValidationError, match="listed twice"):
        Metric.model_validate(_metric(see_also=["x", "x"]))


def test_models_are_frozen() -> None:
    metric = Metric.model_validate(_metric())
    with pytest.raises(ValidationError):
        metric.key = "other"  # type: ignore[misc]

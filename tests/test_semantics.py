"""Known issues, meaning dependencies and reduction stages: what the model accepts."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from metrics_registry.modelbase import VersionRange
from metrics_registry.semantics import KnownIssue, MeaningDependency, ReductionStep


def _issue(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "url": "https://github.com/huggingface/trl/pull/2531",
        "affects": {"introduced": "0.17.0", "removed": "1.13.0"},
        "effect": "deflated",
        "description": "Averaged over unwritten cells.",
    }
    data.update(overrides)
    return data


def test_a_known_issue() -> None:
    issue = KnownIssue.model_validate(
        _issue(when=[{"option": "num_mini_batches", "op": ">", "value": 1}], fixed_in="1.13.0")
    )
    assert issue.effect == "deflated"
    assert issue.affects.contains("1.12.0") and not issue.affects.contains("1.13.0")
    assert [c.text() for c in issue.when] == ["num_mini_batches > 1"]


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "http://github.com/huggingface/trl/pull/1",
        "https://",
        "https:///path",
        "//github.com/x",
        "https://github.com/a b",
        "https://github.com/\x1b[2J",
        "https://user:secret@github.com/x",
        "https://github.com/" + "a" * 500,
        "",
    ],
)
def test_a_known_issue_links_to_an_https_page(url: str) -> None:
    with pytest.raises(ValidationError):
        KnownIssue.model_validate(_issue(url=url))


@pytest.mark.parametrize("effect", ["Inflated", "wrong_sign", "bad", ""])
def test_effects_are_a_closed_list(effect: str) -> None:
    with pytest.raises(ValidationError):
        KnownIssue.model_validate(_issue(effect=effect))


def test_fixed_in_comes_after_the_first_affected_release() -> None:
    with pytest.raises(ValidationError, match="must be later than the first affected release"):
        KnownIssue.model_validate(_issue(fixed_in="0.16.0"))


@pytest.mark.parametrize(
    "version", ["1" * 10 + ".0", "9" * 5000 + ".0", "1.0.0.0", "v1.0", "1", "1.0-rc1", " 1.0"]
)
def test_release_numbers_are_short_plain_numbers(version: str) -> None:
    """A huge number would make every comparison convert a huge integer (a traceback in packaging)."""
    with pytest.raises(ValidationError):
        VersionRange.model_validate({"introduced": version})
    with pytest.raises(ValidationError):
        KnownIssue.model_validate(_issue(affects={"introduced": "0.1", "removed": version}))


def test_version_range_overlap_and_text() -> None:
    a = VersionRange(introduced="0.17.0", removed="1.13.0")
    assert a.overlaps(VersionRange(introduced="1.0"))
    assert not a.overlaps(VersionRange(introduced="1.13.0"))
    assert not a.overlaps(VersionRange(introduced="0.1", removed="0.17.0"))
    assert a.text() == "TRL ≥ 0.17.0, < 1.13.0"
    assert VersionRange(introduced="2.0").text("verl") == "verl ≥ 2.0"


def test_meaning_dependency_needs_an_effect_and_a_field_name() -> None:
    dependency = MeaningDependency(option="kl_estimator", condition='== "k3"', effect="k3 instead of k1.")
    assert dependency.option == "kl_estimator"
    with pytest.raises(ValidationError):
        MeaningDependency.model_validate({"option": "kl_estimator", "condition": '== "k3"'})
    with pytest.raises(ValidationError):
        MeaningDependency(option="kl estimator", condition="== 1", effect="x")
    with pytest.raises(ValidationError):
        MeaningDependency(option="a", condition="x" * 201, effect="x")


def test_reduction_stages_are_closed_lists() -> None:
    step = ReductionStep.model_validate({"level": "micro-batch", "reduce": "token-weighted-mean"})
    assert (step.level, step.reduce, step.note) == ("micro-batch", "token-weighted-mean", None)
    for bad in ({"level": "microbatch", "reduce": "mean"}, {"level": "rank", "reduce": "average"}):
        with pytest.raises(ValidationError):
            ReductionStep.model_validate(bad)

"""The issue's table of public metrics-only bugs (tests/fixtures/conformance/): each is caught and named.

For every case: the inputs are regenerated from the file's seed, the
framework's own logging code (buggy and fixed, tests/conformance/_framework_code.py)
reproduces the stored numbers, the kit gives the buggy value the expected
diagnosis, and the fixed value agrees with no false alarm.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from _framework_code import CODE

from metrics_registry.conformance import check_value
from metrics_registry.conformance.spec import metric_from_spec
from metrics_registry.conformance.synthetic import synthetic_capture

FIXTURES = Path(__file__).parent.parent / "fixtures" / "conformance"
CASES = [
    pytest.param(path, index, id=f"{path.stem}:{key['key']}")
    for path in sorted(FIXTURES.glob("*.toml"))
    for index, key in enumerate(tomllib.loads(path.read_text(encoding="utf-8"))["keys"])
]


def test_every_bug_of_the_issue_table_is_a_case() -> None:
    stems = {path.stem for path in FIXTURES.glob("*.toml")}
    assert stems == {
        "sb3-149", "rlinf-1471", "rlinf-1529", "rlinf-1247", "verl-5766", "verl-4711",
        "verl-972", "verl-7817", "nemo-rl-1426", "trl-ppo-1.12", "trl-6078",
    }  # fmt: skip
    assert {case for case, _ in CODE} == stems


@pytest.mark.parametrize(("path", "index"), CASES)
def test_the_bug_is_diagnosed_and_the_fix_passes(path: Path, index: int) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    case = data["keys"][index]
    capture = synthetic_capture(data["inputs"])
    buggy_code, fixed_code = CODE[(path.stem, case["key"])]
    # the stored numbers are what the framework's code logs on these inputs
    assert buggy_code(capture) == pytest.approx(case["logged"], rel=1e-6, abs=1e-9)
    assert fixed_code(capture) == pytest.approx(case["fixed"], rel=1e-6, abs=1e-9)
    metric = metric_from_spec({"key": case["key"], **case["metric"]})

    buggy = check_value(capture, case["logged"], metric)
    assert buggy.status == "disagrees", buggy.line()
    assert buggy.diagnosis == case["diagnosis"], buggy.line()
    assert case.get("explanation_contains", "") in (buggy.cause() or ""), buggy.line()

    fixed = check_value(capture, case["fixed"], metric)
    assert fixed.status == "agrees", fixed.line()
    assert fixed.diagnosis is None

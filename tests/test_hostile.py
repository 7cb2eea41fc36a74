"""Every hostile input of ``tests/fixtures/hostile/``, run through the real command line.

For each case: the exit code is the one expected, no traceback, the expected
words are there, and no file the command was not asked to write changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _hostile_cases import HANG_GUARD_SECONDS, Case, load_cases, run_case

CASES = load_cases()


def test_there_are_cases_for_every_class() -> None:
    folders = {case.folder for case in CASES}
    assert {"hangs", "validation", "tracebacks"} <= folders


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_case(case: Case, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
    assert outcome.returncode is not None, f"still running after {HANG_GUARD_SECONDS} s: a hang"
    assert "Traceback" not in outcome.output, outcome.output
    assert outcome.returncode == case.exit, outcome.output
    for text in case.output_contains:
        assert text in outcome.output, outcome.output
    for text in case.output_excludes:
        assert text not in outcome.output, outcome.output
    allowed = set(case.writes)
    changed = {
        path
        for path in outcome.before.keys() | outcome.after.keys()
        if outcome.before.get(path) != outcome.after.get(path) and path not in allowed
    }
    assert not changed, f"files changed that the command was not asked to write: {sorted(changed)}"

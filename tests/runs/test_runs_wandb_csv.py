"""W&B CSV exports that are damaged: every row is read or reported, none disappears in silence."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from metrics_registry.runs import LogError, read_log

HEADER = '"Step","run - kl","run - entropy"\n'
ROWS = '"1","0.02","0.9"\n"2","0.03","0.8"\n'


def read(tmp_path: Path, text: str) -> object:
    path = tmp_path / "export.csv"
    path.write_text(text, encoding="utf-8")
    (run,) = read_log(path)
    return run


def test_a_whole_export_has_no_problem(tmp_path: Path) -> None:
    run = read(tmp_path, HEADER + ROWS)
    assert run.problems == []  # type: ignore[attr-defined]
    assert [p.value for p in run.series["kl"]] == [0.02, 0.03]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("tail", "reason"),
    [
        ('"3","0.0', "the last row is cut: a quoted cell is not closed"),
        ('"3",', "the last row is cut: 2 of 3 cells"),
        ('"3",\n\n', "the last row is cut: 2 of 3 cells"),  # blank lines after it change nothing
    ],
    ids=["in-a-quoted-cell", "short-row", "short-row-then-blank-lines"],
)
def test_a_cut_last_row_stops_reading_there(tmp_path: Path, tail: str, reason: str) -> None:
    run = read(tmp_path, HEADER + ROWS + tail)
    (problem,) = run.problems  # type: ignore[attr-defined]
    assert (problem.kind, problem.line, problem.read, problem.byte) == ("stopped", 4, 2, None)
    assert problem.reason.startswith(reason)
    assert [p.step for p in run.series["kl"]] == [1, 2]  # type: ignore[attr-defined]


def test_a_short_row_before_other_rows_is_damage(tmp_path: Path) -> None:
    with pytest.raises(LogError, match=r"export\.csv:3: 2 cells where the header has 3"):
        read(tmp_path, HEADER + '"1","0.02","0.9"\n"2","0.03"\n"3","0.04","0.7"\n')


def test_a_cut_first_row_is_nothing_readable(tmp_path: Path) -> None:
    with pytest.raises(LogError, match=r"export\.csv:2: 2 cells where the header has 3"):
        read(tmp_path, HEADER + '"1",')


def test_a_whole_last_row_without_a_line_break_is_read_with_a_warning(tmp_path: Path) -> None:
    run = read(tmp_path, HEADER + ROWS + '"3","0.04","0.7"')
    (problem,) = run.problems  # type: ignore[attr-defined]
    assert (problem.kind, problem.line) == ("unterminated", 4)
    assert [p.step for p in run.series["kl"]] == [1, 2, 3]  # type: ignore[attr-defined]


def test_nul_bytes_are_removed_and_reported_with_their_lines(tmp_path: Path) -> None:
    run = read(tmp_path, HEADER + '"1","0.\x0002","0.9"\n"2","0.03","0.8"\n"3","\x00\x000.04","0.7"\n')
    (problem,) = run.problems  # type: ignore[attr-defined]
    assert (problem.kind, problem.lines) == ("nul-bytes", (2, 4))
    assert [p.value for p in run.series["kl"]] == [0.02, 0.03, 0.04]  # type: ignore[attr-defined]


def test_booleans_and_non_finite_text_are_values(tmp_path: Path) -> None:
    run = read(tmp_path, '"Step","run - kl","run - stopped"\n"1","NaN","false"\n"2","-inf","TRUE"\n')
    kl = [p.value for p in run.series["kl"]]  # type: ignore[attr-defined]
    assert math.isnan(kl[0]) and kl[1] == -math.inf
    assert [p.value for p in run.series["stopped"]] == [0.0, 1.0]  # type: ignore[attr-defined]


def test_a_5000_digit_cell_is_infinite(tmp_path: Path) -> None:
    run = read(tmp_path, HEADER + '"1","' + "9" * 5000 + '","0.9"\n')
    assert run.series["kl"][0].value == math.inf  # type: ignore[attr-defined]

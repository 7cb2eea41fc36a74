"""The build's output folder: refused when not ours, swapped in whole, leftovers of killed builds."""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from pathlib import Path

import pytest

from metrics_registry.site import output as site_output
from metrics_registry.site.output import (
    MARKER,
    OutputRefused,
    build_lock,
    check_output,
    claim_work,
    clean_stale,
    publishing,
)


def _site(folder: Path, text: str) -> Path:
    """A folder as a previous build left it."""
    folder.mkdir(parents=True)
    (folder / MARKER).write_text("made by metrics-registry build\n")
    (folder / "index.html").write_text(text)
    return folder


def _build(output: Path, text: str) -> None:
    with publishing(output) as stage:
        (stage.path / "index.html").write_text(text)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (".", "it is the project root"),
        ("..", "it holds the project root"),
        ("build", "it holds the build's work folder"),
        ("build/docs/en", "it is inside the build's work folder"),
    ],
)
def test_the_project_and_its_work_folder_are_refused(tmp_path: Path, name: str, message: str) -> None:
    root = tmp_path / "project"
    (root / "build").mkdir(parents=True)
    output = (root / name).resolve()
    with pytest.raises(OutputRefused, match=message):
        check_output(output, root=root, work=root / "build")


def test_folders_not_made_by_the_build_are_refused(tmp_path: Path) -> None:
    (tmp_path / "clone" / ".git").mkdir(parents=True)
    with pytest.raises(OutputRefused, match=r"holds \.git"):
        check_output(tmp_path / "clone")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(OutputRefused, match="files this tool did not write") as caught:
        check_output(tmp_path / "notes")
    assert caught.value.exit_code == 2
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputRefused, match="not a folder"):
        check_output(tmp_path / "file")


def test_missing_empty_and_marked_folders_are_accepted(tmp_path: Path) -> None:
    check_output(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    check_output(tmp_path / "empty")
    check_output(_site(tmp_path / "site", "old"))


def test_the_new_site_replaces_the_old_one_whole(tmp_path: Path) -> None:
    output = _site(tmp_path / "site", "old")
    (output / "stale.html").write_text("a page the new build does not make")
    _build(output, "new")
    assert (output / "index.html").read_text() == "new"
    assert sorted(p.name for p in output.iterdir()) == [MARKER, "index.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_an_empty_folder_is_replaced_and_a_missing_one_created(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _build(tmp_path / "empty", "new")
    _build(tmp_path / "deep" / "er" / "site", "new")
    assert (tmp_path / "empty" / "index.html").read_text() == "new"
    assert (tmp_path / "deep" / "er" / "site" / MARKER).is_file()


def test_a_failed_build_leaves_the_old_site_and_no_staging_folder(tmp_path: Path) -> None:
    output = _site(tmp_path / "site", "old")
    with pytest.raises(RuntimeError), publishing(output) as stage:
        (stage.path / "index.html").write_text("half")
        raise RuntimeError("MkDocs failed")
    assert (output / "index.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_folder_that_changed_during_the_build_is_not_replaced(tmp_path: Path) -> None:
    output = tmp_path / "site"
    with pytest.raises(OutputRefused), publishing(output) as stage:
        (stage.path / "index.html").write_text("new")
        output.mkdir()
        (output / "notes.txt").write_text("written by hand meanwhile")
    assert (output / "notes.txt").read_text() == "written by hand meanwhile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_the_two_rename_swap_where_there_is_no_exchange(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_output, "_exchange", lambda first, second: False)
    output = _site(tmp_path / "site", "old")
    _build(output, "new")
    assert (output / "index.html").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_the_next_build_undoes_a_swap_killed_between_its_renames(tmp_path: Path) -> None:
    aside = _site(tmp_path / ".site.old-0a1b2c3d", "old")  # the old site moved aside, the new not yet in
    half = _site(tmp_path / ".site.building-4e5f6a7b", "new, never swapped in")
    assert clean_stale(tmp_path / "site") == [half, aside]
    assert (tmp_path / "site" / "index.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_leftovers_are_deleted_only_when_marked_and_not_in_use(tmp_path: Path) -> None:
    output = _site(tmp_path / "site", "current")
    stale = _site(tmp_path / ".site.building-00000001", "killed")
    running = _site(tmp_path / ".site.building-00000002", "still building")
    unmarked = tmp_path / ".site.building-00000003"
    unmarked.mkdir()
    (unmarked / "keep.txt").write_text("not provably ours")
    other = _site(tmp_path / ".other.building-00000004", "another output's")
    fd = os.open(running / MARKER, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert clean_stale(output) == [stale]
    finally:
        os.close(fd)
    assert running.is_dir() and unmarked.is_dir() and other.is_dir()
    assert (output / "index.html").read_text() == "current"


def test_a_second_build_waits_for_the_lock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events: list[str] = []

    def second() -> None:
        with build_lock(tmp_path):
            events.append("second")

    with build_lock(tmp_path):
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.3)
        events.append("first done")
    thread.join(10)
    assert events == ["first done", "second"]
    assert f"waiting for another build using {tmp_path} to finish" in capsys.readouterr().err


def test_the_work_folder_is_marked_when_new_empty_or_left_by_an_older_build(tmp_path: Path) -> None:
    docs = claim_work(tmp_path / "fresh")
    assert (docs / MARKER).is_file()
    (docs / "en").mkdir()
    assert claim_work(tmp_path / "fresh") == docs  # marked: its language folders are the build's
    older = tmp_path / "older"  # what builds made before the marker existed
    (older / "docs" / "en").mkdir(parents=True)
    (older / "mkdocs.en.yml").write_text(json.dumps({"INHERIT": "../mkdocs.yml", "docs_dir": "docs/en"}))
    assert (claim_work(older) / MARKER).is_file()


def test_a_work_folder_with_files_the_build_did_not_write_is_refused(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "docs" / "en").mkdir(parents=True)
    (work / "mkdocs.en.yml").write_text(json.dumps({"docs_dir": "docs/en"}))
    (work / "docs" / "notes").mkdir()
    (work / "docs" / "notes" / "draft.md").write_text("mine")  # no config names it: not the build's
    with pytest.raises(OutputRefused, match="it has files this tool did not write") as caught:
        claim_work(work)
    assert caught.value.exit_code == 2
    assert not (work / "docs" / MARKER).exists()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "docs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputRefused, match="it is not a folder"):
        claim_work(tmp_path / "linked")

"""The validated-registry cache: a hit gives the same result, any change misses, nothing unsafe is read."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from metrics_registry import cache
from metrics_registry.api import validate

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_ENV, str(folder))
    return folder


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.pickle"))


def test_a_second_validate_reads_the_same_result(cache_folder: Path, valid_file: Path) -> None:
    first = validate([valid_file])
    assert len(_entries(cache_folder)) == 1
    assert oct(cache_folder.stat().st_mode & 0o777) == "0o700"
    second = validate([valid_file])
    assert [e.id for e in second[0]] == [e.id for e in first[0]]
    assert second[1] == first[1]
    assert (
        second[0].lookup("objective/kl", family="ppo").entry.metric
        == first[0].lookup("objective/kl", family="ppo").entry.metric
    )


def test_an_edited_file_is_validated_again(cache_folder: Path, tmp_path: Path, valid_file: Path) -> None:
    path = tmp_path / "family.yaml"
    shutil.copy(valid_file, path)
    assert not [f for f in validate([path])[1] if f.is_error]
    edited = path.read_text(encoding="utf-8").replace("title: Toy KL", "title: 3", 1)
    path.write_text(edited, encoding="utf-8")
    _registry, findings = validate([path])
    assert len(_entries(cache_folder)) == 2
    assert [f for f in findings if f.file == path]  # the edit is seen, not the cached result


def test_a_damaged_entry_is_a_miss(cache_folder: Path, valid_file: Path) -> None:
    first = validate([valid_file])
    (entry,) = _entries(cache_folder)
    entry.write_bytes(entry.read_bytes()[:100])
    assert validate([valid_file])[1] == first[1]


def test_an_entry_others_may_write_is_not_read(cache_folder: Path, valid_file: Path) -> None:
    validate([valid_file])
    (entry,) = _entries(cache_folder)
    key = entry.stem
    assert cache.read(key) is not None
    entry.chmod(0o666)
    assert cache.read(key) is None
    entry.chmod(0o600)
    cache_folder.chmod(0o777)
    assert cache.read(key) is None


def test_devices_and_missing_files_are_never_cached(cache_folder: Path) -> None:
    assert cache.cache_key([Path("/dev/zero")], 1 << 20) is None
    assert cache.cache_key([Path("/no/such/file.yaml")], 1 << 20) is None
    _registry, findings = validate(["/dev/zero"])
    assert any(f.rule == "MR106" for f in findings)
    assert not cache_folder.exists() or not _entries(cache_folder)


def test_off_turns_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, valid_file: Path) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    validate([valid_file])
    assert not list(tmp_path.rglob("*.pickle"))


def test_old_entries_are_pruned(
    cache_folder: Path, tmp_path: Path, valid_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "KEEP_ENTRIES", 4)  # 64 + 3 validations took half a minute
    path = tmp_path / "family.yaml"
    for index in range(cache.KEEP_ENTRIES + 3):
        path.write_text(valid_file.read_text(encoding="utf-8") + f"# {index}\n", encoding="utf-8")
        validate([path])
    assert len(_entries(cache_folder)) == cache.KEEP_ENTRIES
    (cache_folder / "notes.txt").write_text("mine", encoding="utf-8")
    cache._prune(cache_folder, keep=1)
    assert (cache_folder / "notes.txt").exists()  # only entries it names itself are deleted


def test_concurrent_runs_each_get_a_whole_result(cache_folder: Path, valid_file: Path) -> None:
    command = [sys.executable, "-m", "metrics_registry.cli", "--no-config", "--registry", str(valid_file)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.Popen([*command, "export"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err for _, err in outputs]
    assert len({out for out, _ in outputs}) == 1
    entries = _entries(cache_folder)
    # one entry per key (the registry, each language's catalog), each a whole pickle
    assert entries and all(pickle.loads(entry.read_bytes()) is not None for entry in entries)
    assert not [p for p in cache_folder.iterdir() if p.suffix != ".pickle"]  # no temporary left
    again = subprocess.run([*command, "export"], env=env, capture_output=True, timeout=120, check=True)
    assert again.stdout == outputs[0][0]
    assert _entries(cache_folder) == entries  # every key was already there: nothing new to write


def test_validate_rechecks_only_what_changed(
    cache_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from metrics_registry.cli import cli

    project = tmp_path / "project"
    (project / "docs" / "en").mkdir(parents=True)
    config = "[tool.metrics-registry]\nextra-registries = []\n"
    (project / "pyproject.toml").write_text(config, encoding="utf-8")
    page = project / "docs" / "en" / "page.md"
    page.write_text("Le caf\u00c3\u00a9 est ferm\u00c3\u00a9 aujourd'hui.\n", encoding="utf-8")
    monkeypatch.chdir(project)
    runs = [CliRunner().invoke(cli, ["validate"]) for _ in range(2)]
    assert [run.exit_code for run in runs] == [1, 1]
    assert all("page.md:1: error MR140" in run.output for run in runs)
    entries = len(_entries(cache_folder))
    page.write_text("Le caf\u00e9 est ferm\u00e9 aujourd'hui.\n", encoding="utf-8")
    fixed = CliRunner().invoke(cli, ["validate"])
    assert fixed.exit_code == 0, fixed.output
    assert len(_entries(cache_folder)) == entries + 1  # only the edited page was checked again


@pytest.mark.parametrize("library", cache.FINGERPRINTED_LIBRARIES)
def test_an_upgraded_library_changes_every_key(library: str) -> None:
    """A cached pickle or page made with another release of a library it depends on is not read:
    a file of that library whose time changes (as an upgrade rewrites it) changes the fingerprint."""
    import importlib.util

    spec = importlib.util.find_spec(library)
    assert spec is not None and spec.submodule_search_locations, f"{library} is not installed"
    folder = Path(next(iter(spec.submodule_search_locations)))
    file = next(entry for entry in sorted(folder.iterdir()) if entry.is_file())

    def fingerprint() -> bytes:  # computed again: a process reads it once
        cache.libraries_fingerprint.cache_clear()
        return cache.libraries_fingerprint()

    before = fingerprint()
    status = file.stat()
    try:
        os.utime(file, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
        assert fingerprint() != before
    finally:
        os.utime(file, ns=(status.st_atime_ns, status.st_mtime_ns))
        cache.libraries_fingerprint.cache_clear()
    assert fingerprint() == before

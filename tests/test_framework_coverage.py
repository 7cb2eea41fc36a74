"""Issue 15's coverage criterion, measured: the registry documents ≥ 90% of what each framework logs.

For every framework other than TRL, tests/fixtures/frameworks/logged_keys/
holds the list of metric keys its training loop logs at one upstream
commit, each with the ``path:line@commit`` that logs it. This module
resolves every listed key with the registry's own lookup
(:meth:`Registry.find` in the framework's family) and requires 90% of
them to be found. A list and its family are read from the same commit:
the test fails when the family's ``source`` names another one, so
moving a family to a new commit means reading the framework again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import metrics_registry
from metrics_registry import Registry
from metrics_registry.keys import is_templated, template_problem
from metrics_registry.yamlread import read_yaml

LISTS = Path(__file__).resolve().parent / "fixtures" / "frameworks" / "logged_keys"
THRESHOLD = 0.90

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_CITE = re.compile(r"[\w./-]+\.py:\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*@(?P<commit>[0-9a-f]{7,40})")
_FAMILY_COMMIT = re.compile(r"@([0-9a-f]{7,40})\b")
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


@dataclass(frozen=True)
class Listed:
    """One key of a framework's list: the key (or template), where it is logged, and why it is left out."""

    key: str
    logged_at: str
    left_out: str | None = None


@dataclass(frozen=True)
class LoggedKeys:
    """A framework's list of logged keys, read at ``commit`` for the registry family ``family``."""

    path: Path
    framework: str
    family: str
    commit: str
    keys: tuple[Listed, ...]


def read_list(path: Path) -> LoggedKeys:
    """The list in ``path``; a malformed list fails with the file, the key and what is wrong."""
    data, _lines = read_yaml(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name}: a mapping with framework, family, commit and keys"
    for field in ("framework", "family", "repository", "commit", "keys"):
        assert field in data, f"{path.name}: no '{field}'"
    commit = data["commit"]
    assert isinstance(commit, str) and _COMMIT.match(commit), (
        f"{path.name}: commit must be the full 40-hex id, not '{commit}'"
    )
    keys: list[Listed] = []
    for item in data["keys"]:
        key, logged_at = str(item.get("key", "")), str(item.get("logged_at", ""))
        assert key and logged_at, f"{path.name}: every entry needs key and logged_at ({item!r})"
        assert template_problem(key) is None, f"{path.name}: '{key}': {template_problem(key)}"
        cites = list(_CITE.finditer(logged_at))
        assert cites, f"{path.name}: '{key}' is logged at '{logged_at}', not path:line@commit"
        for cite in cites:
            assert commit.startswith(cite["commit"]), (
                f"{path.name}: '{key}' cites @{cite['commit']}, but the list was read at {commit[:12]}"
            )
        left_out = item.get("left_out")
        keys.append(Listed(key, logged_at, str(left_out).strip() if left_out else None))
    duplicates = sorted({k.key for k in keys if [o.key for o in keys].count(k.key) > 1})
    assert not duplicates, f"{path.name}: listed twice: {', '.join(duplicates)}"
    return LoggedKeys(path, str(data["framework"]), str(data["family"]), commit, tuple(keys))


def family_commit(registry: Registry, family: str) -> str:
    """The upstream commit a family was read at: the first ``@<hex>`` of its ``source``."""
    source = registry.family(family).source or ""
    found = _FAMILY_COMMIT.search(source)
    assert found, f"family '{family}' names no upstream commit in its source ('{source}')"
    return found.group(1)


def in_family(registry: Registry, key: str, family: str) -> bool:
    """Whether the registry's lookup finds ``key`` in ``family``.

    A templated key stands for every key it can be filled in to, so it is
    found only through a template of the registry: each placeholder is
    filled with a value no literal key uses, and the match must be a
    template (or a templated alias), not an exact key.
    """
    if not is_templated(key):
        return bool(registry.find(key, family=family))
    sample = _PLACEHOLDER.sub(lambda m: f"zz-{m.group(1)}-zz", key)
    return any(m.how in {"template", "alias-template"} for m in registry.find(sample, family=family))


def coverage(registry: Registry, listed: LoggedKeys) -> tuple[list[Listed], list[Listed]]:
    """The listed keys the family documents, and those it does not."""
    found = [k for k in listed.keys if in_family(registry, k.key, listed.family)]
    missing = [k for k in listed.keys if k not in found]
    return found, missing


@pytest.fixture(scope="module")
def builtin() -> Registry:
    return metrics_registry.load()


def _lists() -> list[Path]:
    return sorted(LISTS.glob("*.yaml"))


def test_every_framework_beyond_trl_has_a_list(builtin: Registry) -> None:
    families = {f.id for f in builtin.families.values() if f.versions_of != "trl"}
    listed = {read_list(path).family for path in _lists()}
    assert families == listed, f"families without a list of logged keys: {sorted(families - listed)}"


@pytest.mark.parametrize("path", _lists(), ids=lambda p: p.stem)
def test_the_list_and_the_family_were_read_at_one_commit(builtin: Registry, path: Path) -> None:
    listed = read_list(path)
    read_at = family_commit(builtin, listed.family)
    assert listed.commit.startswith(read_at), (
        f"{path.name} lists what {listed.framework} logs at {listed.commit[:12]}, but the "
        f"'{listed.family}' family was read at {read_at}: read the framework again at the family's "
        "commit and update the list (or the family) so both name the same commit"
    )


@pytest.mark.parametrize("path", _lists(), ids=lambda p: p.stem)
def test_at_least_90_percent_of_the_logged_keys_are_in_the_registry(builtin: Registry, path: Path) -> None:
    listed = read_list(path)
    found, missing = coverage(builtin, listed)
    share = len(found) / len(listed.keys)
    shown = "\n".join(
        f"  {k.key}  ({k.logged_at})" + (f"  left out: {k.left_out}" if k.left_out else "") for k in missing
    )
    assert share >= THRESHOLD, (
        f"{listed.framework}: {len(found)} of {len(listed.keys)} logged keys ({share:.1%}) are in the "
        f"'{listed.family}' family, below {THRESHOLD:.0%}; missing:\n{shown}"
    )


@pytest.mark.parametrize("path", _lists(), ids=lambda p: p.stem)
def test_a_key_left_out_is_not_in_the_registry(builtin: Registry, path: Path) -> None:
    listed = read_list(path)
    stale = [k.key for k in listed.keys if k.left_out and in_family(builtin, k.key, listed.family)]
    assert not stale, f"{path.name}: documented now, drop their left_out reason: {', '.join(stale)}"


def _write(tmp_path: Path, commit: str, keys: str) -> Path:
    path = tmp_path / "toy.yaml"
    path.write_text(
        f"framework: verl\nfamily: verl\nrepository: verl-project/verl\ncommit: {commit}\nkeys:\n{keys}",
        encoding="utf-8",
    )
    return path


def test_the_check_sees_a_commit_mismatch_and_a_missing_key(builtin: Registry, tmp_path: Path) -> None:
    other = "abcdef0" + "1" * 33
    path = _write(
        tmp_path,
        other,
        "  - key: actor/pg_loss\n    logged_at: verl/workers/utils/losses.py:119@abcdef0\n"
        "  - key: actor/no_such_metric\n    logged_at: verl/workers/utils/losses.py:1@abcdef0\n"
        "  - key: val-core/{data_source}/{variable}/{stat_at_n}\n    logged_at: a.py:1@abcdef0\n"
        "  - key: timing_s/{stage}_not_a_template_here/x\n    logged_at: a.py:2@abcdef0\n",
    )
    listed = read_list(path)
    assert not listed.commit.startswith(family_commit(builtin, "verl"))
    _found, missing = coverage(builtin, listed)
    assert [k.key for k in missing] == ["actor/no_such_metric", "timing_s/{stage}_not_a_template_here/x"]


def test_a_templated_key_is_not_found_through_an_exact_key(builtin: Registry) -> None:
    # timing_s/step exists as a key; '{stage}' must be covered by the registry's template itself
    assert in_family(builtin, "timing_s/{stage}", "verl")
    assert builtin.find("actor/pg_loss", family="verl")
    assert not in_family(builtin, "actor/{name}", "verl")


def test_a_cite_at_another_commit_is_refused(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "1dda039b9c6311889a9c9a26040677e1254814f9",
        "  - key: actor/pg_loss\n    logged_at: verl/workers/utils/losses.py:119@bec9ef7\n",
    )
    with pytest.raises(AssertionError, match="cites @bec9ef7"):
        read_list(path)

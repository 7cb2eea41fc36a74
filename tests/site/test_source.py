"""A metric page's reference source: looked up for all of a registry at once, and kept in the user cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import metrics_registry
from metrics_registry.site.source import reference_source, reference_sources

MODULE = '''\
def share(values):
    """What the page shows."""
    return {body}
'''


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("METRICS_REGISTRY_CACHE", str(folder))
    return folder


def test_every_reference_of_the_registry_reads_as_one_by_one(user_cache: Path) -> None:
    references = sorted({e.metric.reference for e in metrics_registry.load() if e.metric.reference})
    for attempt in ("computed", "read from the cache"):
        lookup = reference_sources(references)
        expected = [reference_source(name) for name in references]
        assert [lookup(name) for name in references] == expected, attempt
    assert list(user_cache.glob("*.pickle"))
    other = "metrics_registry.checks.latex_problem"  # not a metric's: looked up when asked
    assert lookup(other) == reference_source(other)


def test_an_edited_reference_module_is_read_again(
    user_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "extension_refs"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    module = package / "stats.py"
    module.write_text(MODULE.format(body="values"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    name = "extension_refs.stats.share"
    first = reference_sources([name])(name)
    assert first is not None and "return values" in first.code
    module.write_text(MODULE.format(body="sum(values) / len(values)"), encoding="utf-8")
    os.utime(module, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))  # a different time, surely
    edited = reference_sources([name])(name)
    assert edited is not None and "return sum(values) / len(values)" in edited.code


def test_a_missing_module_has_no_source(user_cache: Path) -> None:
    assert reference_sources(["nowhere_at_all.module.f"])("nowhere_at_all.module.f") is None

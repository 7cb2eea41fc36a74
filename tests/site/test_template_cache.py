"""Compiled templates are kept per variant of the environment, in the process and in the user's cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jinja2 import Environment

from metrics_registry import cache
from metrics_registry.i18n.translate import UiTranslations
from metrics_registry.registry import Registry
from metrics_registry.site import template_cache as kept
from metrics_registry.site.environment import environment


@pytest.fixture
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_ENV, str(folder))
    kept.template_cache.cache_clear()
    yield folder
    kept.template_cache.cache_clear()


def _render(registry: Registry, ui: UiTranslations | None = None) -> str:
    family_id = next(iter(registry.families))
    entry = next(iter(registry.in_family(family_id)))
    env = environment(registry, ui=ui, here={"page": "reference/x/y.md"})
    return env.get_template("metric.md.j2").render(
        entry=entry, family=registry.families[family_id], m=entry.metric, previous=None, following=None
    )


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = Environment.compile

    def counting(
        self: Environment, source: str, name: str | None = None, *args: object, **kw: object
    ) -> object:
        calls.append(str(name))
        return original(self, source, name, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Environment, "compile", counting)
    return calls


def test_a_template_compiles_once_per_variant_and_the_next_build_reads_it(
    registry: Registry, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiles = _compiles(monkeypatch)
    first = _render(registry)
    assert compiles, "the first environment compiles its templates"
    assert list(cache_folder.glob("*.pickle")), "and keeps them in the user's cache"
    compiles.clear()
    assert _render(registry) == first  # another environment of the same variant, same process
    assert compiles == []
    kept.template_cache.cache_clear()  # a new process: only the user's cache is left
    assert _render(registry) == first
    assert compiles == []


def test_tight_chinese_spacing_is_another_variant(
    registry: Registry, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _render(registry)
    compiles = _compiles(monkeypatch)
    _render(registry, UiTranslations("zh", None))
    assert compiles, "finalize changes the compiled code: the plain variant's code is not reused"


def test_a_damaged_entry_is_compiled_again(
    registry: Registry, cache_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _render(registry)
    # the compiled templates' entry (rendering also keeps the reference sources)
    (entry,) = (
        path
        for path in cache_folder.glob("*.pickle")
        if isinstance(value := cache.read(path.stem), dict)
        and all(isinstance(code, bytes) for code in value.values())
    )
    stored = cache.read(entry.stem)
    cache.write(entry.stem, dict.fromkeys(stored, b"not bytecode"))
    kept.template_cache.cache_clear()
    compiles = _compiles(monkeypatch)
    assert _render(registry) == expected
    assert compiles


def test_without_a_cache_templates_still_render(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    kept.template_cache.cache_clear()
    try:
        assert "#" in _render(registry)
    finally:
        kept.template_cache.cache_clear()

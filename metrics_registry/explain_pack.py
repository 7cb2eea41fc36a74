"""Everything ``explain`` can show for a registry, built once, so that any key starts at once.

:mod:`metrics_registry.rendered` keeps the text of one call; but a reader
whose run misbehaves explains one key after another, and each new key used
to load the registry's models (pydantic, ~0.1 s of imports) before a line
was printed. The pack holds, for every key, alias and ``family:key`` of the
registry, asked with and without ``--family``, the rich renderables
``explain`` prints, each pickled on its own (so reading the pack unpickles
only the one asked for) and rendered at the console's width when read. It
needs rich to render and never the models.

It is built after the first ``explain`` that loaded a registry without
errors (~0.5 s, once the output is printed) and kept in the user cache
(:mod:`metrics_registry.cache`) under a key made of the registry files and
the package's code, so any edit gives a new pack. Calls the pack cannot
answer exactly (``--trl-version``, templated or ``eval_``-prefixed keys,
unknown keys) take the full path, which says the same as before.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metrics_registry import cache

if TYPE_CHECKING:
    from rich.console import RenderableType

    from metrics_registry.registry import Match, Registry

__all__ = ["ExplainPack", "build", "keep", "read"]

_FORMAT = 1


def _key(files: Iterable[Path]) -> str | None:
    from metrics_registry.config import MAX_FILE_BYTES

    return cache.cache_key(files, MAX_FILE_BYTES, purpose="explain-pack")


class ExplainPack:
    """The renderables of every call the pack answers; see the module docstring."""

    def __init__(self, blobs: list[bytes], calls: dict[tuple[str, str | None], tuple[int, ...]]) -> None:
        self._blobs = blobs
        self._calls = calls

    def __len__(self) -> int:
        return len(self._calls)

    def lookup(self, key: str, family: str | None) -> list[RenderableType] | None:
        """What ``explain key [--family family]`` prints, or None when the pack cannot say."""
        found = self._calls.get((key, family))
        if found is None:
            return None
        try:
            return [pickle.loads(self._blobs[index]) for index in found]  # our private cache: see cache
        except Exception:  # a damaged entry is a miss: the full path renders the key
            return None

    def as_data(self) -> dict[str, Any]:
        return {"format": _FORMAT, "blobs": self._blobs, "calls": self._calls}


def _names(registry: Registry) -> Iterator[str]:
    """Every name a reader may ask for exactly: keys, aliases and the ``family:key`` form."""
    for entry in registry:
        yield entry.key
        yield from entry.metric.aliases
        yield f"{entry.family.id}:{entry.key}"


def build(registry: Registry) -> ExplainPack:
    """The pack of ``registry``: for each name, the call without ``--family`` and with each family."""
    from metrics_registry.explain import ambiguity_notice, explained_matches, render_match

    blobs: list[bytes] = []
    panels: dict[tuple[Any, ...], int] = {}
    calls: dict[tuple[str, str | None], tuple[int, ...]] = {}

    def panel(match: Match) -> int:
        identity = (match.entry.id, match.logged_key, match.how, match.mode, tuple(match.bindings.items()))
        if identity not in panels:
            panels[identity] = len(blobs)
            blobs.append(pickle.dumps(render_match(match, registry), protocol=pickle.HIGHEST_PROTOCOL))
        return panels[identity]

    for name in dict.fromkeys(_names(registry)):
        matches = explained_matches(registry, name, None, None)
        families = dict.fromkeys(m.entry.family.id for m in matches)
        for family in (None, *families):
            chosen = matches if family is None else explained_matches(registry, name, family, None)
            if not chosen:
                continue
            shown = [panel(m) for m in chosen]
            if len(chosen) > 1:
                notice = pickle.dumps(ambiguity_notice(chosen), protocol=pickle.HIGHEST_PROTOCOL)
                blobs.append(notice)
                shown.insert(0, len(blobs) - 1)
            calls[(name, family)] = tuple(shown)
    return ExplainPack(blobs, calls)


def read(files: Iterable[Path]) -> ExplainPack | None:
    """The kept pack of the registry made of ``files``, or None (absent, cache off, damaged)."""
    key = _key(files)
    data = cache.read(key) if key is not None else None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return None
    blobs, calls = data.get("blobs"), data.get("calls")
    if not isinstance(blobs, list) or not isinstance(calls, dict):
        return None
    return ExplainPack(blobs, calls)


def keep(files: Iterable[Path], registry: Registry) -> None:
    """Build the pack of ``registry`` (read from ``files``) and keep it, unless the cache is off."""
    key = _key(files)
    if key is None or cache.cache_folder() is None:
        return
    cache.write(key, build(registry).as_data())

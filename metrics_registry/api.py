"""Load and validate a registry: the package's entry points.

[`load()`][load] is what another tool calls; [`validate()`][validate] is what the
`validate` command and the tests call, returning every finding instead
of stopping at the first error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from metrics_registry.config import registry_paths
from metrics_registry.findings import Finding
from metrics_registry.registry import Entry, Registry, RegistryError

if TYPE_CHECKING:
    from metrics_registry.concepts import ConceptList
    from metrics_registry.loader import LoadedFile

# one registry file, or several
PathOrPaths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]

__all__ = ["InvalidRegistryError", "load", "registry_paths", "validate"]


class InvalidRegistryError(RegistryError):
    """The registry has errors; `findings` lists them all."""

    def __init__(self, findings: list[Finding]) -> None:
        errors = [f for f in findings if f.is_error]
        first = errors[0].format() if errors else ""
        more = f" (and {len(errors) - 1} more; run 'metrics-registry validate')" if len(errors) > 1 else ""
        super().__init__(f"{first}{more}")
        self.findings = findings


def _build(files: list[LoadedFile], concepts: ConceptList | None = None) -> Registry:
    families = {}
    entries = []
    for loaded in files:
        if loaded.family is None or loaded.family.id in families:
            continue
        family = loaded.family
        families[family.id] = family
        for index, metric in loaded.metrics:
            entries.append(Entry(metric, family, loaded.path, loaded.metric_line(index)))
    return Registry(families, entries, concepts.concepts if concepts is not None else None)


def validate(
    extra_paths: PathOrPaths = (),
    *,
    include_configured: bool = False,
    builtin: bool = True,
) -> tuple[Registry, list[Finding]]:
    """Load every file and run every check; never raises for bad content.

    The result is kept in the user's cache (`metrics_registry.cache`),
    keyed by the files' content and this package's code, so the next call
    with the same files is a read.
    """
    from metrics_registry import cache
    from metrics_registry.config import MAX_FILE_BYTES

    paths = registry_paths(extra_paths, include_configured=include_configured, builtin=builtin)
    key = cache.cache_key(paths, MAX_FILE_BYTES)
    if key is not None:
        hit = cache.read(key)
        if isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], Registry):
            hit[0].source_key = key
            return hit[0], list(hit[1])
    # imported only on a cache miss: checking is what the cache saves
    from metrics_registry.checks import run_checks
    from metrics_registry.concepts import builtin_concepts
    from metrics_registry.loader import load_file

    files = [load_file(path) for path in paths]
    # The concept list is the package's own, whichever files are loaded: the ids are a closed list.
    # (It is package data, so the cache key's code fingerprint covers it.)
    concepts = builtin_concepts()
    registry = _build(files, concepts)
    findings = [finding for loaded in files for finding in loaded.findings]
    findings.extend(concepts.findings)
    findings.extend(run_checks(files, registry))
    if key is not None:
        cache.write(key, (registry, findings))
    registry.source_key = key
    return registry, findings


def load(
    extra_paths: PathOrPaths = (),
    *,
    include_configured: bool = False,
    builtin: bool = True,
) -> Registry:
    """The registry: built-in families plus `extra_paths`.

    With `include_configured` the project configuration
    (`[tool.metrics-registry]` in the nearest `pyproject.toml`, and the
    `METRICS_REGISTRY_PATH` variable) adds its files too. Raises
    [`InvalidRegistryError`][InvalidRegistryError] when any file has an error.

    >>> registry = load()
    >>> registry.lookup("objective/kl", family="ppo").entry.metric.unit
    'nats'
    """
    registry, findings = validate(extra_paths, include_configured=include_configured, builtin=builtin)
    if any(f.is_error for f in findings):
        raise InvalidRegistryError(findings)
    return registry

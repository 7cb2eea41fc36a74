"""Load and validate a registry: the package's entry points.

[`load()`][load] is what another tool calls; [`validate()`][validate] is what the
`validate` command and the tests call, returning every finding instead
of stopping at the first error.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from metrics_registry.checks import run_checks
from metrics_registry.config import builtin_paths, configured_paths
from metrics_registry.findings import Finding
from metrics_registry.loader import LoadedFile, load_file
from metrics_registry.registry import Entry, Registry, RegistryError

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


def registry_paths(
    extra_paths: PathOrPaths = (),
    *,
    include_configured: bool = False,
    builtin: bool = True,
) -> list[Path]:
    """Built-in files, then configured extras, then `extra_paths`, without repeats."""
    if isinstance(extra_paths, str | os.PathLike):  # one path, not an iterable of its characters
        extra_paths = [extra_paths]
    paths = list(builtin_paths()) if builtin else []
    if include_configured:
        paths.extend(configured_paths())
    paths.extend(Path(p) for p in extra_paths)
    unique: dict[Path, None] = {}
    for path in paths:
        unique.setdefault(path.resolve(), None)
    return list(unique)


def _build(files: list[LoadedFile]) -> Registry:
    families = {}
    entries = []
    for loaded in files:
        if loaded.family is None or loaded.family.id in families:
            continue
        family = loaded.family
        families[family.id] = family
        for index, metric in loaded.metrics:
            entries.append(Entry(metric, family, loaded.path, loaded.metric_line(index)))
    return Registry(families, entries)


def validate(
    extra_paths: PathOrPaths = (),
    *,
    include_configured: bool = False,
    builtin: bool = True,
) -> tuple[Registry, list[Finding]]:
    """Load every file and run every check; never raises for bad content."""
    files = [
        load_file(path)
        for path in registry_paths(extra_paths, include_configured=include_configured, builtin=builtin)
    ]
    registry = _build(files)
    findings = [finding for loaded in files for finding in loaded.findings]
    findings.extend(run_checks(files, registry))
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

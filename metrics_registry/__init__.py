"""Registry of the metrics logged by RL trainers for language models.

>>> import metrics_registry
>>> registry = metrics_registry.load()
>>> match = registry.lookup("eval_reward")
>>> (match.entry.key, match.mode)
('reward', 'eval')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from metrics_registry.api import InvalidRegistryError, load, registry_paths, validate
    from metrics_registry.findings import RULES, Finding
    from metrics_registry.models import FamilyInfo, Metric, RegistryFile
    from metrics_registry.registry import (
        AmbiguousMetricError,
        Entry,
        Match,
        Registry,
        RegistryError,
        UnknownMetricError,
        anchor,
    )

# Imported on first use (PEP 562): ``import metrics_registry`` and a command
# that needs none of these (``--version``, ``fix-encoding``) stay cheap.
_LAZY = {
    "InvalidRegistryError": "api",
    "load": "api",
    "registry_paths": "api",
    "validate": "api",
    "RULES": "findings",
    "Finding": "findings",
    "FamilyInfo": "models",
    "Metric": "models",
    "RegistryFile": "models",
    "AmbiguousMetricError": "registry",
    "Entry": "registry",
    "Match": "registry",
    "Registry": "registry",
    "RegistryError": "registry",
    "UnknownMetricError": "registry",
    "anchor": "registry",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'metrics_registry' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"metrics_registry.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "RULES",
    "AmbiguousMetricError",
    "Entry",
    "FamilyInfo",
    "Finding",
    "InvalidRegistryError",
    "Match",
    "Metric",
    "Registry",
    "RegistryError",
    "RegistryFile",
    "UnknownMetricError",
    "anchor",
    "load",
    "registry_paths",
    "validate",
]
__version__ = "0.1.0"

"""Registry of the metrics logged by RL trainers for language models.

>>> import metrics_registry
>>> registry = metrics_registry.load()
>>> match = registry.lookup("eval_reward")
>>> (match.entry.key, match.mode)
('reward', 'eval')
"""

from importlib.metadata import PackageNotFoundError, version

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

try:  # the version is pyproject.toml's, read from the installed distribution: one source
    __version__ = version("metrics-registry")
except PackageNotFoundError:  # a source tree on sys.path that was never installed
    __version__ = "0+unknown"

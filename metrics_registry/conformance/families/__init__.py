"""Per-family tables: logged key -> `Metric`, tied to the registry's `reference:` fields.

A family module exposes `metrics(capture) -> dict[str, Metric]` (templated
keys such as `rewards/{reward_func_name}/mean` expanded with the capture's
reward names). `metrics_for` keeps the keys the registry says the family
logs in `version`, and checks that each metric names the registry's
reference function, so a table cannot drift from the registry unnoticed.

A new framework (verl, OpenRLHF, NeMo-RL) is one module here plus one line in
`FAMILIES`; the hypotheses and the checking need no change.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from metrics_registry.conformance.capture import StepCapture
from metrics_registry.conformance.metric import Metric

__all__ = ["FAMILIES", "UnknownFamilyError", "metrics_for"]

#: family id (the registry's) -> module under metrics_registry.conformance.families
FAMILIES: dict[str, str] = {"grpo": "trl_grpo", "ppo": "trl_ppo"}


class UnknownFamilyError(ValueError):
    """A family the kit has no table for."""


def _table(family: str) -> Callable[[StepCapture], dict[str, Metric]]:
    if family not in FAMILIES:
        raise UnknownFamilyError(
            f"the conformance kit has no table for family {family!r}; "
            f"use one of {', '.join(sorted(FAMILIES))}"
        )
    return import_module(f"metrics_registry.conformance.families.{FAMILIES[family]}").metrics


def metrics_for(family: str, version: str | None, capture: StepCapture) -> dict[str, Metric]:
    """The family's metrics that the registry says are logged in `version` (all versions when `None`)."""
    from metrics_registry.api import load
    from metrics_registry.registry import RegistryError

    registry = load()
    table = _table(family)(capture)
    kept: dict[str, Metric] = {}
    for key, metric in table.items():
        try:
            match = registry.lookup(key, family=family, trl_version=version)
        except RegistryError:
            continue  # not logged in this version
        reference = match.entry.metric.reference
        if reference != metric.reference:
            raise AssertionError(f"{family} table: {key} names {metric.reference}, the registry {reference}")
        kept[key] = metric
    return kept

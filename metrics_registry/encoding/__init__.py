"""Repair mojibake in documentation, including the bytes lost on the way.

A standalone subpackage: it imports nothing else of ``metrics_registry``.

>>> from metrics_registry.encoding import repair
>>> repair("Ã©tÃ©")
'été'
"""

from metrics_registry.encoding.findings import Alternative, Finding, Kind, Spot
from metrics_registry.encoding.repair import Repaired, diagnose, repair, repair_with_findings

__all__ = [
    "Alternative",
    "Finding",
    "Kind",
    "Repaired",
    "Spot",
    "diagnose",
    "repair",
    "repair_with_findings",
]

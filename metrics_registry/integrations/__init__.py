"""Health checks while a run trains, where training code already is.

- :class:`~metrics_registry.integrations.monitor.HealthMonitor`: for any
  training loop, ``observe(step, metrics)`` at every logging step.
- :class:`metrics_registry.integrations.transformers.HealthCheckCallback`: a
  ``transformers.TrainerCallback`` for ``Trainer`` and TRL's trainers
  (imports transformers, so it is not imported here).
- :mod:`metrics_registry.integrations.follow`: reading a log while it is
  written, for ``metrics-registry watch``.
"""

from __future__ import annotations

from metrics_registry.integrations.monitor import HealthMonitor

__all__ = ["HealthMonitor"]

"""pytest plugin (the `pytest11` entry point): the `metrics_conformance` fixture for a trainer's own tests.

```python
def test_my_trainer_logs_conform(metrics_conformance, tmp_path):
    trainer = metrics_conformance.capturing(MyGRPOTrainer)(model=..., args=..., ...)
    trainer.train()
    for capture, logged in trainer.conformance_steps:
        metrics_conformance.assert_conforms(capture, logged, family="grpo")
```

For TRL's `PPOTrainer` (up to TRL 1.12), `capturing` gives the PPO adapter; check with
`family="ppo"`.

pytest loads this module in every run of a project that installs the
package, so it imports nothing but pytest at load time; torch, the registry
and TRL are imported when a test calls the fixture's methods.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pytest

__all__ = ["Conformance", "metrics_conformance"]


class Conformance:
    """What the fixture gives a test: `check`, `assert_conforms` and the TRL `capturing` adapter."""

    def check(
        self, capture: Any, logged: Mapping[str, float], family: str = "grpo", version: str | None = None
    ) -> list:
        from metrics_registry.conformance.checking import check

        return check(capture, logged, family=family, version=version)

    def assert_conforms(
        self,
        capture: Any,
        logged: Mapping[str, float],
        family: str = "grpo",
        version: str | None = None,
        *,
        allow: Collection[str] = (),
    ) -> list:
        """Fail the test, one line per key, when a logged key not in `allow` disagrees with its reference."""
        results = self.check(capture, logged, family=family, version=version)
        wrong = [r for r in results if r.status == "disagrees" and r.key not in allow]
        if wrong:
            pytest.fail("metrics do not conform:\n" + "\n".join(r.line() for r in wrong), pytrace=False)
        return results

    @staticmethod
    def capturing(trainer_class: type) -> type:
        """A subclass of a TRL trainer that captures its steps: the PPO adapter for a `PPOTrainer`
        (TRL ≤ 1.12; check with `family="ppo"`), else the `GRPOTrainer` one."""
        if any(base.__name__ == "PPOTrainer" for base in trainer_class.__mro__):
            from metrics_registry.conformance.trl_ppo_adapter import capturing as ppo_capturing

            return ppo_capturing(trainer_class)
        from metrics_registry.conformance.trl_adapter import capturing

        return capturing(trainer_class)


@pytest.fixture
def metrics_conformance() -> Conformance:
    """The conformance kit, to assert that a trainer's logged metrics match the registry's references."""
    return Conformance()

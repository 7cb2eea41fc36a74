r"""verl's legacy `dp_actor` / `dp_critic` reductions (default up to v0.7.1, deleted in v0.8.0).

Read at `bec9ef7` (tag v0.7.1).

Kept to explain the metrics-only bugs of those releases (verl #4711, #5766);
the current engine-path reductions are in [`actor`][metrics_registry.reference.verl.actor].
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["legacy_dp_actor_pg_loss"]


def legacy_dp_actor_pg_loss(
    pg_losses: Sequence[Sequence[float]],
    loss_scale_factor: float,
) -> float:
    r"""Legacy `dp_actor` `actor/pg_loss` of v0.7.0 and v0.7.1 (bug #5766): a sum over every optimizer step.

    `metrics["actor/pg_loss"] += pg_loss * loss_scale_factor` runs over all
    micro-batches of all mini-batches and epochs
    (`verl/workers/actor/dp_actor.py:552-555,669@bec9ef7`), so the value is
    $\sum_{\text{steps}} \text{mean of micro-batch losses}$: inflated by the
    number of mini-batches times `ppo_epochs`.

    Args:
        pg_losses: `pg_losses[s][k]`, local loss of micro-batch `k` in optimizer step `s` on one rank.
        loss_scale_factor: `1 / gradient_accumulation` (micro-batches per mini-batch).

    Returns:
        The per-rank logged value (ranks are then averaged).
    """
    return float(sum(value * loss_scale_factor for step in pg_losses for value in step))

"""A Weights & Biases `define_metric` configuration: summary and direction of every scalar.

W&B keeps one summary value per key (the last one, by default);
`wandb.define_metric(name, summary=..., goal=...)` chooses which ones and
which way is better. The choice follows the registry:

| `goal` | `summary` | `goal` arg |
| --- | --- | --- |
| maximize | `max,last` | maximize |
| minimize | `min,last` | minimize |
| target (stay in a band) | `mean,last` | (none) |
| none, reduce `max` | `max,last` | (none) |
| none, reduce `min` | `min,last` | (none) |
| none, anything else | `last` | (none) |

Histograms and tables are left out (W&B does not summarise them this way).
Each metric lists the names it reaches W&B under: `logged` (as the trainer
logs it) and `transformers` (as transformers' `WandbCallback` rewrites it
when the trainer logs through `Trainer.log`: `train/<key>`, and
`eval/<key>` for keys logged with the `eval_` prefix). Templated keys are
format strings to fill in: W&B's `define_metric` globs only match a
trailing `*`.
"""

from __future__ import annotations

import json
from typing import Any

from metrics_registry.models import Goal
from metrics_registry.registry import Entry, Registry

__all__ = ["define_metric_arguments", "export_wandb"]

WANDB_CONFIG_VERSION = "1"

USAGE = (
    "For each metric, call wandb.define_metric(name, **metric['define_metric']) for every name in"
    " metric['names']['logged'], or in metric['names']['transformers'] when the trainer logs through"
    " transformers' Trainer (its WandbCallback adds train/ and eval/); fill templated names first."
)


def define_metric_arguments(entry: Entry) -> dict[str, str]:
    """`summary` (and `goal` when there is a better direction) for `wandb.define_metric`."""
    goal = Goal(entry.metric.goal).value
    if goal in ("maximize", "minimize"):
        return {"summary": f"{'max' if goal == 'maximize' else 'min'},last", "goal": goal}
    if goal == "target":
        return {"summary": "mean,last"}
    reduce = entry.metric.aggregation.reduce
    reduce = getattr(reduce, "value", reduce)
    if reduce in ("max", "min"):
        return {"summary": f"{reduce},last"}
    return {"summary": "last"}


def _names(entry: Entry) -> dict[str, list[str]]:
    transformers = []
    if "train" in entry.metric.modes:
        transformers.append(f"train/{entry.key}")
    if "eval" in entry.metric.modes and entry.family.eval_prefix == "eval_":
        transformers.append(f"eval/{entry.key}")
    return {"logged": [entry.key], "transformers": transformers}


def export_wandb(registry: Registry) -> str:
    """The configuration as JSON: one item per scalar metric."""
    from metrics_registry import __version__

    metrics: list[dict[str, Any]] = [
        {
            "id": entry.id,
            "key": entry.key,
            "templated": entry.templated,
            "names": _names(entry),
            "define_metric": define_metric_arguments(entry),
        }
        for entry in registry
        if entry.metric.kind == "scalar"
    ]
    document = {
        "schema_version": WANDB_CONFIG_VERSION,
        "generator": f"metrics-registry {__version__}",
        "usage": USAGE,
        "metrics": metrics,
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"

r"""verl validation metrics (`val-core/*`, `val-aux/*`) of one data source and one variable.

Follows `process_validation_metrics` and `bootstrap_metric`
(`verl/trainer/ppo/metric_utils.py:805-1044@1dda039`): per prompt (uid) the N
sampled responses give `mean@N`, `std@N` (population) and, for $n = 2, 4,
8, \dots, N$, bootstrap estimates (1000 resamples of $n$ responses *with
replacement*, NumPy's global generator seeded with 42 before every call) of
the best, worst and majority-vote value; every statistic is then averaged
over prompts with equal weight.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import torch

__all__ = ["validation_metrics"]


def _ns(n_resps: int) -> list[int]:
    if n_resps <= 1:
        return []
    ns, n = [], 2
    while n < n_resps:
        ns.append(n)
        n *= 2
    return [*ns, n_resps]


def _bootstrap(values: list, subset_size: int, reduce_fn, seed: int = 42) -> tuple[float, float]:
    # verl reseeds NumPy's *global* generator (np.random.seed) on every call; the same
    # draws are only reproduced with the same legacy generator, so it is used here too.
    np.random.seed(seed)
    data = np.array(values, dtype=object)
    idx = np.random.choice(len(data), size=(1000, subset_size), replace=True)
    results = np.array([reduce_fn(data[row]) for row in idx], dtype=np.float64)
    return float(results.mean()), float(results.std())


def _majority(sample: np.ndarray) -> float:
    votes: dict[object, list[float]] = defaultdict(list)
    for value, pred in sample:
        votes[pred].append(value)
    winner = max(votes, key=lambda pred: len(votes[pred]))
    return votes[winner][0]


def _plain(items: torch.Tensor | Sequence) -> list:
    """Tensors (integer ids in worked examples) as Python values, so that they can be dict keys."""
    return items.tolist() if isinstance(items, torch.Tensor) else list(items)


def validation_metrics(
    values: torch.Tensor | Sequence[float],
    uids: torch.Tensor | Sequence[str],
    preds: torch.Tensor | Sequence[str] | None = None,
) -> dict[str, float]:
    r"""The statistics verl logs as `val-core|val-aux/<data_source>/<variable>/<name>` for one variable.

    Args:
        values: one value per validation response (e.g. `reward`, the sum of its token scores).
        uids: the prompt id of each response (strings or integers).
        preds: optional majority-vote answers (`pred` returned by the reward function).

    Returns:
        A dict keyed by the metric name (`mean@4`, `std@4`, `best@2/mean`, `maj@4/std`...),
        each averaged over prompts.
    """
    items = [float(v) for v in torch.as_tensor(values, dtype=torch.float64).tolist()]
    uids = _plain(uids)
    preds = None if preds is None else _plain(preds)
    groups: dict[str, list[int]] = defaultdict(list)
    for index, uid in enumerate(uids):
        groups[uid].append(index)
    per_name: dict[str, list[float]] = defaultdict(list)
    for rows in groups.values():
        vals = [items[i] for i in rows]
        n_resps = len(vals)
        per_name[f"mean@{n_resps}"].append(float(np.mean(vals)))
        if n_resps > 1:
            per_name[f"std@{n_resps}"].append(float(np.std(vals)))
            for n in _ns(n_resps):
                for label, fn in (("best", np.max), ("worst", np.min)):
                    mean, std = _bootstrap(vals, n, fn)
                    per_name[f"{label}@{n}/mean"].append(mean)
                    per_name[f"{label}@{n}/std"].append(std)
                if preds is not None:
                    pairs = [(items[i], preds[i]) for i in rows]
                    mean, std = _bootstrap(pairs, n, _majority)
                    per_name[f"maj@{n}/mean"].append(mean)
                    per_name[f"maj@{n}/std"].append(std)
    return {name: float(np.mean(vals)) for name, vals in per_name.items()}

"""verl validation statistics against a port of verl's bootstrap and majority vote."""

from __future__ import annotations

import math
from functools import partial

import _verl_port as port
import numpy as np
import pytest

from metrics_registry.reference.verl import validation


def _verl(values: list[float], uids: list[str], preds: list[str]) -> dict[str, float]:
    """verl/trainer/ppo/metric_utils.py:940-1044@1dda039 for one data source and one variable."""
    groups: dict[str, list[int]] = {}
    for i, uid in enumerate(uids):
        groups.setdefault(uid, []).append(i)
    per: dict[str, list[float]] = {}
    for rows in groups.values():
        vals = [values[i] for i in rows]
        n_resps = len(vals)
        metric = {f"mean@{n_resps}": float(np.mean(vals)), f"std@{n_resps}": float(np.std(vals))}
        ns, n = [], 2
        while n < n_resps:
            ns.append(n)
            n *= 2
        ns.append(n_resps)
        for n in ns:
            (bon_mean, bon_std), (won_mean, won_std) = port.bootstrap_metric(
                vals, n, [np.max, np.min], 1000, 42
            )
            metric.update({f"best@{n}/mean": bon_mean, f"best@{n}/std": bon_std})
            metric.update({f"worst@{n}/mean": won_mean, f"worst@{n}/std": won_std})
            vote_data = [{"val": values[i], "pred": preds[i]} for i in rows]
            [(maj_mean, maj_std)] = port.bootstrap_metric(
                vote_data, n, [partial(port.calc_maj_val, vote_key="pred", val_key="val")], 1000, 42
            )
            metric.update({f"maj@{n}/mean": maj_mean, f"maj@{n}/std": maj_std})
        for name, value in metric.items():
            per.setdefault(name, []).append(value)
    return {name: float(np.mean(v)) for name, v in per.items()}


@pytest.mark.parametrize("seed", [0, 1])
def test_validation_metrics_match_verl(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2, 20).astype(float).tolist()
    uids = [f"p{i // 5}" for i in range(20)]  # 4 prompts x 5 responses: n = 2, 4, 5
    preds = [str(x) for x in rng.integers(0, 3, 20)]
    ours = validation.validation_metrics(values, uids, preds)
    theirs = _verl(values, uids, preds)
    assert ours.keys() == theirs.keys()
    for name, value in theirs.items():
        assert math.isclose(ours[name], value, rel_tol=1e-12, abs_tol=1e-12), name


def test_best_of_n_is_a_bootstrap_with_replacement_below_the_plain_max() -> None:
    out = validation.validation_metrics([1.0, 0.0, 0.0, 0.0], ["a"] * 4)
    assert out["best@4/mean"] < 1.0  # the plain best of the 4 responses is 1
    assert out["mean@4"] == 0.25

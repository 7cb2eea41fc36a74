r"""NeMo-RL PPO value-model keys (`critic/*`): `MseValueLossFn` and `_compute_critic_metrics`.

The value model is trained through the same worker path as the policy
([`batches`][metrics_registry.reference.nemo_rl.batches]): every key is a
masked sum divided by the valid-token count of the global batch, divided by
the number of global batches and summed over micro-batches, except the
extrema (min/max over micro-batches). `explained_var` is then computed by the
driver from the summed moments (`nemo_rl/algorithms/ppo.py:1165-1191@7ea279ab`,
`nemo_rl/algorithms/loss/loss_functions.py:1218-1340@7ea279ab`). With
`ppo_epochs` > 1 only the last epoch's values are logged.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from metrics_registry.reference.masked import as_float
from metrics_registry.reference.nemo_rl.batches import as_global_batches, loss_masks, token_normalized

__all__ = ["critic_stats"]

Tensors = torch.Tensor | Sequence


def _map(fn, *layouts):  # type: ignore[no-untyped-def]
    return [[fn(*mbs) for mbs in zip(*gbs, strict=True)] for gbs in zip(*layouts, strict=True)]


def critic_stats(
    values: Tensors,
    returns: Tensors,
    token_mask: Tensors,
    sample_mask: Tensors | None = None,
    *,
    old_values: Tensors | None = None,
    cliprange: float | None = None,
    scale: float = 1.0,
) -> dict[str, torch.Tensor]:
    r"""Every `critic/*` key computed from tensors, as `ppo_train` logs it.

    Per token, with the value prediction $v$, the return $R$ and
    $v^{c} = \mathrm{clamp}(v, v_{old} - c, v_{old} + c)$ when `cliprange` $c$ is set:

    * `loss` $= \tfrac12\,\text{scale}\cdot\overline{\max((v-R)^2, (v^{c}-R)^2)}$
      ($\overline{(v-R)^2}$ without clip);
    * `vf_clipfrac` $= \overline{[(v^{c}-R)^2 > (v-R)^2]}$, 0 without clip;
    * `returns_mean`, `values_mean`, `returns_sq_mean` $=\overline{R^2}$,
      `residual_sq_mean` $=\overline{(R-v)^2}$;
    * `values_min`, `values_max`: extrema over valid tokens, a micro-batch without any reporting
      **0.0** (which then takes part in the min/max);
    * `num_valid_samples`: rows per micro-batch (masked samples included), ÷ number of global batches;
    * `explained_var` $= 1 - \dfrac{\overline{(R-v)^2} - (\bar R - \bar v)^2}
      {\max(\overline{R^2} - \bar R^2, 10^{-8})}$.

    Each bar is the token-weighted mean per global batch, averaged over the global batches.

    Args:
        values: value predictions (token layout, `(G, M, B, T)` or `(M, B, T)`).
        returns: return targets, same layout.
        token_mask: token mask, same layout.
        sample_mask: per-sample mask; all ones if `None`.
        old_values: the values at rollout time, needed with `cliprange`.
        cliprange: `loss_fn.cliprange` of the value loss, `None` or 0 for no clip.
        scale: `loss_fn.scale` of the value loss.

    Returns:
        The logged values, keyed without the `critic/` prefix.
    """
    v = as_global_batches(values, 2)
    r = as_global_batches(returns, 2)
    masks = loss_masks(token_mask, sample_mask)
    unclipped = _map(lambda a, b: (as_float(a) - as_float(b)) ** 2, v, r)
    out: dict[str, torch.Tensor] = {}
    if cliprange:
        if old_values is None:
            raise ValueError("a clipped value loss needs old_values")
        old = as_global_batches(old_values, 2)
        clipped = _map(
            lambda a, o, b: (
                (torch.clamp(as_float(a), as_float(o) - cliprange, as_float(o) + cliprange) - as_float(b))
                ** 2
            ),
            v,
            old,
            r,
        )
        out["loss"] = 0.5 * scale * token_normalized(_map(torch.maximum, unclipped, clipped), masks)
        out["vf_clipfrac"] = token_normalized(
            _map(lambda c, u: (c > u).to(torch.float64), clipped, unclipped), masks
        )
    else:
        out["loss"] = 0.5 * scale * token_normalized(unclipped, masks)
        out["vf_clipfrac"] = torch.zeros((), dtype=torch.float64)
    out["returns_mean"] = token_normalized(r, masks)
    out["values_mean"] = token_normalized(v, masks)
    out["returns_sq_mean"] = token_normalized(_map(lambda b: as_float(b) ** 2, r), masks)
    out["residual_sq_mean"] = token_normalized(unclipped, masks)
    per_mb = [
        (as_float(a)[m != 0] if bool((m != 0).any()) else None)
        for gb_v, gb_m in zip(v, masks, strict=True)
        for a, m in zip(gb_v, gb_m, strict=True)
    ]
    zero = torch.zeros((), dtype=torch.float64)
    out["values_min"] = torch.stack([zero if x is None else x.min().to(torch.float64) for x in per_mb]).min()
    out["values_max"] = torch.stack([zero if x is None else x.max().to(torch.float64) for x in per_mb]).max()
    rows = sum(a.shape[0] for gb in v for a in gb)
    out["num_valid_samples"] = torch.tensor(float(rows) / len(v), dtype=torch.float64)
    returns_var = out["returns_sq_mean"] - out["returns_mean"] ** 2
    residual_var = out["residual_sq_mean"] - (out["returns_mean"] - out["values_mean"]) ** 2
    out["explained_var"] = 1.0 - residual_var / torch.clamp(returns_var, min=1e-8)
    return out

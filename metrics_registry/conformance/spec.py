"""Family-free mode: a `Metric` from plain data that names a reference function.

For frameworks whose family is not in the registry yet, a key can still be
checked against a named function: a shared primitive of
`metrics_registry.reference` (e.g. `metrics_registry.reference.kl.k2`, called
with capture tensors as arguments) or a quantity of
[`quantities`][metrics_registry.conformance.quantities]. The reduction is
given explicitly (`within`, `across`, `scope`).

```toml
key = "actor/approx_kl"
reference = "metrics_registry.reference.kl.k1"
args = {logq = "old_logprobs", logp = "logprobs"}   # parameter = capture tensor
estimator = "k1"                                     # lets other_estimator try k2, k3
within = "token"
across = "micro_mean"
```
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any, get_args

from metrics_registry.conformance.capture import CaptureError, config_value
from metrics_registry.conformance.metric import Across, Metric, Variant, Within

__all__ = ["metric_from_spec"]

_KIT = "metrics_registry.conformance.quantities."
_REFERENCE = "metrics_registry.reference."
_FIELDS = {
    "key", "reference", "args", "options", "factory", "kind", "within", "across", "mask", "scope",
    "estimator", "side", "sign_gated", "length_limit",
}  # fmt: skip


def _called(function: Any, args: Mapping[str, str], options: Mapping[str, str], estimator: str | None) -> Any:
    def quantity(tensors: Mapping[str, Any], config: Mapping[str, Any], variant: Variant) -> Any:
        call = function
        kwargs = {param: tensors[name] for param, name in args.items()}
        kwargs.update({param: config_value(config, name, None) for param, name in options.items()})
        if estimator and variant.estimator and variant.estimator != estimator:
            from metrics_registry.reference.kl import estimate

            return estimate(kwargs["logq"], kwargs["logp"], variant.estimator)  # type: ignore[arg-type]
        return call(**kwargs)

    return quantity


def metric_from_spec(spec: Mapping[str, Any]) -> Metric:
    """A `Metric` from a spec table (see the module docstring); `CaptureError` for a bad spec."""
    unknown = set(spec) - _FIELDS
    if unknown:
        raise CaptureError(f"unknown metric spec fields {sorted(unknown)}; use some of {sorted(_FIELDS)}")
    key, reference = str(spec.get("key", "")), str(spec.get("reference", ""))
    kind = spec.get("kind", "token")
    within, across = spec.get("within", "token"), spec.get("across", "micro_mean")
    if within not in get_args(Within) or across not in get_args(Across) or kind not in ("token", "statistic"):
        raise CaptureError(f"{key}: kind, within or across has an unknown value")
    quantity = statistic = None
    if reference.startswith(_KIT):
        from metrics_registry.conformance.quantities import QUANTITIES, STATISTICS

        name = reference.removeprefix(_KIT)
        table = QUANTITIES if kind == "token" else STATISTICS
        if name not in table:
            raise CaptureError(f"{key}: no {kind} {name!r} in the kit; use one of {', '.join(sorted(table))}")
        built = table[name](**dict(spec.get("factory", {})))
        quantity, statistic = (built, None) if kind == "token" else (None, built)
    elif reference.startswith(_REFERENCE):
        module, _, name = reference.rpartition(".")
        try:
            function = getattr(import_module(module), name)
        except (ImportError, AttributeError):
            raise CaptureError(f"{key}: no reference function {reference}") from None
        built = _called(
            function, dict(spec.get("args", {})), dict(spec.get("options", {})), spec.get("estimator")
        )
        quantity, statistic = (built, None) if kind == "token" else (None, built)
    else:
        raise CaptureError(f"{key}: reference must name a function under {_REFERENCE} or {_KIT}")
    return Metric(
        key=key,
        reference=reference,
        quantity=quantity,
        statistic=statistic,
        scope=spec.get("scope", "micro"),
        within=within,
        across=across,
        mask=str(spec.get("mask", "mask")),
        estimator=spec.get("estimator"),
        side=spec.get("side"),
        sign_gated=bool(spec.get("sign_gated", False)),
        length_limit=bool(spec.get("length_limit", False)),
    )

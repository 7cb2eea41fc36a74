"""Named hypotheses about how a logged value went wrong, each tested on the captured data.

A hypothesis is a function `(context) -> iterable of (explanation, predicted value)`,
registered with `@hypothesis("name")`: the kit evaluates the predictions and
keeps the hypotheses whose prediction matches the logged value while the
reference does not. Adding one is adding one function here (or anywhere, with
the decorator). The order of `HYPOTHESES` is the order of preference when
several explain the same number (a specific cause before a bare factor).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from metrics_registry.conformance.capture import StepCapture
from metrics_registry.conformance.marks import N_
from metrics_registry.conformance.metric import Metric, Variant, evaluate

__all__ = ["HYPOTHESES", "Context", "hypothesis"]


@dataclass(frozen=True)
class Context:
    """What a hypothesis sees: the metric, the capture, the reference value and the logged one."""

    metric: Metric
    capture: StepCapture
    reference: float
    logged: float

    def value(self, variant: Variant) -> float:
        return evaluate(self.metric, self.capture, variant)

    @property
    def token_metric(self) -> bool:
        return self.metric.quantity is not None and self.metric.scope == "micro"


#: (English explanation with %(name)s placeholders, their values, the predicted value)
Prediction = tuple[str, dict[str, object], float]
Hypothesis = Callable[[Context], Iterable[Prediction]]
HYPOTHESES: dict[str, Hypothesis] = {}


def hypothesis(name: str) -> Callable[[Hypothesis], Hypothesis]:
    """Register a hypothesis under `name` (the diagnosis a result reports)."""

    def register(function: Hypothesis) -> Hypothesis:
        HYPOTHESES[name] = function
        return function

    return register


@hypothesis("constant_zero")
def constant_zero(ctx: Context) -> Iterable[Prediction]:
    yield N_("always 0: the value is never computed or never written"), {}, 0.0


@hypothesis("sign_flipped")
def sign_flipped(ctx: Context) -> Iterable[Prediction]:
    yield N_("the sign is flipped"), {}, -ctx.reference


@hypothesis("other_estimator")
def other_estimator(ctx: Context) -> Iterable[Prediction]:
    if ctx.metric.estimator is None:
        return
    for estimator in ("k1", "k2", "k3"):
        if estimator != ctx.metric.estimator:
            yield (
                N_("the %(used)s KL estimator instead of %(expected)s"),
                {"used": estimator, "expected": ctx.metric.estimator},
                ctx.value(Variant(estimator=estimator)),
            )


@hypothesis("sides_swapped")
def sides_swapped(ctx: Context) -> Iterable[Prediction]:
    if ctx.metric.side is not None:
        other = "high" if ctx.metric.side == "low" else "low"
        yield (
            N_("the %(other)s side's value is logged under the %(side)s key"),
            {"other": other, "side": ctx.metric.side},
            ctx.value(Variant(swap_sides=True)),
        )


@hypothesis("advantage_sign_paired_wrong")
def advantage_sign(ctx: Context) -> Iterable[Prediction]:
    if ctx.metric.sign_gated:
        yield (
            N_("the clip direction is paired with the wrong advantage sign"),
            {},
            ctx.value(Variant(flip_sign_pairing=True)),
        )


@hypothesis("last_mini_batch_only")
def last_mini_batch(ctx: Context) -> Iterable[Prediction]:
    if (
        ctx.metric.scope == "micro"
        and len({(mb.epoch, mb.mini_batch) for mb in ctx.capture.micro_batches}) > 1
    ):
        yield (
            N_("only the last mini-batch is reported, not the whole update"),
            {},
            ctx.value(Variant(last_mini_batch=True)),
        )


@hypothesis("mean_of_micro_batch_means")
def mean_of_means(ctx: Context) -> Iterable[Prediction]:
    if ctx.metric.scope != "micro" or len(ctx.capture.micro_batches) < 2:
        return
    if ctx.metric.across in ("token_weighted", "pooled"):
        yield (
            N_("the mean of per-micro-batch values instead of one over the batch"),
            {},
            ctx.value(Variant(across="micro_mean")),
        )
    elif ctx.metric.across == "micro_mean":
        weighted = "token_weighted" if ctx.token_metric else "pooled"
        yield (
            N_("one value over the whole batch instead of the mean of micro-batch values"),
            {},
            ctx.value(Variant(across=weighted)),
        )


@hypothesis("mean_of_sequence_means")
def sequence_means(ctx: Context) -> Iterable[Prediction]:
    if ctx.token_metric and ctx.metric.within == "token":
        yield (
            N_("the mean of per-sequence means instead of a token-weighted mean"),
            {},
            ctx.value(Variant(within="sequence")),
        )
    elif ctx.token_metric and ctx.metric.within == "sequence":
        yield (
            N_("a token-weighted mean instead of the mean of per-sequence means"),
            {},
            ctx.value(Variant(within="token")),
        )


@hypothesis("padding_counted")
def padding_counted(ctx: Context) -> Iterable[Prediction]:
    if ctx.token_metric:
        yield N_("padding positions are counted in the denominator"), {}, ctx.value(Variant(within="padded"))


@hypothesis("unmasked")
def unmasked(ctx: Context) -> Iterable[Prediction]:
    if ctx.token_metric:
        yield (
            N_("the mask is not applied: padding values are averaged in"),
            {},
            ctx.value(Variant(within="unmasked")),
        )


@hypothesis("padded_width")
def padded_width(ctx: Context) -> Iterable[Prediction]:
    if ctx.metric.length_limit:
        yield (
            N_("lengths are compared with the padded batch width, not the configured limit"),
            {},
            ctx.value(Variant(padded_width=True)),
        )


@hypothesis("unwritten_cells")
def unwritten_cells(ctx: Context) -> Iterable[Prediction]:
    layout = ctx.capture.layout
    cells = layout.epochs * layout.mini_batches * layout.grad_accum
    written = len(ctx.capture.micro_batches)
    if ctx.metric.scope == "micro" and ctx.metric.across in ("micro_mean", "micro_var") and written < cells:
        # the capture says which cells were written: the grid's statistic recomputed with the rest at 0
        # (exact for a variance too, which no factor on the reference reproduces)
        yield (
            N_("averaged over a grid of %(cells)s cells of which %(empty)s were never written (left at 0)"),
            {"cells": cells, "empty": cells - written},
            ctx.value(Variant(unwritten_cells=cells - written)),
        )
    for empty in range(1, min(cells, 64)):
        yield (
            N_("averaged over a grid of %(cells)s cells of which %(empty)s were never written (left at 0)"),
            {"cells": cells, "empty": empty},
            ctx.reference * (cells - empty) / cells,
        )


@hypothesis("layout_factor")
def layout_factor(ctx: Context) -> Iterable[Prediction]:
    by_count: dict[int, list[str]] = {}
    for name, count in ctx.capture.layout.counts(len(ctx.capture.micro_batches)).items():
        by_count.setdefault(count, []).append(name)
    for count, names in by_count.items():
        params: dict[str, object] = {"count": count, "what": " | ".join(names)}
        yield N_("multiplied by %(count)s = the number of %(what)s"), params, ctx.reference * count
        yield N_("divided by %(count)s = the number of %(what)s"), params, ctx.reference / count

"""Short texts derived from structured fields, shared by the pages and the terminal.

Written once here so that ``explain`` and the site say the same thing; the
site passes its gettext so the words are translated (this module is in the
``ui`` extraction map, ``i18n/babel.cfg``).
"""

from __future__ import annotations

from collections.abc import Callable

from metrics_registry.conditions import Condition
from metrics_registry.models import ConstantRule, DirectionRule, FiniteRule, RangeRule, SpikeRule

__all__ = [
    "describe_across_processes",
    "describe_category",
    "describe_condition",
    "describe_issue_effect",
    "describe_reduce",
    "describe_reduction_level",
    "describe_reduction_op",
    "describe_rule",
    "describe_rule_conditions",
    "describe_unit",
]


def _identity(message: str) -> str:
    return message


def _general(value: float) -> str:
    return f"{value:g}"


def describe_rule(
    rule: object, _: Callable[[str], str] = _identity, number: Callable[[float], str] = _general
) -> str:
    """What a healthy rule expects, in words: ``between 0.8 and 1.2``, ``goes up over the run``.

    ``number`` formats the thresholds (``check-run`` passes one for the report's locale).
    """
    if isinstance(rule, RangeRule):
        if rule.min is not None and rule.max is not None:
            return _("between %(min)s and %(max)s") % {"min": number(rule.min), "max": number(rule.max)}
        if rule.min is not None:
            return _("at least %(min)s") % {"min": number(rule.min)}
        return _("at most %(max)s") % {"max": number(rule.max)}  # type: ignore[arg-type]
    if isinstance(rule, DirectionRule):
        return {
            "increase": _("goes up over the run"),
            "decrease": _("goes down over the run"),
            "stable": _("stays level over the run"),
        }[rule.direction]
    if isinstance(rule, SpikeRule):
        return _("no jump above %(factor)s× the running median") % {"factor": number(rule.factor)}
    if isinstance(rule, ConstantRule):
        if rule.value is None:
            return _("not stuck")
        return _("not stuck at %(value)s") % {"value": number(rule.value)}
    if isinstance(rule, FiniteRule):
        return _("never NaN or infinite")
    return ""


def describe_reduce(value: str, _: Callable[[str], str] = _identity) -> str:
    """The final reduction of an aggregation, in words."""
    words = {
        "mean": _("mean"),
        "sum": _("sum"),
        "min": _("minimum"),
        "max": _("maximum"),
        "std": _("standard deviation"),
        "var": _("variance"),
        "median": _("median"),
        "count": _("count"),
        "fraction": _("fraction"),
        "histogram": _("histogram"),
        "last": _("last value"),
        "value": _("single value"),
    }
    return words.get(_value(value), _value(value))


def describe_across_processes(value: str, _: Callable[[str], str] = _identity) -> str:
    """How the processes of a distributed run are combined, in words."""
    words = {
        "gather": _("gathered from all processes, then reduced"),
        "mean": _("each process reduces, then the results are averaged"),
        "sum": _("summed over processes"),
        "main_process": _("main process only"),
        "none": _("per process, not combined"),
    }
    return words.get(_value(value), _value(value))


def describe_category(value: str, _: Callable[[str], str] = _identity) -> str:
    """A metric's category as a short label."""
    words = {
        "reward": _("reward"),
        "kl": _("KL"),
        "entropy": _("entropy"),
        "policy": _("policy"),
        "value": _("value function"),
        "loss": _("loss"),
        "clipping": _("clipping"),
        "advantage": _("advantage"),
        "length": _("length"),
        "sampling": _("sampling"),
        "tools": _("tools"),
        "throughput": _("throughput"),
        "schedule": _("schedule"),
        "progress": _("progress"),
    }
    return words.get(_value(value), _value(value))


def describe_unit(value: str, _: Callable[[str], str] = _identity) -> str:
    """A metric's unit as a short label."""
    words = {
        "nats": _("nats"),
        "fraction": _("fraction"),
        "ratio": _("ratio"),
        "dimensionless": _("dimensionless"),
        "reward": _("reward scale"),
        "tokens": _("tokens"),
        "seconds": _("seconds"),
        "count": _("count"),
        "episodes": _("episodes"),
        "per_second": _("per second"),
        "learning_rate": _("learning rate"),
        "turns": _("turns"),
        "distribution": _("distribution"),
    }
    return words.get(_value(value), _value(value))


def describe_reduction_level(value: str, _: Callable[[str], str] = _identity) -> str:
    """A stage of a reduction (``reduction[].level``), in words."""
    words = {
        "token": _("token"),
        "sequence": _("sequence"),
        "group": _("group of completions"),
        "micro-batch": _("micro-batch"),
        "mini-batch": _("mini-batch"),
        "epoch": _("epoch"),
        "rank": _("processes (ranks)"),
        "step": _("step"),
        "logging-window": _("logging window"),
    }
    return words.get(_value(value), _value(value))


def describe_reduction_op(value: str, _: Callable[[str], str] = _identity) -> str:
    """How a stage of a reduction combines values (``reduction[].reduce``), in words."""
    words = {
        "mean": _("mean"),
        "token-weighted-mean": _("token-weighted mean"),
        "sample-weighted-mean": _("sample-weighted mean"),
        "mean-of-means": _("mean of means"),
        "sum": _("sum"),
        "max": _("maximum"),
        "min": _("minimum"),
        "last": _("last value"),
        "std": _("standard deviation"),
        "var": _("variance"),
        "median": _("median"),
        "count": _("count"),
        "fraction": _("fraction"),
        "gather": _("gathered, reduced at a later stage"),
    }
    return words.get(_value(value), _value(value))


def describe_issue_effect(value: str, _: Callable[[str], str] = _identity) -> str:
    """What a known issue does to the logged value (``known_issues[].effect``), in words."""
    words = {
        "inflated": _("inflated"),
        "deflated": _("deflated"),
        "wrong-sign": _("of the wrong sign"),
        "constant": _("stuck at a constant"),
        "stale": _("stale"),
        "wrong": _("wrong"),
    }
    return words.get(_value(value), _value(value))


def _code_as_is(text: str) -> str:
    return text


def describe_condition(
    condition: Condition,
    _: Callable[[str], str] = _identity,
    who: str = "TRL",
    code: Callable[[str], str] = _code_as_is,
) -> str:
    """``TRL ≥ 0.17.0, < 1.13.0 and num_mini_batches > 1``; ``code`` marks up option conditions."""
    parts = [condition.versions.text(who)] if condition.versions is not None else []
    parts += [code(item.text()) for item in condition.config]
    return _(" and ").join(parts)


def describe_rule_conditions(
    rule: object,
    _: Callable[[str], str] = _identity,
    who: str = "TRL",
    code: Callable[[str], str] = _code_as_is,
) -> str:
    """When a healthy rule holds: ``only when ...``, ``not when ...``, both, or ``""``."""
    parts = []
    applies = getattr(rule, "applies_when", None)
    excepted = getattr(rule, "except_when", None)
    if applies is not None:
        parts.append(_("only when %(condition)s") % {"condition": describe_condition(applies, _, who, code)})
    if excepted is not None:
        parts.append(_("not when %(condition)s") % {"condition": describe_condition(excepted, _, who, code)})
    return _("; ").join(parts)


def _value(value: object) -> str:
    return str(getattr(value, "value", value))

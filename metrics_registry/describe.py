"""Short texts derived from structured fields, shared by the pages and the terminal.

Written once here so that ``explain`` and the site say the same thing; the
site passes its gettext so the words are translated (this module is in the
``ui`` extraction map, ``i18n/babel.cfg``).
"""

from __future__ import annotations

from collections.abc import Callable

from metrics_registry.models import ConstantRule, DirectionRule, RangeRule, SpikeRule

__all__ = ["describe_rule"]


def _identity(message: str) -> str:
    return message


def describe_rule(rule: object, _: Callable[[str], str] = _identity) -> str:
    """What a healthy rule expects, in words: ``between 0.8 and 1.2``, ``goes up over the run``."""
    if isinstance(rule, RangeRule):
        if rule.min is not None and rule.max is not None:
            return _("between %(min)s and %(max)s") % {"min": f"{rule.min:g}", "max": f"{rule.max:g}"}
        if rule.min is not None:
            return _("at least %(min)s") % {"min": f"{rule.min:g}"}
        return _("at most %(max)s") % {"max": f"{rule.max:g}"}
    if isinstance(rule, DirectionRule):
        return {
            "increase": _("goes up over the run"),
            "decrease": _("goes down over the run"),
            "stable": _("stays level over the run"),
        }[rule.direction]
    if isinstance(rule, SpikeRule):
        return _("no jump above %(factor)s× the running median") % {"factor": f"{rule.factor:g}"}
    if isinstance(rule, ConstantRule):
        if rule.value is None:
            return _("not stuck")
        return _("not stuck at %(value)s") % {"value": f"{rule.value:g}"}
    return _("never NaN or infinite")

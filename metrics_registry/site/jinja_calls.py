"""A Jinja context whose calls to the environment's own plain functions take a short path.

Every call in a template (``{{ tx(entry, "title") }}``) goes through
:meth:`jinja2.runtime.Context.call`, which first asks the callable, and its
``__call__``, whether it wants the context, the evaluation context or the
environment passed in. A metric page makes about 85 such calls, nearly all to
the plain functions :func:`metrics_registry.site.environment.environment`
installs, for which the answer never changes: asked once here, when the
environment is made. Written by hand because Jinja has no switch for it; it uses
Jinja's documented hook for this (``Environment.context_class``), and every
other callable goes through Jinja's own ``Context.call``.
"""

from __future__ import annotations

from types import FunctionType
from typing import Any

from jinja2 import Environment
from jinja2.runtime import Context

__all__ = ["with_direct_calls"]


def _plain(value: object) -> bool:
    """A Python function without Jinja's ``pass_context``/``pass_eval_context``/``pass_environment``."""
    return isinstance(value, FunctionType) and not hasattr(value, "jinja_pass_arg")


def with_direct_calls(env: Environment) -> Environment:
    """Make ``env``'s templates call its plain global functions (as they are now) directly."""
    plain = frozenset(value for value in env.globals.values() if _plain(value))

    class DirectCalls(Context):
        def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            if __obj not in plain:
                return super().call(__obj, *args, **kwargs)
            # what Context.call does for a callable that takes no context
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except StopIteration:
                return __self.environment.undefined(
                    "value was undefined because a callable raised a StopIteration exception"
                )

    env.context_class = DirectCalls
    return env

"""The short call path of the page templates (metrics_registry/site/jinja_calls.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from jinja2 import Environment, StrictUndefined, UndefinedError, pass_context
from jinja2.runtime import Context

from metrics_registry.site.jinja_calls import with_direct_calls


def _environment() -> tuple[Environment, list[object]]:
    calls: list[object] = []

    def plain(*args: object, **kwargs: object) -> str:
        calls.append((args, kwargs))
        return "-".join(map(str, args))

    @pass_context
    def wants_context(context: Context, name: str) -> object:
        calls.append(context)
        return context.resolve(name)

    def stops() -> Iterator[str]:
        raise StopIteration

    env = Environment(undefined=StrictUndefined)
    env.globals.update(plain=plain, wants_context=wants_context, stops=stops)
    return with_direct_calls(env), calls


def test_a_plain_function_is_called_with_the_template_arguments_only() -> None:
    env, calls = _environment()
    # in a loop Jinja passes _loop_vars along, which a plain function must not receive
    text = env.from_string("{% for x in [1, 2] %}{{ plain(x, 'a', k=x) }};{% endfor %}").render()
    assert text == "1-a;2-a;"
    assert calls == [((1, "a"), {"k": 1}), ((2, "a"), {"k": 2})]


def test_a_function_that_asks_for_the_context_still_gets_it_with_the_loop_variables() -> None:
    env, calls = _environment()
    text = env.from_string(
        "{% for x in [7] %}{% set y = x * 2 %}{{ wants_context('y') }}{% endfor %}"
    ).render()
    assert text == "14"
    assert isinstance(calls[0], Context)


def test_a_stop_iteration_gives_undefined_as_in_jinja() -> None:
    env, _ = _environment()
    with pytest.raises(UndefinedError, match="StopIteration"):
        env.from_string("{{ stops() }}").render()


def test_other_callables_go_through_jinja() -> None:
    env, _ = _environment()
    assert env.from_string("{{ items.append(3) }}{{ items }}").render(items=[1]) == "None[1, 3]"

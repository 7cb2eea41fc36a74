"""One-line errors for every ``metrics-registry`` subcommand.

The package's exceptions carry messages a user can act on; the commands
print them as one line on stderr with a non-zero exit code instead of a
traceback. (``metrics_registry.encoding`` keeps its own, being standalone.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn, TypeVar

import click

__all__ = ["fail", "release_number", "user_errors"]

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``message`` as the command's one-line error and exit with ``code``."""
    click.echo(f"metrics-registry: error: {message}", err=True)
    sys.exit(code)


def _is_expected(error: BaseException, expected: tuple[type[BaseException] | str, ...]) -> bool:
    for spec in expected:
        kind: type[BaseException] | None
        if isinstance(spec, str):
            # "module:Class", looked up only if the module was imported: an error of a
            # module no code loaded cannot have been raised, and a command does not pay
            # for importing the modules of the others
            module_name, _, class_name = spec.partition(":")
            module = sys.modules.get(module_name)
            kind = getattr(module, class_name, None) if module is not None else None
        else:
            kind = spec
        if kind is not None and isinstance(error, kind):
            return True
    return False


def user_errors(*expected: type[BaseException] | str) -> Callable[[F], F]:
    """Turn ``expected`` exceptions (and ``OSError``) into :func:`fail`.

    An expected exception is a class, or ``"module:Class"`` so that the
    module is not imported before a command needs it. The exit code is the
    exception's ``exit_code`` attribute when it has one (2 for a refused
    output path), else 1.
    """

    def decorate(function: F) -> F:
        @wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except Exception as error:
                if _is_expected(error, expected):
                    fail(str(error), getattr(error, "exit_code", 1))
                if isinstance(error, OSError):
                    _fail_os(error)
                raise

        return wrapper  # type: ignore[return-value]

    return decorate


def _fail_os(error: OSError) -> NoReturn:
    # fileio.WriteRefused carries exit_code 2 (nothing was touched)
    reason = error.strerror or str(error)
    fail(
        f"{error.filename}: {reason}" if error.filename else reason,
        getattr(error, "exit_code", 1),
    )


def release_number(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """Callback of --trl-version and --version: a release number, else a usage error (exit 2)."""
    if value is None:
        return None
    from metrics_registry.registry import InvalidVersionError, check_version

    try:
        return check_version(value)
    except InvalidVersionError as error:
        raise click.BadParameter(str(error)) from None

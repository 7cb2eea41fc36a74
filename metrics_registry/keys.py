"""Metric keys: templated keys, references and matching a logged key.

A key is what the trainer passes to its logger, e.g. ``objective/kl``. A
*templated* key has named holes, e.g. ``rewards/{reward_func_name}/mean``,
which match any concrete key logged for one reward function. A *reference*
names a metric from a registry entry: ``key`` (same family) or
``family:key`` (another family).

Matching is written by hand because the template language is tiny (named
holes, one path segment or part of one each) and the errors must speak of
metric keys, not of regular expressions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "KEY_PATTERN",
    "REFERENCE_PATTERN",
    "Reference",
    "TemplateError",
    "compile_template",
    "is_templated",
    "placeholders",
    "shown",
    "template_problem",
]

# Deliberately loose: anything without a colon (which separates the family
# in a reference). The precise checks live in template_problem() so that the
# error can say what is wrong.
KEY_PATTERN = r"^[^:]+$"
REFERENCE_PATTERN = r"^([a-z][a-z0-9]*(-[a-z0-9]+)*:)?[^\s:]+$"

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_LITERAL_CHARS = re.compile(r"^[A-Za-z0-9_.\-/]*$")


class TemplateError(ValueError):
    """A templated key that cannot be compiled."""


def shown(key: str, limit: int = 120) -> str:
    r"""``key`` as an error message may quote it: control characters escaped, long keys cut.

    >>> shown("ok/\x1b[2Jkey")
    'ok/\\x1b[2Jkey'
    >>> shown("a/" * 100, limit=10)
    'a/a/a/a/a/… (200 characters)'
    """
    visible = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in key)
    return visible if len(visible) <= limit else f"{visible[:limit]}… ({len(key)} characters)"


def is_templated(key: str) -> bool:
    """Whether ``key`` has a ``{placeholder}``."""
    return "{" in key or "}" in key


def placeholders(key: str) -> list[str]:
    """Names of the placeholders of ``key``, in order.

    >>> placeholders("rewards/{reward_func_name}/mean")
    ['reward_func_name']
    """
    return _PLACEHOLDER.findall(key)


def template_problem(key: str) -> str | None:
    """Describe what is wrong with ``key`` as a (templated) key, or ``None``.

    >>> template_problem("rewards/{reward_func_name}/mean") is None
    True
    >>> template_problem("rewards/{Reward Func}/mean")
    "placeholder '{Reward Func}' must be a lower-case identifier such as '{reward_func_name}'"
    """
    if key.startswith("/") or key.endswith("/") or "//" in key:
        return "a key has no empty path segment (no leading, trailing or doubled '/')"
    if any(segment in {".", ".."} for segment in key.split("/")):
        # keys become anchors, file names and URLs: a '..' segment would climb out of the page's folder
        return "a path segment cannot be '.' or '..'; name what the metric measures"
    names = _PLACEHOLDER.findall(key)
    literal = _PLACEHOLDER.sub("", key)
    if "{" in literal or "}" in literal:
        return "unbalanced '{' or '}': a placeholder is written '{name}'"
    for name in names:
        if not _NAME.match(name):
            return f"placeholder '{{{name}}}' must be a lower-case identifier such as '{{reward_func_name}}'"
    if len(set(names)) != len(names):
        return "the same placeholder appears twice"
    if re.search(r"\}\{", key):
        return "two placeholders side by side cannot be told apart; put a literal between them"
    if not _LITERAL_CHARS.match(literal):
        bad = sorted({c for c in literal if not _LITERAL_CHARS.match(c)})
        return f"unexpected character(s) {''.join(bad)!r}; keys use letters, digits, '_', '-', '.' and '/'"
    return None


@lru_cache(maxsize=4096)
def compile_template(key: str) -> re.Pattern[str]:
    """A regular expression matching concrete instances of ``key``.

    A placeholder matches one or more characters other than '/'.

    >>> bool(compile_template("rewards/{reward_func_name}/mean").match("rewards/accuracy_reward/mean"))
    True
    """
    problem = template_problem(key)
    if problem:
        raise TemplateError(f"{key!r}: {problem}")
    parts: list[str] = []
    position = 0
    for match in _PLACEHOLDER.finditer(key):
        parts.append(re.escape(key[position : match.start()]))
        parts.append(f"(?P<{match.group(1)}>[^/]+)")
        position = match.end()
    parts.append(re.escape(key[position:]))
    return re.compile("^" + "".join(parts) + "$")


@dataclass(frozen=True)
class Reference:
    """A pointer to a metric: ``key`` in the current family or ``family:key``."""

    family: str | None
    key: str

    @classmethod
    def parse(cls, text: str) -> Reference:
        """Split ``'family:key'`` (or a bare ``'key'``).

        >>> Reference.parse("legacy-ppo:ppo/policy/approxkl")
        Reference(family='legacy-ppo', key='ppo/policy/approxkl')
        >>> Reference.parse("kl")
        Reference(family=None, key='kl')
        """
        family, sep, key = text.partition(":")
        if not sep:
            return cls(None, text)
        return cls(family, key)

    def __str__(self) -> str:
        return f"{self.family}:{self.key}" if self.family else self.key

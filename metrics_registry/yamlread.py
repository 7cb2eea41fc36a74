"""Read untrusted YAML text into plain data, with the line of every item, fast and bounded.

libyaml (through PyYAML's C parser) builds the node tree; it is ~20× faster
than a pure-Python parser, which dominated every command that loads the
registry. Nodes are then copied by hand into ``dict``/``list``/scalars
because no YAML library offers all of what a registry file needs at once:

- the line of every key and list item, for findings;
- YAML 1.2 scalars (``yes``/``no``/``on`` stay strings, as editors and the
  JSON schema read them; PyYAML's constructor follows YAML 1.1);
- duplicate keys refused (PyYAML keeps the last value silently);
- no tags beyond plain data (nothing language-specific is ever built);
- a bound on what aliases may expand to ("billion laughs") and on nesting.

Only round-trip rewriting (``metrics-registry new``) uses ruamel.yaml, which
keeps comments.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar

import yaml

__all__ = [
    "MAX_ALIASED_VALUES",
    "MAX_DEPTH",
    "DuplicateKeyError",
    "Loc",
    "TagError",
    "TooBigError",
    "YAMLError",
    "read_yaml",
]

Loc = tuple[str | int, ...]
YAMLError = yaml.YAMLError

# Real registry files use no aliases and nest 6 levels.
MAX_ALIASED_VALUES = 10_000
MAX_DEPTH = 64

_PLAIN_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}


class _Core12Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser with the YAML 1.2 core schema's implicit types."""

    yaml_implicit_resolvers: ClassVar[dict[str | None, list[tuple[str, re.Pattern[str]]]]] = {}


for _tag, _pattern, _first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
):
    # "" indexes the empty plain scalar, which is null
    _Core12Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), list(_first))


class TooBigError(Exception):
    """The document expands beyond :data:`MAX_ALIASED_VALUES` values or :data:`MAX_DEPTH` levels."""

    def __init__(self, what: str, loc: Loc, line: int | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.loc = loc
        self.line = line


class TagError(Exception):
    """A tag asking for something other than plain data, or a key that is not a scalar."""

    def __init__(self, tag: str, loc: Loc) -> None:
        super().__init__(tag)
        self.tag = tag
        self.loc = loc
        self.line: int | None = None


@dataclass
class DuplicateKeyError(Exception):
    """A mapping names the same key twice; YAML parsers would silently keep one value."""

    key: str
    line: int
    first_line: int

    def __str__(self) -> str:
        return f"duplicate key '{self.key}' (first at line {self.first_line})"


def _nesting_problem(text: str) -> tuple[int | None, str] | None:
    """Whether ``text`` nests deeper than :data:`MAX_DEPTH`, found by libyaml's event parser.

    The event parser is linear and does not recurse; checking first keeps the
    composer and :func:`_plain` (both recursive) away from deep documents.
    """
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Core12Loader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    return (mark.line + 1 if mark else None), f"is nested more than {MAX_DEPTH} levels deep"
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as error:
        if "depth" in str(error) or "nesting" in str(error):  # libyaml's own limit (1,000 levels)
            mark = getattr(error, "problem_mark", None)
            return (mark.line + 1 if mark else None), f"is nested more than {MAX_DEPTH} levels deep"
        return None  # any other problem is reported with its line by the composer
    return None


class _Copy:
    """One document's copy: the line of every item and the alias budget."""

    def __init__(self) -> None:
        self.lines: dict[Loc, int] = {}
        self.values_left = MAX_ALIASED_VALUES
        self.seen: set[int] = set()

    def plain(self, node: yaml.Node, loc: Loc, aliased: bool = False) -> Any:
        if len(loc) > MAX_DEPTH:
            raise TooBigError(f"is nested more than {MAX_DEPTH} levels deep", loc)
        if isinstance(node, yaml.CollectionNode):
            aliased = aliased or id(node) in self.seen
            self.seen.add(id(node))
        if aliased:
            self.values_left -= 1
            if self.values_left < 0:
                raise TooBigError(
                    f"expands to more than {MAX_ALIASED_VALUES:,} values through YAML aliases", loc
                )
        if node.tag not in _PLAIN_TAGS:
            raise TagError(node.tag, loc)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, loc, aliased)
        if isinstance(node, yaml.SequenceNode):
            items = []
            for index, item in enumerate(node.value):
                child = (*loc, index)
                self.lines[child] = item.start_mark.line + 1
                items.append(self.plain(item, child, aliased))
            return items
        return _scalar(node)

    def _mapping(self, node: yaml.MappingNode, loc: Loc, aliased: bool) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                error = TagError("a mapping or list used as a key", loc)
                error.line = line
                raise error
            key = str(_scalar(key_node))
            if key in first_lines:
                raise DuplicateKeyError(key, line, first_lines[key])
            first_lines[key] = line
            child = (*loc, key)
            self.lines[child] = line
            result[key] = self.plain(value_node, child, aliased)
        return result


def _scalar(node: yaml.ScalarNode) -> Any:
    value: str = node.value
    tag = node.tag.rsplit(":", 1)[-1]
    try:
        if tag == "null":
            return None
        if tag == "bool":
            return value.lower() == "true"
        if tag == "int":
            if value.startswith(("0o", "0x")):
                return int(value[2:], 8 if value[1] == "o" else 16)
            return int(value)
        if tag == "float":
            lowered = value.lower()
            if lowered.endswith(".inf"):
                return -math.inf if lowered.startswith("-") else math.inf
            if lowered == ".nan":
                return math.nan
            return float(value)
    except ValueError:
        # an explicit '!!int' on text, or more digits than Python converts
        # (4,300): kept as text, so the schema names the field precisely
        return value
    return value


def read_yaml(text: str) -> tuple[Any, dict[Loc, int]]:
    """The document in ``text`` as plain data, and the line (1-based) of every key and item.

    Raises :class:`YAMLError` (syntax), :class:`DuplicateKeyError`,
    :class:`TagError` or :class:`TooBigError`; never executes anything.
    """
    nesting = _nesting_problem(text)
    if nesting is not None:
        line, what = nesting
        raise TooBigError(what, (), line)
    node = yaml.compose(text, Loader=_Core12Loader)
    copy = _Copy()
    if node is None:
        return None, copy.lines
    try:
        return copy.plain(node, ()), copy.lines
    except (TooBigError, TagError) as error:
        error.line = error.line or _line_of(copy.lines, error.loc) or node.start_mark.line + 1
        raise


def _line_of(lines: dict[Loc, int], loc: Loc) -> int | None:
    """Line of the deepest located prefix of ``loc``."""
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None

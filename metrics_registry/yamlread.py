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
from typing import Any

import yaml

from metrics_registry.config import MAX_FILE_BYTES
from metrics_registry.terminal import CONTROL_CHARACTERS

__all__ = [
    "MAX_ALIASED_VALUES",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "READ_ERRORS",
    "Document",
    "DuplicateKeyError",
    "Loc",
    "TagError",
    "TooBigError",
    "YAMLError",
    "line_of",
    "read_document",
    "read_yaml",
]

Loc = tuple[str | int, ...]
YAMLError = yaml.YAMLError

# Real registry files use no aliases and nest 6 levels.
MAX_ALIASED_VALUES = 10_000
MAX_DEPTH = 64
_TOO_DEEP = f"is nested more than {MAX_DEPTH} levels deep"

_PLAIN_TAGS = {
    "tag:metrics-registry,2026:plain",
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_PLAIN = "tag:metrics-registry,2026:plain"  # an untagged plain scalar, typed by _plain_scalar


class _Core12Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser; plain scalars are typed later, by the YAML 1.2 core schema.

    PyYAML's resolver tries a list of regular expressions on every scalar, in
    Python; here a scalar is only marked plain or quoted, and
    :func:`_plain_scalar` looks at its first character before any pattern.
    """

    def resolve(self, kind: type, value: str | None, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP


_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULLS = {"~", "null", "Null", "NULL"}


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


class _Copy:
    """One document's copy: the line of every item and the alias budget."""

    def __init__(self) -> None:
        self.lines: dict[Loc, int] = {}
        self.controls: list[Loc] = []  # texts holding a control character
        self.values_left = MAX_ALIASED_VALUES
        self.seen: set[int] = set()

    def plain(self, node: yaml.Node, loc: Loc, aliased: bool = False) -> Any:
        if isinstance(node, yaml.CollectionNode):
            if len(loc) >= MAX_DEPTH:  # the root collection is level 1
                raise TooBigError(_TOO_DEEP, loc)
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
        value = _scalar(node)
        if isinstance(value, str) and CONTROL_CHARACTERS.search(value):
            self.controls.append(loc)
        return value

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
    if node.tag == _PLAIN:
        return _plain_scalar(value)
    if node.tag == _STR:
        return value
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


def _plain_scalar(value: str) -> Any:
    """An untagged plain scalar typed by the YAML 1.2 core schema (``yes`` stays text)."""
    first = value[:1]
    if not first or value in _NULLS:
        return None
    if first in "-+.0123456789":
        try:
            if _INT.fullmatch(value):
                if value.startswith(("0o", "0x")):
                    return int(value[2:], 8 if value[1] == "o" else 16)
                return int(value)
            if _FLOAT.fullmatch(value):
                lowered = value.lower()
                if lowered.endswith(".inf"):
                    return -math.inf if lowered.startswith("-") else math.inf
                return math.nan if lowered == ".nan" else float(value)
        except ValueError:
            return value  # more digits than Python converts (4,300): the schema names the field
        return value
    return _BOOLS.get(value, value) if first in "tTfF" else value


#: Everything :func:`read_yaml` raises for text that is not a plain registry-style document.
READ_ERRORS = (YAMLError, DuplicateKeyError, TagError, TooBigError)


@dataclass
class Document:
    """A read document: plain data, the line of every key and item, the texts with controls."""

    data: Any
    lines: dict[Loc, int]
    controls: list[Loc]


def read_yaml(text: str) -> tuple[Any, dict[Loc, int]]:
    """The document in ``text`` as plain data, and the line (1-based) of every key and item.

    Raises :class:`YAMLError` (syntax), :class:`DuplicateKeyError`,
    :class:`TagError` or :class:`TooBigError`; never executes anything.
    """
    document = read_document(text)
    return document.data, document.lines


def read_document(text: str) -> Document:
    """:func:`read_yaml`, with the locations of the texts that hold a control character."""
    try:
        node = yaml.compose(text, Loader=_Core12Loader)
    except yaml.YAMLError as error:
        if "nesting depth" in str(error):  # libyaml's own limit (1,000 levels)
            mark = getattr(error, "problem_mark", None)
            raise TooBigError(_TOO_DEEP, (), mark.line + 1 if mark else None) from None
        raise
    except RecursionError:  # the pure-Python composer, where libyaml is missing
        raise TooBigError(_TOO_DEEP, ()) from None
    copy = _Copy()
    if node is None:
        return Document(None, copy.lines, copy.controls)
    try:
        return Document(copy.plain(node, ()), copy.lines, copy.controls)
    except (TooBigError, TagError) as error:
        error.line = error.line or line_of(copy.lines, error.loc) or node.start_mark.line + 1
        raise


def line_of(lines: dict[Loc, int], loc: Loc) -> int | None:
    """Line of the deepest located prefix of ``loc`` in ``lines`` (as :func:`read_yaml` returns them)."""
    for end in range(len(loc), 0, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None

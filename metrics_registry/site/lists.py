"""Lists written for CommonMark, laid out so that Python-Markdown (MkDocs) reads them the same.

An extension's notes are written the way GitHub renders Markdown
(CommonMark), where a list may follow a paragraph line directly and a
nested list is indented as far as its parent's text (two or three spaces).
Python-Markdown needs a blank line before a list and four spaces per
level: without them the items run together as one paragraph, or a nested
list becomes items of its parent. :func:`python_markdown_lists` rewrites
the layout only (a blank line before each list, four spaces per level);
the text is unchanged. Lists are found with markdown-it, so list-like lines
inside fenced code stay as they are; no library converts between the two
dialects' list rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

__all__ = ["python_markdown_lists"]

#: Python-Markdown's indentation of a nested block.
TAB = 4
_MARKER = re.compile(r"^( *)([-+*]|\d{1,9}[.)])( {1,4}(?! )|(?= *$))")


@dataclass
class _Item:
    start: int  # first line (the marker's)
    end: int  # one past the last line
    depth: int  # enclosing list items
    old_content: int  # column of the item's text in the source
    new_content: int  # column it gets


def _items(markdown: str) -> tuple[list[_Item], set[int]]:
    """The list items, outermost first, and the lines a list starts on after a paragraph line."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    lines = markdown.split("\n")
    items: list[_Item] = []
    blank_before: set[int] = set()
    depth = 0
    for token in tokens:
        if token.type in {"bullet_list_open", "ordered_list_open"} and token.map:
            start = token.map[0]
            if depth == 0 and start > 0 and lines[start - 1].strip():
                blank_before.add(start)
        elif token.type == "list_item_open" and token.map:
            start, end = token.map
            match = _MARKER.match(lines[start])
            if match and "\t" not in lines[start][: match.end()]:
                old = match.end() if match.group(3) else match.end(2) + 1
                items.append(_Item(start, end, depth, old, TAB * (depth + 1)))
            depth += 1
        elif token.type == "list_item_close":
            depth -= 1
    return items, blank_before


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def python_markdown_lists(markdown: str) -> str:
    """``markdown`` with its lists laid out for Python-Markdown (see the module's docstring)."""
    items, blank_before = _items(markdown)
    lines = markdown.split("\n")
    new = list(lines)
    # innermost item of each line: items come outermost first, inner ones overwrite
    owner: dict[int, _Item] = {}
    for item in items:
        for number in range(item.start, item.end):
            owner[number] = item
    for number, item in owner.items():
        line = lines[number]
        if not line.strip() or "\t" in line[: _indent(line)]:
            continue
        if number == item.start:  # the marker line: at its depth's column
            new[number] = " " * (TAB * item.depth) + line.lstrip(" ")
        elif _indent(line) >= item.old_content:  # text of the item, keeping its extra indentation
            new[number] = " " * (item.new_content + _indent(line) - item.old_content) + line.lstrip(" ")
    for number in sorted(blank_before, reverse=True):
        new.insert(number, "")
    return "\n".join(new)

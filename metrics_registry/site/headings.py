"""Heading ids that are the same in every language of a page.

MkDocs derives a heading's id from its text, so ``## Report`` is ``#report``
in English and ``## Báo cáo`` is ``#báo-cáo`` in Vietnamese: a link to a
section, or the language switcher carrying the ``#anchor`` along, lands at
the top of the page in the other language. The generator therefore writes
an explicit id (attr_list's ``{ #id }``) on every heading: the id MkDocs
gives the English heading, and for a translation the id of the English
heading at the same position. A translation whose headings do not line up
with the English ones (another number of headings, or other levels) keeps
the ids MkDocs makes from its own text.

Headings are found with markdown-it (fenced code, HTML blocks and setext
headings handled by a real parser); the ids are made with the slug function
of ``mkdocs.yml`` (``pymdownx.slugs.slugify(case="lower")``) and made unique
the way Python-Markdown's toc extension does, so English anchors stay what
they were.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from markdown.extensions.toc import unique
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pymdownx.slugs import slugify

__all__ = ["Heading", "align_heading_ids", "find_headings", "with_heading_ids"]

#: The slug function of mkdocs.yml (toc: slugify), keep the two the same.
_SLUGIFY = slugify(case="lower")
#: attr_list at the end of a heading: ``{ #id .class }`` or ``{: #id }``.
_ATTRS = re.compile(r"[ \t]+\{:?([^}\n]*)\}[ \t]*$")
_ID = re.compile(r"(?:^|\s)#([^\s}]+)")
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
#: The parser: blocks only, then the inline content of headings alone (the inline pass over every
#: paragraph was half the time of finding a page's headings, and paragraphs are not needed here).
_MARKDOWN = MarkdownIt("commonmark")
_BLOCKS = MarkdownIt("commonmark").disable("inline")
#: YAML front matter, which MkDocs strips before Markdown sees the page.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class Heading:
    line: int  # 0-based line holding the heading's text (the last one of a setext heading)
    level: int
    text: str  # plain text, as the toc extension slugifies it
    explicit_id: str | None


def _plain(inline: Token) -> str:
    parts = []
    for child in inline.children or []:
        if child.type in {"text", "code_inline"}:
            parts.append(child.content)
        elif child.type in {"softbreak", "hardbreak"}:
            parts.append(" ")
        elif child.type == "image":
            parts.append(_plain(child))
    return "".join(parts)


@lru_cache(maxsize=256)
def find_headings(markdown: str) -> tuple[Heading, ...]:
    """Every heading of a Markdown page, in order (none inside code or HTML blocks).

    Kept for the pages seen last: every language of the site aligns its
    translations with the same English pages (:func:`align_heading_ids`).
    """
    front = _FRONT_MATTER.match(markdown)
    if front:  # blank lines in its place: line numbers stay those of the page
        markdown = "\n" * front.group(0).count("\n") + markdown[front.end() :]
    env: dict[str, object] = {}  # the link reference definitions, which a heading may use
    tokens = _BLOCKS.parse(markdown, env)
    found = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None:
            continue
        inline = _MARKDOWN.parseInline(tokens[index + 1].content, env)[0]
        text = _plain(inline)
        explicit = None
        attrs = _ATTRS.search(text)
        if attrs:
            text = text[: attrs.start()]
            match = _ID.search(attrs.group(1))
            explicit = match.group(1) if match else None
        setext = token.markup in {"=", "-"}
        line = token.map[1] - 2 if setext else token.map[0]
        found.append(Heading(line, int(token.tag[1]), " ".join(text.split()), explicit))
    return tuple(found)


def _ids(headings: Iterable[Heading], reserved: Iterable[str] = ()) -> list[str]:
    """The id of each heading: its explicit one, else its slug made unique (as the toc extension does)."""
    headings = list(headings)
    used = set(reserved) | {h.explicit_id for h in headings if h.explicit_id}
    return [h.explicit_id or unique(_SLUGIFY(h.text, "-"), used) for h in headings]


def _set_id(line: str, anchor: str) -> str:
    attrs = _ATTRS.search(line)
    if attrs:
        inner = attrs.group(1)
        inner = _ID.sub(f" #{anchor}", inner, count=1) if _ID.search(inner) else f"#{anchor} {inner}"
        return f"{line[: attrs.start()]} {{ {' '.join(inner.split())} }}"
    return f"{_CLOSING_HASHES.sub('', line.rstrip())} {{ #{anchor} }}"


def with_heading_ids(markdown: str, ids: list[str] | None = None, reserved: Iterable[str] = ()) -> str:
    """``markdown`` with an explicit id on every heading: ``ids`` by position, or its own slugs.

    ``reserved`` are ids the page already uses elsewhere (the toc extension
    would not give them to a heading either).
    """
    headings = find_headings(markdown)
    if ids is None:
        ids = _ids(headings, reserved)
    if len(ids) != len(headings):
        raise ValueError(f"{len(ids)} ids for {len(headings)} headings")
    lines = markdown.split("\n")
    for heading, anchor in zip(headings, ids, strict=True):
        if heading.text:  # attr_list reads "## { #id }" as the heading's text: leave an empty one be
            lines[heading.line] = _set_id(lines[heading.line], anchor)
    return "\n".join(lines)


def align_heading_ids(translation: str, english: str, reserved: Iterable[str] = ()) -> tuple[str, bool]:
    """The translation with the English heading ids, and whether its headings lined up.

    Headings line up when both pages have as many, at the same levels; if
    not, the translation gets ids from its own text and ``False`` comes back.
    """
    source = find_headings(english)
    target = find_headings(translation)
    if [h.level for h in source] != [h.level for h in target]:
        return with_heading_ids(translation, reserved=reserved), False
    return with_heading_ids(translation, _ids(source, reserved)), True

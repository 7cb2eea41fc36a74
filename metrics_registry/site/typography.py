"""Spacing around full-width punctuation in Chinese text.

Chinese puts no space next to full-width punctuation, but a translated
pattern joined to a value leaves one: ``"%(family)s 指标"`` with the family
title ``多轮 GRPO（邮件搜索智能体）`` gives ``多轮 GRPO（邮件搜索智能体） 指标``.
The generator passes every value it writes into a Chinese page through
:func:`tidy_cjk_spacing`. Written by hand: the rule is two regular
expressions, applied outside code spans and fenced code.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["TIGHT_LANGUAGES", "tidy_cjk_spacing", "tidy_value", "tidy_values"]

#: Languages whose text takes no space next to full-width punctuation.
TIGHT_LANGUAGES = frozenset({"zh"})

_CLOSING = "，。、；：？！）》」』】〕〉"
_OPENING = "（《「『【〔〈"
# A space is kept before "{" (attr_list needs it: "## 标题 { #id }") and "|" (table cells).
_AFTER = re.compile(rf"(?<=[{_CLOSING}])[ \t]+(?=[^\s{{|])")
# only after a word (not after list markers such as "-" or "1.", which need their space)
_BEFORE = re.compile(rf"(?<=\w)[ \t]+(?=[{_OPENING}{_CLOSING}])")
_CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
# one scan for any full-width punctuation (every value written into a Chinese page is tested)
_FULL_WIDTH = re.compile(f"[{re.escape(_CLOSING + _OPENING)}]")


def _tidy_prose(text: str) -> str:
    out = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_BEFORE.sub("", _AFTER.sub("", text[last : span.start()])))
        out.append(span.group(0))
        last = span.end()
    out.append(_BEFORE.sub("", _AFTER.sub("", text[last:])))
    return "".join(out)


def tidy_cjk_spacing(text: str) -> str:
    """``text`` without the spaces next to full-width punctuation (code left alone)."""
    if _FULL_WIDTH.search(text) is None:
        return text
    if "```" not in text and "~~~" not in text:
        return _tidy_prose(text)
    out: list[str] = []
    block: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            if not fenced and block:
                out.append(_tidy_prose("\n".join(block)))
                block = []
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            block.append(line)
    if block:
        out.append(_tidy_prose("\n".join(block)))
    return "\n".join(out)


def tidy_value(value: object) -> object:
    """:func:`tidy_cjk_spacing` for a template's output: strings tidied, other values as they are."""
    return tidy_cjk_spacing(value) if isinstance(value, str) else value


def tidy_values() -> Callable[[object], object]:
    """:func:`tidy_value` that tidies each distinct string once: a template's ``finalize`` for one
    language's pages, where the same labels, titles and sentences come back on page after page.
    The strings are kept as long as the returned function is (one language's generation)."""
    done: dict[str, str] = {}

    def tidy(value: object) -> object:
        if not isinstance(value, str):
            return value
        found = done.get(value)
        if found is None:
            found = done[value] = tidy_cjk_spacing(value)
        return found

    return tidy

"""Untrusted text printed on a terminal: no escape sequence, no markup, no hidden reordering.

Registry texts, translations and log keys come from contributors or from a
training run. Printed as they are, an ESC sequence could clear the screen,
retitle the window or forge a hyperlink, a bidirectional override could
make text read differently from what it is ("Trojan Source"), and rich
would read ``[link=...]`` as its own markup. :func:`printable` shows such
characters as escapes (``\\x1b``); :func:`plain` wraps the result in a
:class:`rich.text.Text`, which rich never parses as markup.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["CONTROL_CHARACTERS", "LINE_CONTROL_CHARACTERS", "plain", "printable"]

#: C0 controls but tab and newline, DEL, C1 controls, and the bidirectional
#: embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: The same, with tab and newline: for one-line texts (a logged key) where a
#: line break could start a forged line (a CI annotation).
LINE_CONTROL_CHARACTERS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text: str, *, one_line: bool = False) -> str:
    r"""``text`` with every control character shown as its escape.

    >>> printable("ok\x1b[2J\tstill\n")
    'ok\\x1b[2J\tstill\n'
    """
    pattern = LINE_CONTROL_CHARACTERS if one_line else CONTROL_CHARACTERS
    return pattern.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape", "backslashreplace").decode("ascii")


def plain(text: str, style: str = "", *, one_line: bool = False) -> Text:
    """``text`` for rich: control characters escaped, never read as markup."""
    from rich.text import Text

    return Text(printable(text, one_line=one_line), style=style)

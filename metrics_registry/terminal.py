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

__all__ = ["CONTROL_CHARACTERS", "plain", "printable"]

#: C0 controls but tab and newline, DEL, C1 controls, and the bidirectional
#: embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    r"""``text`` with every control character shown as its escape.

    >>> printable("ok\x1b[2J\tstill\n")
    'ok\\x1b[2J\tstill\n'
    """
    return CONTROL_CHARACTERS.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def plain(text: str, style: str = "") -> Text:
    """``text`` for rich: control characters escaped, never read as markup."""
    from rich.text import Text

    return Text(printable(text), style=style)

"""`N_`: marks an English text of the kit for translation without translating it where it is written.

The texts are extracted into `i18n/ui.pot` (Babel's default keywords include
`N_`) and translated when a result is shown (`Result.line(gettext)`).
"""

from __future__ import annotations

__all__ = ["N_"]


def N_(message: str) -> str:
    return message

"""The clean texts the encoding tests repair (a module of its own, not conftest: test modules import
it, and several folders' conftest.py share one module name, so ``from conftest import`` found another
folder's when pytest was given several folders)."""

from __future__ import annotations

import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "encoding"
LANGUAGES = ("en", "vi", "zh-hans", "zh-hant")


def clean_text(language: str) -> str:
    return (FIXTURES / "clean" / f"{language}.md").read_text(encoding="utf-8")


def paragraphs(language: str) -> list[str]:
    """The blocks of a clean text (headings, paragraphs, tables, code), each a sample."""
    return [block for block in re.split(r"\n\n+", clean_text(language)) if block.strip()]

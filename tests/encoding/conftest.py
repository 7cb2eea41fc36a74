"""Fixtures of the encoding tests: the clean texts and the seed document."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "encoding"
LANGUAGES = ("en", "vi", "zh-hans", "zh-hant")


def clean_text(language: str) -> str:
    return (FIXTURES / "clean" / f"{language}.md").read_text(encoding="utf-8")


def paragraphs(language: str) -> list[str]:
    """The blocks of a clean text (headings, paragraphs, tables, code), each a sample."""
    return [block for block in re.split(r"\n\n+", clean_text(language)) if block.strip()]


@pytest.fixture(scope="session", autouse=True)
def _dictionaries() -> None:
    """Load the language model once for the whole session (about a second)."""
    from metrics_registry.encoding import language_model

    language_model.load()

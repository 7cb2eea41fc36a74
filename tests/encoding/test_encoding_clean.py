"""Clean text must come back byte for byte: a documentation tool never "improves" good text."""

from __future__ import annotations

import ftfy
import pytest
from conftest import LANGUAGES, clean_text, paragraphs

from metrics_registry.encoding import diagnose, repair

TRICKY = [
    "naïve café résumé, Zürich, déjà vu, São Paulo, Dvořák, Ærø",
    "5×3 = 15 ± 0.5 °C, 10 € — “quoted” ‘text’ … © ® ™ § ¶ ½",
    "Ông ấy nói “chào bé” rồi đi; tên cô là Thủy, “ở đâu?”…",
    "中文“引号”、全角，标点！（括号）《书名》【注】——省略……",
    "Emoji 👍🏽 👨‍👩‍👧 🇻🇳 ❤️ ✅ ⚠️ 📍",
    "| a | b |\n| --- | --- |\n| `x = 1` | tiếng Việt |\n",
    "NBSP\u00a0inside text, soft\u00adhyphen, zero\u200bwidth",
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_clean_documents_are_unchanged(language: str) -> None:
    text = clean_text(language)
    assert repair(text) == text
    assert diagnose(text) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_clean_paragraphs_are_unchanged(language: str) -> None:
    for block in paragraphs(language):
        assert repair(block) == block


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_clean_text_is_unchanged(text: str) -> None:
    assert repair(text) == text


def test_fix_text_would_change_clean_chinese() -> None:
    """Why we build on ``fix_encoding`` and not ``fix_text``: the latter rewrites good Chinese."""
    text = clean_text("zh-hans")
    assert ftfy.fix_text(text) != text
    assert repair(text) == text

"""Clean text must come back byte for byte: a documentation tool never "improves" good text."""

from __future__ import annotations

import ftfy
import pytest
from clean_texts import LANGUAGES, clean_text, paragraphs

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


# A page that explains mojibake: the damaged forms it quotes are clean text (issue 14, class 7).
EXPLAINING = (
    "# Mojibake\n\n"
    "Windows-1252 shows é as `Ã©`, and `Ã ` was à before a no-break space.\n\n"
    "```text\npage.md:1:3: mojibake 'è®­ç»ƒ' -> '训练'\n```\n\n"
    "| seen | was |\n| --- | --- |\n| â€™ | ’ |\n\n"
    "The French “été” comes back as “Ã©tÃ©”.\n"
)
DAMAGED_PARAGRAPH = "å¥–åŠ±å‡½æ•°è¿”å›žçš„æ˜¯æµ®ç‚¹æ•°ã€‚"  # 奖励函数返回的是浮点数。 read as Windows-1252


def test_a_page_quoting_mojibake_is_clean_text() -> None:
    assert repair(EXPLAINING) == EXPLAINING
    assert diagnose(EXPLAINING) == []
    assert repair(EXPLAINING, markup="text") == EXPLAINING  # code spans, quotes and clean text on each line


def test_damage_pasted_into_such_a_page_is_repaired_and_the_quotations_kept() -> None:
    text = EXPLAINING + "\n" + DAMAGED_PARAGRAPH + "\n"
    assert repair(text) == EXPLAINING + "\n奖励函数返回的是浮点数。\n"
    assert {finding.line for finding in diagnose(text)} == {text.count("\n")}


def test_quoted_damage_alone_is_damage() -> None:
    """With no clean text to judge by, a code span is no evidence: a page damaged whole, code
    included, is repaired whole."""
    assert repair("Say `Ã©tÃ©` and Ã©tÃ©.\n") == "Say `été` and été.\n"


def test_markup_decides_what_is_code() -> None:
    text = "Clean: ü.\n\n    Ã©tÃ© in an indented block\n"
    assert repair(text, markup="markdown") == text
    assert repair(text, markup="text") == "Clean: ü.\n\n    été in an indented block\n"

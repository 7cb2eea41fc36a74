"""Accent-free search for Vietnamese.

Material's search (lunr with ``lunr.vi``) matches words with their
diacritics only, so ``phan ky`` does not find ``phân kỳ``, yet many readers
type Vietnamese without them. No plugin does this (checked: Material 9.8,
mkdocs-static-i18n, Zensical), so the build adds it after MkDocs: each
section of the language's search index gets a copy of its title and text
with the diacritics removed, in two extra fields that Material's search
worker indexes like its own (it builds one lunr field per entry of
``config.fields``). Queries with diacritics keep matching the original
fields; queries without them match the copies.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

__all__ = ["FOLDED_LANGUAGES", "add_accent_free_fields", "fold_diacritics"]

#: Languages whose readers often type without diacritics.
FOLDED_LANGUAGES = frozenset({"vi"})

_FIELDS = {"title": "title_folded", "text": "text_folded"}


def fold_diacritics(text: str) -> str:
    """``"Phân kỳ KL đo"`` -> ``"Phan ky KL do"`` (đ/Đ are letters of their own, not d + a mark)."""
    decomposed = unicodedata.normalize("NFD", text.replace("đ", "d").replace("Đ", "D"))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def add_accent_free_fields(index_path: Path, lang: str) -> bool:
    """Add the folded fields to one language's ``search_index.json``; ``False`` if not needed."""
    if lang not in FOLDED_LANGUAGES or not index_path.exists():
        return False
    index = json.loads(index_path.read_text(encoding="utf-8"))
    fields = index["config"].setdefault("fields", {})
    # Folded words are ambiguous ("phan" is phân, phần, phán...): weigh them
    # like body text, titles included, so that a section holding every word
    # of the query outranks one whose title holds a common one.
    for folded in _FIELDS.values():
        fields[folded] = {"boost": 1.0}
    for doc in index["docs"]:
        for source, folded in _FIELDS.items():
            value = fold_diacritics(doc.get(source, ""))
            if value != doc.get(source, ""):
                doc[folded] = value
    index_path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    return True

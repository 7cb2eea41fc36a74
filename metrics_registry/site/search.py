"""Accent-free search for Vietnamese.

Material's search (lunr with ``lunr.vi``) matches words with their
diacritics only, so ``phan ky`` does not find ``phân kỳ``, yet many readers
type Vietnamese without them. Neither Material (9.8: ``lang``,
``separator`` and ``pipeline`` only choose among lunr's own functions) nor
lunr has an option for it, so the site overrides the file Material's search
worker loads for Vietnamese, ``assets/javascripts/lunr/min/lunr.vi.min.js``
(in ``docs/assets``): it loads Material's own Vietnamese support, copied
next to it by :func:`install_vietnamese_folding`, and folds every word of
the index and of the query (``độ dài`` and ``do dai`` are both ``do dai``).
Queries with and without diacritics thus find the same pages, and the
results highlight the original words (Material marks positions). Ranking
puts first the pages holding the query's syllables side by side ("độ dài"
is one word of two syllables), then, for a query typed with diacritics,
those holding its words as typed ("phân kỳ", divergence, before "ký tự",
character, which folds the same): the index keeps each word as written in
the token's metadata. On the page a
result opens, ``assets/javascripts/search-highlight.js`` marks the words
the folded query matched.

The index itself (``search/search_index.json``) is the text of every
section, which the reader's browser downloads before the first search.
Material's options (``lang``, ``separator``, ``pipeline``, ``fields``) only
choose how the browser splits and ranks that text, not how much of it there
is; what shrinks it is leaving out what is elsewhere: the tables that the
metric pages repeat and the API page's source code carry
``data-search-exclude``, and :func:`compact_index` writes the file as UTF-8
(Material escapes every non-ASCII character: six bytes for each Chinese
character or Vietnamese vowel with a diacritic, instead of two or three).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from metrics_registry.fileio import atomic_write_text

__all__ = [
    "FOLDED_LANGUAGES",
    "MATERIAL_LUNR_VI",
    "SEARCH_INDEX",
    "compact_index",
    "install_vietnamese_folding",
]

#: Languages whose readers often type without diacritics.
FOLDED_LANGUAGES = frozenset({"vi"})
#: Where the override expects Material's own lunr.vi, below a language's docs folder.
MATERIAL_LUNR_VI = Path("assets/javascripts/lunr/min/lunr.vi.material.min.js")
#: Material's search index, below a language's site folder.
SEARCH_INDEX = Path("search/search_index.json")


def _material_file(path: str) -> Path:
    import material  # the theme's package, found where MkDocs finds it

    return Path(material.__file__).parent / "templates" / path


def install_vietnamese_folding(docs: Path) -> None:
    """Copy Material's ``lunr.vi.min.js`` next to the override that wraps it."""
    target = docs / MATERIAL_LUNR_VI
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_material_file("assets/javascripts/lunr/min/lunr.vi.min.js"), target)


def compact_index(site: Path) -> None:
    """Write a language's search index as UTF-8 JSON, the same data in fewer bytes.

    Browsers read JSON as UTF-8 (the search worker fetches it), and the
    file keeps Material's compact separators; a missing index (search
    disabled) is left alone.
    """
    path = site / SEARCH_INDEX
    if not path.is_file():
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    atomic_write_text(path, text, backup=False)  # the build made it, in a folder it swaps in whole

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
Queries with and without diacritics thus rank alike, and the results
highlight the original words (Material marks positions). On the page a
result opens, ``assets/javascripts/search-highlight.js`` marks the words
the folded query matched.
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["FOLDED_LANGUAGES", "MATERIAL_LUNR_VI", "install_vietnamese_folding"]

#: Languages whose readers often type without diacritics.
FOLDED_LANGUAGES = frozenset({"vi"})
#: Where the override expects Material's own lunr.vi, below a language's docs folder.
MATERIAL_LUNR_VI = Path("assets/javascripts/lunr/min/lunr.vi.material.min.js")


def _material_file(path: str) -> Path:
    import material  # the theme's package, found where MkDocs finds it

    return Path(material.__file__).parent / "templates" / path


def install_vietnamese_folding(docs: Path) -> None:
    """Copy Material's ``lunr.vi.min.js`` next to the override that wraps it."""
    target = docs / MATERIAL_LUNR_VI
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_material_file("assets/javascripts/lunr/min/lunr.vi.min.js"), target)

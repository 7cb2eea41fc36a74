"""Source notes of an extension, published as a page, repaired from how they arrived.

An extension may ship notes in ``extensions/notes/`` next to its registry
file:

- ``<family>.<lang>.damaged.md``: the notes as received, damaged by mojibake
  and kept byte for byte. The build repairs them with
  :mod:`metrics_registry.encoding` every time, so the page shows what the
  code restores, and lists the characters it had to reconstruct (bytes lost
  in transit) with how sure it was;
- ``<family>.<lang>.md``: the notes written (or translated) in a language.

Each becomes the page ``notes/<family>.md`` in every language: the notes in
that language when there are any, otherwise the notes in their original
language under a "not translated yet" notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from metrics_registry.encoding import Finding, Kind, Repaired, Spot, domain, repair_with_findings, word_ngrams

__all__ = ["Notes", "find_notes", "shift_headings"]

_DAMAGED = re.compile(r"^(?P<family>[a-z0-9-]+)\.(?P<lang>[a-z]{2}(?:[-_][A-Za-z]+)?)\.damaged\.md$")
_WRITTEN = re.compile(r"^(?P<family>[a-z0-9-]+)\.(?P<lang>[a-z]{2}(?:[-_][A-Za-z]+)?)\.md$")


@dataclass
class Notes:
    family: str
    original_lang: str
    original: str  # repaired text, or the written original
    repaired_from: Path | None = None
    findings: tuple[Finding, ...] = ()
    translations: dict[str, str] | None = None
    word_model: bool = False  # the repair's second pass ran (a model of Chinese word sequences)

    @property
    def reconstructed(self) -> list[Finding]:
        """Findings where bytes were lost: the characters the repair had to choose."""
        return [f for f in self.findings if f.kind is Kind.LOST_BYTES]

    @property
    def spots(self) -> list[tuple[int, Spot]]:
        """Each reconstructed character with the line it is on."""
        return [(finding.line, spot) for finding in self.reconstructed for spot in finding.spots]

    @property
    def unrepaired(self) -> list[Finding]:
        return [f for f in self.findings if f.kind is Kind.UNREPAIRED]

    def text(self, lang: str) -> tuple[str, bool]:
        """The notes in ``lang`` and whether that is a translation (``False``: the original)."""
        if lang == self.original_lang:
            return self.original, True
        translated = (self.translations or {}).get(lang)
        return (translated, True) if translated is not None else (self.original, False)


@lru_cache(maxsize=8)
def _repair(path: Path, mtime_ns: int, size: int, model: word_ngrams.ChineseWordModel | None) -> Repaired:
    """Repair a damaged file once per version of it and model (every language's page needs it).

    Also kept in the user's cache (:mod:`metrics_registry.cache`: keyed by the file's content, this
    package's code and data, and the word model's file), as the registry is: the repair of lost
    bytes loads jieba and the language models, ~1.7 s before the first page of a build.
    """
    from metrics_registry import cache
    from metrics_registry.config import MAX_FILE_BYTES

    def compute() -> Repaired:
        with word_ngrams.using(model):
            return repair_with_findings(path.read_text(encoding="utf-8"))

    key = None
    if not domain.swapped():  # a project's own counts swapped in: not kept
        used = "none" if model is None else f"{model.path}:{_stamp(model.path)}"
        key = cache.cache_key([path], MAX_FILE_BYTES, purpose=f"repaired notes|{used}")
    repaired = cache.memo(key, compute)
    return repaired if isinstance(repaired, Repaired) else compute()


def _stamp(path: Path) -> str:
    try:
        status = path.stat()
    except OSError:
        return "unreadable"
    return f"{status.st_size}:{status.st_mtime_ns}"


def find_notes(root: Path) -> list[Notes]:
    """Every extension's notes under ``<root>/extensions/notes/``."""
    folder = Path(root) / "extensions" / "notes"
    if not folder.is_dir():
        return []
    notes: dict[str, Notes] = {}
    written: dict[str, dict[str, str]] = {}
    for path in sorted(folder.glob("*.md")):
        damaged = _DAMAGED.match(path.name)
        if damaged:
            stat = path.stat()
            model = word_ngrams.active()
            repaired = _repair(path, stat.st_mtime_ns, stat.st_size, model)
            notes[damaged["family"]] = Notes(
                damaged["family"],
                damaged["lang"],
                repaired.text,
                path,
                tuple(repaired.findings),
                word_model=model is not None,
            )
            continue
        match = _WRITTEN.match(path.name)
        if match:
            written.setdefault(match["family"], {})[match["lang"]] = path.read_text(encoding="utf-8")
    for family, texts in written.items():
        if family not in notes:
            lang = "en" if "en" in texts else sorted(texts)[0]
            notes[family] = Notes(family, lang, texts[lang])
        notes[family].translations = {k: v for k, v in texts.items() if k != notes[family].original_lang}
    return [notes[family] for family in sorted(notes)]


def shift_headings(markdown: str, levels: int = 1) -> str:
    """Demote every ATX heading outside fenced code by ``levels``, so the notes sit under the page title."""
    out = []
    fenced = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        heading = not fenced and re.match(r"^#{1,5} ", line)
        out.append("#" * levels + line if heading else line)
    return "\n".join(out)

"""Benchmark of the repair of text that lost bytes, on a corpus no model or test has seen.

The corpus is made at run time from CLDR data through Babel
(:mod:`cldr_corpus`): Simplified and Traditional Chinese, Vietnamese,
Chinese/English mixed, and English with symbols and emoji. It is damaged
the way the project's source document was, UTF-8 read as Windows-1254:

- ``drop``: the bytes the code page leaves undefined (and the soft hyphen)
  dropped, as :func:`metrics_registry.encoding.damage.mojibake` does;
- ``replace``: the same bytes decoded with ``errors="replace"``, each
  becoming U+FFFD.

Documents of :data:`DOCUMENT` paragraphs are repaired whole, by this
package and by ``ftfy.fix_encoding``. Printed, per language and damage kind:

- ``chars``: characters right (matched characters over the longer of the
  paragraph and its repair, summed over the paragraphs);
- ``paras ok``: paragraphs restored exactly;
- ``err marked``: the share of the characters still wrong that the repair
  lists as doubtful (``--mark``, below the threshold);
- ``rep marked``: the share of the characters that lost bytes that the list holds;
- ``MB/s``: damaged UTF-8 repaired per second of CPU time (models loaded first).

Run: ``.venv/bin/python benchmarks/lossy.py [--size KB] [--threshold P] [--only LANG]``
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import ftfy

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cldr_corpus import LANGUAGES, paragraphs

from metrics_registry.encoding import language_model, repair_with_findings, word_ngrams
from metrics_registry.encoding.damage import mojibake
from metrics_registry.encoding.review import DEFAULT_THRESHOLD, doubts

#: Paragraphs per document repaired at once.
DOCUMENT = 20

DAMAGE: dict[str, Callable[[str], str]] = {
    "drop": lambda text: mojibake(text, "cp1254", lossy=True),
    "replace": lambda text: text.encode("utf-8").decode("cp1254", errors="replace"),
}


@dataclass
class Score:
    """Figures of one fixer on one language and damage kind."""

    matched: int = 0
    length: int = 0
    exact: int = 0
    paragraphs: int = 0
    errors: int = 0
    errors_marked: int = 0
    repaired: int = 0
    marked: int = 0
    seconds: float = 0.0
    size: int = 0
    wrong: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, original: str, repaired: str, marks: set[int], offset: int) -> None:
        """Score one paragraph; ``marks`` are offsets (in the whole repaired document) of doubtful
        characters, ``offset`` where this paragraph starts in it."""
        matcher = difflib.SequenceMatcher(None, repaired, original, autojunk=False)
        self.matched += sum(block.size for block in matcher.get_matching_blocks())
        self.length += max(len(original), len(repaired))
        self.paragraphs += 1
        self.exact += repaired == original
        for tag, a1, a2, b1, b2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            count = max(a2 - a1, b2 - b1)
            window = range(offset + a1, offset + a2) if a2 > a1 else range(offset + a1 - 1, offset + a1 + 1)
            self.errors += count
            self.errors_marked += min(count, sum(1 for p in window if p in marks))
            if len(self.wrong) < 400:
                self.wrong.append((original[b1:b2], repaired[a1:a2], original[max(0, b1 - 8) : b2 + 8]))


def documents(items: list[str]) -> list[list[str]]:
    return [items[i : i + DOCUMENT] for i in range(0, len(items), DOCUMENT)]


def run_ours(originals: list[str], damaged: list[str], threshold: float, score: Score) -> None:
    text = "\n\n".join(damaged)
    start = time.process_time()
    result = repair_with_findings(text)
    score.seconds += time.process_time() - start
    score.size += len(text.encode("utf-8"))
    marks = {d.offset for d in doubts(result, threshold)}
    score.repaired += sum(1 for f in result.findings for s in f.spots if s.chosen is not None)
    score.marked += len(marks)
    _score_paragraphs(originals, result.text, marks, score)


def run_ftfy(originals: list[str], damaged: list[str], score: Score) -> None:
    text = "\n\n".join(damaged)
    start = time.process_time()
    repaired = ftfy.fix_encoding(text)
    score.seconds += time.process_time() - start
    score.size += len(text.encode("utf-8"))
    _score_paragraphs(originals, repaired, set(), score)


def _score_paragraphs(originals: list[str], repaired: str, marks: set[int], score: Score) -> None:
    pieces = repaired.split("\n\n")
    if len(pieces) != len(originals):  # a repair never adds or removes line breaks; if it did, all wrong
        pieces = [repaired, *[""] * (len(originals) - 1)]
    offset = 0
    for original, piece in zip(originals, pieces, strict=True):
        score.add(original, piece, marks, offset)
        offset += len(piece) + 2


def _share(part: int, whole: int) -> str:
    return f"{part / whole:8.2%}" if whole else f"{'—':>8}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=200, help="KB of UTF-8 per language (default 200)")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--only", action="append", choices=LANGUAGES, help="languages to run (repeatable)")
    parser.add_argument("--errors", type=int, default=0, help="print this many wrong spots per row")
    args = parser.parse_args()
    language_model.load()
    word_ngrams.active()
    repair_with_findings("è®ç»ƒ")  # warm up every model before the clock runs
    print(f"Chinese lost bytes: {word_ngrams.describe()}; marked: confidence < {args.threshold}")
    header = (
        f"{'language':<11}{'damage':<8}{'paras':>6}{'chars':>9}{'paras ok':>9}{'err marked':>11}"
        f"{'rep marked':>11}{'MB/s':>7} | {'ftfy chars':>10}{'ftfy ok':>8}{'MB/s':>7}"
    )
    print(header)
    print("-" * len(header))
    for language in args.only or LANGUAGES:
        clean = paragraphs(language, args.size * 1000)
        for kind, hurt in DAMAGE.items():
            ours, theirs = Score(), Score()
            for group in documents(clean):
                damaged = [hurt(p) for p in group]
                run_ours(group, damaged, args.threshold, ours)
                run_ftfy(group, damaged, theirs)
            speed, their_speed = (s.size / max(s.seconds, 1e-9) / 1e6 for s in (ours, theirs))
            print(
                f"{language:<11}{kind:<8}{ours.paragraphs:>6}{_share(ours.matched, ours.length):>9}"
                f"{_share(ours.exact, ours.paragraphs):>9}{_share(ours.errors_marked, ours.errors):>11}"
                f"{_share(ours.marked, ours.repaired):>11}{speed:>7.2f} | "
                f"{_share(theirs.matched, theirs.length):>10}{_share(theirs.exact, theirs.paragraphs):>8}"
                f"{their_speed:>7.2f}",
                flush=True,
            )
            for expected, got, context in ours.wrong[: args.errors]:
                print(f"      {expected!r} -> {got!r} in {context!r}")


if __name__ == "__main__":
    main()

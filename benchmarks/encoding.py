"""Benchmark of the mojibake repair against ftfy, in the same run.

Samples are the blocks (paragraphs, tables, code) of the clean texts in
``tests/fixtures/encoding/clean/`` (the ones the tests use) and, for
Chinese, of held-out texts in ``tests/fixtures/encoding/heldout/`` that no
test reads and that the language model was never tuned on (rows marked
``held-out``; the field's word counts that ship with the package come from
the project's catalogs, never from these texts); each is damaged with every kind of
:data:`metrics_registry.encoding.damage.DAMAGE_KINDS` and repaired alone.
Printed: exact-restore rate and character accuracy per damage kind and
language, changes made to clean text, and throughput (MB/s of UTF-8) on
clean and damaged text, the best of a few runs (the machine may be busy).

Run: ``.venv/bin/python benchmarks/encoding.py``
"""

from __future__ import annotations

import difflib
import math
import re
import time
from collections.abc import Callable
from pathlib import Path

import ftfy

from metrics_registry.encoding import domain, language_model, repair, word_ngrams
from metrics_registry.encoding.damage import DAMAGE_KINDS, damage

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "encoding"
CLEAN = FIXTURES / "clean"
#: Row label: the text's file under FIXTURES.
LANGUAGES = {
    "en": "clean/en.md",
    "vi": "clean/vi.md",
    "zh": "clean/zh-hans.md",
    "zh-Hant": "clean/zh-hant.md",
    "zh held-out": "heldout/zh-hans.md",
    "zh-Hant held-out": "heldout/zh-hant.md",
}
#: The texts of the throughput runs (the tests' four).
TEST_TEXTS = ("en", "vi", "zh-hans", "zh-hant")


def general_models_only(text: str) -> str:
    """Our repair without the field's word counts (:mod:`metrics_registry.encoding.domain`)."""
    with domain.using(None):
        return repair(text)


def first_pass_only(text: str) -> str:
    """Our repair without the word trigram model (what a machine without one gets)."""
    with word_ngrams.using(None):
        return repair(text)


FIXERS: dict[str, Callable[[str], str]] = {
    "ours": repair,
    "ours, no field counts": general_models_only,
    "ours, first pass only": first_pass_only,
    "ftfy.fix_encoding": ftfy.fix_encoding,
    "ftfy.fix_text": ftfy.fix_text,
}


def blocks(name: str) -> list[str]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [block for block in re.split(r"\n\n+", text) if block.strip()]


def accuracy(repaired: str, original: str) -> float:
    matcher = difflib.SequenceMatcher(None, repaired, original, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    return matched / max(len(original), len(repaired), 1)


def throughput(fix: Callable[[str], str], text: str, seconds: float = 1.0) -> float:
    """MB/s of the fastest of the runs made in about ``seconds`` (at least three), in CPU time of
    this process, so that other work on a busy machine skews the figures less."""
    size = len(text.encode("utf-8"))
    fix(text)  # warm up: dictionaries, caches
    best, runs, spent = math.inf, 0, 0.0
    while runs < 3 or spent < seconds:
        start = time.process_time()
        fix(text)
        elapsed = time.process_time() - start
        best, runs, spent = min(best, elapsed), runs + 1, spent + elapsed
    return size / best / 1e6


def main() -> None:
    language_model.load()
    print(f"Chinese lost bytes: {word_ngrams.describe()}")
    print("Exact restores (samples restored byte for byte) and character accuracy, per damage kind")
    header = f"{'damage':<14}{'lang':<18}{'n':>4}  " + "  ".join(f"{name:>26}" for name in FIXERS)
    print(header)
    print("-" * len(header))
    for kind in DAMAGE_KINDS:
        for label, name in LANGUAGES.items():
            samples = [(b, damage(b, kind)) for b in blocks(name)]
            samples = [(b, d) for b, d in samples if d != b]
            cells = []
            for fix in FIXERS.values():
                exact = acc = 0.0
                for original, damaged in samples:
                    repaired = fix(damaged)
                    exact += repaired == original
                    acc += accuracy(repaired, original)
                n = max(len(samples), 1)
                cells.append(f"{exact / n:>7.1%} exact {acc / n:>8.2%} chars")
            print(f"{kind:<14}{label:<18}{len(samples):>4}  " + "  ".join(f"{c:>26}" for c in cells))
    print()
    print("Changes to clean text (samples changed / characters changed)")
    for label, name in LANGUAGES.items():
        cells = []
        for fixer, fix in FIXERS.items():
            changed = chars = 0
            for block in blocks(name):
                repaired = fix(block)
                if repaired != block:
                    changed += 1
                    chars += round((1 - accuracy(repaired, block)) * len(block))
            cells.append(f"{fixer}: {changed} samples, {chars} chars")
        print(f"  {label:<17} " + "; ".join(cells))
    print()
    clean = "\n\n".join((CLEAN / f"{name}.md").read_text(encoding="utf-8") for name in TEST_TEXTS)
    clean_big = clean * 20
    damaged = damage(clean, "lossy-1254")
    print(f"Throughput, MB/s of UTF-8 (clean: {len(clean_big.encode()) / 1e6:.2f} MB; damaged: lossy-1254)")
    for fixer, fix in FIXERS.items():
        print(
            f"  {fixer:<22} clean {throughput(fix, clean_big):8.2f} MB/s"
            f"   damaged {throughput(fix, damaged, 2.0):8.3f} MB/s"
        )


if __name__ == "__main__":
    main()

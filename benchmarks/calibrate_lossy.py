"""Fit the confidence calibration of the lossy repair (:mod:`metrics_registry.encoding.calibration`).

The calibration must come from text that no part of the repair was built
or tuned on, and not from the benchmark's CLDR corpus: it uses the Chinese
manual pages of Debian's ``manpages-zh`` (``apt-get install manpages-zh``;
rendered with ``groff``), Simplified pages (zh_CN) and Traditional ones
(zh_TW) from disjoint halves of the pages, damaged as ``benchmarks/lossy.py``
damages its corpus (bytes dropped, bytes replaced) and repaired in documents
of the same size. For every character put back it records the decoder's
probability, the kind of place (:func:`.calibration.kind`), whether the
recurrence pass turned it, and whether it is right; then it fits the
logistic calibration by Newton's method (a little L2 shrinkage) and prints
the coefficients to paste into ``calibration.py``, with how the threshold
of the doubt list (:data:`.review.DEFAULT_THRESHOLD`) then splits the
characters, before and after.

Needs numpy (the ``torch`` extra brings it). Run:
``.venv/bin/python benchmarks/calibrate_lossy.py [--size KB] [--rows FILE]`` (``--rows`` keeps the
observations, about a minute of repairs, for another fit).
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lossy import DAMAGE, DOCUMENT, documents

from metrics_registry.encoding import calibration, language_model, repair_with_findings
from metrics_registry.encoding import slots as pieces
from metrics_registry.encoding.review import DEFAULT_THRESHOLD

MANUALS = Path("/usr/share/man")
#: L2 shrinkage of the coefficients towards the identity (intercept 0, slope 1).
SHRINK = 1.0


def manual_paragraphs(language: str, size: int, half: int, seed: int = 20) -> list[str]:
    """Paragraphs of the manual pages of ``language`` (zh_CN or zh_TW), mostly Chinese, from every
    other page (``half`` 0 or 1), shuffled, adding up to about ``size`` bytes of UTF-8."""
    pages = sorted((MANUALS / language).glob("man*/*.gz"))[half::2]
    if not pages:
        sys.exit(f"no manual pages in {MANUALS / language}: apt-get install manpages-zh")
    random.Random(f"{seed}:{language}").shuffle(pages)
    out: list[str] = []
    total = 0
    for page in pages:
        rendered = subprocess.run(
            ["groff", "-Kutf8", "-Tutf8", "-mandoc", "-P-cbou", "-rLL=2000n"],
            input=gzip.decompress(page.read_bytes()),
            capture_output=True,
            check=False,
        ).stdout.decode("utf-8", "replace")
        for block in re.split(r"\n\s*\n", rendered):
            line = re.sub(r"\s+", " ", block).strip()
            han = sum(language_model.is_han(ch) for ch in line)
            if han >= 20 and han >= 0.4 * len(line.replace(" ", "")) and "\ufffd" not in line:
                out.append(line)
                total += len(line.encode("utf-8")) + 2
        if total >= size:
            break
    return out


def observe(originals: list[str], damaged: list[str], rows: list[tuple[float, str, bool]]) -> None:
    """Repair one document; add (probability, place, right) for each character put back."""
    recorded: dict[int, pieces.Slot] = {}
    spot = pieces.spot

    def recording(slot: pieces.Slot, at: int):  # type: ignore[no-untyped-def]
        recorded[at] = slot
        return spot(slot, at)

    pieces.spot = recording  # type: ignore[assignment]
    try:
        result = repair_with_findings("\n\n".join(damaged))
    finally:
        pieces.spot = spot  # type: ignore[assignment]
    original = "\n\n".join(originals)
    aligned: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, result.text, original, autojunk=False)
    for _, a1, a2, b1, b2 in matcher.get_opcodes():
        if a2 - a1 == b2 - b1:
            aligned.update((a1 + k, b1 + k) for k in range(a2 - a1))
    for finding in result.findings:
        for found in finding.spots:
            slot = recorded.get(found.at)
            if found.chosen is None or slot is None or found.at not in aligned or slot.choice is None:
                continue
            right = original[aligned[found.at]] == found.chosen
            rows.append((slot.probabilities[slot.choice], slot.place(), right))


def fit(rows: list[tuple[float, str, bool]]) -> tuple[float, float]:
    """Logistic regression of rightness on the log-odds of the probability (Platt scaling), by Newton's
    method with step halving, shrunk towards the identity (intercept 0, slope 1)."""
    x = np.array([[1.0, calibration.logit(p)] for p, _, _ in rows])
    y = np.array([right for _, _, right in rows], dtype=float)
    prior = np.array([0.0, 1.0])

    def objective(w: np.ndarray) -> float:
        z = x @ w
        return float(np.sum(y * z - np.logaddexp(0.0, z)) - SHRINK / 2 * np.sum((w - prior) ** 2))

    w = prior.copy()
    value = objective(w)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -500, 500)))
        gradient = x.T @ (y - p) - SHRINK * (w - prior)
        hessian = (x.T * (p * (1 - p))) @ x + SHRINK * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        scale = 1.0
        while scale > 1e-6 and objective(w + scale * step) < value:
            scale /= 2
        w = w + scale * step
        new = objective(w)
        if abs(new - value) < 1e-9:
            break
        value = new
    return float(w[0]), float(w[1])


def report(rows: list[tuple[float, str, bool]], confidence: list[float]) -> str:
    wrong = [c for c, row in zip(confidence, rows, strict=True) if not row[2]]
    marked = sum(c < DEFAULT_THRESHOLD for c in confidence)
    caught = sum(c < DEFAULT_THRESHOLD for c in wrong)
    return (
        f"{len(rows)} characters, {len(wrong)} wrong; under {DEFAULT_THRESHOLD}: "
        f"{caught / max(1, len(wrong)):.1%} of the wrong ones, {marked / max(1, len(rows)):.1%} of all"
    )


def collect(size: int) -> list[tuple[float, str, bool]]:
    """The observations: each script's pages, each kind of damage."""
    language_model.load()
    rows: list[tuple[float, str, bool]] = []
    for half, language in enumerate(("zh_CN", "zh_TW")):
        clean = manual_paragraphs(language, size * 1000, half)
        for kind, hurt in DAMAGE.items():
            before = len(rows)
            for group in documents(clean):
                observe(group, [hurt(p) for p in group], rows)
            added = len(rows) - before
            print(
                f"{language} {kind}: {len(clean)} paragraphs in documents of {DOCUMENT}, {added} characters"
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=300, help="KB of UTF-8 per script (default 300)")
    parser.add_argument("--rows", type=Path, help="keep the observations in this file, or read them from it")
    args = parser.parse_args()
    if args.rows is not None and args.rows.exists():
        rows = json.loads(args.rows.read_text())
    else:
        rows = collect(args.size)
        if args.rows is not None:
            args.rows.write_text(json.dumps(rows))

    for place in calibration.KINDS:
        here = [row for row in rows if row[1] == place]
        wrong = sum(not right for _, _, right in here)
        print(f"  {place:<9} {len(here):>6} characters, {wrong:>4} wrong ({wrong / max(1, len(here)):.2%})")
    between = [
        right
        for p, place, right in rows
        if place == "word3" and calibration.WORD3_MINIMUM <= p < DEFAULT_THRESHOLD
    ]
    rescored = [row for row in rows if row[1] == "rescored"]
    print(f"WORD3_FLOOR = {sum(between) / max(1, len(between)):.2f}  # of {len(between)} readings")
    print(f"RESCORED = {tuple(round(v, 3) for v in fit(rescored))}")
    print("probabilities as they are:", report(rows, [p for p, _, _ in rows]))
    print(
        "calibrated:               ", report(rows, [calibration.confidence(p, place) for p, place, _ in rows])
    )


if __name__ == "__main__":
    main()

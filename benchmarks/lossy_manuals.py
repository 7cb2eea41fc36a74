"""Accuracy of the lossy repair on documentation no part of it was built or tuned on: Chinese manual pages.

``benchmarks/lossy.py`` measures the repair on CLDR text, mostly lists of
names; documentation, what the project repairs most, reads otherwise (不, 中
and 与 in running prose, units after numbers, words of the field). This
prints, for the Simplified (zh_CN) and Traditional (zh_TW) pages of Debian's
``manpages-zh`` damaged as ``benchmarks/lossy.py`` damages its corpus, how
many of the characters put back are wrong, and how the doubt list
(:data:`metrics_registry.encoding.review.DEFAULT_THRESHOLD`) catches them.

Two sets of pages: ``fit``, the halves ``benchmarks/calibrate_lossy.py``
fits the confidence on, and ``check``, the other halves, which nothing was
fitted on: a change tuned on one half is checked on the other.

Needs numpy (as calibrate_lossy does) and ``apt-get install manpages-zh``. Run:
``.venv/bin/python benchmarks/lossy_manuals.py [--size KB] [--pages fit|check]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate_lossy import manual_paragraphs, observe
from lossy import DAMAGE, documents

from metrics_registry.encoding import calibration, language_model
from metrics_registry.encoding.review import DEFAULT_THRESHOLD

#: The half of each script's pages in each set (calibrate_lossy fits on zh_CN's first, zh_TW's second).
PAGES = {"fit": (("zh_CN", 0), ("zh_TW", 1)), "check": (("zh_CN", 1), ("zh_TW", 0))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100, help="KB of UTF-8 per script (default 100)")
    parser.add_argument(
        "--pages", choices=sorted(PAGES), action="append", help="sets of pages (both by default)"
    )
    args = parser.parse_args()
    language_model.load()
    print(f"{'pages':<7}{'script':<7}{'damage':<9}{'repaired':>9}{'wrong':>7}{'share':>8}{'err marked':>11}")
    for pages in args.pages or sorted(PAGES):
        for language, half in PAGES[pages]:
            clean = manual_paragraphs(language, args.size * 1000, half)
            for kind, hurt in DAMAGE.items():
                rows: list[tuple[float, str, bool]] = []
                for group in documents(clean):
                    observe(group, [hurt(p) for p in group], rows)
                wrong = [(p, place) for p, place, right in rows if not right]
                caught = sum(calibration.confidence(p, place) < DEFAULT_THRESHOLD for p, place in wrong)
                print(
                    f"{pages:<7}{language:<7}{kind:<9}{len(rows):>9}{len(wrong):>7}"
                    f"{len(wrong) / max(1, len(rows)):>8.2%}{caught / max(1, len(wrong)):>11.1%}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

"""Print what a reader downloads from a built site: pages, search index, KaTeX, the whole site.

    python benchmarks/site_sizes.py SITE [SITE_BEFORE]

``SITE`` is the output of ``metrics-registry build``; with ``SITE_BEFORE``
(an older build) every figure is printed next to it. The budgets themselves
(150 KB of HTML a metric page, KaTeX only with a formula) are checked by
tests/site/test_budgets.py; this prints the figures to compare.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LANGUAGES = ("en", "vi", "zh")
_KATEX = re.compile(r'(?:href|src)="[^"]*assets/katex/')


def _kb(size: int) -> str:
    return f"{size / 1000:,.0f} KB"


def figures(site: Path) -> dict[str, str]:
    """Each figure by name, formatted."""
    out: dict[str, str] = {}
    total = sum(path.stat().st_size for path in site.rglob("*") if path.is_file())
    out["whole site"] = f"{total / 1e6:.1f} MB"
    for lang in LANGUAGES:
        root = site / lang
        families = list((root / "reference").glob("*/index.html"))
        metrics = list((root / "reference").glob("*/*/index.html"))
        largest_family = max(families, key=lambda path: path.stat().st_size)
        out[f"{lang}: largest family page"] = (
            f"{_kb(largest_family.stat().st_size)} ({largest_family.parent.relative_to(root).as_posix()}/)"
        )
        if metrics:
            largest = max(metrics, key=lambda path: path.stat().st_size)
            out[f"{lang}: largest metric page"] = (
                f"{_kb(largest.stat().st_size)} ({largest.parent.relative_to(root).as_posix()}/)"
            )
            out[f"{lang}: metric pages"] = str(len(metrics))
        out[f"{lang}: search index"] = _kb((root / "search" / "search_index.json").stat().st_size)
        pages = list(root.rglob("*.html"))
        katex = [page for page in pages if _KATEX.search(page.read_text(encoding="utf-8"))]
        out[f"{lang}: pages loading KaTeX"] = f"{len(katex)} of {len(pages)}"
    return out


def main(argv: list[str]) -> None:
    if not argv or len(argv) > 2:
        sys.exit(__doc__)
    after = figures(Path(argv[0]))
    before = figures(Path(argv[1])) if len(argv) == 2 else {}
    width = max(len(name) for name in after)
    for name, value in after.items():
        old = f"   (before: {before[name]})" if name in before else ""
        print(f"{name:<{width}}  {value}{old}")


if __name__ == "__main__":
    main(sys.argv[1:])

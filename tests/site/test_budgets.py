"""Issue 19's budgets on the built site: a page per metric of at most 150 KB of HTML, KaTeX only on
the pages that hold a formula, and a search index without what the metric pages already hold.

The figures themselves (largest page, index sizes, whole site) are printed by
``benchmarks/site_sizes.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from metrics_registry import Registry
from metrics_registry.links import family_page, metric_page

LANGUAGES = ("en", "vi", "zh")
#: Bytes of HTML of a metric's page, and of a family's index (issue 19: the GRPO page was 540 KB).
PAGE_BUDGET = 150_000
_FORMULA = re.compile(r'class="arithmatex"')
_KATEX = re.compile(r'(?:href|src)="[^"]*assets/katex/')


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_metric_page_and_family_index_is_within_budget(
    site: Path, registry: Registry, lang: str
) -> None:
    root = site / lang
    pages = [metric_page(entry) for entry in registry] + [family_page(family) for family in registry.families]
    sizes = {page: (root / page / "index.html").stat().st_size for page in pages}
    over = {page: size for page, size in sizes.items() if size > PAGE_BUDGET}
    assert not over, over
    # the pages are the metrics: every one has its page, and no metric page is left over
    built = {p.parent.relative_to(root).as_posix() + "/" for p in root.glob("reference/*/*/index.html")}
    assert built == {metric_page(entry) for entry in registry}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_katex_is_loaded_only_by_the_pages_with_a_formula(site: Path, lang: str) -> None:
    with_formula, without = [], []
    for path in sorted((site / lang).rglob("*.html")):
        html = path.read_text(encoding="utf-8")
        formula = bool(_FORMULA.search(html))
        (with_formula if formula else without).append(path)
        katex = _KATEX.findall(html)
        if formula:  # its stylesheet, the library, its auto-render
            assert len(katex) == 3, (path, katex)
        else:
            assert not katex, (path, katex)
    assert len(with_formula) > 20 and len(without) > 20  # both kinds are checked
    assert site / lang / "reference" / "grpo" / "index.html" in without  # the index has no formula


def _index(site: Path, lang: str) -> tuple[str, dict[str, str]]:
    """The raw search index of a language and its text by location."""
    raw = (site / lang / "search" / "search_index.json").read_text(encoding="utf-8")
    docs: dict[str, str] = {}
    for doc in json.loads(raw)["docs"]:
        docs[doc["location"]] = docs.get(doc["location"], "") + doc["title"] + " " + doc["text"]
    return raw, docs


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_search_index_holds_each_text_once(site: Path, registry: Registry, lang: str) -> None:
    raw, docs = _index(site, lang)
    # written as UTF-8: Material's JSON escapes every non-ASCII character (6 bytes each)
    # (an escape: an odd run of backslashes, then "u"; the separator regex holds "\\\\u200b" as text)
    escaped = {int(code, 16) for code in re.findall(r"(?<!\\)(?:\\\\)*\\u([0-9a-fA-F]{4})", raw)}
    assert all(code < 0x20 for code in escaped), sorted(escaped)[:10]
    # the metric pages are indexed, one entry each (the page's own title section, no empty preface)
    for entry in registry:
        assert entry.key in docs[metric_page(entry)], entry.id
    assert all(text.strip() for text in docs.values())
    # the tables that repeat the metric pages are not: the family index's, the index of all metrics'
    index_text = docs[family_page("grpo")]
    titles = [entry.metric.title for entry in registry.in_family("grpo")]
    assert sum(title in index_text for title in titles) < len(titles) / 5, index_text[:300]
    all_metrics = " ".join(text for location, text in docs.items() if location.startswith("metrics/"))
    assert sum(entry.key in all_metrics for entry in registry) < len(registry) / 5
    # nor the source code: the API page's, and the reference implementation under each metric
    everything = "\n".join(docs.values())
    assert "Source code in" not in everything
    assert "def kl_mean(" not in everything and "def completion_length_stats(" not in everything
    api = " ".join(text for location, text in docs.items() if location.startswith("api/"))
    assert "kl_mean" in api  # the API page itself is indexed

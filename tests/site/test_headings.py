"""Heading ids shared by every language: the English page's ids, by position."""

from __future__ import annotations

import markdown
import pytest

from metrics_registry.site.headings import align_heading_ids, find_headings, with_heading_ids

EXTENSIONS = ["attr_list", "toc", "fenced_code"]


def _rendered_ids(text: str) -> list[str]:
    """The heading ids Python-Markdown (what MkDocs runs) gives the page."""
    md = markdown.Markdown(extensions=EXTENSIONS)
    md.convert(
        text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
    )  # MkDocs strips front matter
    ids: list[str] = []

    def walk(tokens: list[dict]) -> None:
        for token in tokens:
            ids.append(token["id"])
            walk(token["children"])

    walk(md.toc_tokens)
    return ids


ENGLISH = """---
source_revision: abc
---

# Checking a run

Intro.

```
# not a heading
```

## What it reads

## The `report` { #the-report }

Exit codes
----------

## What it reads
"""

VIETNAMESE = """---
source_revision: abc
---

# Kiểm tra một lần chạy

Mở đầu.

## Lệnh này đọc những gì

## Báo cáo

Mã thoát
--------

## Lệnh này đọc những gì
"""


def test_english_ids_are_the_ones_mkdocs_would_make() -> None:
    plain = ENGLISH.replace(" { #the-report }", "")
    written = with_heading_ids(plain)
    assert _rendered_ids(written) == _rendered_ids(plain)
    assert _rendered_ids(written) == [
        "checking-a-run",
        "what-it-reads",
        "the-report",
        "exit-codes",
        "what-it-reads_1",
    ]


def test_a_translation_takes_the_english_ids_by_position() -> None:
    text, aligned = align_heading_ids(VIETNAMESE, ENGLISH)
    assert aligned
    assert _rendered_ids(text) == _rendered_ids(with_heading_ids(ENGLISH))
    assert "## Báo cáo { #the-report }" in text
    assert "Mã thoát { #exit-codes }\n--------" in text  # setext heading: the id on its text line
    assert text.startswith("---\nsource_revision: abc\n---\n")  # front matter untouched


def test_headings_that_do_not_line_up_keep_their_own_ids() -> None:
    shorter = VIETNAMESE.replace("## Báo cáo\n", "")
    text, aligned = align_heading_ids(shorter, ENGLISH)
    assert not aligned
    assert "{ #lệnh-này-đọc-những-gì }" in text
    assert "#the-report" not in text


def test_code_and_front_matter_hold_no_heading() -> None:
    levels = [(h.level, h.text) for h in find_headings(ENGLISH)]
    assert levels[0] == (1, "Checking a run")
    assert (2, "The report") in levels
    assert not any("not a heading" in text for _, text in levels)
    assert not any("source_revision" in text for _, text in levels)


def test_an_explicit_id_is_replaced_keeping_the_classes() -> None:
    text = with_heading_ids("## Title { #old .wide }\n", ["new"])
    assert text == "## Title { #new .wide }\n"
    assert with_heading_ids("## Closed ##\n") == "## Closed { #closed }\n"


def test_reserved_ids_are_not_given_to_a_heading() -> None:
    assert with_heading_ids("## Reconstructed\n", reserved=["reconstructed"]) == (
        "## Reconstructed { #reconstructed_1 }\n"
    )


def test_ids_and_headings_must_match() -> None:
    with pytest.raises(ValueError, match="2 ids for 1 headings"):
        with_heading_ids("# One\n", ["a", "b"])

"""Mojibake quoted on purpose is told from damage (the rules of :mod:`.quotation`).

The findings are built by hand at given substrings, so these tests check the
rules alone, whatever the repair finds.
"""

from __future__ import annotations

import random

from metrics_registry.encoding.findings import Finding, Kind
from metrics_registry.encoding.markup import containing
from metrics_registry.encoding.quotation import _holds_clean, _merged, _visible, quotations


def findings_at(text: str, *damaged: str) -> list[Finding]:
    """A finding at the first occurrence of each of ``damaged``, searched from the previous one."""
    found, position = [], 0
    for piece in damaged:
        start = text.index(piece, position)
        position = start + len(piece)
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        found.append(Finding(start, position, line, column, Kind.MOJIBAKE, piece, "?", 1.0))
    return found


def quoted(text: str, *damaged: str, markup: str = "markdown") -> list[bool]:
    return quotations(text, findings_at(text, *damaged), markup)


def test_beside_clean_text_on_its_line() -> None:
    assert quoted("Windows-1252 turns é into Ã© here.\n", "Ã©") == [True]
    assert quoted("训练日志 became è®­ç»ƒæ—¥å¿—.\n", "è®­ç»ƒæ—¥å¿—") == [True]


def test_a_document_with_no_clean_text_is_damaged_even_in_code() -> None:
    text = 'You will see `Ã©` in code, "Ã¼" in quotes.\n'
    assert quoted(text, "Ã©", "Ã¼") == [False, False]


def test_marked_examples_in_an_otherwise_clean_document() -> None:
    text = (
        "# Mojibake\n\nIn code `Ã©`, in “â€™” and 'Ã¼', in 「è®­ç»ƒ」.\n\n"
        "| seen | was |\n| --- | --- |\n| Ã¶ | ö |\n\n```\nÅ¡\n```\n\nThe page is clean: ü.\n"
    )
    assert quoted(text, "Ã©", "â€™", "Ã¼", "è®­ç»ƒ", "Ã¶", "Å¡") == [True] * 6


def test_unmarked_damage_elsewhere_makes_the_marked_examples_damage_too() -> None:
    text = "Clean: ü.\n\nSay `Ã©` for it.\n\nThen Ã¼ on a line of its own.\n\nAnd é is Ã© here.\n"
    assert quoted(text, "Ã©", "Ã¼", "Ã©") == [False, False, True]


def test_invisible_characters_are_no_clean_text() -> None:
    for invisible in ("\u00a0", "\ufffd", "\u00ad", "\ufeff", "\u200b"):
        text = f"Say `Ã©`{invisible} here.\n"
        assert quoted(text, "Ã©") == [False], repr(invisible)


def test_apostrophes_are_not_quotation_marks() -> None:
    text = "Clean: ü.\n\nIt's Ã© that isn't right.\n"
    assert quoted(text, "Ã©") == [False]


def test_a_quotation_must_hold_the_damage_inside_its_marks() -> None:
    text = 'Clean: ü.\n\nA "quote" then Ã© and "another".\n'
    assert quoted(text, "Ã©") == [False]


def test_a_table_cell_holds_only_the_example() -> None:
    text = "| seen | was |\n| --- | --- |\n| Ã©, | é |\n| see Ã¼ here | ü |\n"
    assert quoted(text, "Ã©", "Ã¼") == [True, True]  # both beside clean text on their rows
    alone = "Clean: ü.\n\n| seen | what |\n| --- | --- |\n| Ã© | e acute |\n| see Ã¶ here | o umlaut |\n"
    assert quoted(alone, "Ã©", "Ã¶") == [False, False]  # "see ... here" is not an example alone
    only = "Clean: ü.\n\n| seen | what |\n| --- | --- |\n| Ã© | e acute |\n| â€™ | apostrophe |\n"
    assert quoted(only, "Ã©", "â€™") == [True, True]


def test_plain_text_has_no_code_blocks() -> None:
    text = "Clean: ü.\n\n    Ã© indented\n"
    assert quoted(text, "Ã©", markup="markdown") == [True]
    assert quoted(text, "Ã©", markup="text") == [False]


def test_searching_the_gaps_between_findings_finds_what_a_walk_over_every_character_does() -> None:
    """:func:`_holds_clean` skips the covered spans; the answer is that of checking every character."""
    rng = random.Random(7)
    alphabet = "ab \u00e9\u00c3\u00a9\u8bad\u200b\ufffd\u00ad"
    evidences = (None, lambda ch: ch != "\u00e9")
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        spans = []
        for _ in range(rng.randint(0, 4)):
            start = rng.randint(0, len(text))
            spans.append((start, rng.randint(start, len(text))))
        covered = _merged(spans)
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        for evidence in evidences:
            walked = any(
                ord(ch) > 0x7F
                and (evidence is None or evidence(ch))
                and _visible(ch)
                and containing(covered, at, at + 1) is None
                for at, ch in enumerate(text[start:end], start)
            )
            assert _holds_clean(text, start, end, covered, evidence) == walked, (text, covered, start, end)

"""Reading the bytes of a run of mojibake as UTF-8 units (:func:`.utf8.parse_units`)."""

from __future__ import annotations

from metrics_registry.encoding.utf8 import UnitKind, parse_units


def kinds(data: bytes, **options: object) -> list[tuple[UnitKind, int, int, bytes]]:
    return [(u.kind, u.start, u.end, u.body) for u in parse_units(data, **options)]  # type: ignore[arg-type]


def test_whole_characters_are_complete_and_malformed_ones_invalid() -> None:
    """ "训" whole, an overlong form (E0 80 80) read as one invalid unit, ASCII as itself."""
    assert kinds("训a".encode() + b"\xe0\x80\x80") == [
        (UnitKind.COMPLETE, 0, 3, "训".encode()),
        (UnitKind.ASCII, 3, 4, b"a"),
        (UnitKind.INVALID, 4, 7, b"\xe0\x80\x80"),
    ]


def test_a_hole_makes_a_whole_looking_character_short() -> None:
    """The bytes of "训" with its last byte marked lost (U+FFFD): short, the hole at index 2."""
    (unit,) = parse_units("训".encode(), holes=frozenset({2}))
    assert (unit.kind, unit.holes, unit.missing) == (UnitKind.SHORT, (2,), 0)
    (whole,) = parse_units("训".encode(), holes=frozenset({5}))  # a hole elsewhere changes nothing
    assert whole.kind is UnitKind.COMPLETE


def test_short_characters_and_no_break_spaces() -> None:
    """A space between continuation bytes was 0xA0; a short unit before a space may end with it."""
    (restored,) = parse_units(b"\xe0 \xa4")
    assert (restored.kind, restored.body, restored.nbsp_restored) == (
        UnitKind.COMPLETE,
        b"\xe0\xa0\xa4",
        True,
    )
    short, space = parse_units(b"\xc3 ")
    assert (short.kind, short.missing, short.optional_nbsp, space.kind) == (
        UnitKind.SHORT,
        1,
        True,
        UnitKind.ASCII,
    )

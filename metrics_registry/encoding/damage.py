"""Making mojibake on purpose: the damage the repair undoes, for tests and benchmarks.

>>> mojibake("训练", "cp1254", lossy=True)
'è®ç»ƒ'
>>> mojibake("Việt", "cp1252")
'Viá»‡t'
"""

from __future__ import annotations

from metrics_registry.encoding.codepages import codepage

__all__ = ["DAMAGE_KINDS", "damage", "mojibake"]


def mojibake(
    text: str, page: str, *, lossy: bool = False, nbsp_to_space: bool = False, layers: int = 1
) -> str:
    """``text`` as UTF-8 read with code page ``page``, ``layers`` times.

    With ``lossy`` the bytes the code page cannot show, and soft hyphens, are
    dropped (what happened to the project's seed document); without it they
    come through as C1 control characters, the way a lenient decoder keeps
    them. ``nbsp_to_space`` turns the no-break spaces of the result into
    plain spaces, as editors and web forms do.
    """
    table = codepage(page)
    to_char = table.to_char
    for _ in range(layers):
        data = text.encode("utf-8")
        if lossy:
            data = bytes(b for b in data if b not in table.droppable)
        text = "".join(chr(b) if b < 0x80 else to_char.get(b, chr(b)) for b in data)
        if nbsp_to_space:
            text = text.replace("\u00a0", " ")
    return text


#: The kinds of damage the benchmark and the tests apply, by name.
DAMAGE_KINDS: dict[str, dict[str, object]] = {
    "latin-1": {"page": "latin-1"},
    "windows-1252": {"page": "cp1252"},
    "double-1252": {"page": "cp1252", "layers": 2},
    "nbsp-1252": {"page": "cp1252", "nbsp_to_space": True},
    "lossy-1252": {"page": "cp1252", "lossy": True},
    "lossy-1254": {"page": "cp1254", "lossy": True},
}


def damage(text: str, kind: str) -> str:
    """``text`` with the damage called ``kind`` in :data:`DAMAGE_KINDS`."""
    options = dict(DAMAGE_KINDS[kind])
    page = str(options.pop("page"))
    return mojibake(text, page, **options)  # type: ignore[arg-type]

"""Which code page damaged a text, and where its mojibake is.

Mojibake is UTF-8 read through a one-byte code page. Under each code page
the runs of characters that map to bytes are read as UTF-8 units
(:mod:`.utf8`): a run that holds a whole multi-byte character, or a lead
byte with some of its continuation bytes, is mojibake; a lone accented
letter inside a known word ("café", "tên") is not. The code page that
explains the most mojibake wins (:func:`detect`), and the document itself
says which of its undefined bytes were dropped on the way and which came
through as C1 controls.
"""

from __future__ import annotations

from dataclasses import dataclass

from metrics_registry.encoding import language_model as lm
from metrics_registry.encoding.codepages import CODEPAGES, LOST, Codepage
from metrics_registry.encoding.utf8 import Unit, UnitKind, parse_units

__all__ = ["Detection", "Stretch", "detect", "word_around"]

_WORD_ENDINGS = ("”", "’", "…")
_CLEAN_SYMBOLS = frozenset("×°±·—–…“”‘’•€£¥©®™§¶½¼¾²³¹µ«»¡¿\u00a0")


@dataclass
class Stretch:
    """A stretch of one run that reads as UTF-8 units: mojibake, or an accented word that is fine."""

    start: int
    end: int
    units: list[Unit]
    base: int

    @property
    def definite(self) -> bool:
        """Holds a whole multi-byte character or a lead byte with continuation bytes."""
        return any(u.kind is UnitKind.COMPLETE or len(u.body) > 1 for u in self.units)

    @property
    def evidence(self) -> int:
        return sum(1 for u in self.units if u.kind is UnitKind.COMPLETE or len(u.body) > 1)


@dataclass(frozen=True)
class Detection:
    """The code page that damaged a text, the bytes it may have lost, and the mojibake found."""

    page: Codepage
    droppable: frozenset[int]
    subs: tuple[Stretch, ...]
    evidence: int
    nbsp_survived: bool = False
    lossy: bool = False  # some character lost bytes that no no-break space explains
    kept: frozenset[int] = frozenset()  # droppable bytes that the text shows were not dropped
    #: Bytes a U+FFFD may stand for: those the code page (or one that explains the text as well)
    #: leaves undefined.
    undefined: frozenset[int] = frozenset()

    @property
    def nbsp_cost(self) -> float:
        """How unlikely it is that a space was a no-break space (very, when the text kept its NBSPs)."""
        return 9.0 if self.nbsp_survived else 2.5


def word_around(text: str, start: int, end: int) -> str:
    while start > 0 and text[start - 1].isalpha() and not lm.is_han(text[start - 1]):
        start -= 1
    while end < len(text) and text[end].isalpha() and not lm.is_han(text[end]):
        end += 1
    return text[start:end]


def _foreign_neighbour(text: str, start: int, end: int) -> bool:
    """Touches a character that is neither ASCII nor Latin (Chinese, emoji...): mojibake's company."""
    for index in (start - 1, end):
        if 0 <= index < len(text):
            ch = text[index]
            if ch >= "\x80" and not lm.is_latin_letter(ch) and ch not in _CLEAN_SYMBOLS:
                return True
    return False


def _plausible(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` reads fine as it is: a known word, or a common symbol."""
    if _foreign_neighbour(text, start, end):
        return False
    chunk = text[start:end]
    if all(ch in _CLEAN_SYMBOLS for ch in chunk) and len(chunk) <= 2:
        return True
    if all(ch.isalpha() for ch in chunk):
        return lm.word_known(word_around(text, start, end))
    if not chunk.endswith(_WORD_ENDINGS):  # what follows asks for one
        return False
    letters = len(chunk) - len(chunk.lstrip("".join(ch for ch in chunk if ch.isalpha())))
    if letters and chunk[letters:] in _WORD_ENDINGS and not text[end : end + 1].isalpha():
        # "bé”", "café…": a known word followed by a closing quote or an ellipsis.
        return lm.word_known(word_around(text, start, start + letters))
    return False


def _nbsp_letter(units: tuple[Unit, ...]) -> bool:
    """A lone lead byte followed by a space, which may have been its no-break space ("nÃ y" for "này").

    Such a letter is kept as it is only if the language model prefers it to the repair.
    """
    return len(units) == 1 and len(units[0].body) == 1 and units[0].optional_nbsp


def _subs(
    text: str, page: Codepage, plausible: dict[tuple[int, int], bool] | None = None
) -> tuple[list[Stretch], int]:
    """The mojibake-looking stretches of ``text`` under ``page``, and how many bytes are not UTF-8.

    ``plausible`` remembers :func:`_plausible`'s answers for ``text``, by stretch, across code pages.
    """
    if plausible is None:
        plausible = {}
    found: list[Stretch] = []
    bad = 0
    parsed = _PARSED.setdefault(page.name, {})
    if len(parsed) >= _MAX_PARSED:
        parsed.clear()
    for match in page.cluster_re.finditer(text):
        base, end = match.span()
        key = (match.group(), text[end : end + 1] == " ")
        found_here = parsed.get(key)
        if found_here is None:
            found_here = parsed[key] = _parse(page, *key)
        cluster_bad, runs = found_here
        bad += cluster_bad
        for start, stop, units, nbsp_letter in runs:
            span = (base + start, base + stop)
            if not nbsp_letter:
                fine = plausible.get(span)
                if fine is None:
                    fine = plausible[span] = _plausible(text, *span)
                if fine:
                    continue
            found.append(Stretch(span[0], span[1], list(units), base))
    return found, bad


#: A run of complete and short units in a cluster: start, end, the units, whether :func:`_nbsp_letter`.
_Run = tuple[int, int, tuple[Unit, ...], bool]

#: :func:`_parse`'s answers, per code page, by cluster and whether a space follows it: a document
#: repeats its damaged characters, and :func:`detect` reads it under several code pages, then again
#: after each round of repair.
_PARSED: dict[str, dict[tuple[str, bool], tuple[int, tuple[_Run, ...]]]] = {}
_MAX_PARSED = 100_000


def _parse(page: Codepage, cluster: str, space_after: bool) -> tuple[int, tuple[_Run, ...]]:
    """A cluster of upper-half characters read as UTF-8 units under ``page``: the bytes that are not
    UTF-8 (counted only when some unit is), and the runs of complete and short units, each with its
    place in the cluster."""
    data, holes = page.encode_with_holes(cluster)
    units = parse_units(data, space_after=space_after, holes=holes)
    bad = 0
    if any(u.kind in (UnitKind.COMPLETE, UnitKind.SHORT) for u in units):
        bad = sum(1 for u in units if u.kind in (UnitKind.STRAY, UnitKind.INVALID) and u.start not in holes)
    runs: list[_Run] = []
    current: list[Unit] = []
    for unit in [*units, None]:
        if unit is not None and unit.kind in (UnitKind.COMPLETE, UnitKind.SHORT):
            current.append(unit)
            continue
        if current:
            runs.append((current[0].start, current[-1].end, tuple(current), _nbsp_letter(tuple(current))))
            current = []
    return bad, tuple(runs)


def detect(text: str, page: Codepage | None = None) -> Detection | None:
    """The code page whose mojibake best explains ``text``; ``None`` when there is no mojibake.

    With ``page`` (the code page that earlier evidence in the same document
    pointed to), the stretches that may be mojibake under it, even if none is
    certain: what is left once the certain ones are repaired ("nÃ y").
    """
    if page is not None:
        subs, _ = _subs(text, page)
        if not subs:
            return None
        evidence = sum(sub.evidence for sub in subs)  # 0 for the stretches that are not definite
        return Detection(page, page.droppable, tuple(subs), evidence, undefined=page.undefined)
    # A first count of the pairs that read as the start of a UTF-8 character, a regular-expression
    # scan per code page, leaves out the pages that explain far less than the best one.
    pairs = {page.name: len(page.pair_re.findall(text)) for page in CODEPAGES}
    most = max(pairs.values())
    if not most:
        return None
    scored = []
    plausible: dict[tuple[int, int], bool] = {}  # the code pages mostly find the same stretches
    for candidate in CODEPAGES:
        if pairs[candidate.name] < 0.8 * most:
            continue
        subs, bad = _subs(text, candidate, plausible)
        evidence = sum(sub.evidence for sub in subs)  # 0 for the stretches that are not definite
        scored.append((evidence - bad, evidence, candidate, subs))
    best_score, evidence, page, subs = max(scored, key=lambda item: (item[0], item[1]))
    if evidence == 0 or best_score <= 0:
        return None
    chunks = [text[s.start : s.end] for s in subs if s.definite]
    # The tests below ask the same of every character of the chunks: once each is enough.
    seen = set("".join(chunks))
    droppable = set(page.droppable)
    undefined = set(page.undefined)
    for score, _, other, _ in scored:
        if (
            score == best_score
            and other is not page
            and "latin" not in other.name + page.name
            and all(ch in other.to_byte and other.to_byte[ch] == page.to_byte[ch] for ch in seen)
        ):
            droppable |= other.droppable
    for other in CODEPAGES:
        # A U+FFFD was a byte undefined in the code page: in any code page that reads the text alike.
        if "latin" not in other.name and all(
            ch == LOST or (ch in other.to_byte and other.to_byte[ch] == page.to_byte[ch]) for ch in seen
        ):
            undefined |= other.undefined
    # A byte the code page cannot show that came through anyway (as a C1 control, or a soft
    # hyphen) was not dropped on the way: the document's transport kept such bytes.
    kept = frozenset(page.to_byte[ch] for ch in seen if page.to_byte.get(ch) in droppable)
    survived = any("\u00a0" in chunk for chunk in chunks)
    lossy = any(u.kind is UnitKind.SHORT and not u.optional_nbsp for sub in subs for u in sub.units)
    return Detection(
        page, frozenset(droppable) - kept, tuple(subs), evidence, survived, lossy, kept, frozenset(undefined)
    )

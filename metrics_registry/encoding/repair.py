"""The repair: ftfy for what it fixes, then lost bytes, until nothing changes.

Each round first gives the lines that show mojibake to ftfy's
``fix_encoding`` (not ``fix_text``: its other fixes would "improve" clean
Chinese, quotes and full-width punctuation, which a documentation tool must
never do), with ``replace_lossy_sequences`` off so that it never writes
U+FFFD where we can do better. What ftfy leaves, mojibake that lost bytes,
goes to :mod:`.lossy`. Rounds repeat until the text stops changing, which
also undoes double encoding and makes ``repair(repair(x)) == repair(x)``.

Text with no pair of characters that reads as the start of a UTF-8
character (see :data:`.codepages.SUSPECT_RE`) returns at once: clean text
costs one regular-expression scan.

Mojibake a document quotes on purpose (in code, in quotation marks, next to
the clean form it stands for) is not damage: :mod:`.quotation` says which
findings are such quotations, and they are neither repaired nor reported.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import re
from typing import NamedTuple

from metrics_registry.encoding import collector
from metrics_registry.encoding.codepages import CODEPAGES, SUSPECT_RE, Codepage, codepage
from metrics_registry.encoding.detection import Detection, detect
from metrics_registry.encoding.edits import Shift, apply_edits, carried, finding_for, merge_edits
from metrics_registry.encoding.findings import Edit, Finding, Kind
from metrics_registry.encoding.lossy import repair_lost_bytes
from metrics_registry.encoding.markup import Markup
from metrics_registry.encoding.quotation import quotations
from metrics_registry.encoding.utf8 import UnitKind

__all__ = ["Repaired", "diagnose", "repair", "repair_with_findings"]

_MAX_ROUNDS = 6
_LATIN1 = codepage("latin-1")  # C1 controls in place of Windows-1252 punctuation: always exact
_LINES = re.compile(r"[^\n]*\n|[^\n]+")


class Repaired(NamedTuple):
    """The repaired text and the findings, with spans in the input."""

    text: str
    findings: list[Finding]


def repair(text: str, *, markup: Markup = "auto") -> str:
    """Undo mojibake in ``text``, putting back bytes lost on the way; clean text comes back unchanged.

    ``markup`` says how to find the code of ``text`` (where mojibake may be
    quoted): ``"markdown"``, ``"text"`` (code spans only), or ``"auto"``
    (Markdown if it has a fence, a heading or a table).

    >>> repair("Ti\u00e1\u00ba\u00bfng Vi\u00e1\u00bb\u2021t")
    'Tiếng Việt'
    >>> repair("Clean text, 中文 and tiếng Việt, stays as it is.")
    'Clean text, 中文 and tiếng Việt, stays as it is.'
    >>> repair("Windows-1252 shows é as `Ã©`.")  # a quotation, not damage
    'Windows-1252 shows é as `Ã©`.'
    """
    if not SUSPECT_RE.search(text):
        return text
    return repair_with_findings(text, markup=markup).text


def diagnose(text: str, *, markup: Markup = "auto") -> list[Finding]:
    """The damage in ``text``: where, which kind, how sure the fix is, what else a lost byte could be."""
    if not SUSPECT_RE.search(text):
        return []
    return repair_with_findings(text, markup=markup).findings


def repair_with_findings(text: str, *, markup: Markup = "auto") -> Repaired:
    """:func:`repair` and :func:`diagnose` in one pass."""
    if isinstance(text, bytes):
        raise TypeError("repair() takes text (str), not bytes: decode the file as UTF-8 first")
    with collector.paused():  # a repair makes no reference cycles (see there)
        return _repair_with_findings(text, markup)


def _repair_with_findings(text: str, markup: Markup) -> Repaired:
    if _only_quotations(text, markup):
        return Repaired(text, [])
    repaired = _repair_all(text, detect(text))
    if not repaired.findings:
        return repaired
    quoted = quotations(text, repaired.findings, markup)
    if not any(quoted):
        return repaired
    damage = [f for f, q in zip(repaired.findings, quoted, strict=True) if not q]
    if not damage:
        return Repaired(text, [])
    # Quotations in a document with damage elsewhere are whole lines that hold clean text
    # (:mod:`.quotation`, rule 1); a repair never adds or removes a line break, so those lines
    # are put back as they were.
    lines, fixed = text.split("\n"), repaired.text.split("\n")
    if len(lines) != len(fixed):
        return Repaired(text, damage)  # cannot happen; if it did, change nothing and say why
    for finding, is_quoted in zip(repaired.findings, quoted, strict=True):
        if is_quoted:
            fixed[finding.line - 1] = lines[finding.line - 1]
    return Repaired("\n".join(fixed), _relocated(damage, repaired.text, fixed))


def _relocated(findings: list[Finding], before: str, lines: list[str]) -> list[Finding]:
    """The findings with their spots' places moved from ``before`` to the text of ``lines`` (the same
    lines, some of them put back as they were)."""
    old_starts = [0, *(match.end() for match in re.finditer("\n", before))]
    new_starts = [0]
    for line in lines[:-1]:
        new_starts.append(new_starts[-1] + len(line) + 1)
    out = []
    for finding in findings:
        spots = []
        for spot in finding.spots:
            moved = spot
            if spot.at >= 0:
                number = bisect.bisect_right(old_starts, spot.at) - 1
                moved = dataclasses.replace(spot, at=new_starts[number] + spot.at - old_starts[number])
            spots.append(moved)
        out.append(dataclasses.replace(finding, spots=tuple(spots)))
    return out


class _Stretch(NamedTuple):
    start: int
    end: int


def _only_quotations(text: str, markup: Markup) -> bool:
    """Whether every stretch of ``text`` that may be mojibake is a quotation, judged before repairing.

    A page that explains mojibake is clean text; this tells so without detecting or decoding
    anything (which would load the language models, seconds, only to put the examples back).
    The stretches are the signs of mojibake (:data:`.codepages.SUSPECT_RE`: a lead byte and a
    continuation byte, which every damaged character of two bytes or more leaves), each with as
    many characters as the longest UTF-8 character its lead byte can start; and the only evidence
    of clean text taken is a character that no code page can produce (Chinese, a Vietnamese
    letter such as ạ, an emoji: :func:`_beyond_code_pages`), since an accented letter or a symbol
    may be a fragment whose bytes were lost ("Ã" of "Ã©" cut short). Both choices make
    :func:`.quotation.quotations` less willing to call a stretch a quotation than it is on the
    repair's own findings. A document that also lost bytes with no sign of mojibake left
    (a lone "voilÃ ") next to its quoted examples is read as clean: such a fragment is a guess
    the repair would rather not make in a page that explains mojibake.
    """
    stretches = []
    for match in SUSPECT_RE.finditer(text):
        start, end = match.span()
        length = _UTF8_LENGTH.get(text[start], 1) + (" " in match.group())
        stretches.append(_Stretch(start, min(max(end, start + length), len(text))))
    return bool(stretches) and all(quotations(text, stretches, markup, evidence=_beyond_code_pages))


def _code_page_characters() -> frozenset[str]:
    return frozenset(char for page in CODEPAGES for char in page.to_byte)


_CODE_PAGE_CHARACTERS = _code_page_characters()


def _beyond_code_pages(char: str) -> bool:
    """Whether ``char`` is no code page's character, so no mojibake can hold it."""
    return char not in _CODE_PAGE_CHARACTERS


def _utf8_lengths() -> dict[str, int]:
    """For each character that reads as a UTF-8 lead byte in some code page, the longest UTF-8
    character that byte can start (2, 3 or 4 bytes, one character each once mojibake)."""
    lengths: dict[str, int] = {}
    for page in CODEPAGES:
        for char, byte in page.to_byte.items():
            if 0xC2 <= byte <= 0xF4:
                length = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
                lengths[char] = max(lengths.get(char, 0), length)
    return lengths


_UTF8_LENGTH = _utf8_lengths()


def _repair_all(text: str, first: Detection | None) -> Repaired:
    """Every mojibake of ``text`` repaired, quotations included; ``first`` is ``detect(text)``."""
    passes: list[list[Edit]] = []  # the changes of each pass, offsets in that pass's input
    current = text
    remaining: list[Edit] = []
    skip = _lossy_lines(text, first)
    for _ in range(_MAX_ROUNDS):
        fixed, edits = _ftfy_pass(current, first, skip if current is text else frozenset())
        if edits:
            passes.append(edits)
        after, lossy = repair_lost_bytes(fixed, first, pristine=fixed is text)
        changes = [e for e in lossy if e.replacement != fixed[e.start : e.end]]
        remaining = [e for e in lossy if e.replacement == fixed[e.start : e.end]]
        if changes:
            passes.append(changes)
        if after == current:
            break
        current = after
    shifts = [Shift(edits) for edits in passes]
    newlines = [match.start() for match in re.finditer("\n", text)]
    findings = [
        finding_for(text, newlines, shifts[:i], carried(e, shifts[i + 1 :]))
        for i, edits in enumerate(passes)
        for e in edits
    ]
    findings += [finding_for(text, newlines, shifts, e) for e in remaining]
    findings.sort(key=lambda f: (f.start, f.end))
    return Repaired(current, findings)


def _lossy_lines(text: str, detection: Detection | None) -> frozenset[int]:
    """The numbers (from 0) of the lines where a character lost bytes that no no-break space explains."""
    if detection is None or not detection.lossy:
        return frozenset()
    newlines = [match.start() for match in re.finditer("\n", text)]
    return frozenset(
        bisect.bisect_left(newlines, sub.start)
        for sub in detection.subs
        if any(u.kind is UnitKind.SHORT and not u.optional_nbsp for u in sub.units)
    )


def _ftfy_pass(text: str, first: Detection | None, skip: frozenset[int]) -> tuple[str, list[Edit]]:
    """ftfy's ``fix_encoding`` on each line that shows mojibake, keeping only its exact re-decodings.

    ``first`` is the mojibake :func:`.lossy.detect` found in the document
    before any repair. When there is some, only re-decodings through its code
    page stand, and "this space was a no-break space" is a guess among others
    (a lost byte can explain the same text), so ftfy's ``restore_byte_a0`` is
    left for :mod:`.lossy` to weigh. The lines numbered in ``skip`` lost bytes:
    ftfy cannot repair them and :mod:`.lossy` decodes them whole, so they are
    not given to ftfy (which would cost time for nothing).
    """
    if not SUSPECT_RE.search(text):
        return text, []
    import ftfy

    nbsp = first is None
    pages = CODEPAGES if first is None else (first.page, _LATIN1)

    config = ftfy.TextFixerConfig(replace_lossy_sequences=False)
    out: list[str] = []
    edits: list[Edit] = []
    offset = 0
    for number, match in enumerate(_LINES.finditer(text)):
        line = match.group()
        if number not in skip and SUSPECT_RE.search(line):
            fixed, plan = ftfy.fix_encoding_and_explain(line, config)
            if fixed != line and fixed.count("\ufffd") <= line.count("\ufffd"):
                kind, codepage = _describe(plan or [])
                line_edits = _verified(line, fixed, kind, codepage, pages, nbsp=nbsp)
                out.append(apply_edits(line, line_edits))
                edits.extend(e._replace(start=e.start + offset, end=e.end + offset) for e in line_edits)
                offset += len(line)
                continue
        out.append(line)
        offset += len(line)
    if not edits:
        return text, []  # the same object: the caller can tell that nothing changed
    return "".join(out), merge_edits(edits)


def _verified(
    line: str, fixed: str, kind: Kind, codepage: str | None, pages: tuple[Codepage, ...], *, nbsp: bool
) -> list[Edit]:
    """ftfy's changes to ``line`` that are exact re-decodings of bytes; ftfy's guesses on fragments
    that lost bytes (which it sometimes decodes into the wrong character) are left to :mod:`.lossy`."""
    matcher = difflib.SequenceMatcher(None, line, fixed, autojunk=False)
    raw = [
        Edit(a1, a2, fixed[b1:b2], kind, 1.0, codepage)
        for tag, a1, a2, b1, b2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    return [e for e in merge_edits(raw) if _explains(line[e.start : e.end], e.replacement, pages, nbsp=nbsp)]


def _explains(
    original: str, replacement: str, pages: tuple[Codepage, ...] = CODEPAGES, *, nbsp: bool = True
) -> bool:
    """Whether ``replacement`` is ``original`` read back through one to three code-page layers
    (the first through one of ``pages``: the document's own code page when it is known)."""
    layer = {original}
    for _ in range(3):
        deeper: set[str] = set()
        for text in layer:
            for variant in {text, text.replace(" ", "\u00a0") if nbsp else text}:
                for page in pages if text is original else CODEPAGES:
                    data = page.sloppy_encode(variant)
                    if data is None:
                        continue
                    for target in ("utf-8", "cp1252"):
                        try:
                            decoded = data.decode(target)
                        except UnicodeDecodeError:
                            continue
                        if decoded == replacement:
                            return True
                        if target == "utf-8" and decoded != variant:
                            deeper.add(decoded)
        layer = deeper
    return False


def _describe(plan: list) -> tuple[Kind, str | None]:
    actions = [(step.action, step.parameter) for step in plan]
    encodings = [param for action, param in actions if action == "encode"]
    codepage = encodings[0].removeprefix("sloppy-") if encodings else None
    if len(encodings) >= 2:
        return Kind.DOUBLE, codepage
    if ("transcode", "restore_byte_a0") in actions:
        return Kind.NBSP, codepage
    if ("transcode", "fix_c1_controls") in actions or ("decode", "windows-1252") in actions:
        return Kind.C1, codepage or "latin-1"
    return Kind.MOJIBAKE, codepage

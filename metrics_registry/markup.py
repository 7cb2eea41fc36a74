"""Raw HTML, dangerous URLs and stray headings in Markdown text (rules MR150, MR151 and MR152).

Registry fields and translations are Markdown that the site turns into
HTML. The site removes every tag, attribute and URL its sanitiser does not
allow (:mod:`metrics_registry.site.sanitize`); these checks tell the author
at ``validate`` time, with the line, instead of letting the text vanish from
a page or a link silently lose its target.

Written with regular expressions rather than a Markdown parser, on purpose:
the check must report whatever *any* reader of the text could take for
markup -- Python-Markdown with the site's extensions, a browser's tolerance
for malformed tags (``<img/src=x/onerror=...>``), entity-encoded or
mixed-case URL schemes -- and a parser only sees its own dialect
(markdown-it, for one, does not take ``<img/src=...>`` for HTML; Python-Markdown
and browsers do). It errs on the side of reporting; code spans and fenced
code, which the site shows literally, are left out.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from metrics_registry.findings import Finding
from metrics_registry.loader import LoadedFile

__all__ = [
    "DANGEROUS_SCHEMES",
    "FIXES",
    "MAX_PROBLEMS_PER_TEXT",
    "MarkupProblem",
    "check_markup",
    "dangerous_scheme",
    "find_unsafe_markup",
    "problem_line",
]

#: URL schemes that run code or smuggle a document in; refused in every form.
DANGEROUS_SCHEMES = ("javascript", "vbscript", "data")

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})")
_BACKTICKS = re.compile(r"`+")
# What a browser's tokenizer opens a tag, end tag, comment or processing
# instruction with, up to the '>' that Python-Markdown needs to see raw HTML;
# a quoted attribute value may hold '<' and '>' (href="data:text/html,<script>").
# Quoted values are bounded so that text full of '<a "' stays linear to scan.
_TAG = re.compile(
    r"""<(?:/?[A-Za-z](?:[^<>"']|"[^"]{0,300}"|'[^']{0,300}')*|/?[A-Za-z][^<>]*|![^<>]*|\?[^<>]*)>"""
)
# Python-Markdown's autolinks (<https://...>, <user@host>): links, not HTML.
_AUTOLINK = re.compile(r"<(?:(?:https?|ftp)://[^<>\s]*|[^<>\s!]+@[^@<>\s]+)>", re.I)
# attr_list ('{ #id .class key=value }' after an element) writes HTML attributes.
# Bounded, like every repeated part that could run past the next match, so
# that no text makes the scan quadratic (validate must answer in a second).
_ATTR_LIST = re.compile(r"\{:?[ \t]*(?:[#.][\w-]|[^\s=}\"'<>]{1,40}[ \t]*=)[^}\n]{0,150}\}")
_MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$", re.S)
_ATTRIBUTE = re.compile(r"""(?:^|[\s/])[^\s/>"'=]+\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")
# Where a URL starts: an inline link or image, a reference definition, an
# autolink-like <scheme:...>, KaTeX's \href{...} and \url{...}.
# Only where scheme characters run up to a ':' or an '&' (an encoded
# character): a URL with a scheme starts that way.
_URL_START = re.compile(
    r"(?:\]\(\s*<?|^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?|<(?=[A-Za-z][A-Za-z0-9+.\-]*:)|\\(?:href|url)\s*\{)"
    r"(?=[\x00-\x20]*[A-Za-z0-9+.\-\t\n]*[:&])",
    re.M,
)
# A browser drops ASCII tab and newline anywhere in a URL, and C0 controls
# and spaces around it, before it reads the scheme.
_HEADING_LINE = re.compile(r"^ {0,3}(#[^\n]*)", re.MULTILINE)
_URL_IGNORED = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"[\x00-\x20]*([A-Za-z][A-Za-z0-9+.\-]*):")


@dataclass(frozen=True)
class MarkupProblem:
    """One piece of markup: what it is, the text that shows it, and where it starts."""

    rule: Literal["MR150", "MR151", "MR152"]
    what: str
    snippet: str
    offset: int
    more: bool = False  # problems of the same text come after this one and are not reported

    def describe(self) -> str:
        more = " (and more in this text)" if self.more else ""
        return f"{self.what} {self.snippet!r}{more}"


#: Problems reported per text: a text made of ten thousand tags is one finding's worth of news,
#: and looking no further keeps validate fast on any input.
MAX_PROBLEMS_PER_TEXT = 20


@lru_cache(maxsize=4096)  # a text that repeats one link thousands of times decodes it once
def dangerous_scheme(url: str) -> str | None:
    """The dangerous scheme ``url`` would have in a browser, decoded as one does, or ``None``.

    >>> dangerous_scheme(" JaVa&#x09;Script:alert(1)")
    'javascript'
    >>> dangerous_scheme("&#106avascript:alert(1)")
    'javascript'
    >>> dangerous_scheme("data:text/html,<script>") , dangerous_scheme("https://x.org/data:")
    ('data', None)
    """
    if ":" not in url and "&" not in url:  # no scheme, literal or entity-encoded ('&#58;', '&colon;')
        return None
    if ":" in url and "&" not in url[: url.index(":")]:
        url = url[: url.index(":") + 1]  # the scheme ends at the first ':', unless one is encoded before it
    decoded = _URL_IGNORED.sub("", html.unescape(_URL_IGNORED.sub("", url)))
    match = _SCHEME.match(decoded)
    if match is None:
        return None
    scheme = match.group(1).lower()
    return scheme if scheme in DANGEROUS_SCHEMES else None


def _mask(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every match of ``pattern`` blanked out (same length, so offsets hold)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# A URL runs to a space, a quote, '>' or '}' (at most 200 characters are read).
_URL_TEXT = re.compile(r"[^ \n>}\"']{0,200}")


def _balanced(url: str) -> str:
    """``url`` up to an unbalanced ')', which ends a Markdown link's target."""
    depth = 0
    for paren in re.finditer(r"[()]", url):
        depth += 1 if paren.group(0) == "(" else -1
        if depth < 0:
            return url[: paren.start()]
    return url


def _mask_code(text: str) -> str:
    """``text`` with fenced code blocks and code spans blanked out (same length, so offsets hold).

    Written as a scan rather than one regular expression: a backtracking
    pattern for code spans takes quadratic time on a long run of backticks.
    As in Markdown, a span opened by n backticks is closed by the next run of
    exactly n; a fence only counts when it is closed.
    """
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for index in range(start, end):
            if chars[index] != "\n":
                chars[index] = " "

    offset, fence, fence_start = 0, "", 0
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence and line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            blank(fence_start, offset + len(line))
            fence = ""
        elif not fence and match is not None:
            fence, fence_start = match.group(2), offset
        offset += len(line) + 1
    plain = "".join(chars)
    runs = [(run.start(), run.end()) for run in _BACKTICKS.finditer(plain)]
    following: dict[int, int] = {}  # run index -> index of the next run as long
    last: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        if length in last:
            following[index] = last[length]
        last[length] = index
    index = 0
    while index < len(runs):
        close = following.get(index)
        if close is None or runs[close][0] == runs[index][1]:  # no closing run, or an empty span
            index += 1
            continue
        blank(runs[index][0], runs[close][1])
        index = close + 1
    return "".join(chars)


def find_unsafe_markup(
    text: str, *, in_code_span: bool = False, limit: int | None = MAX_PROBLEMS_PER_TEXT
) -> list[MarkupProblem]:
    """Raw HTML (MR150) and dangerous URLs (MR151) in ``text``, in order; the first ``limit``.

    ``in_code_span`` is for a value the page shows inside a code span (a file
    path, a config condition): its own backticks would end that span, so
    nothing in it counts as code. When problems were left out, the last one
    says so (``more``).

    >>> [p.describe() for p in find_unsafe_markup('See [x](JAVASCRIPT:alert(1)) and <b>y</b>.')]
    ["dangerous URL 'JAVASCRIPT:alert(1)'", "raw HTML '<b>'", "raw HTML '</b>'"]
    >>> find_unsafe_markup("`<script>` is code, a < b, <https://x.org>, &lt;b&gt;")
    []
    >>> [(p.rule, p.snippet) for p in find_unsafe_markup('<a href="data:text/html,<b>">d</a>')][1:]
    [('MR151', 'data:text/html,<b>'), ('MR150', '</a>')]
    >>> [p.describe() for p in find_unsafe_markup("<b>" * 12, limit=2)]
    ["raw HTML '<b>'", "raw HTML '<b>' (and more in this text)"]
    """
    if "<" not in text and "{" not in text and "](" not in text and "]:" not in text and "#" not in text:
        # every tag starts with '<', every attr_list block and KaTeX link with '{',
        # every link or reference definition with '](' or ']:', every heading with '#': nothing to find
        return []
    problems: list[MarkupProblem] = []
    plain = text if in_code_span else _mask_code(text)
    if not in_code_span:
        # Python-Markdown needs no space after the '#': "(issue\n#7817)." made "7817)." a heading,
        # with an id the other languages' pages did not have
        problems += [
            MarkupProblem(
                "MR152", "a line that Markdown reads as a heading", _short(line.group(1)), line.start(1)
            )
            for line in islice(_HEADING_LINE.finditer(plain), limit)
        ]
    plain = _mask(plain, _AUTOLINK)
    # Each scan finds its problems in order, so its first `limit` are all the merged list can show;
    # one more tells whether any were left out.
    more = None if limit is None else limit + 1
    tags = list(islice(_TAG.finditer(plain), more))
    blocks = list(islice(_ATTR_LIST.finditer(_mask(plain, _MATH)), more))  # '$\sum_{i=1}$' is math
    urls = list(islice(_dangerous_urls(plain), more))
    cut = limit is not None and max(len(tags), len(blocks), len(urls)) > limit
    for tag in tags[:limit]:
        problems.append(MarkupProblem("MR150", "raw HTML", _short(tag.group(0)), tag.start()))
        for attribute in _ATTRIBUTE.finditer(tag.group(0)):
            problems.extend(_url_problem(attribute, tag.start()))
    for block in blocks[:limit]:
        what = "HTML attributes set with attr_list"
        problems.append(MarkupProblem("MR150", what, _short(block.group(0)), block.start()))
        for attribute in _ATTRIBUTE.finditer(" " + block.group(0)[1:-1]):
            problems.extend(_url_problem(attribute, block.start() - 1))
    problems.extend(urls[:limit])
    problems = _unique(sorted(problems, key=lambda p: (p.offset, p.rule)))
    if limit is None or (len(problems) <= limit and not cut):
        return problems
    shown = problems[:limit]
    shown[-1] = replace(shown[-1], more=True)
    return shown


def _dangerous_urls(plain: str) -> Iterator[MarkupProblem]:
    """MR151 for every link, image, reference definition or KaTeX link target, in order."""
    for start in _URL_START.finditer(plain):
        url = _URL_TEXT.match(plain, start.end()).group(0)  # type: ignore[union-attr]  # '' at worst
        if dangerous_scheme(url) and dangerous_scheme(url := _balanced(url)):
            yield MarkupProblem("MR151", "dangerous URL", _short(url), start.end())


def _url_problem(attribute: re.Match[str], base: int) -> Iterator[MarkupProblem]:
    for group in (1, 2, 3):
        value = attribute.group(group)
        if value is not None and dangerous_scheme(value):
            yield MarkupProblem("MR151", "dangerous URL", _short(value), base + attribute.start(group))


def _unique(problems: list[MarkupProblem]) -> list[MarkupProblem]:
    seen: set[tuple[str, int]] = set()
    out = []
    for problem in problems:
        if (problem.rule, problem.offset) not in seen:
            seen.add((problem.rule, problem.offset))
            out.append(problem)
    return out


#: How to fix each rule, for findings in registry files and catalogs.
FIXES = {
    "MR150": "write Markdown, not HTML (**bold**, [text](https://...)), and put code or literal"
    " <angle brackets> in backticks; the site removes HTML tags and attributes",
    "MR151": "link to an https:// or a relative URL; the site drops javascript:, data: and vbscript:"
    " links in any spelling",
    "MR152": "rewrap the text so that no line starts with '#' (or write \\#): a text is part of a page,"
    " not a section of its own",
}
#: Fields shown inside a code span on the pages (``trainer``), whose backticks end that span.
_CODE_FIELDS = frozenset({"trainer", "source", "eval_prefix", "option", "condition"})
#: Fields that never reach a page as Markdown: example data (code blocks).
_SKIPPED = frozenset({"inputs", "expected", "output"})
#: LaTeX, shown by KaTeX: HTML in it stays text, but ``\\href{javascript:...}`` is a link.
_LATEX_FIELDS = frozenset({"formula"})


def _strings(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, dict):
        for name, item in value.items():
            if name not in _SKIPPED:
                yield from _strings(item, (*loc, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*loc, index))
    elif isinstance(value, str):
        yield loc, value


def _field_name(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def problem_line(lines: list[str], first: int | None, value: str, problem: MarkupProblem) -> int | None:
    """The file line (1-based) showing ``problem`` of ``value``, which starts on or after line ``first``.

    The problem's text is looked for in the lines the value can span: the
    line of its n-th occurrence, n counted in the value up to the problem
    (a text may show ``javascript:`` several times). Where the file writes
    it differently (escapes, folding inside it), the value's first line.

    >>> text = "a [x](javascript:1)\\nb <b> [y](javascript:2)"
    >>> problems = find_unsafe_markup(text)
    >>> lines = ["key: |-", "  a [x](javascript:1)", "  b <b> [y](javascript:2)"]
    >>> [problem_line(lines, 1, text, p) for p in problems]
    [2, 3, 3]
    """
    if first is None:
        return None
    # a fold can only split at a space: look for the word the problem starts with
    word = re.compile(r"\s*(\S{1,12})").match(value, problem.offset)
    if word is None:
        return first
    needle = word.group(1)
    before = value.count(needle, 0, word.start(1))
    # a folded scalar ('>-') spreads a value with no newline over lines of 20+ characters
    last = first + value.count("\n") + 1 + len(value) // 20
    for number in range(first, min(len(lines), last) + 1):
        found = lines[number - 1].count(needle)
        if before < found:
            return number
        before -= found
    return first


def check_markup(files: list[LoadedFile], registry: object) -> Iterator[Finding]:
    """MR150/MR151 on every text of every file, valid entries or not (a broken entry still reaches a diff)."""
    for loaded in files:
        if not isinstance(loaded.raw, dict):
            continue
        try:
            lines = Path(loaded.path).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError):
            continue
        for loc, value in _strings(loaded.raw, ()):
            if loc[-1] in _LATEX_FIELDS:
                problems = [p for p in find_unsafe_markup(value, in_code_span=True) if p.rule == "MR151"]
            else:
                problems = find_unsafe_markup(value, in_code_span=loc[-1] in _CODE_FIELDS)
            if not problems:
                continue
            key = None
            if loc[0] == "metrics" and len(loc) > 2 and isinstance(loc[1], int):
                item = loaded.raw["metrics"][loc[1]]
                raw_key = item.get("key") if isinstance(item, dict) else None
                key = raw_key if isinstance(raw_key, str) else None
            field = _field_name(loc[2:] if key is not None else loc)
            for problem in problems:
                yield Finding(
                    problem.rule,
                    loaded.path,
                    problem_line(lines, loaded.line_of(loc), value, problem),
                    problem.describe(),
                    FIXES[problem.rule],
                    key,
                    field,
                )

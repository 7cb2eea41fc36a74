"""QA checks on every translation, each with a rule id (``I18N2xx``).

A translation must carry over, unchanged, what is not prose: inline code
spans, metric keys, ``{placeholders}``, LaTeX, URLs and Markdown link
targets. Its backticks must balance, it must not contain mojibake, and it
must use the glossary's terms (``i18n/glossary.yaml``). Like registry
texts, it must hold no raw HTML (MR150) and no javascript:, data: or
vbscript: link (MR151): a msgstr reaches the pages as they do. Only translated,
non-fuzzy entries are checked: a fuzzy entry is reviewed when its English
changes, and does not reach a page meanwhile.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog, Message

from metrics_registry.findings import Finding
from metrics_registry.i18n import DOMAINS, I18nError, catalog_path, i18n_dir, languages
from metrics_registry.i18n.fields import split_context
from metrics_registry.markup import FIXES, find_unsafe_markup, problem_line

__all__ = ["GlossaryTerm", "check_catalogs", "check_message", "find_mojibake", "load_glossary"]

_FENCE = re.compile(r"^( {0,3})(```|~~~).*?^\1\2[ \t]*$", re.DOTALL | re.MULTILINE)
_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_LATEX = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$", re.DOTALL)
_URL = re.compile(r"https?://[^\s)>\]\"'`]+")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_PLACEHOLDER = re.compile(r"(?<![\\$\w{]){[A-Za-z_]\w*}(?!})|%\([A-Za-z_]\w*\)[sdrif]")
_KEYLIKE = re.compile(r"[/_{]")
# Chinese text in ASCII brackets or straight quotes: Chinese typography (GB/T 15834) sets it in
# full-width （） and “”. Tuples "(1, 1)" and the arguments of a function, "max(未裁剪时 4, …)", stay ASCII.
_HAN = "[\u3400-\u9fff\uf900-\ufaff]"
_ASCII_AROUND_HAN = (
    (re.compile(rf"(?<![A-Za-z0-9_)])\([^()\n]*{_HAN}[^()\n]*\)"), "ASCII parentheses", "（…）"),
    (re.compile(rf'"[^"\n]*{_HAN}[^"\n]*"'), "straight double quotes", "“…”"),
)

# UTF-8 byte sequences, searched in text re-encoded with a single-byte code page.
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_MOJIBAKE_CODEPAGES = ("cp1252", "cp1254", "latin-1")


def find_mojibake(text: str) -> str | None:
    """The first fragment of ``text`` that is UTF-8 decoded with a Windows code page, if any.

    Each run of non-ASCII characters is encoded back with cp1252, cp1254 and
    latin-1; a run that then holds a valid multi-byte UTF-8 sequence is
    mojibake. Real Vietnamese or Chinese text never does (a letter such as
    'ê' would need to be followed by two symbols such as '€' or '¦').

    >>> find_mojibake("Ä‘á»™ phÃ¢n ká»³")
    'Ä‘'
    >>> find_mojibake("độ phân kỳ KL, 策略") is None
    True
    """
    for run in re.finditer(r"[^\x00-\x7f]{2,}", text):
        fragment = run.group()
        for codepage in _MOJIBAKE_CODEPAGES:
            data = bytearray()
            owner: list[int] = []
            for index, char in enumerate(fragment):
                try:
                    encoded = char.encode(codepage)
                except UnicodeEncodeError:
                    encoded = b"\x00"
                data += encoded
                owner += [index] * len(encoded)
            match = _UTF8_SEQUENCE.search(bytes(data))
            if match:
                return fragment[owner[match.start()] : owner[match.end() - 1] + 1]
    return None


@dataclass(frozen=True)
class GlossaryTerm:
    en: str  # a regular expression
    forms: dict[str, tuple[str, ...] | None]  # lang -> allowed forms; None: keep the English
    avoid: dict[str, tuple[str, ...]] = field(default_factory=dict)  # lang -> forms never to use

    def pattern(self) -> re.Pattern[str]:
        return _term_pattern(self.en)


@functools.cache
def _term_pattern(en: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-])(?:{en})(?![\w-])", re.IGNORECASE)


# Glossary terms are regular expressions from a contributor. Python's engine
# backtracks, so a pattern like '(a+)+b' can take exponential time on a long
# message: only '?' is allowed as a quantifier, a few times, which bounds the
# work by the pattern's length.
_UNBOUNDED_QUANTIFIER = re.compile(r"(?<!\\)(?:[*+]|\{\d*,?\d*\})")
_MAX_OPTIONAL_PARTS = 6


def _term_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a glossary term, or None."""
    if _UNBOUNDED_QUANTIFIER.search(pattern) or re.search(r"\\\d", pattern):
        return "may use only '?' as a quantifier (no '*', '+', '{n,m}' or back-references)"
    if len(re.findall(r"(?<![(\\])\?", pattern)) > _MAX_OPTIONAL_PARTS:
        return f"has more than {_MAX_OPTIONAL_PARTS} optional parts ('?')"
    try:
        re.compile(pattern)
    except re.error as error:
        return f"is not a valid regular expression ({error})"
    return None


def load_glossary(root: Path) -> list[GlossaryTerm]:
    """Read ``i18n/glossary.yaml``; an absent file is an empty glossary.

    The file is contributor input: it is read with the registry's bounded
    YAML reader, and every problem is an :class:`I18nError` naming its line.
    """
    from metrics_registry.yamlread import READ_ERRORS, read_yaml

    path = i18n_dir(root) / "glossary.yaml"
    if not path.exists():
        return []
    try:
        data, lines = read_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise I18nError(f"{path}: cannot read the file ({error}); save it as UTF-8") from None
    except READ_ERRORS as error:
        mark = getattr(error, "problem_mark", None)
        line = getattr(error, "line", None) or (mark.line + 1 if mark else None)
        where = f"{path}:{line}" if line else str(path)
        raise I18nError(f"{where}: {getattr(error, 'what', None) or error}; write plain YAML") from None
    data = data or {}
    terms_data = data.get("terms", []) if isinstance(data, dict) else None
    if not isinstance(terms_data, list):
        raise I18nError(f"{path}: the glossary must be a mapping with a 'terms' list")
    terms = []
    for index, item in enumerate(terms_data):
        where = f"{path}:{lines.get(('terms', index), '?')}"
        if not isinstance(item, dict) or not isinstance(item.get("en"), str):
            raise I18nError(f"{where}: each term must be a mapping with an 'en' pattern")
        problem = _term_problem(item["en"])
        if problem:
            raise I18nError(f"{where}: the pattern {item['en']!r} {problem}")
        forms: dict[str, tuple[str, ...] | None] = {}
        for lang, value in item.items():
            if lang in ("en", "note", "avoid"):
                continue
            if value == "keep":
                forms[lang] = None
            elif isinstance(value, str):
                forms[lang] = (value,)
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                forms[lang] = tuple(value)
            else:
                raise I18nError(f"{where}: term '{item['en']}': '{lang}' must be 'keep' or a list of forms")
        terms.append(GlossaryTerm(item["en"], forms, _avoided(item.get("avoid"), where, item["en"])))
    return terms


def _avoided(value: object, where: str, en: str) -> dict[str, tuple[str, ...]]:
    """A term's ``avoid`` mapping: the wording a language must not use for it."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(forms, list) and forms and all(isinstance(f, str) and f for f in forms)
        for forms in value.values()
    ):
        raise I18nError(
            f"{where}: term '{en}': 'avoid' must map languages to lists of forms (avoid: {{vi: [x]}})"
        )
    return {str(lang): tuple(forms) for lang, forms in value.items()}


def _split(text: str) -> tuple[list[str], str]:
    """Code spans and fenced blocks of ``text``, and the text without them."""
    codes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        codes.append(match.group(0).strip())
        return " \x00 "

    prose = _FENCE.sub(keep, text)
    prose = _CODE.sub(lambda m: keep(m) if m.group(2).strip() else m.group(0), prose)
    return codes, prose


def _multiset_problem(what: str, source: list[str], target: list[str]) -> str | None:
    missing = Counter(source) - Counter(target)
    extra = Counter(target) - Counter(source)
    if not missing and not extra:
        return None
    parts = []
    if missing:
        parts.append("missing " + ", ".join(repr(s) for s in sorted(missing)))
    if extra:
        parts.append("not in the English " + ", ".join(repr(s) for s in sorted(extra)))
    return f"{what} differ from the English: {'; '.join(parts)}"


@functools.lru_cache(maxsize=4)
def _keylike(keys: frozenset[str]) -> tuple[str, ...]:
    """The keys that cannot be ordinary words ('loss', 'reward' can), sorted: worked out once per set
    of keys, since a catalog's thousands of messages are all checked against the same keys."""
    return tuple(sorted(key for key in keys if _KEYLIKE.search(key)))


@functools.lru_cache(maxsize=256)
def _key_pattern(key: str) -> re.Pattern[str]:
    """A metric key written whole: not inside a longer key, a path or a {placeholder}."""
    return re.compile(rf"(?<![\w/{{.-]){re.escape(key)}(?![\w/}}-])")


def check_message(
    source: str,
    translation: str,
    lang: str,
    *,
    keys: Iterable[str] = (),
    glossary: Iterable[GlossaryTerm] = (),
) -> Iterator[tuple[str, str, str]]:
    """``(rule, message, fix)`` for every problem of one translation."""
    mojibake = find_mojibake(translation)
    if mojibake:
        yield (
            "I18N208",
            f"mojibake {mojibake!r} (UTF-8 read as a Windows code page)",
            "retype the text, or repair it with 'metrics-registry fix-encoding', and save as UTF-8",
        )
    source_code, source_prose = _split(source)
    target_code, target_prose = _split(translation)
    if target_prose.count("`") % 2 or (target_prose.count("`") and not source_prose.count("`")):
        yield (
            "I18N207",
            "unbalanced backticks",
            "close every inline code span with the same number of backticks that opens it",
        )
    problem = _multiset_problem("inline code spans", source_code, target_code)
    if problem:
        yield ("I18N201", problem, "copy code spans from the English unchanged")
    for key in _keylike(keys if isinstance(keys, frozenset) else frozenset(keys)):
        if key not in source_prose and key not in target_prose:
            continue  # the common case, without a regular expression
        pattern = _key_pattern(key)
        wanted, got = len(pattern.findall(source_prose)), len(pattern.findall(target_prose))
        if wanted != got:
            yield (
                "I18N202",
                f"metric key {key!r} appears {wanted} times in the English and {got} in the translation",
                "write metric keys exactly as in the English",
            )
    source_latex, target_latex = _LATEX.findall(source_prose), _LATEX.findall(target_prose)
    problem = _multiset_problem("LaTeX formulas", source_latex, target_latex)
    if problem:
        yield ("I18N204", problem, "copy $...$ formulas from the English unchanged")
    source_plain, target_plain = _LATEX.sub(" ", source), _LATEX.sub(" ", translation)
    problem = _multiset_problem(
        "placeholders", _PLACEHOLDER.findall(source_plain), _PLACEHOLDER.findall(target_plain)
    )
    if problem:
        yield ("I18N203", problem, "keep {placeholders} and %(names)s untranslated")
    problem = _multiset_problem("URLs", _URL.findall(source_prose), _URL.findall(target_prose))
    if problem:
        yield ("I18N205", problem, "copy URLs from the English unchanged")
    problem = _multiset_problem("link targets", _LINK.findall(source_prose), _LINK.findall(target_prose))
    if problem:
        yield ("I18N206", problem, "translate the link text only; keep every (target) as in the English")
    if lang == "zh" or lang.startswith(("zh_", "zh-")):
        for pattern, what, wanted in _ASCII_AROUND_HAN:
            found = pattern.search(target_prose)
            if found:
                yield (
                    "I18N211",
                    f"{what} around Chinese text: {found.group()[:40]!r}",
                    f"write {wanted} (full width) around Chinese text; keep ASCII for formulas and code",
                )
    target_lower = target_prose.lower()
    for term in glossary:
        avoid, has_forms = term.avoid.get(lang, ()), lang in term.forms
        if not (avoid or has_forms) or not term.pattern().search(source_prose):
            continue  # no rule for this language, or the term is not in the English
        avoided = [f for f in avoid if f.lower() in target_lower]
        if avoided:
            yield (
                "I18N209",
                f"the English uses '{term.en}'; the glossary avoids {' / '.join(avoided)} in '{lang}'",
                "use the glossary's term (see its note in i18n/glossary.yaml)",
            )
        if not has_forms:
            continue
        forms = term.forms[lang]
        if forms is None:
            if not term.pattern().search(target_prose):
                yield (
                    "I18N209",
                    f"the glossary keeps '{term.en}' in English in '{lang}', the translation does not",
                    "use the English term (see i18n/glossary.yaml)",
                )
        elif not any(form.lower() in target_lower for form in forms):
            yield (
                "I18N209",
                f"the English uses '{term.en}'; the glossary's term in '{lang}' is {' / '.join(forms)}",
                "use the glossary's term (see i18n/glossary.yaml), or change the glossary",
            )


def _catalog_findings(
    path: Path, catalog: Catalog, lang: str, keys: frozenset[str], glossary: list[GlossaryTerm]
) -> Iterator[Finding]:
    header = path.read_text(encoding="utf-8").split("\n\n", 1)[0]
    if not catalog.locale or '"Language: ' not in header or '"Plural-Forms: ' not in header:
        yield Finding(
            "I18N200",
            path,
            1,
            "the header lacks 'Language' or 'Plural-Forms'",
            "restore the header from another language's catalog or re-create it with 'i18n add-language'",
        )
    for message, errors in catalog.check():
        for error in errors:
            yield Finding(
                "I18N210",
                path,
                message.lineno,
                str(error),
                "make the translation use the same %-placeholders and plural forms as the English",
                key=message.context,
            )
    lines = path.read_text(encoding="utf-8").split("\n")
    for message in catalog:
        if not message.id or message.fuzzy or not _translated(message):
            continue
        sources = message.id if isinstance(message.id, tuple | list) else (message.id,)
        targets = message.string if isinstance(message.string, tuple | list) else (message.string,)
        for target in targets:
            if not target:
                continue
            msgstr = _msgstr_line(lines, message.lineno)
            for problem in find_unsafe_markup(target):
                yield Finding(
                    problem.rule,
                    path,
                    problem_line(lines, msgstr, target, problem),
                    problem.describe(),
                    FIXES[problem.rule],
                    key=message.context,
                )
            for rule, text, fix in check_message(
                sources[-1] if len(targets) > 1 else sources[0], target, lang, keys=keys, glossary=glossary
            ):
                yield Finding(rule, path, message.lineno, text, fix, key=message.context)


def _msgstr_line(lines: list[str], lineno: int | None) -> int | None:
    """The line of the ``msgstr`` that follows line ``lineno`` (Babel's line of the entry)."""
    if lineno is None:
        return None
    for number in range(lineno, len(lines) + 1):
        if lines[number - 1].startswith("msgstr"):
            return number
    return lineno


def _translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return any(strings)


def check_catalogs(root: Path, langs: Iterable[str] | None = None) -> list[Finding]:
    """QA findings of every catalog under ``<root>/i18n`` (no catalogs: no findings)."""
    from metrics_registry.i18n.catalogs import read_catalog

    root = Path(root)
    if not (i18n_dir(root) / "babel.cfg").exists() and not i18n_dir(root).is_dir():
        return []
    glossary = load_glossary(root)
    findings: list[Finding] = []
    for lang in langs or languages(root):
        catalogs: list[tuple[Path, Catalog]] = []
        for domain in DOMAINS:
            path = catalog_path(root, lang, domain)
            if not path.exists():
                continue
            try:
                catalogs.append((path, read_catalog(path)))
            except I18nError as error:
                fix = error.fix or "fix the PO syntax (msgfmt -c shows the line)"
                findings.append(Finding("I18N200", path, error.line, error.problem, fix))
        keys = frozenset(
            key
            for _, catalog in catalogs
            for m in catalog
            if (key := split_context(m.context)[1]) is not None
        )
        for path, catalog in catalogs:
            findings.extend(_catalog_findings(path, catalog, lang, keys, glossary))
    return findings

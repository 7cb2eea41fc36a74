"""Read, write, merge, compile and count the catalogs.

Everything written here is deterministic: no ``POT-Creation-Date`` or
``Generated-By`` header (they change on every run or Babel release), no
obsolete entries, and entries in extraction order, so running ``extract``
or ``update`` twice gives byte-identical files.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from babel.core import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, denormalize, normalize, read_po, write_po

from metrics_registry.fileio import atomic_write, atomic_write_text
from metrics_registry.i18n import DOMAINS, I18nError, catalog_path, locale_of, template_path
from metrics_registry.i18n.extract import extract_catalogs, new_catalog
from metrics_registry.i18n.fields import split_context

__all__ = [
    "Counts",
    "State",
    "add_language",
    "compile_catalogs",
    "message_state",
    "read_catalog",
    "render_po",
    "status",
    "update_catalog",
    "update_catalogs",
    "write_templates",
]

State = Literal["translated", "fuzzy", "missing"]

#: Creation and revision date of a new catalog: fixed, so adding a language is reproducible
#: (translation tools update ``PO-Revision-Date`` when a translator saves).
_EPOCH = datetime(2025, 1, 1, tzinfo=UTC)

_CHURN = re.compile(r'^"(POT-Creation-Date|Generated-By): .*\\n"\n', re.MULTILINE)


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    """Parse a ``.po``/``.pot`` file; a syntax error is an :class:`I18nError` with the line.

    Babel's reader drops the previous English of fuzzy entries (``#| msgid``);
    it is read back here so that rewriting a catalog keeps it.
    """
    try:
        if not Path(path).is_file():
            problem, fix = (
                "not a regular file (a device, a pipe or a folder)",
                "give the path of a .po or .pot file",
            )
            raise I18nError(f"{path}: {problem}; {fix}", problem=problem, fix=fix)
        data = Path(path).read_bytes()
        text = data.decode("utf-8")
        catalog = read_po(io.BytesIO(data), locale=locale, abort_invalid=True)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        problem = f"not UTF-8 (byte 0x{data[error.start]:02x})"
        fix = "save the catalog as UTF-8"
        raise I18nError(f"{path}:{line}: {problem}; {fix}", problem=problem, line=line, fix=fix) from None
    except OSError as error:
        raise I18nError(f"{path}: cannot read the file: {error.strerror or error}") from None
    except PoFileError as error:
        raise I18nError(f"{path}: {error}") from error
    except UnknownLocaleError as error:
        raise I18nError(f"{path}: unknown locale {error}") from error
    except ValueError as error:
        # a header Babel cannot read (Plural-Forms: nplurals=x), or bytes not in the file's charset
        raise I18nError(
            f"{path}: not a valid catalog ({error}); fix the header or the file's encoding"
        ) from error
    for context, msgid, previous in _previous_ids(text):
        message = catalog.get(msgid, context=context)
        if message is not None:
            message.previous_id = [previous]
    return catalog


def _previous_ids(text: str) -> list[tuple[str | None, str, str]]:
    """``(msgctxt, msgid, previous msgid)`` of every entry with a ``#| msgid`` comment."""
    found = []
    for block in text.split("\n\n"):
        if "#| msgid" in block:
            fields = _block_fields(block)
            if "previous msgid" in fields and "msgid" in fields:
                found.append((fields.get("msgctxt"), fields["msgid"], fields["previous msgid"]))
    return found


def render_po(catalog: Catalog, *, include_previous: bool = True) -> str:
    """The catalog as PO text, with ``#| msgid`` for fuzzy entries and no churning headers.

    The previous English is written here rather than by Babel's
    ``include_previous``, which wraps it as free text across lines (not the
    quoted lines that gettext tools and Poedit read).
    """
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=76, ignore_obsolete=True)
    blocks = _CHURN.sub("", buffer.getvalue().decode("utf-8")).split("\n\n")
    if include_previous:
        for index, block in enumerate(blocks):
            context, msgid = _block_ids(block)
            message = catalog.get(msgid, context=context) if msgid else None
            if message is None or not message.previous_id:
                continue
            quoted = normalize(message.previous_id[0], width=76).split("\n")
            previous = [f"#| msgid {quoted[0]}", *(f"#| {line}" for line in quoted[1:])]
            lines = block.split("\n")
            at = next(i for i, line in enumerate(lines) if line.startswith(("msgctxt ", "msgid ")))
            blocks[index] = "\n".join(lines[:at] + previous + lines[at:])
    return "\n\n".join(blocks)


def _block_fields(block: str) -> dict[str, str]:
    """Quoted fields of one PO entry; the previous ones (``#|``) prefixed ``previous ``."""
    fields: dict[str, list[str]] = {}
    current = None
    for raw in block.split("\n"):
        line = raw[3:] if raw.startswith("#| ") else raw
        prefix = "previous " if raw.startswith("#| ") else ""
        if line.startswith('"') and current:
            fields[current].append(line)
            continue
        name, _, rest = line.partition(" ")
        if name in ("msgctxt", "msgid", "msgid_plural") and rest.startswith('"'):
            current = prefix + name
            fields[current] = [rest]
        else:
            current = None
    return {name: denormalize("\n".join(lines)) for name, lines in fields.items()}


def _block_ids(block: str) -> tuple[str | None, str | None]:
    fields = _block_fields(block)
    return fields.get("msgctxt"), fields.get("msgid")


def _write(path: Path, text: str) -> bool:
    """Write ``text`` atomically if it differs; return whether the file changed."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text, backup=False)
    return True


def write_templates(root: Path) -> dict[str, Catalog]:
    """Extract both domains and write ``i18n/<domain>.pot``; return the templates."""
    templates = extract_catalogs(root)
    for domain, template in templates.items():
        _write(template_path(root, domain), render_po(template))
    return templates


def update_catalog(catalog: Catalog, template: Catalog) -> list[str]:
    """Merge ``template`` into ``catalog`` in place; return the contexts that became fuzzy.

    An entry whose English changed (same ``msgctxt``, new ``msgid``) keeps
    its translation, is flagged ``fuzzy`` and remembers the previous English
    (written as ``#| msgid``). A new entry is left untranslated: Babel's
    similarity matching, which guesses translations from other entries, is
    never used.
    """
    by_context = {m.context: m for m in catalog if m.id and m.context}
    # Babel adds new template messages by reference: copy, so languages never share one.
    template = copy.deepcopy(template)
    catalog.update(template, no_fuzzy_matching=True, update_header_comment=False, update_creation_date=False)
    became_fuzzy = []
    for message in catalog:
        if not message.id or message.string or not message.context:
            continue
        old = by_context.get(message.context)
        if old is None or old.id == message.id or not old.string:
            continue
        message.string = old.string
        message.flags.add("fuzzy")
        message.previous_id = list(old.id) if isinstance(old.id, tuple | list) else [old.id]
        message.user_comments = list(old.user_comments)
        became_fuzzy.append(message.context)
    catalog.obsolete.clear()
    return became_fuzzy


def _languages_or_all(root: Path, langs: Iterable[str] | None) -> list[str]:
    from metrics_registry.i18n import languages

    found = languages(root)
    chosen = list(langs) if langs else found
    unknown = [lang for lang in chosen if lang not in found]
    if unknown:
        raise I18nError(
            f"no catalogs for {', '.join(unknown)} (have: {', '.join(found) or 'none'}); "
            "run 'metrics-registry i18n add-language LANG'"
        )
    return chosen


def update_catalogs(root: Path, langs: Iterable[str] | None = None) -> dict[str, dict[str, list[str]]]:
    """Extract, write the templates and merge them into every catalog.

    Returns ``{lang: {domain: [contexts that became fuzzy]}}``.
    """
    templates = write_templates(root)
    report: dict[str, dict[str, list[str]]] = {}
    for lang in _languages_or_all(root, langs):
        report[lang] = {}
        for domain in DOMAINS:
            path = catalog_path(root, lang, domain)
            catalog = read_catalog(path) if path.exists() else _new_language_catalog(lang, domain)
            report[lang][domain] = update_catalog(catalog, templates[domain])
            _write(path, render_po(catalog))
    return report


def _new_language_catalog(lang: str, domain: str, locale: str | None = None) -> Catalog:
    catalog = new_catalog(domain, locale or locale_of(lang))
    catalog.fuzzy = False
    catalog.last_translator = "metrics-registry contributors"
    catalog.language_team = f"{Locale.parse(catalog.locale).get_display_name('en')} ({lang})"
    catalog.revision_date = catalog.creation_date = _EPOCH
    return catalog


def add_language(root: Path, lang: str, locale: str | None = None) -> list[Path]:
    """Create empty catalogs of both domains for ``lang`` from the current templates."""
    if not re.fullmatch(r"[a-z]{2,3}(-[A-Za-z0-9]+)*", lang):
        raise I18nError(f"'{lang}' is not a language code such as 'vi', 'zh' or 'pt-br'")
    locale = locale or locale_of(lang)
    try:
        Locale.parse(locale)
    except (UnknownLocaleError, ValueError) as error:
        raise I18nError(f"Babel does not know the locale '{locale}'; pass --locale (e.g. zh_Hans)") from error
    paths = [catalog_path(root, lang, domain) for domain in DOMAINS]
    existing = [p for p in paths if p.exists()]
    if existing:
        raise I18nError(f"{existing[0]} already exists; use 'metrics-registry i18n update'")
    templates = write_templates(root)
    for domain, path in zip(DOMAINS, paths, strict=True):
        catalog = _new_language_catalog(lang, domain, locale)
        catalog.update(copy.deepcopy(templates[domain]), no_fuzzy_matching=True, update_creation_date=False)
        _write(path, render_po(catalog))
    return paths


def compile_catalogs(root: Path, langs: Iterable[str] | None = None) -> list[Path]:
    """Write ``<domain>.mo`` next to every ``.po`` (fuzzy entries left out)."""
    written = []
    for lang in _languages_or_all(root, langs):
        for domain in DOMAINS:
            po = catalog_path(root, lang, domain)
            if not po.exists():
                continue
            catalog = read_catalog(po)
            buffer = io.BytesIO()
            write_mo(buffer, catalog, use_fuzzy=False)
            mo = po.with_suffix(".mo")
            atomic_write(mo, buffer.getvalue())
            written.append(mo)
    return written


def message_state(catalog: Catalog | None, msgid: str, context: str | None) -> tuple[State, str | None]:
    """How ``msgid`` in ``context`` stands in ``catalog``, and the translation if any.

    ``fuzzy`` covers both entries flagged fuzzy and entries whose English
    changed since they were translated (the catalog not updated yet): in
    both cases the stored translation is of other English. Fuzzy never
    counts as translated.
    """
    if catalog is None:
        return "missing", None
    message = catalog.get(msgid, context=context)
    if message is not None:
        if not _has_text(message.string):  # plural entries hold one string per form
            return "missing", None
        return ("fuzzy" if message.fuzzy else "translated"), message.string
    if context:
        for other in _context_index(catalog).get(context, []):
            if _has_text(other.string):
                return "fuzzy", other.string
    return "missing", None


def _has_text(string: object) -> bool:
    if isinstance(string, tuple | list):
        return bool(string) and all(string)
    return bool(string)


def _context_index(catalog: Catalog) -> dict[str, list[Message]]:
    index = getattr(catalog, "_mr_context_index", None)
    if index is None:
        index = {}
        for message in catalog:
            if message.id and message.context:
                index.setdefault(message.context, []).append(message)
        catalog._mr_context_index = index  # type: ignore[attr-defined]
    return index


@dataclass
class Counts:
    translated: int = 0
    fuzzy: int = 0
    missing: int = 0
    fuzzy_contexts: list[str] = field(default_factory=list)
    missing_contexts: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.translated + self.fuzzy + self.missing

    @property
    def percent(self) -> float:
        return 100.0 if self.total == 0 else 100.0 * self.translated / self.total

    def add(self, other: Counts) -> None:
        self.translated += other.translated
        self.fuzzy += other.fuzzy
        self.missing += other.missing
        self.fuzzy_contexts += other.fuzzy_contexts
        self.missing_contexts += other.missing_contexts

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data.update(total=self.total, percent=round(self.percent, 2))
        return data


def status(
    root: Path, langs: Iterable[str] | None = None, templates: dict[str, Catalog] | None = None
) -> dict[str, dict[str, Counts]]:
    """``{lang: {group: Counts}}`` against the current English (freshly extracted).

    Groups are the registry families (``grpo``, ``ppo``...), ``ui``, and
    ``pages``: the hand-written pages of ``docs/<lang>/``, where a page whose
    English changed since its recorded revision counts as fuzzy.
    """
    templates = templates or extract_catalogs(root)
    result: dict[str, dict[str, Counts]] = {}
    for lang in _languages_or_all(root, langs):
        groups: dict[str, Counts] = {}
        for domain in DOMAINS:
            path = catalog_path(root, lang, domain)
            catalog = read_catalog(path) if path.exists() else None
            for message in templates[domain]:
                if not message.id:
                    continue
                group = split_context(message.context)[0] if domain == "registry" else "ui"
                counts = groups.setdefault(group, Counts())
                state, _ = message_state(catalog, message.id, message.context)
                label = message.context or message.id
                if state == "translated":
                    counts.translated += 1
                elif state == "fuzzy":
                    counts.fuzzy += 1
                    counts.fuzzy_contexts.append(label)
                else:
                    counts.missing += 1
                    counts.missing_contexts.append(label)
        pages = _page_counts(root, lang)
        if pages.total:
            groups["pages"] = pages
        result[lang] = dict(sorted(groups.items()))
    return result


def _page_counts(root: Path, lang: str) -> Counts:
    """The hand-written pages of ``docs/<lang>/`` as one more group (outdated counts as fuzzy)."""
    from metrics_registry.i18n.pages import page_states, source_language_dir

    counts = Counts()
    if not source_language_dir(root).is_dir():
        return counts
    for page in page_states(root, lang):
        label = f"docs/{lang}/{page.page}"
        if page.state == "translated":
            counts.translated += 1
        elif page.state == "fuzzy":
            counts.fuzzy += 1
            counts.fuzzy_contexts.append(label)
        else:
            counts.missing += 1
            counts.missing_contexts.append(label)
    return counts

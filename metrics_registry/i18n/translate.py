"""Apply a language's catalogs to the registry, for the site generator.

Every translatable field comes back as a :class:`Text`: the translation
when the catalog has a current one, otherwise the English with the reason
(``missing``: never translated; ``fuzzy``: translated from English that has
changed since). The page shows fallbacks with a notice, never silently.

The ``.po`` files are read when present (they know which entries are
fuzzy); a language shipped with compiled ``.mo`` files only is read from
those (where fuzzy entries were left out, so they count as missing).
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from metrics_registry.concepts import Concept
from metrics_registry.i18n import I18nError, catalog_path
from metrics_registry.i18n.fields import (
    TextField,
    concept_context,
    concept_texts,
    family_context,
    family_texts,
    metric_context,
    metric_texts,
)
from metrics_registry.models import FamilyInfo
from metrics_registry.registry import Entry, Registry

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

# Babel (the 'i18n' extra) is imported where a catalog is read: English needs none, and the
# core install stays without it (pyproject.toml).

#: What has translatable fields: a metric entry, a family header, a concept.
Owner = Entry | FamilyInfo | Concept

__all__ = [
    "Owner",
    "Status",
    "Text",
    "Translator",
    "UiTranslations",
    "load_catalog",
    "owner_fields",
    "translate_registry",
]

Status = Literal["source", "translated", "fuzzy", "missing"]
Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Text:
    """A field's text in the target language, or its English and why."""

    text: str
    status: Status
    english: str

    @property
    def fallback(self) -> bool:
        return self.status in ("fuzzy", "missing")


#: Larger catalogs are parsed every time rather than kept in the user cache.
_CACHED_CATALOG_BYTES = 64 * 1024 * 1024


@functools.lru_cache(maxsize=16)
def _read_po(path: Path, size: int, mtime_ns: int) -> Catalog:
    """A ``.po`` catalog, parsed once per version of the file in this process (a build reads each
    language's catalogs for its pages and again for the exported registry). Callers only read it.

    Kept in the user cache too (unpickling a catalog costs a third of parsing it: Babel's
    reader is pure Python), by the file's content (the cache's key covers the installed Babel)."""
    from metrics_registry.cache import cache_key, memo
    from metrics_registry.i18n.catalogs import read_catalog

    key = cache_key([path], _CACHED_CATALOG_BYTES, purpose="po catalog")
    return memo(key, lambda: read_catalog(path))


def load_catalog(root: Path, lang: str, domain: str) -> Catalog | None:
    """The ``.po`` catalog of ``lang``, else its ``.mo``, else ``None`` (shared: do not change it)."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import read_mo

    po = catalog_path(root, lang, domain)
    if po.exists():
        status = po.stat()
        return _read_po(po.resolve(), status.st_size, status.st_mtime_ns)
    mo = po.with_suffix(".mo")
    if mo.exists():
        try:
            with mo.open("rb") as handle:
                compiled = read_mo(handle)
        except (OSError, ValueError, struct.error) as error:  # not a .mo file, or a cut one
            raise I18nError(
                f"{mo}: not a compiled catalog ({error}); compile it again from the .po"
            ) from error
        # Babel's read_mo leaves msgctxt as bytes: rebuild with text contexts.
        catalog = Catalog(locale=compiled.locale, domain=domain)
        for message in compiled:
            if message.id:
                context = message.context
                if isinstance(context, bytes):
                    context = context.decode("utf-8")
                catalog.add(message.id, message.string, context=context)
        return catalog
    return None


def _dump(owner: Owner) -> dict[str, Any]:
    model = owner.metric if isinstance(owner, Entry) else owner
    return model.model_dump(mode="json")


def owner_fields(owner: Owner) -> dict[Loc, tuple[TextField, str]]:
    """Every translatable field of ``owner`` by location, with its message context."""
    data = _dump(owner)
    if isinstance(owner, Entry):
        return {f.loc: (f, metric_context(owner.family.id, owner.key, f.path)) for f in metric_texts(data)}
    if isinstance(owner, Concept):
        return {f.loc: (f, concept_context(owner.id, f.path)) for f in concept_texts(data)}
    return {f.loc: (f, family_context(owner.id, f.path)) for f in family_texts(data)}


class Translator:
    """Registry texts of one language (``lang=None``: English, nothing to translate)."""

    def __init__(self, lang: str | None, catalog: Catalog | None) -> None:
        self.lang = lang
        self.catalog = catalog
        self._cache: dict[int, dict[Loc, Text]] = {}

    def _text(self, item: TextField, context: str) -> Text:
        if self.lang is None:
            return Text(item.text, "source", item.text)
        from metrics_registry.i18n.catalogs import message_state

        state, string = message_state(self.catalog, item.text, context)
        if state == "translated" and string:
            return Text(string, "translated", item.text)
        return Text(item.text, state, item.text)

    def texts(self, owner: Owner) -> dict[Loc, Text]:
        """Every translatable field of a metric entry, a family or a concept, by location."""
        cached = self._cache.get(id(owner))
        if cached is None:
            cached = {loc: self._text(f, context) for loc, (f, context) in owner_fields(owner).items()}
            self._cache[id(owner)] = cached
        return cached

    def text(self, owner: Owner, *loc: str | int) -> str:
        found = self.texts(owner).get(tuple(loc))
        return found.text if found else ""

    def statuses(self, owner: Owner) -> set[Status]:
        return {t.status for t in self.texts(owner).values()}


@dataclass
class UiTranslations:
    """``gettext``/``ngettext`` over the ``ui`` catalog that remember every fallback."""

    lang: str | None = None
    catalog: Catalog | None = None
    fallbacks: dict[str, Status] = field(default_factory=dict)
    #: Each message's translation, or ``None`` and why: a site's pages ask for the same labels
    #: over a hundred thousand times.
    _looked_up: dict[str, tuple[str | None, Status]] = field(default_factory=dict, repr=False, compare=False)

    def gettext(self, message: str) -> str:
        if self.lang is None:
            return message
        found = self._looked_up.get(message)
        if found is None:
            from metrics_registry.i18n.catalogs import message_state

            state, string = message_state(self.catalog, message, None)
            if state == "translated" and string:
                found = (string if isinstance(string, str) else string[0], state)
            else:
                found = (None, state)
            self._looked_up[message] = found
        translation, state = found
        if translation is not None:
            return translation
        self.fallbacks[message] = state
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        if self.lang is not None and self.catalog is not None:
            message = self.catalog.get(singular)
            if message is not None and not message.fuzzy and isinstance(message.string, tuple | list):
                index = self.catalog.plural_func(n) if hasattr(self.catalog, "plural_func") else 0
                chosen = message.string[min(index, len(message.string) - 1)]
                if chosen:
                    return chosen
            self.fallbacks[singular] = "missing"
        return singular if n == 1 else plural


def translate_registry(registry: Registry, lang: str, root: Path) -> dict[str, dict[str, Text]]:
    """``{"<family>:<key>", "<family>" or "concept:<id>": {field path: Text}}`` for the whole registry."""
    translator = Translator(lang, load_catalog(root, lang, "registry"))
    out: dict[str, dict[str, Text]] = {}
    for family_id, family in registry.families.items():
        paths = {f.loc: f.path for f in family_texts(_dump(family))}
        out[family_id] = {paths[loc]: text for loc, text in translator.texts(family).items()}
    for entry in registry:
        paths = {f.loc: f.path for f in metric_texts(_dump(entry))}
        out[entry.id] = {paths[loc]: text for loc, text in translator.texts(entry).items()}
    for concept in registry.concepts.values():
        paths = {f.loc: f.path for f in concept_texts(_dump(concept))}
        out[concept_context(concept.id, "").rstrip("|")] = {
            paths[loc]: text for loc, text in translator.texts(concept).items()
        }
    return out

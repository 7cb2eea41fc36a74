"""The vi/zh translations of every translatable field, for the JSON export.

Read from the same catalogs as the site (`metrics_registry.i18n.translate`),
but reported differently: the site shows English with a notice where a
translation is missing or outdated; the export never puts English where a
translation belongs. Each field says its status, and only a current
translation fills `text`:

- `translated`: `text` is the translation of the current English;
- `fuzzy`: `text` is null, `outdated` holds the translation of an
  earlier English text (to be reviewed);
- `missing`: `text` is null.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from metrics_registry.i18n import LANGUAGES, catalog_path
from metrics_registry.i18n.translate import Owner, load_catalog, owner_fields
from metrics_registry.models import _Model
from metrics_registry.registry import Registry

__all__ = ["TranslatedText", "Translations", "available_languages", "registry_translations"]


class TranslatedText(_Model):
    """One field in one language."""

    status: Literal["translated", "fuzzy", "missing"] = Field(
        description="'translated': current; 'fuzzy': translated from English that has changed since; "
        "'missing': never translated."
    )
    text: str | None = Field(description="The translation when 'translated', else null (never the English).")
    outdated: str | None = Field(
        default=None, description="With 'fuzzy': the translation of the earlier English, to be reviewed."
    )


#: language -> field path (as in the catalogs' msgctxt, e.g. ``healthy[non-negative].suggests``) -> text
Translations = dict[str, dict[str, TranslatedText]]


def available_languages(root: Path | None) -> list[str]:
    """The languages with a `registry` catalog under `root/i18n` (known languages first)."""
    if root is None:
        return []
    found = [lang for lang in LANGUAGES if catalog_path(root, lang, "registry").exists()]
    base = root / "i18n"
    others = sorted(
        p.name
        for p in base.iterdir()
        if p.is_dir() and p.name not in LANGUAGES and catalog_path(root, p.name, "registry").exists()
    )
    return found + others


def _field(catalog: object, english: str, context: str) -> TranslatedText:
    from metrics_registry.i18n.catalogs import message_state  # Babel, read only when catalogs are

    state, string = message_state(catalog, english, context)  # type: ignore[arg-type]
    if isinstance(string, tuple | list):  # plural entries do not occur in the registry domain
        string = string[0]
    if state == "translated" and string:
        return TranslatedText(status="translated", text=string)
    if state == "fuzzy" and string:
        return TranslatedText(status="fuzzy", text=None, outdated=string)
    return TranslatedText(status="missing", text=None)


def registry_translations(registry: Registry, root: Path | None) -> dict[str, Translations]:
    """`{"<family>", "<family>:<key>" or "concept:<id>": {lang: {field path: TranslatedText}}}`."""
    out: dict[str, Translations] = {}
    for lang in available_languages(root):
        assert root is not None
        catalog = load_catalog(root, lang, "registry")
        owners: list[tuple[str, Owner]] = [*registry.families.items()]
        owners += [(entry.id, entry) for entry in registry]
        owners += [(f"concept:{concept.id}", concept) for concept in registry.concepts.values()]
        for owner_id, owner in owners:
            fields = {f.path: _field(catalog, f.text, context) for f, context in owner_fields(owner).values()}
            out.setdefault(owner_id, {})[lang] = fields
    return out

"""The word counts of the field's Chinese that the encoding repair ships, drawn from this project.

:mod:`metrics_registry.encoding.domain` mixes them into its second pass; they
come from the Chinese catalogs' translations (fuzzy ones left out) and the
hand-written Chinese pages under ``docs/zh`` (but :data:`NOT_FIELD_PROSE`). ``metrics-registry i18n
domain-model`` writes them again; ``--check`` (and a test) says when the
translations have moved on since.
"""

from __future__ import annotations

from pathlib import Path

from metrics_registry.encoding.domain import BUNDLED, DomainModel, counts_bytes, counts_text
from metrics_registry.fileio import atomic_write
from metrics_registry.i18n import DOMAINS, catalog_path
from metrics_registry.i18n.catalogs import read_catalog

__all__ = ["LANGUAGE", "NOT_FIELD_PROSE", "field_counts", "field_texts", "write_field_counts"]

#: The language of the counts: the word model of the repair is one of Simplified Chinese.
LANGUAGE = "zh"
#: Pages (under ``docs/<lang>/``) that are not the field's prose: the encoding page quotes the wrong
#: readings the repair must avoid (位于 for 低于, 来 for 步) and words it does not know, as examples.
NOT_FIELD_PROSE = frozenset({"tools/repairing-encoding.md"})


def field_texts(root: Path) -> list[str]:
    """The Chinese prose of the project: translated messages, then pages, in a stable order."""
    texts: list[str] = []
    for domain in DOMAINS:
        path = catalog_path(root, LANGUAGE, domain)
        if not path.is_file():
            continue
        for message in read_catalog(path):
            if not message.id or message.fuzzy:
                continue
            strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
            texts.extend(s for s in strings if s)
    pages = Path(root) / "docs" / LANGUAGE
    texts.extend(
        page.read_text(encoding="utf-8")
        for page in sorted(pages.rglob("*.md"))
        if page.relative_to(pages).as_posix() not in NOT_FIELD_PROSE
    )
    return texts


def field_counts(root: Path) -> DomainModel:
    return DomainModel.from_texts(field_texts(root))


def write_field_counts(root: Path, target: Path = BUNDLED) -> tuple[Path, bool]:
    """Write the counts to ``target`` atomically; return it and whether it changed."""
    text = field_counts(root).to_json()
    if target.is_file() and counts_text(target) == text:
        return target, False
    atomic_write(target, counts_bytes(target, text), backup=False)
    return target, True

"""Hand-written pages: which English revision each translation follows.

A translated page ``docs/<lang>/<path>.md`` records in its front matter the
revision of ``docs/en/<path>.md`` it translates::

    ---
    source_revision: 3b18e512dba79e4c8300dd08aeb37f8e728b8dad
    ---

The revision is the Git blob id of the English file (what ``git hash-object
docs/en/<path>.md`` prints). It is computed from the content, so the check
needs no Git history, and a translator can still see what changed with
``git diff <revision> HEAD:docs/en/<path>.md`` (or ``i18n pages --diff``).
``metrics-registry i18n stamp docs/<lang>/<path>.md`` writes the current one
after the translation is brought up to date.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from metrics_registry.fileio import atomic_write_text
from metrics_registry.i18n import I18nError

__all__ = [
    "PageState",
    "english_pages",
    "page_states",
    "read_revision",
    "revision_of",
    "source_language_dir",
    "stamp",
]

SOURCE_LANGUAGE = "en"
REVISION_KEY = "source_revision"
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*\n", re.DOTALL)
#: Folders of docs/ that are not a language (theme overrides, shared assets).
_NOT_LANGUAGES = {"assets", "overrides"}

State = Literal["translated", "fuzzy", "missing"]


@dataclass(frozen=True)
class PageState:
    """One hand-written page in one language."""

    page: str  # path below docs/<lang>/, POSIX
    state: State
    source: Path
    translation: Path | None
    recorded: str | None  # revision in the translation's front matter
    current: str  # revision of the English page now


def source_language_dir(root: Path) -> Path:
    return Path(root) / "docs" / SOURCE_LANGUAGE


def revision_of(path: Path) -> str:
    """The Git blob id of a file (``git hash-object``), computed without Git."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _front_matter(text: str, path: Path) -> dict:
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}
    try:
        data = YAML(typ="safe").load(match.group(1))
    except YAMLError as error:
        raise I18nError(f"{path}: front matter is not valid YAML ({error}); fix it or remove it") from None
    return data if isinstance(data, dict) else {}


def read_revision(path: Path) -> str | None:
    """The ``source_revision`` a translated page records, if any."""
    value = _front_matter(path.read_text(encoding="utf-8"), path).get(REVISION_KEY)
    return str(value) if value else None


def english_pages(root: Path) -> list[str]:
    """Hand-written English pages, as paths below ``docs/en/``."""
    base = source_language_dir(root)
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*.md"))


def page_states(root: Path, lang: str) -> list[PageState]:
    """Each English page's state in ``lang``: translated, fuzzy (outdated) or missing."""
    root = Path(root)
    states = []
    for page in english_pages(root):
        source = source_language_dir(root) / page
        current = revision_of(source)
        translation = root / "docs" / lang / page
        if not translation.exists():
            states.append(PageState(page, "missing", source, None, None, current))
            continue
        recorded = read_revision(translation)
        state: State = "translated" if recorded == current else "fuzzy"
        states.append(PageState(page, state, source, translation, recorded, current))
    return states


def stamp(translation: Path, root: Path) -> str:
    """Record in ``translation`` the current revision of its English page; return it.

    The rest of the file is kept byte for byte; the previous version stays
    recoverable as ``<file>.bak``.
    """
    translation = Path(translation).resolve()
    root = Path(root).resolve()
    try:
        lang, *rest = translation.relative_to(root / "docs").parts
    except ValueError:
        raise I18nError(f"{translation}: not under {root / 'docs'}; give a page in docs/<lang>/") from None
    if lang == SOURCE_LANGUAGE or lang in _NOT_LANGUAGES or not rest:
        raise I18nError(f"{translation}: give a translated page in docs/<lang>/, not in docs/{lang}/")
    source = source_language_dir(root).joinpath(*rest)
    if not source.exists():
        raise I18nError(
            f"{translation}: no English page {source.relative_to(root)}; "
            "a translation must have the same path as the page it translates"
        )
    revision = revision_of(source)
    text = translation.read_text(encoding="utf-8")
    match = _FRONT_MATTER.match(text)
    line = f"{REVISION_KEY}: {revision}\n"
    if match is None:
        new = f"---\n{line}---\n\n{text}"
    else:
        body = match.group(1)
        pattern = re.compile(rf"^{REVISION_KEY}:.*\n", re.MULTILINE)
        body = pattern.sub(line, body) if pattern.search(body) else body + line
        new = f"---\n{body}---\n{text[match.end() :]}"
    if new != text:
        atomic_write_text(translation, new, backup=True)
    return revision

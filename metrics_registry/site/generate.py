"""Write the Markdown sources of the site from the registry.

Pages are generated before MkDocs runs (not inside a plugin): generated
files stay visible for debugging, and the same sources build with Zensical
later (see docs/en/contributing/site.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import Template

from metrics_registry.i18n.pages import english_pages, page_states
from metrics_registry.links import family_markdown, metric_markdown, metric_slug
from metrics_registry.registry import Entry, Registry
from metrics_registry.site.concept_pages import write_concept_pages
from metrics_registry.site.environment import API_PAGE, environment, front_matter, help_link, identity
from metrics_registry.site.headings import align_heading_ids, with_heading_ids
from metrics_registry.site.lists import python_markdown_lists
from metrics_registry.site.notes import find_notes, shift_headings
from metrics_registry.site.sanitize import markdown_text

if TYPE_CHECKING:
    from metrics_registry.i18n.translate import UiTranslations

__all__ = ["GeneratedPages", "front_matter", "generate_pages"]

#: Pages generated at the top of every language's docs folder.
GENERATED_PAGES = ("metrics.md", "reading-a-run.md", "legacy-names.md")


class GeneratedPages(list[Path]):
    """The pages written for one language, and which of them are hand-written.

    ``trusted`` (paths below the language folder) are the hand-written pages
    no generated page replaced; the build cleans every other page
    (:mod:`metrics_registry.site.hooks`).
    """

    trusted: frozenset[str] = frozenset()


def _tidy(markdown: str) -> str:
    """Collapse the blank lines the template leaves between blocks.

    The template errs on the side of blank lines (a missing one glues a
    heading onto a table); this keeps exactly one between blocks, outside
    fenced code.
    """
    out: list[str] = []
    fenced = False
    blank = 0
    for line in markdown.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and not line.strip():
            blank += 1
            if blank > 1:
                continue
        else:
            blank = 0
        out.append(line)
    return "\n".join(out).strip("\n") + "\n"


def _insert_after_title(markdown: str, block: list[str]) -> str:
    """Insert Markdown lines after the page's first ``# `` heading (after front matter)."""
    lines = markdown.split("\n")
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and line.startswith("# "):
            lines[index + 1 : index + 1] = ["", *block, ""]
            return "\n".join(lines)
    return "\n".join([*block, "", *lines])


def _ui_notice(markdown: str, ui: UiTranslations | None, page: str) -> str:
    """Add a notice under the first heading when UI strings of the page fell back to English."""
    if ui is None or not ui.fallbacks:
        return markdown
    text = ui.gettext("Some labels on this page are not translated yet and are shown in English.")
    link = ui.gettext("Help translate")
    ui.fallbacks.clear()
    return _insert_after_title(markdown, [f'!!! info "{text}"', "", f"    [{link}]({help_link(page)})"])


def _page_notice(state: str, gettext: Callable[[str], str], page: str) -> list[str]:
    """The notice of a hand-written page shown in English (missing) or translated from old English.

    The page is trusted and not cleaned by the build, so the UI strings
    (from a catalog, not trusted) go in as plain text.
    """
    gettext = _plain(gettext)
    if state == "missing":
        title = gettext("Not translated yet")
        text = gettext("This page is not translated yet; it is shown in English.")
    else:
        title = gettext("Translation outdated")
        text = gettext(
            "The English page has changed since this translation was made; "
            "some of it may be out of date until the translation is updated."
        )
    link = gettext("Help translate")
    return [f'!!! warning "{title}"', "", f"    {text} [{link}]({help_link(page)})"]


def _api_notice(gettext: Callable[[str], str], page: str) -> list[str]:
    """The notice of the API page in another language: its reference comes from English docstrings.

    The page is trusted and not cleaned by the build: the UI strings go in as plain text.
    """
    gettext = _plain(gettext)
    title = gettext("In English")
    text = gettext(
        "The reference below is generated from the docstrings of the Python package, "
        "which are written in English only."
    )
    return [f'!!! info "{title}"', "", f"    {text}"]


def _plain(gettext: Callable[[str], str]) -> Callable[[str], str]:
    """``gettext`` whose translations are plain text in Markdown (no HTML, link or code span)."""
    return lambda message: markdown_text(gettext(message))


def _handwritten_pages(root: Path, out: Path, lang: str, gettext: Callable[[str], str]) -> list[Path]:
    """Every English hand-written page, in ``lang`` where translated, else English with a notice.

    Every language thus has the same pages, which the language switcher and
    the hreflang alternates rely on, and the same heading ids (those of the
    English page, see :mod:`metrics_registry.site.headings`).
    """
    english = root / "docs" / "en"
    shutil.copytree(english, out, ignore=shutil.ignore_patterns("*.bak", "*.tmp"), dirs_exist_ok=True)
    pages = english_pages(root)
    sources = {page: (english / page).read_text(encoding="utf-8") for page in pages}
    texts = {page: with_heading_ids(text) for page, text in sources.items()}
    if lang != "en":
        for state in page_states(root, lang):
            text = texts[state.page]
            if state.translation is not None:
                text, _ = align_heading_ids(
                    state.translation.read_text(encoding="utf-8"), sources[state.page]
                )
            if state.state != "translated":
                text = _insert_after_title(text, _page_notice(state.state, gettext, state.page))
            texts[state.page] = text
        if API_PAGE in texts:
            texts[API_PAGE] = _insert_after_title(texts[API_PAGE], _api_notice(gettext, API_PAGE))
    for page, text in texts.items():
        (out / page).write_text(text, encoding="utf-8")
    return [out / page for page in pages]


def generate_pages(registry: Registry, root: Path, out: Path, *, lang: str = "en") -> GeneratedPages:
    """Write the Markdown of one language into ``out``; return the pages written.

    ``root`` is the project folder (``docs/``, ``i18n/``). Assets are not
    copied here (see :mod:`metrics_registry.site.assets`).
    The hand-written pages come from ``docs/<lang>/`` (English with a notice
    where a translation is missing or outdated), the others are generated
    from the registry. Registry texts and UI strings come from the
    language's catalogs; whatever is missing or outdated is written in
    English under a visible notice linking to the contributor guide.
    """
    root = Path(root)
    translator = ui = None
    if lang != "en":
        from metrics_registry.i18n.translate import Translator, UiTranslations, load_catalog

        translator = Translator(lang, load_catalog(root, lang, "registry"))
        ui = UiTranslations(lang, load_catalog(root, lang, "ui"))
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    gettext: Callable[[str], str] = ui.gettext if ui is not None else identity
    written = GeneratedPages(_handwritten_pages(root, out, lang, gettext))
    trusted = {path.relative_to(out).as_posix() for path in written}
    if ui is not None:
        ui.fallbacks.clear()  # the hand-written pages carry their own notice
    here: dict[str, str] = {}
    env = environment(registry, translator, ui, here)

    templates: dict[str, Template] = {}  # get_template checks the file's time on every call
    folders: set[Path] = set()

    def render(template: str, page: str, **context: object) -> None:
        here["page"] = page
        if template not in templates:
            templates[template] = env.get_template(template)
        text = templates[template].render(**context)
        path = out / page
        if path.parent not in folders:  # one mkdir per folder, not per page
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        path.write_text(_tidy(_ui_notice(text, ui, page)), encoding="utf-8")
        written.append(path)
        trusted.discard(page)

    for family_id, family in registry.families.items():
        entries = sorted(registry.in_family(family_id), key=lambda e: e.key)
        render(
            "family.md.j2",
            family_markdown(family_id),
            family=family,
            entries=entries,
            source_name=entries[0].path.name,
            # old links to a metric's section, #<anchor>, open its page (docs/overrides/main.html)
            metric_pages={entry.anchor: f"{metric_slug(entry)}/" for entry in entries if entry.anchor},
        )
        for index, entry in enumerate(entries):
            render(
                "metric.md.j2",
                metric_markdown(entry),
                family=family,
                entry=entry,
                m=entry.metric,
                previous=entries[index - 1] if index > 0 else None,
                following=entries[index + 1] if index + 1 < len(entries) else None,
            )
    write_concept_pages(registry, out, render, lambda family: env.globals["tx"](family, "title"))
    render(
        "index-of-metrics.md.j2",
        "metrics.md",
        entries=sorted(registry, key=lambda e: (e.key, e.family.id)),
        families=registry.families,
    )
    render("reading-a-run.md.j2", "reading-a-run.md", families=registry.families)
    renamed, retired, aliases = _name_map(registry)
    render("legacy-names.md.j2", "legacy-names.md", renamed=renamed, retired=retired, aliases=aliases)
    for notes in find_notes(root):
        if notes.family not in registry.families:
            continue
        body, translated = notes.text(lang)
        # the English notes give every language its heading ids; the page's own take the rest
        reserved = (f"{notes.family}-source-notes", "reconstructed")
        body, _ = align_heading_ids(python_markdown_lists(body.strip("\n")), notes.text("en")[0], reserved)
        page = f"notes/{notes.family}.md"
        render(
            "notes.md.j2",
            page,
            family=registry.families[notes.family],
            notes=notes,
            lang=lang,
            body=shift_headings(body),
            translated=translated,
            help_link=help_link(page),
        )
    written.trusted = frozenset(trusted)
    return written


def _name_map(registry: Registry) -> tuple[list[tuple[Entry, Entry]], list[Entry], list[tuple[str, Entry]]]:
    """(old, new) pairs from ``replaced_by``, retired keys without successor, and aliases."""
    renamed: list[tuple[Entry, Entry]] = []
    retired: list[Entry] = []
    for entry in sorted(registry, key=lambda e: (e.family.id, e.key)):
        successors = [registry.resolve(ref, entry.family.id) for ref in entry.metric.replaced_by]
        found = [s for s in successors if s is not None]
        renamed += [(entry, successor) for successor in found]
        if not found and entry.versions.removed:
            retired.append(entry)
    aliases = sorted(
        ((alias, entry) for entry in registry for alias in entry.metric.aliases),
        key=lambda pair: (pair[0], pair[1].key),
    )
    return renamed, retired, aliases

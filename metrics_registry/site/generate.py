"""Write the Markdown sources of the site from the registry.

Pages are generated before MkDocs runs (not inside a plugin): generated
files stay visible for debugging, and the same sources build with Zensical
later (see docs/en/contributing/site.md).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import yaml
from jinja2 import Environment, PackageLoader, StrictUndefined

from metrics_registry.concepts import lineage
from metrics_registry.describe import (
    describe_across_processes,
    describe_category,
    describe_issue_effect,
    describe_reduce,
    describe_reduction_level,
    describe_reduction_op,
    describe_rule,
    describe_rule_conditions,
    describe_unit,
)
from metrics_registry.i18n.pages import english_pages, page_states
from metrics_registry.keys import Reference
from metrics_registry.models import FamilyInfo
from metrics_registry.registry import Entry, Registry
from metrics_registry.site.concept_pages import concept_link, write_concept_pages
from metrics_registry.site.headings import align_heading_ids, with_heading_ids
from metrics_registry.site.lists import python_markdown_lists
from metrics_registry.site.notes import find_notes, shift_headings
from metrics_registry.site.sanitize import markdown_text
from metrics_registry.site.source import example_code, reference_source
from metrics_registry.site.typography import TIGHT_LANGUAGES, tidy_value

if TYPE_CHECKING:
    from metrics_registry.concepts import Concept
    from metrics_registry.i18n.translate import Translator, UiTranslations

__all__ = ["GeneratedPages", "generate_pages"]

#: Where a reader learns how to help translate, relative to a language's docs folder.
HELP_PAGE = "contributing/translating.md"
#: The API reference (mkdocstrings) and the modules it documents.
API_PAGE = "api.md"
API_DOCUMENTED = "metrics_registry.reference."
#: Pages generated at the top of every language's docs folder.
GENERATED_PAGES = ("metrics.md", "reading-a-run.md", "legacy-names.md")


class GeneratedPages(list[Path]):
    """The pages written for one language, and which of them are hand-written.

    ``trusted`` (paths below the language folder) are the hand-written pages
    no generated page replaced; the build cleans every other page
    (:mod:`metrics_registry.site.hooks`).
    """

    trusted: frozenset[str] = frozenset()


def _cell(text: str) -> str:
    """Make text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _identity(message: str) -> str:
    return message


def front_matter(**fields: object) -> str:
    """A page's YAML front matter, written by a YAML library (a title may hold ``: ``, quotes, ``#``...)."""
    text = yaml.safe_dump(
        fields, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1 << 20
    )
    return f"---\n{text}---"


def _environment(
    registry: Registry,
    translator: Translator | None = None,
    ui: UiTranslations | None = None,
    here: dict[str, str] | None = None,
) -> Environment:
    """The Jinja environment of the page templates; ``here["page"]`` is the page being rendered."""
    here = here if here is not None else {}
    env = Environment(
        extensions=["jinja2.ext.i18n", "jinja2.ext.do"],
        loader=PackageLoader("metrics_registry", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown output; the registry text is Markdown by design
        finalize=tidy_value if ui is not None and ui.lang in TIGHT_LANGUAGES else None,
    )

    def link(reference: str, entry: Entry) -> str:
        target = registry.resolve(reference, entry.family.id)
        if target is None:
            return f"`{reference}`"
        label = str(Reference.parse(reference))
        page = "" if target.family.id == entry.family.id else f"{target.family.id}.md"
        return f"[`{label}`]({page}#{target.anchor})"

    gettext: Callable[[str], str] = ui.gettext if ui is not None else _identity

    def ngettext(singular: str, plural: str, n: int) -> str:
        return ui.ngettext(singular, plural, n) if ui is not None else (singular if n == 1 else plural)

    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]

    def tx(owner: Entry | FamilyInfo, *loc: str | int) -> str:
        """A translatable field, in the page's language or (with a notice) in English."""
        if translator is not None:
            return translator.text(owner, *loc)
        value: object = owner.metric if isinstance(owner, Entry) else owner
        for part in loc:
            value = value[part] if isinstance(part, int) else getattr(value, part)  # type: ignore[index]
        return str(value)

    def notice(owner: Entry | FamilyInfo) -> str:
        """A visible admonition when part of ``owner`` falls back to English."""
        if translator is None or translator.lang is None:
            return ""
        statuses = translator.statuses(owner)
        link = _help_link(here.get("page", "reference/page.md"))
        help_text = gettext("Help translate")
        blocks = []
        if "missing" in statuses:
            title = gettext("Not translated yet")
            text = gettext("Parts of this section are shown in English because they are not translated yet.")
            blocks.append(f'!!! warning "{title}"\n\n    {text} [{help_text}]({link})\n')
        if "fuzzy" in statuses:
            title = gettext("Translation outdated")
            text = gettext(
                "The English of parts of this section changed since they were translated; "
                "they are shown in English until the translation is updated."
            )
            blocks.append(f'!!! warning "{title}"\n\n    {text} [{help_text}]({link})\n')
        return "\n".join(blocks)

    def crucial_of(family_id: str) -> list[Entry]:
        return sorted((e for e in registry.in_family(family_id) if e.metric.crucial), key=lambda e: e.key)

    def labelled(label: str) -> str:
        """``label`` followed by a colon, the language's own (Chinese writes a full-width one)."""
        return gettext("%(label)s:") % {"label": label}

    def listing(items: Iterable[str]) -> str:
        """Items of a list run together with the language's separator (Chinese: 、)."""
        return gettext(", ").join(items)

    def concept_tx(concept: Concept, field: str) -> str:
        return translator.text(concept, field) if translator is not None else str(getattr(concept, field))

    def rule_conditions(rule: object, entry: Entry) -> str:
        return describe_rule_conditions(rule, gettext, versions_of(entry), _code)

    env.filters["cell"] = _cell
    env.filters["plain"] = markdown_text  # registry text where Markdown must not act (headings, link labels)
    env.filters["codecell"] = lambda text: _cell(text).replace("`", "")
    env.filters["condition_code"] = lambda condition: _code(condition.text())
    env.globals.update(
        concepts=registry.concepts,
        concept_tx=concept_tx,
        concept_parents=lambda concept: lineage(registry.concepts, concept.id)[1:],
        concept_href=lambda concept_id: concept_link(concept_id, here.get("page", "index.md")),
        level_label=lambda value: describe_reduction_level(value, gettext),
        op_label=lambda value: describe_reduction_op(value, gettext),
        effect_label=lambda value: describe_issue_effect(value, gettext),
        rule_conditions=rule_conditions,
        versions_of=versions_of,
        link=link,
        ref_label=lambda reference: str(Reference.parse(reference)),
        rule_text=lambda rule: describe_rule(rule, gettext),
        reduce_label=lambda value: describe_reduce(value, gettext),
        across_label=lambda value: describe_across_processes(value, gettext),
        category_label=lambda value: describe_category(value, gettext),
        unit_label=lambda value: describe_unit(value, gettext),
        version_label=lambda entry: entry.version_text(short=True),
        tx=tx,
        labelled=labelled,
        listing=listing,
        notice=notice,
        crucial_of=crucial_of,
        reference_source=reference_source,
        example_code=example_code,
        api_link=_api_link,
        front_matter=front_matter,
        alternatives=lambda spot: ", ".join(f"{a.char} {a.probability:.2f}" for a in spot.alternatives[1:4]),
    )
    return env


def _code(text: str) -> str:
    """``text`` as a Markdown code span."""
    return f"`{text}`"


def versions_of(entry: Entry) -> str:
    """Whose releases the entry's version numbers count: ``TRL`` or the extension's project."""
    return "TRL" if entry.family.versions_of == "trl" else entry.family.versions_of


def _api_link(reference: str) -> str:
    """Link from a family page to a reference function on the API page ('' if not documented there)."""
    if not reference.startswith(API_DOCUMENTED):
        return ""
    return f"../{API_PAGE}#{reference}"


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


def _help_link(page: str) -> str:
    """Relative link from ``page`` (a path below the language folder) to the translation guide."""
    return os.path.relpath(HELP_PAGE, str(PurePosixPath(page).parent)).replace(os.sep, "/")


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
    return _insert_after_title(markdown, [f'!!! info "{text}"', "", f"    [{link}]({_help_link(page)})"])


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
    return [f'!!! warning "{title}"', "", f"    {text} [{link}]({_help_link(page)})"]


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
    gettext: Callable[[str], str] = ui.gettext if ui is not None else _identity
    written = GeneratedPages(_handwritten_pages(root, out, lang, gettext))
    trusted = {path.relative_to(out).as_posix() for path in written}
    if ui is not None:
        ui.fallbacks.clear()  # the hand-written pages carry their own notice
    here: dict[str, str] = {}
    env = _environment(registry, translator, ui, here)

    def render(template: str, page: str, **context: object) -> None:
        here["page"] = page
        text = env.get_template(template).render(**context)
        path = out / page
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_tidy(_ui_notice(text, ui, page)), encoding="utf-8")
        written.append(path)
        trusted.discard(page)

    for family_id, family in registry.families.items():
        entries = sorted(registry.in_family(family_id), key=lambda e: e.key)
        render(
            "family.md.j2",
            f"reference/{family_id}.md",
            family=family,
            entries=entries,
            source_name=entries[0].path.name,
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
            help_link=_help_link(page),
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

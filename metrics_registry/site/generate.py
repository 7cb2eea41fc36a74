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

from jinja2 import Environment, PackageLoader, StrictUndefined

from metrics_registry.keys import Reference
from metrics_registry.describe import describe_rule
from metrics_registry.models import FamilyInfo
from metrics_registry.registry import Entry, Registry

if TYPE_CHECKING:
    from metrics_registry.i18n.translate import Translator, UiTranslations

__all__ = ["generate_pages"]

#: Where a reader learns how to help translate, relative to a language's docs folder.
HELP_PAGE = "contributing/translating.md"


def _cell(text: str) -> str:
    """Make text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _identity(message: str) -> str:
    return message


def _environment(
    registry: Registry, translator: Translator | None = None, ui: UiTranslations | None = None
) -> Environment:
    env = Environment(
        extensions=["jinja2.ext.i18n"],
        loader=PackageLoader("metrics_registry", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown output; the registry text is Markdown by design
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
        link = f"../{HELP_PAGE}"
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

    env.filters["cell"] = _cell
    env.globals.update(
        link=link,
        rule_text=lambda rule: describe_rule(rule, gettext),
        version_label=lambda entry: entry.version_text(short=True),
        tx=tx,
        notice=notice,
    )
    return env


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


def _ui_notice(markdown: str, ui: UiTranslations | None) -> str:
    """Add a notice under the first heading when UI strings of the page fell back to English."""
    if ui is None or not ui.fallbacks:
        return markdown
    text = ui.gettext("Some labels on this page are not translated yet and are shown in English.")
    link = ui.gettext("Help translate")
    ui.fallbacks.clear()
    lines = markdown.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("# "):
            lines[index + 1 : index + 1] = ["", f'!!! info "{text}"', "", f"    [{link}](../{HELP_PAGE})"]
            break
    return "\n".join(lines)


def generate_pages(
    registry: Registry,
    docs_source: Path,
    out: Path,
    *,
    lang: str | None = None,
    i18n_root: Path | None = None,
) -> list[Path]:
    """Copy the hand-written pages of ``docs_source`` to ``out`` and add the generated ones.

    With ``lang`` (and the project folder holding ``i18n/`` as ``i18n_root``)
    the registry texts and UI strings come from that language's catalogs;
    whatever is missing or outdated is written in English under a visible
    notice linking to the contributor guide.
    """
    translator = ui = None
    if lang is not None and lang != "en":
        from metrics_registry.i18n.translate import Translator, UiTranslations, load_catalog

        root = Path(i18n_root) if i18n_root is not None else Path.cwd()
        translator = Translator(lang, load_catalog(root, lang, "registry"))
        ui = UiTranslations(lang, load_catalog(root, lang, "ui"))
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(docs_source, out)
    env = _environment(registry, translator, ui)
    written = []
    reference = out / "reference"
    reference.mkdir(exist_ok=True)
    family_template = env.get_template("family.md.j2")
    for family_id, family in registry.families.items():
        entries = sorted(registry.in_family(family_id), key=lambda e: e.key)
        path = reference / f"{family_id}.md"
        page = family_template.render(family=family, entries=entries, source_name=entries[0].path.name)
        path.write_text(_tidy(_ui_notice(page, ui)), encoding="utf-8")
        written.append(path)
    index = out / "metrics.md"
    page = env.get_template("index-of-metrics.md.j2").render(
        entries=sorted(registry, key=lambda e: (e.key, e.family.id))
    )
    index.write_text(_ui_notice(page, ui), encoding="utf-8")
    written.append(index)
    return written

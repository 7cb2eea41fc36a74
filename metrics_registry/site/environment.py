"""The Jinja environment of the generated pages: the templates' filters and globals.

Templates write Markdown (no autoescape: registry text is Markdown by
design; the built HTML is cleaned by :mod:`metrics_registry.site.hooks`).
Links between generated pages are relative to the page being rendered
(``here["page"]``), computed from :mod:`metrics_registry.links`.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

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
from metrics_registry.keys import Reference
from metrics_registry.links import family_markdown, metric_markdown, relative_link
from metrics_registry.models import FamilyInfo
from metrics_registry.registry import Entry, Registry
from metrics_registry.site.concept_pages import concept_link
from metrics_registry.site.jinja_calls import with_direct_calls
from metrics_registry.site.sanitize import markdown_text
from metrics_registry.site.source import example_code, reference_sources
from metrics_registry.site.template_cache import template_cache
from metrics_registry.site.typography import TIGHT_LANGUAGES, tidy_values

if TYPE_CHECKING:
    from metrics_registry.concepts import Concept
    from metrics_registry.i18n.translate import Status, Translator, UiTranslations

__all__ = ["API_PAGE", "HELP_PAGE", "environment", "front_matter", "help_link", "identity", "versions_of"]

#: Where a reader learns how to help translate, relative to a language's docs folder.
HELP_PAGE = "contributing/translating.md"
#: The API reference (mkdocstrings) and the modules it documents.
API_PAGE = "api.md"
API_DOCUMENTED = "metrics_registry.reference."


def _cell(text: str) -> str:
    """Make text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


#: Where a long option name may wrap in a narrow table column: after a dot, an underscore or a slash.
_OPTION_BREAK = re.compile(r"(?<=[._/])(?=[^._/ ])")


def option_code(option: str, condition: str) -> str:
    """``option condition`` as inline code for a table cell that may wrap only after ``.``, ``_`` or
    ``/`` of the option name (``actor_rollout_ref.<wbr>actor.<wbr>clip_ratio``), never mid-word.

    Raw HTML, since ``<wbr>`` cannot go inside a Markdown code span; every character but letters,
    digits and spaces is written as an entity, so none of it is Markdown syntax or a cell's ``|``
    (and the text is escaped: it comes from a registry file). Copying it copies no extra character.
    """
    pieces = _OPTION_BREAK.split(option)
    text = "<wbr>".join(_entities(piece) for piece in pieces)
    text += _entities(f" {condition}" if condition else "")
    return f'<code class="mr-option">{text}</code>'


def _entities(text: str) -> str:
    return "".join(char if char.isalnum() or char == " " else f"&#{ord(char)};" for char in text)


def identity(message: str) -> str:
    """The English text itself: ``gettext`` of the source language."""
    return message


def front_matter(**fields: object) -> str:
    """A page's YAML front matter, written by a YAML library (a title may hold ``: ``, quotes, ``#``...)."""
    text = yaml.dump(
        fields,
        Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),  # libyaml's: ~5x faster, same text
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 20,
    )
    return f"---\n{text}---"


def environment(
    registry: Registry,
    translator: Translator | None = None,
    ui: UiTranslations | None = None,
    here: dict[str, str] | None = None,
) -> Environment:
    """The Jinja environment of the page templates; ``here["page"]`` is the page being rendered."""
    here = here if here is not None else {}
    tight = ui is not None and ui.lang in TIGHT_LANGUAGES
    env = Environment(
        extensions=["jinja2.ext.i18n", "jinja2.ext.do"],
        loader=PackageLoader("metrics_registry", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown output; the registry text is Markdown by design
        finalize=tidy_values() if tight else None,
        bytecode_cache=template_cache("tight" if tight else "plain"),  # compiled code differs
    )

    def page_link(source: str) -> str:
        """A link from the page being rendered to the page whose Markdown source is ``source``."""
        return relative_link(source, here.get("page", "index.md"))

    def metric_link(entry: Entry) -> str:
        """A link from the page being rendered to ``entry``'s page."""
        return page_link(metric_markdown(entry))

    def link(reference: str, entry: Entry) -> str:
        target = registry.resolve(reference, entry.family.id)
        if target is None:
            return f"`{reference}`"
        label = str(Reference.parse(reference))
        return f"[`{label}`]({metric_link(target)})"

    gettext = _install_gettext(env, ui)
    once = functools.partial(_once_per_value, ui=ui)

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
        link = help_link(here.get("page", "reference/page.md"))
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

    @once
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
    env.globals["option_code"] = option_code
    env.globals.update(
        concepts=registry.concepts,
        concept_tx=concept_tx,
        concept_parents=lambda concept: lineage(registry.concepts, concept.id)[1:],
        concept_href=lambda concept_id: concept_link(concept_id, here.get("page", "index.md")),
        level_label=once(lambda value: describe_reduction_level(value, gettext)),
        op_label=once(lambda value: describe_reduction_op(value, gettext)),
        effect_label=once(lambda value: describe_issue_effect(value, gettext)),
        rule_conditions=rule_conditions,
        versions_of=versions_of,
        link=link,
        metric_link=metric_link,
        family_link=lambda family_id: page_link(family_markdown(family_id)),
        ref_label=lambda reference: str(Reference.parse(reference)),
        rule_text=lambda rule: describe_rule(rule, gettext),
        reduce_label=once(lambda value: describe_reduce(value, gettext)),
        across_label=once(lambda value: describe_across_processes(value, gettext)),
        category_label=once(lambda value: describe_category(value, gettext)),
        unit_label=once(lambda value: describe_unit(value, gettext)),
        version_label=lambda entry: entry.version_text(short=True),
        tx=tx,
        labelled=labelled,
        listing=listing,
        notice=notice,
        crucial_of=crucial_of,
        # once per reference for all of a language's pages (a family's copies, a key's aliases share one)
        reference_source=reference_sources(e.metric.reference for e in registry if e.metric.reference),
        example_code=example_code,
        api_link=lambda reference: _api_link(reference, page_link),
        front_matter=front_matter,
        alternatives=lambda spot: ", ".join(f"{a.char} {a.probability:.2f}" for a in spot.alternatives[1:4]),
    )
    return with_direct_calls(env)


def _install_gettext(env: Environment, ui: UiTranslations | None) -> Callable[[str], str]:
    """Give the templates ``_()``, ``gettext``, ``ngettext`` (jinja2.ext.i18n, newstyle); return gettext."""
    gettext: Callable[[str], str] = ui.gettext if ui is not None else identity

    def ngettext(singular: str, plural: str, n: int) -> str:
        return ui.ngettext(singular, plural, n) if ui is not None else (singular if n == 1 else plural)

    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]

    def translate(message: str, **variables: object) -> str:
        """What the extension's newstyle ``_()`` returns: the translation, always %-formatted
        (no autoescape here). Called directly rather than through the extension's two wrappers
        and their nested ``Context.call`` (the pages call ``_()`` about 25 times each)."""
        return gettext(message) % variables

    env.globals["_"] = translate
    return gettext


def _once_per_value(label: Callable[[Any], str], ui: UiTranslations | None) -> Callable[[Any], str]:
    """``label`` computed once per value for the environment's life (one language's pages).

    The ``describe_*`` labels look up every word of their table on each call, thousands of
    times a language. The UI strings that fell back to English while a label was computed are
    recorded again on every later call, so each page still gets its notice
    (:func:`metrics_registry.site.generate._ui_notice`).
    """
    results: dict[Any, tuple[str, dict[str, Status]]] = {}

    def cached(value: Any) -> str:
        found = results.get(value)
        if found is None:
            if ui is None:
                found = (label(value), {})
            else:
                outer, ui.fallbacks = ui.fallbacks, {}
                try:
                    text = label(value)
                finally:
                    recorded, ui.fallbacks = ui.fallbacks, outer
                found = (text, recorded)
            results[value] = found
        text, recorded = found
        if recorded:
            ui.fallbacks.update(recorded)  # type: ignore[union-attr]
        return text

    return cached


def _code(text: str) -> str:
    """``text`` as a Markdown code span."""
    return f"`{text}`"


def versions_of(entry: Entry) -> str:
    """Whose releases the entry's version numbers count: ``TRL`` or the extension's project."""
    return "TRL" if entry.family.versions_of == "trl" else entry.family.versions_of


def _api_link(reference: str, page_link: Callable[[str], str]) -> str:
    """Link to a reference function on the API page ('' if not documented there)."""
    if not reference.startswith(API_DOCUMENTED):
        return ""
    return f"{page_link(API_PAGE)}#{reference}"


def help_link(page: str) -> str:
    """Relative link from ``page`` (a path below the language folder) to the translation guide."""
    return _help_link_from(str(PurePosixPath(page).parent))


@functools.lru_cache(maxsize=4096)  # a notice on every metric page of a family: the same folder
def _help_link_from(folder: str) -> str:
    return os.path.relpath(HELP_PAGE, folder).replace(os.sep, "/")

"""Babel extractor for registry YAML files, and extraction of both domains.

Registered as the ``metrics_registry`` extraction method through the
``babel.extractors`` entry point, so plain ``pybabel extract -F i18n/babel.cfg``
works as well as ``metrics-registry i18n extract``. Each text is yielded as a
``pgettext`` call, ``(context, text)``, so it gets a ``msgctxt``
(see :mod:`metrics_registry.i18n.fields`), with the line of its field in
the YAML file.
"""

from __future__ import annotations

import io
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from jinja2 import TemplateSyntaxError

from metrics_registry.i18n import DOMAINS, I18nError, i18n_dir
from metrics_registry.i18n.fields import (
    concept_context,
    concept_texts,
    family_context,
    family_texts,
    metric_context,
    metric_texts,
)
from metrics_registry.yamlread import READ_ERRORS, Loc, line_of, read_yaml

__all__ = ["REGISTRY_METHOD", "extract_catalogs", "extract_registry", "new_catalog"]

REGISTRY_METHOD = "metrics_registry"
_MARKDOWN_HINT = "Markdown: keep `code`, {placeholders}, $LaTeX$, URLs and link targets unchanged."


def _line(lines: dict[Loc, int], loc: Loc, fallback: int) -> int:
    return line_of(lines, loc) or fallback


def extract_registry(
    fileobj: io.BufferedIOBase,
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Yield ``(lineno, "pgettext", (msgctxt, text), comments)`` for every translatable field.

    A file that is not valid YAML, or not a registry file, yields nothing:
    ``metrics-registry validate`` reports it. The concept list
    (``metrics_registry/data/concepts/concepts.yaml``) is read too.
    """
    data = fileobj.read()
    text = data.decode(options.get("encoding", "utf-8")) if isinstance(data, bytes) else data
    try:  # libyaml, bounded (:mod:`metrics_registry.yamlread`): as fast as `validate` reads the file
        document, lines = read_yaml(text)
    except READ_ERRORS:
        return
    if isinstance(document, Mapping) and isinstance(document.get("concepts"), list):
        yield from _concept_messages(document, lines)
        return
    if not isinstance(document, Mapping) or not isinstance(document.get("family"), Mapping):
        return
    family = document["family"]
    family_id = str(family.get("id", ""))
    family_line = _line(lines, ("family",), 1)
    for field in family_texts(family):
        yield (
            _line(lines, ("family", *field.loc), family_line),
            "pgettext",
            (family_context(family_id, field.path), field.text),
            [_MARKDOWN_HINT] if field.path != "title" else [],
        )
    metrics = document.get("metrics")
    if not isinstance(metrics, list):
        return
    for index, metric in enumerate(metrics):
        if not isinstance(metric, Mapping) or not isinstance(metric.get("key"), str):
            continue
        key = metric["key"]
        metric_line = _line(lines, ("metrics", index), family_line)
        for field in metric_texts(metric):
            yield (
                _line(lines, ("metrics", index, *field.loc), metric_line),
                "pgettext",
                (metric_context(family_id, key, field.path), field.text),
                [_MARKDOWN_HINT] if field.path != "title" else [],
            )


def _concept_messages(
    document: Mapping[str, Any], lines: dict[Loc, int]
) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    for index, concept in enumerate(document["concepts"]):
        if not isinstance(concept, Mapping) or not isinstance(concept.get("id"), str):
            continue
        line = _line(lines, ("concepts", index), 1)
        for field in concept_texts(concept):
            yield (
                _line(lines, ("concepts", index, *field.loc), line),
                "pgettext",
                (concept_context(concept["id"], field.path), field.text),
                [_MARKDOWN_HINT] if field.path != "title" else [],
            )


def _mapping(root: Path) -> tuple[list[tuple[str, str]], dict[str, dict[str, str]]]:
    cfg = i18n_dir(root) / "babel.cfg"
    if not cfg.exists():
        raise I18nError(f"{cfg} not found; run the command from the project folder")
    with cfg.open(encoding="utf-8") as handle:
        return parse_mapping_cfg(handle, filename=str(cfg))


def domain_of(method: str) -> str:
    """``registry`` for the YAML extractor, ``ui`` for every other method."""
    return "registry" if method == REGISTRY_METHOD else "ui"


def new_catalog(domain: str, locale: str | None = None) -> Catalog:
    """An empty catalog with the project's fixed header (no dates that churn)."""
    return Catalog(
        locale=locale,
        domain=domain,
        project="metrics-registry",
        version="1",
        msgid_bugs_address="",
        copyright_holder="the metrics-registry contributors",
        charset="utf-8",
        header_comment=(
            f"# {'Translations' if locale else 'Template'} of metrics-registry ({domain}).\n"
            "# This file is distributed under the same license as the project (Apache-2.0).\n"
            "#"
        ),
    )


def extract_catalogs(root: Path) -> dict[str, Catalog]:
    """Extract both domains from the project at ``root`` using ``i18n/babel.cfg``."""
    root = Path(root)
    project = i18n_dir(root).parent
    method_map, options_map = _mapping(root)
    catalogs = {domain: new_catalog(domain) for domain in DOMAINS}
    reading: list[str] = [""]  # the file being extracted, for the error message

    def note(filename: str, method: str, options: dict[str, str]) -> None:
        reading[0] = filename

    for domain in DOMAINS:
        sections = [(pattern, method) for pattern, method in method_map if domain_of(method) == domain]
        if not sections:
            continue
        try:
            for filename, lineno, message, comments, context in extract_from_dir(
                str(project), method_map=sections, options_map=options_map, callback=note
            ):
                catalogs[domain].add(
                    message,
                    None,
                    [(Path(filename).as_posix(), lineno)],
                    auto_comments=comments,
                    context=context,
                )
        except TemplateSyntaxError as error:
            # babel.cfg sets `silent = false`: by default the Jinja extractor skips a template it
            # cannot parse, and every string of it would silently leave the catalogs.
            raise I18nError(
                f"{reading[0]}:{error.lineno}: {error.message}; fix the template, or list the Jinja "
                "extension its tag needs under 'extensions' in i18n/babel.cfg"
            ) from error
    return catalogs

"""Findings as CI systems read them: GitHub Actions workflow annotations and SARIF 2.1.0.

Every command that reports findings (``validate``, ``check-run``,
``fix-encoding --check``) turns its own findings into :class:`Annotation`
objects (a rule, a level, a message, a place) and hands them to
:func:`render`; the formats know nothing of where a finding came from.

This subpackage imports only the standard library and itself, so that the
standalone ``metrics_registry.encoding`` may use it too (tests/reporting
checks that), as it does :mod:`metrics_registry.fileio`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Literal

from metrics_registry.reporting.annotation import Annotation, Level, RuleInfo, help_uri
from metrics_registry.reporting.github import annotation_line, escape_data, escape_property, github_text
from metrics_registry.reporting.sarif import SARIF_SCHEMA_URI, sarif_log, sarif_text

__all__ = [
    "CI_FORMATS",
    "SARIF_SCHEMA_URI",
    "SITE_URL_ENV",
    "Annotation",
    "CIFormat",
    "Level",
    "RuleInfo",
    "annotation_line",
    "escape_data",
    "escape_property",
    "github_text",
    "help_uri",
    "render",
    "sarif_log",
    "sarif_text",
    "site_url_from_env",
]

CIFormat = Literal["github", "sarif"]
#: The ``--format`` values every reporting command accepts on top of its own.
CI_FORMATS: tuple[CIFormat, ...] = ("github", "sarif")
#: Environment variable that sets the documentation site's base URL for the commands that link to it.
SITE_URL_ENV = "METRICS_REGISTRY_SITE_URL"


def site_url_from_env() -> str:
    """The documentation site's base URL from :data:`SITE_URL_ENV` ('' when unset)."""
    return os.environ.get(SITE_URL_ENV, "")


def render(fmt: CIFormat, annotations: Iterable[Annotation], *, site_url: str = "") -> str:
    """``annotations`` in format ``fmt``, ready to print (ends with a newline unless empty).

    ``site_url`` is the documentation site's base URL: SARIF rules link to
    their page there when it is an absolute http(s) URL.
    """
    if fmt == "github":
        return github_text(annotations)
    if fmt == "sarif":
        return sarif_text(annotations, site_url=site_url)
    raise ValueError(f"unknown CI format {fmt!r} (known: {', '.join(CI_FORMATS)})")

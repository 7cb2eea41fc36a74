"""The languages the site is published in, and how each is named.

English is the source; every other language has catalogs under ``i18n/``.
Each language is built on its own, under its own URL prefix (``en/``,
``vi/``, ``zh/``): that gives every language its own search index, 404 page
and sitemap (see docs/en/contributing/site.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LANGUAGE", "SITE_LANGUAGES", "SiteLanguage", "site_language"]


@dataclass(frozen=True)
class SiteLanguage:
    code: str  # URL prefix, docs/<code>/, i18n/<code>/, Material's theme.language
    name: str  # in its own language, for the switcher
    hreflang: str  # BCP 47 tag for <link rel="alternate" hreflang>


SITE_LANGUAGES: tuple[SiteLanguage, ...] = (
    SiteLanguage("en", "English", "en"),
    SiteLanguage("vi", "Tiếng Việt", "vi"),
    SiteLanguage("zh", "简体中文", "zh-Hans"),
)

DEFAULT_LANGUAGE = "en"


def site_language(code: str) -> SiteLanguage:
    for language in SITE_LANGUAGES:
        if language.code == code:
            return language
    known = ", ".join(language.code for language in SITE_LANGUAGES)
    raise ValueError(f"unknown site language '{code}' (known: {known})")

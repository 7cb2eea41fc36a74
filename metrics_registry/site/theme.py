"""What the theme shows around the pages, in each language.

Material translates its interface through ``theme.language``, but a few
strings come from elsewhere and would stay English in every language: the
site name, the footer's "Made with", the ``¶`` links' "Permanent link"
(Python-Markdown's toc extension), the palette toggle, the 404 heading
(written into Material's template), and the few keys Material's own
catalog leaves in English for some languages ("Initializing search" in
Vietnamese). They are translated here, from the ``ui`` catalog, into the
settings each language's MkDocs config adds to ``mkdocs.yml`` (see
:mod:`metrics_registry.site.build`); ``docs/overrides`` reads the rest from
``extra.theme_text``. Translations are contributor input: each goes in as
plain text (:func:`metrics_registry.site.sanitize.clean_text`), as the
navigation's labels do.
"""

from __future__ import annotations

from collections.abc import Callable

from metrics_registry.site.sanitize import clean_text

__all__ = ["MATERIAL_LINK", "theme_settings"]

MATERIAL_LINK = "https://squidfunk.github.io/mkdocs-material/"

Gettext = Callable[[str], str]


def _palette(_: Gettext) -> list[dict[str, object]]:
    """Light and dark schemes, following the reader's system setting until they choose.

    KaTeX draws formulas in the text colour (``currentColor``), so they stay
    readable in both schemes.
    """
    return [
        {
            "media": "(prefers-color-scheme: light)",
            "scheme": "default",
            "primary": "indigo",
            "accent": "deep orange",
            "toggle": {"icon": "material/weather-night", "name": _("Switch to dark mode")},
        },
        {
            "media": "(prefers-color-scheme: dark)",
            "scheme": "slate",
            "primary": "indigo",
            "accent": "deep orange",
            "toggle": {"icon": "material/weather-sunny", "name": _("Switch to light mode")},
        },
    ]


def _theme_text(_: Gettext) -> dict[str, str]:
    """Strings the overrides show: Material's keys it translates too poorly for us, and our own."""
    return {
        # Material's key, left in English by its Vietnamese catalog
        "search.result.initializer": _("Initializing search"),
        # docs/overrides/404.html
        "registry.not_found": _("Page not found"),
        "registry.not_found.text": _("This page does not exist in this language, or no longer exists."),
        "registry.not_found.home": _("Go to the home page"),
    }


def theme_settings(gettext: Gettext) -> dict[str, object]:
    """The part of one language's MkDocs config that carries text of the theme, in that language."""

    def _(message: str) -> str:
        return clean_text(gettext(message))

    tool = f'<a href="{MATERIAL_LINK}" target="_blank" rel="noopener">Material for MkDocs</a>'
    made_with = _("Made with %(tool)s").replace("%(tool)s", tool)
    return {
        "site_name": _("RL Metrics Registry"),
        "copyright": made_with,
        "theme": {"palette": _palette(_)},
        "markdown_extensions": {"toc": {"permalink_title": _("Permanent link")}},
        "extra": {"generator": False, "theme_text": _theme_text(_)},
    }

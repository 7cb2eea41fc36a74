"""The language of a run report: UI strings, registry texts, numbers, dates and links.

UI strings go through gettext in the ``ui`` domain (this package is in
``i18n/babel.cfg``); the rules' ``suggests`` texts come from the
``registry`` catalogs, like on the site. Numbers and dates are formatted
with Babel for the language's locale (``0,5`` in Vietnamese). A text
without a current translation is shown in English and remembered, so the
report can say so.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path

from babel.dates import format_datetime
from babel.numbers import format_decimal, format_scientific

from metrics_registry.i18n import locale_of
from metrics_registry.i18n.translate import Translator, UiTranslations, load_catalog
from metrics_registry.links import metric_url
from metrics_registry.locate import find_i18n_root
from metrics_registry.registry import Entry

__all__ = ["LANGUAGES", "Localizer"]

#: Languages of the report.
LANGUAGES = ("en", "vi", "zh")


class Localizer:
    """Everything language-dependent in a report."""

    def __init__(self, lang: str = "en", *, site_url: str = "", i18n_root: Path | None = None) -> None:
        self.lang = lang
        self.locale = locale_of(lang)
        self.site_url = site_url
        if lang == "en":
            self.ui = UiTranslations()
            self.registry = Translator(None, None)
        else:
            root = i18n_root if i18n_root is not None else find_i18n_root()
            self.ui = UiTranslations(lang, load_catalog(root, lang, "ui") if root else None)
            self.registry = Translator(lang, load_catalog(root, lang, "registry") if root else None)
        self.registry_fallbacks = 0

    def gettext(self, message: str) -> str:
        return self.ui.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.ui.ngettext(singular, plural, n)

    @property
    def has_fallbacks(self) -> bool:
        """Whether some text of the report was shown in English for want of a translation."""
        return bool(self.ui.fallbacks) or self.registry_fallbacks > 0

    def number(self, value: float) -> str:
        """``0.5``, ``0,5``, ``12,345.678``, ``1.5E-6``, ``NaN``, ``∞`` in the report's locale."""
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e9):
            return format_scientific(value, format="0.###E0", locale=self.locale)
        return format_decimal(value, format="#,##0.####", locale=self.locale)

    def step(self, step: float) -> str:
        if float(step).is_integer():
            return format_decimal(int(step), locale=self.locale)
        return self.number(step)

    def datetime(self, moment: datetime) -> str:
        return format_datetime(moment, "medium", tzinfo=timezone.utc, locale=self.locale)

    def suggests(self, entry: Entry, rule: object) -> str:
        """The rule's ``suggests`` text in the report's language (English when not translated)."""
        index = next(i for i, r in enumerate(entry.metric.healthy) if r is rule)
        texts = self.registry.texts(entry)
        text = texts.get(("healthy", index, "suggests"))
        if text is None:
            return " ".join(str(getattr(rule, "suggests", "")).split())
        if text.fallback:
            self.registry_fallbacks += 1
        return " ".join(text.text.split())

    def url(self, entry: Entry) -> str:
        return metric_url(entry, lang=self.lang, base_url=self.site_url)

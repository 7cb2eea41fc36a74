"""The language of a run report: UI strings, registry texts, numbers, dates and links.

UI strings go through gettext in the ``ui`` domain (this package is in
``i18n/babel.cfg``); the rules' ``suggests`` texts come from the
``registry`` catalogs, like on the site. Numbers and dates are formatted
with Babel for the language's locale (``0,5`` in Vietnamese). A text
without a current translation is shown in English and remembered, so the
report can say so.

A catalog is edited by hand, so a translation may carry a broken
placeholder (``%(cout)s``, ``%(count)``, ``%(count)d`` for a text value):
formatting it would raise. Every translation of a message with
placeholders is tried once against the English's own placeholders (with
values of their type) before it is used; a broken one is replaced by the
English, and :attr:`Localizer.warnings` names the catalog file, the line
and the message.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from metrics_registry.i18n import I18nError, catalog_path, locale_of
from metrics_registry.i18n.translate import Translator, UiTranslations, load_catalog
from metrics_registry.links import metric_url
from metrics_registry.locate import find_i18n_root
from metrics_registry.registry import Entry
from metrics_registry.runs import english_format

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

__all__ = ["LANGUAGES", "Localizer", "placeholder_problem"]

#: Languages of the report.
LANGUAGES = ("en", "vi", "zh")

#: Conversions that take a number; the others (``s``, ``r``, ``a``, ``c``) are given text.
_NUMERIC = frozenset("diouxXeEfFgG")


def placeholder_problem(english: str, translation: str) -> str | None:
    """Why ``translation % values`` would fail where ``english % values`` works, or ``None``.

    The values are stand-ins of the types the English's placeholders take.

    >>> placeholder_problem("%(count)s values", "%(count)s giá trị") is None
    True
    >>> placeholder_problem("%(count)s values", "%(cout)s giá trị")
    'unknown placeholder %(cout)s'
    >>> placeholder_problem("%(count)s values", "%(count) trên giá trị")
    "unsupported format character 't' (0x74) at index 9"
    >>> placeholder_problem("%(count)s values", "%(count)d giá trị")
    '%d format: a real number is required, not str'
    """
    from babel.messages.catalog import PYTHON_FORMAT

    found = PYTHON_FORMAT.findall(english)
    if not found:
        return None  # the English is not %-formatted, nor is the translation
    named = {name: 0 if kind in _NUMERIC else "x" for name, _flags, kind in found if name}
    values: object = named if named else tuple(0 if kind in _NUMERIC else "x" for _, _, kind in found)
    try:
        translation % values  # only whether it raises matters
    except KeyError as error:
        return f"unknown placeholder %({error.args[0]})s"
    except (ValueError, TypeError) as error:
        return str(error)
    return None


class Localizer:
    """Everything language-dependent in a report."""

    def __init__(self, lang: str = "en", *, site_url: str = "", i18n_root: Path | None = None) -> None:
        self.lang = lang
        self.locale = locale_of(lang)
        #: One line per catalog that cannot be read or broken translation (``file:line: ...``),
        #: for the command to print on stderr.
        self.warnings: list[str] = []
        self.site_url = site_url
        self._ui_file: Path | None = None
        if lang == "en":
            self.ui = UiTranslations()
            self.registry = Translator(None, None)
        else:
            root = i18n_root if i18n_root is not None else find_i18n_root()
            self.ui = UiTranslations(lang, self._load(root, "ui"))
            self.registry = Translator(lang, self._load(root, "registry"))
            self._ui_file = catalog_path(root, lang, "ui") if root else None
        self.registry_fallbacks = 0
        self._checked: dict[str, bool] = {}  # translated text -> usable

    def _load(self, root: Path | None, domain: str) -> Catalog | None:
        """The catalog, or ``None`` (English) with a warning when it cannot be read."""
        if root is None:
            return None
        try:
            return load_catalog(root, self.lang, domain)
        except I18nError as error:
            self.warnings.append(f"{error}; the report is in English where it needs this catalog")
            return None

    def _usable(self, msgid: str, english: str, translation: str) -> bool:
        """Whether ``translation`` formats like ``english``; warns once when not."""
        usable = self._checked.get(translation)
        if usable is None:
            problem = placeholder_problem(english, translation)
            usable = self._checked[translation] = problem is None
            if problem is not None:
                self.warnings.append(self._broken(msgid, problem))
                self.ui.fallbacks[msgid] = "fuzzy"
        return usable

    def _broken(self, msgid: str, problem: str) -> str:
        catalog: Catalog | None = self.ui.catalog
        message = catalog.get(msgid) if catalog is not None else None
        po = self._ui_file
        if po is None:
            where = f"the {self.lang} ui catalog"
        elif not po.exists():  # read from the compiled catalog, which keeps no lines
            where = str(po.with_suffix(".mo"))
        else:
            where = f"{po}:{message.lineno}" if message is not None and message.lineno else str(po)
        return (
            f"{where}: the {self.lang} translation of {msgid!r} has a broken placeholder ({problem});"
            " the English is shown instead: fix the msgstr to use the msgid's placeholders"
        )

    def gettext(self, message: str) -> str:
        text = self.ui.gettext(message)
        if text == message or self._usable(message, message, text):
            return text
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        text = self.ui.ngettext(singular, plural, n)
        english = singular if n == 1 else plural
        # Every form is given the same values: check against the placeholders of both.
        if text == english or self._usable(singular, f"{singular} {plural}", text):
            return text
        return english

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
        scientific = value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e9)
        if self.lang == "en":  # without Babel, which the core install lacks (english_format)
            return english_format.scientific(value) if scientific else english_format.decimal(value)
        from babel.numbers import format_decimal, format_scientific

        if scientific:
            return format_scientific(value, format="0.###E0", locale=self.locale)
        return format_decimal(value, format="#,##0.####", locale=self.locale)

    def step(self, step: float) -> str:
        if float(step).is_integer():
            if self.lang == "en":
                return english_format.integer(int(step))
            from babel.numbers import format_decimal

            return format_decimal(int(step), locale=self.locale)
        return self.number(step)

    def datetime(self, moment: datetime) -> str:
        if self.lang == "en":
            return english_format.datetime_medium(moment)
        from babel.dates import format_datetime

        return format_datetime(moment, "medium", tzinfo=UTC, locale=self.locale)

    def suggests(self, entry: Entry, rule: object) -> str:
        """The rule's ``suggests`` text in the report's language (English when not translated)."""
        index = next(i for i, r in enumerate(entry.metric.healthy) if r is rule)
        return self.registry_text(entry, ("healthy", index, "suggests"), str(getattr(rule, "suggests", "")))

    def issue_description(self, entry: Entry, issue: object) -> str:
        """A known issue's description in the report's language (English when not translated)."""
        index = next(i for i, item in enumerate(entry.metric.known_issues) if item is issue)
        return self.registry_text(
            entry, ("known_issues", index, "description"), str(getattr(issue, "description", ""))
        )

    def registry_text(self, entry: Entry, loc: tuple[str | int, ...], english: str) -> str:
        """A translatable field of ``entry`` on one line, in the report's language."""
        text = self.registry.texts(entry).get(loc)
        if text is None:
            return " ".join(english.split())
        if text.fallback:
            self.registry_fallbacks += 1
        return " ".join(text.text.split())

    def url(self, entry: Entry) -> str:
        return metric_url(entry, lang=self.lang, base_url=self.site_url)

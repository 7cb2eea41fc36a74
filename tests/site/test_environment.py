"""The template helpers of the site's generator (metrics_registry/site/environment.py)."""

from __future__ import annotations

import html

from babel.messages.catalog import Catalog
from jinja2 import Environment
from markdown import Markdown

from metrics_registry.i18n.translate import UiTranslations
from metrics_registry.registry import Registry
from metrics_registry.site.environment import environment, option_code
from metrics_registry.site.sanitize import clean_html


def test_an_option_name_may_wrap_only_after_a_dot_an_underscore_or_a_slash() -> None:
    code = option_code("actor_rollout_ref.actor/clip_ratio", "== 0.2")
    assert code.count("<wbr>") == 5  # after "_", "_", ".", "/", "_"; none inside the condition
    assert (
        html.unescape(code.replace("<wbr>", ""))
        == '<code class="mr-option">actor_rollout_ref.actor/clip_ratio == 0.2</code>'
    )


def test_an_option_from_a_hostile_registry_stays_text_in_a_table_cell() -> None:
    option = "x`|<script>alert(1)</script>*_[a](javascript:b)"
    table = f"| a | b |\n| --- | --- |\n| {option_code(option, '== `1`')} | c |\n"
    page = clean_html(Markdown(extensions=["tables"]).convert(table))
    assert "<script" not in page and "<a " not in page and "<em>" not in page
    cells = page.split("<td>")
    assert len(cells) == 3  # the "|" did not open a cell
    assert html.unescape(cells[1].split("</td>")[0].replace("<wbr>", "")).endswith(
        "javascript:b) == `1`</code>"
    )


def _environment_with(translations: dict[str, str]) -> tuple[Environment, UiTranslations]:
    catalog = Catalog(locale="vi")
    for message, string in translations.items():
        catalog.add(message, string)
    ui = UiTranslations("vi", catalog)
    return environment(Registry({}, []), ui=ui, here={"page": "reference/x/y.md"}), ui


def test_templates_underscore_formats_as_jinja_newstyle_gettext() -> None:
    env, ui = _environment_with({"%(n)s of 100%%": "%(n)s trên 100%%"})
    rendered = env.from_string('{{ _("%(n)s of 100%%", n=3) }} {{ _("50%%") }}').render()
    assert rendered == "3 trên 100% 50%"  # always %-formatted, even without variables
    assert list(ui.fallbacks) == ["50%%"]


def test_a_label_computed_once_still_flags_every_page_that_shows_an_english_fallback() -> None:
    env, ui = _environment_with({"tokens": "token", "%(label)s:": "%(label)s:"})
    page = env.from_string("{{ unit_label('tokens') }} {{ labelled(unit_label('tokens')) }}")
    for _page in range(3):  # the labels are computed on the first page, reused on the others
        assert page.render() == "token token:"
        # describe_unit looks up every unit's word: the untranslated ones fell back to English
        assert "seconds" in ui.fallbacks and "tokens" not in ui.fallbacks
        ui.fallbacks.clear()
    translated = env.from_string("{{ labelled('x') }}")
    assert translated.render() == "x:" and not ui.fallbacks

"""The template helpers of the site's generator (metrics_registry/site/environment.py)."""

from __future__ import annotations

import html

from markdown import Markdown

from metrics_registry.site.environment import option_code
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

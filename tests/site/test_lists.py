"""Lists written for CommonMark render as lists with Python-Markdown too."""

from __future__ import annotations

from pathlib import Path

import markdown

from metrics_registry.site.lists import python_markdown_lists

ROOT = Path(__file__).resolve().parents[2]


def _html(text: str) -> str:
    return markdown.markdown(text, extensions=["fenced_code"])


def test_a_list_right_after_a_paragraph_line_gets_its_blank_line() -> None:
    text = "**What it does**:\n- one\n- two\n"
    assert "<ul>" not in _html(text)  # the bug: Python-Markdown reads one paragraph
    fixed = python_markdown_lists(text)
    assert fixed == "**What it does**:\n\n- one\n- two\n"
    assert _html(fixed).count("<li>") == 2


def test_nested_lists_get_four_spaces_per_level() -> None:
    text = "1. **a**:\n   - x\n   - y\n2. **b**:\n   - z\n     - deep\n"
    assert "<li>x</li>" in _html(text) and _html(text).count("<ul>") == 1  # x, y, z: items of the <ol>
    fixed = python_markdown_lists(text)
    assert fixed == "1. **a**:\n    - x\n    - y\n2. **b**:\n    - z\n        - deep\n"
    html = _html(fixed)
    assert html.count("<ul>") == 3 and html.count("<ol>") == 1


def test_code_and_text_stay_as_they_are() -> None:
    text = "Intro:\n\n```\nsummary:\n  - not a list\n```\n\nA line\nof prose.\n"
    assert python_markdown_lists(text) == text


def test_the_extension_notes_render_every_list() -> None:
    """The multi-turn notes: five lists after a paragraph line, and nested file lists."""
    notes = (ROOT / "extensions" / "notes" / "multiturn-grpo.en.md").read_text(encoding="utf-8")
    before, after = _html(notes), _html(python_markdown_lists(notes))
    assert after.count("<ul>") >= before.count("<ul>") + 5
    assert "<li>Added a <code>turn_advantages</code> field" in after
    assert after.index("<li>Added a <code>turn_advantages</code>") > after.index("<ul>", after.index("<ol>"))

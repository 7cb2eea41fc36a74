"""Formulas in a terminal: every built-in formula reads in Unicode, and explain shows it with its LaTeX."""

from __future__ import annotations

from click.testing import CliRunner

import metrics_registry
from metrics_registry.cli import cli
from metrics_registry.formulas import readable, readable_prose, readable_text


def test_every_builtin_formula_reads_without_latex_markup() -> None:
    formulas = [entry.metric.formula for entry in metrics_registry.load() if entry.metric.formula]
    assert len(formulas) > 40
    for latex in formulas:
        text = readable(latex)
        assert text is not None, latex
        assert "\\" not in text, (latex, text)  # no macro left over


def test_the_macros_pylatexenc_drops_are_kept() -> None:
    assert readable(r"\mathbb{E}\,\|\,x\|_2") == "𝔼 ‖ x‖_2"
    assert readable(r"\log\pi_\theta") == "log π_θ"
    assert readable(r"k_{b,t}") == "k_{b,t}"  # braces kept: not k_b,t
    assert readable(r"\frac{x+y}{2n}") == "(x+y)/(2n)"
    assert readable(r"\frac{1}{B}") == "1/B"
    assert readable(r"\operatorname{clip}(r)") == "clip(r)"


def test_explain_shows_the_unicode_and_the_exact_latex() -> None:
    result = CliRunner().invoke(
        cli, ["--no-config", "explain", "objective/kl", "--family", "ppo"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    entry = metrics_registry.load().lookup("objective/kl", family="ppo").entry
    assert "π_{ref}" in result.output
    lines = [line for line in result.output.splitlines() if "LaTeX" in line]
    assert lines and "\\pi_{\\text{ref}}" in result.output and entry.metric.formula.split()[0] in lines[0]


def test_spaces_around_operators_stay_as_written() -> None:
    assert readable(r"e^{\delta} - \delta - 1") == "e^δ - δ - 1"
    assert readable(r"x \ge 0") == "x ≥ 0"


def test_formulas_in_prose_read_in_unicode_and_code_spans_stay() -> None:
    prose = (
        r"The k3 term $e^{\delta} - \delta - 1$ estimates"
        r" $\mathrm{KL}(\pi_\theta \,\|\, \pi_{\text{ref}})$; `x = $HOME`."
    )
    text = readable_prose(prose)
    assert "e^δ - δ - 1" in text
    assert r"KL(π\_θ ‖ π\_\{ref\})" in text  # escaped for Markdown: rendered, not read as markup
    assert "`x = $HOME`" in text


def test_formulas_in_plain_text_read_in_unicode_unescaped() -> None:
    text = readable_text(
        r"Shows $1 + \mathrm{CV}^2$ times, as $\mathrm{KL}(\pi_\theta \,\|\, \pi_{\text{ref}})$; `x = $HOME`."
    )
    assert text == "Shows 1 + CV^2 times, as KL(π_θ ‖ π_{ref}); `x = $HOME`."
    assert readable_text(r"broken $\frac{1}$ stays") == r"broken $\frac{1}$ stays"


def test_explain_prose_keeps_the_formulas_of_the_description() -> None:
    """Rich's Markdown read '\\,\\|\\,' as escapes and printed 'KL(\\pi_\\theta ,|, ...)'."""
    result = CliRunner().invoke(cli, ["--no-config", "explain", "grpo:kl"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "estimates KL(π_θ ‖" in result.output  # (the line may wrap after it)
    assert ",|," not in result.output
    assert "$" not in result.output.split("Healthy values")[0]

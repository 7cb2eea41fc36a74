"""A registry formula (LaTeX) as readable Unicode for a terminal, through pylatexenc.

``explain`` shows both: the Unicode rendering to read (``π_θ``, ``‖x‖_2``,
``∑_{b=1}^B``) and the exact LaTeX to copy. pylatexenc is the ``formulas``
extra (1.2 MB, which would take the core install past its 30 MB budget);
without it the LaTeX alone is shown. Its default conversion drops a few
macros the registry uses (``\\|`` vanished, ``\\log\\pi`` ran together), so
they are added here; multi-character sub- and superscripts keep their braces
so that ``k_{b,t}`` does not read as ``k_b,t``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

__all__ = ["readable", "readable_prose", "readable_text"]

# macro -> text, on top of pylatexenc's defaults
_MACROS = {
    "|": "‖",
    ",": "\u2009",
    ";": " ",
    "!": "",
    "log": "log ",
    "exp": "exp",
    "min": "min",
    "max": "max",
}
# \operatorname{clip} reads as \mathrm{clip}, which pylatexenc knows
# a side of a fraction that needs no parentheses: a number, or one symbol with its scripts
_ATOM = re.compile(r"\d+(?:\.\d+)?|\w(?:[_^](?:\{[^{}]*\}|\w))*")
_OPERATOR_NAME = re.compile(r"\\operatorname\*?\{")


@cache
def _converter() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    specs = [MacroTextSpec(name, simplify_repl=text) for name, text in _MACROS.items()]
    specs += [MacroTextSpec(name, simplify_repl=_fraction) for name in ("frac", "dfrac", "tfrac")]
    context.add_context_category("metrics-registry", prepend=True, macros=specs)
    return LatexNodes2Text(
        latex_context=context,
        math_mode="verbatim",
        keep_braced_groups=True,
        keep_braced_groups_minlen=2,
        strict_latex_spaces="based-on-source",  # "\\delta - 1" kept its space; the default ate it
    )


def _fraction(node: Any, l2tobj: Any) -> str:
    """``a/b``, with parentheses around a side that is more than one symbol (``(x+y)/(2n)``)."""
    sides = [l2tobj.nodelist_to_text([argument]).strip() for argument in node.nodeargd.argnlist[-2:]]
    sides = [side[1:-1] if side.startswith("{") and side.endswith("}") else side for side in sides]
    wrapped = [side if _ATOM.fullmatch(side) else f"({side})" for side in sides]
    return "/".join(wrapped)


def readable(latex: str) -> str | None:
    """``latex`` in Unicode, or ``None`` when pylatexenc is not installed or cannot read it."""
    try:
        converter = _converter()
    except ModuleNotFoundError:
        return None
    try:
        text = converter.latex_to_text(_OPERATOR_NAME.sub(r"\\mathrm{", latex))
    except Exception:
        return None
    return " ".join(text.split()) or None


# $$display$$ or $inline$ math in Markdown prose (the registry's own convention, as on the site)
_MATH = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\s)([^$\n]+?)(?<!\s)\$", re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
# what Markdown would read as markup in a rendered formula (π_θ, a*b, [x]); escaped, not reinterpreted
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]<>#+!|~])")


def readable_prose(markdown: str) -> str:
    """``markdown`` with each ``$…$`` formula in Unicode, for a terminal's Markdown renderer.

    Left to the renderer, ``$\\mathrm{KL}(\\pi\\,\\|\\,\\pi_{ref})$`` lost its escapes and read
    ``KL(\\pi ,|, \\pi_{ref})``. A formula pylatexenc cannot read (or without the ``formulas``
    extra) is kept exact, as a code span. Code spans are left as they are.
    """

    def formula(match: re.Match[str]) -> str:
        latex = match.group(1) or match.group(2)
        shown = readable(latex)
        if shown is None:
            return f"`` {latex} ``"
        return _MARKDOWN_PUNCTUATION.sub(r"\\\1", shown)

    return _formulas_outside_code(markdown, formula)


def readable_text(text: str) -> str:
    """``text`` with each ``$…$`` formula in Unicode, for plain text (a terminal report, no Markdown
    renderer: nothing is escaped). A formula pylatexenc cannot read keeps its ``$…$``; code spans
    are left as they are."""

    def formula(match: re.Match[str]) -> str:
        return readable(match.group(1) or match.group(2)) or match.group(0)

    return _formulas_outside_code(text, formula)


def _formulas_outside_code(text: str, formula: Callable[[re.Match[str]], str]) -> str:
    """``text`` with each ``$…$`` outside code spans replaced by ``formula(match)``."""
    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        out.append(_MATH.sub(formula, text[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(_MATH.sub(formula, text[last:]))
    return "".join(out)

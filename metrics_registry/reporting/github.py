"""GitHub Actions workflow commands: ``::error file=F,line=L,title=RULE::message``.

One finding is one line of the job's log, which the runner turns into an
annotation on the file and line. The escaping is the runner's own, as
``@actions/core`` does it (``escapeData`` and ``escapeProperty`` in
``toolkit/packages/core/src/command.ts``): ``%``, CR and LF in the message;
those and ``:`` and ``,`` in a property. Written by hand because no Python
library for it is maintained; the format is four replacements.

A message or a file name comes from untrusted input (a registry file, a
log's keys, the text fix-encoding reads), so it must never end the line
(a newline would let the rest be read as a command of its own, such as
``::add-mask::`` or ``::stop-commands::``) nor bring a terminal escape into
the job's log: the other control characters are shown as escapes
(``\\x1b``), the same set :mod:`metrics_registry.terminal` escapes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from metrics_registry.reporting.annotation import Annotation, display_path, encodable

__all__ = ["CONTROL_CHARACTERS", "annotation_line", "escape_data", "escape_property", "github_text"]

#: Control characters left after CR and LF are escaped: the set of
#: ``metrics_registry.terminal.CONTROL_CHARACTERS`` (a test keeps them equal),
#: repeated here because this subpackage imports nothing else of the package.
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

_COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def _visible(text: str) -> str:
    shown = CONTROL_CHARACTERS.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)
    return encodable(shown)


def escape_data(text: str) -> str:
    r"""A message for a workflow command: ``%``, CR and LF percent-encoded, other controls shown.

    >>> escape_data("100% sure\r\n::error::forged")
    '100%25 sure%0D%0A::error::forged'
    """
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return _visible(text)


def escape_property(text: str) -> str:
    """A property value (file, title): as :func:`escape_data`, and ``:`` and ``,`` too.

    >>> escape_property("a,b:c.yaml")
    'a%2Cb%3Ac.yaml'
    """
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation_line(annotation: Annotation) -> str:
    """The workflow command for ``annotation``: one line, no line break in it."""
    properties: list[tuple[str, str]] = []
    if annotation.path is not None:
        properties.append(("file", display_path(annotation.path)))
        if annotation.line is not None:
            properties.append(("line", str(annotation.line)))
            if annotation.column is not None:  # no endColumn: GitHub does not say if it is inclusive
                properties.append(("col", str(annotation.column)))
    properties.append(("title", annotation.rule.id))
    listed = ",".join(f"{name}={escape_property(value)}" for name, value in properties)
    return f"::{_COMMANDS[annotation.level]} {listed}::{escape_data(annotation.message)}"


def github_text(annotations: Iterable[Annotation]) -> str:
    """One workflow command per annotation, each on its own line."""
    return "".join(annotation_line(annotation) + "\n" for annotation in annotations)

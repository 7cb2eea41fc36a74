"""The one shape every finding takes on its way to a CI format."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlsplit

__all__ = ["Annotation", "Level", "RuleInfo", "display_path", "encodable", "help_uri", "relative_uri"]

_SURROGATES = re.compile("[\ud800-\udfff]")

#: SARIF's levels; GitHub calls ``note`` a ``notice``.
Level = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class RuleInfo:
    """What a finding's rule is: stable id, short name, one-sentence description, docs page.

    ``help_page`` is the page's path on the documentation site, from the
    site's root (``en/tools/check-run/#exit-codes``); :func:`help_uri` makes
    it absolute once the site's address is known.
    """

    id: str
    name: str
    description: str
    help_page: str | None = None
    default_level: Level | None = None


@dataclass(frozen=True)
class Annotation:
    """One finding: its rule, level and message, and where it is as far as it is known.

    ``line`` and ``column`` count from 1, columns in Unicode code points;
    ``end_column`` is the column just after the span. ``byte_offset`` places
    a finding in a binary file (a TensorBoard event file) that has no lines.
    """

    rule: RuleInfo
    level: Level
    message: str
    path: Path | None = None
    line: int | None = None
    column: int | None = None
    end_column: int | None = None
    byte_offset: int | None = None


def encodable(text: str) -> str:
    r"""``text`` with every lone surrogate shown as its escape, so that it can be written as UTF-8.

    A JSON log may hold ``"\ud800"`` in a key, and a file name that is not
    UTF-8 reaches Python with surrogate escapes; printed as they are, they
    stop the output with an encoding error.

    >>> encodable("key\ud800x")
    'key\\ud800x'
    """
    return _SURROGATES.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def help_uri(rule: RuleInfo, site_url: str) -> str | None:
    """The absolute URL of ``rule``'s docs page, or ``None`` without an absolute http(s) ``site_url``.

    >>> rule = RuleInfo("MR102", "unknown-field", "...", "en/contributing/adding-a-metric/#validation-rules")
    >>> help_uri(rule, "https://example.org/metrics")
    'https://example.org/metrics/en/contributing/adding-a-metric/#validation-rules'
    >>> help_uri(rule, "") is None, help_uri(rule, "docs/") is None
    (True, True)
    """
    if rule.help_page is None or not _absolute_http(site_url):
        return None
    return (site_url if site_url.endswith("/") else site_url + "/") + rule.help_page


def _absolute_http(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in {"http", "https"} and bool(parts.netloc)


def _absolute(path: Path) -> Path:
    """``path`` made absolute, ``..`` removed, symlinks not resolved: the name the user gave."""
    return Path(os.path.abspath(path))  # noqa: PTH100 (Path.resolve would follow symlinks)


def _inside(path: Path, cwd: Path) -> Path | None:
    """``path`` relative to ``cwd`` when it lies inside it (without resolving symlinks), else ``None``."""
    absolute = _absolute(path)
    try:
        return absolute.relative_to(cwd)
    except ValueError:
        return None


def display_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` as CI systems want it: relative to the current folder (POSIX), or absolute outside it.

    >>> display_path(Path("/work/repo/docs/x.md"), Path("/work/repo"))
    'docs/x.md'
    >>> display_path(Path("/etc/hosts"), Path("/work/repo"))
    '/etc/hosts'
    """
    cwd = Path.cwd() if cwd is None else cwd
    inside = _inside(path, cwd)
    return inside.as_posix() if inside is not None else _absolute(path).as_posix()


def relative_uri(path: Path, cwd: Path | None = None) -> tuple[str, bool]:
    """``(uri, relative)``: a URI reference to ``path``, relative to ``cwd`` when it lies inside it.

    Outside ``cwd`` it is an absolute ``file:`` URI. Characters that are not
    allowed in a URI path (spaces, ``%``, ``#``, ``?``, non-ASCII) are
    percent-encoded; ``,`` and ``:`` are allowed and stay.

    >>> relative_uri(Path("/work/repo/docs/a b,c%.md"), Path("/work/repo"))
    ('docs/a%20b,c%25.md', True)
    >>> relative_uri(Path("/tmp/x.md"), Path("/work/repo"))
    ('file:///tmp/x.md', False)
    """
    cwd = Path.cwd() if cwd is None else cwd
    inside = _inside(path, cwd)
    if inside is None:
        try:
            return _absolute(path).as_uri(), False
        except UnicodeEncodeError:
            return Path(encodable(str(_absolute(path)))).as_uri(), False
    text = inside.as_posix()
    try:  # the file name's own bytes, also where it is not UTF-8 (surrogate escapes)
        raw = os.fsencode(text)
    except UnicodeEncodeError:  # a lone surrogate no file system name can hold
        raw = encodable(text).encode("utf-8")
    uri = quote(raw, safe="/!$&'()*+,;=:@-._~")
    if ":" in text.split("/", 1)[0]:  # a first segment with ':' would read as a URI scheme
        uri = "./" + uri
    return uri, True

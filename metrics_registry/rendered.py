"""A command's rendered output, kept between runs, as ``man`` keeps preformatted pages.

``explain KEY`` is read while a run misbehaves, often several times over:
rendering it needs the registry's models (pydantic) and rich's Markdown,
~0.2 s of imports before a line is printed. The text it printed is kept in
the user's cache (:mod:`metrics_registry.cache`) under a key made of the
registry files' content and the package's code (the registry's own key),
the command's arguments, and what rich rendered for: the console's width,
colour system and encoding. The next identical call prints that text
without importing either.

Only outputs of a registry without errors are kept, so the warning a broken
registry earns is printed on every call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from metrics_registry import cache

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["output_key", "render_kept"]


def _console_signature(console: Console) -> str | None:
    """What rich's output depends on, or None when a capture would not print the same."""
    if console.legacy_windows or console.record:  # the Win32 console API writes in its own way
        return None
    return (
        f"{console.width}|{console.color_system}|{console.is_terminal}|{console.encoding}"
        f"|{console.no_color}|{console.options.ascii_only}"
    )


def output_key(registry_files: Iterable[Path], console: Console, *arguments: str | None) -> str | None:
    """The key of one command's output, or None when it must not be kept."""
    from metrics_registry.config import MAX_FILE_BYTES

    signature = _console_signature(console)
    if signature is None:
        return None
    purpose = "\0".join(["output", signature, *("-" if a is None else f"+{a}" for a in arguments)])
    return cache.cache_key(registry_files, MAX_FILE_BYTES, purpose=purpose)


def render_kept(key: str | None, console: Console, render: Callable[[], bool]) -> None:
    """Print the kept output for ``key``; else run ``render`` (it prints to ``console`` and says
    whether its output may be kept) and keep what it printed."""
    if key is not None:
        text = cache.read_text(key)
        if text is not None:
            console.file.write(text)
            console.file.flush()
            return
    if key is None:
        render()
        return
    with console.capture() as captured:
        keep = render()
    text = captured.get()
    console.file.write(text)
    console.file.flush()
    if keep:
        cache.write_text(key, text)

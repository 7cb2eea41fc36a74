"""``metrics-registry serve``: build, serve on localhost, rebuild on edits."""

from __future__ import annotations

import errno
import functools
import http.server
import threading
import time
from collections.abc import Callable
from pathlib import Path

from metrics_registry.registry import Registry, RegistryError
from metrics_registry.site.build import build_site, find_project_root

__all__ = ["PortInUse", "serve_site"]

_WATCHED = ("docs", "metrics_registry/data", "metrics_registry/templates", "extensions", "i18n", "mkdocs.yml")


def _snapshot(root: Path) -> dict[Path, float]:
    stamps: dict[Path, float] = {}
    for name in _WATCHED:
        base = root / name
        files = [base] if base.is_file() else base.rglob("*") if base.is_dir() else []
        for path in files:
            try:
                if path.is_file():
                    stamps[path] = path.stat().st_mtime
            except FileNotFoundError:  # deleted while we looked: the next poll sees it gone
                continue
    return stamps


class PortInUse(RegistryError):
    """The port is taken; nothing was built."""

    exit_code = 2


def _listen(port: int, directory: Path) -> http.server.ThreadingHTTPServer:
    """Bind the port first: a busy one fails at once, not after a whole build."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} is in use; pass --port N") from error
        raise PortInUse(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}") from error


def serve_site(load: Callable[[], Registry], *, port: int = 8000, poll: float = 1.0) -> None:
    """Serve ``site/`` on 127.0.0.1 and rebuild when a source file changes.

    Polling is used instead of a file-watching library: it needs nothing
    more and a one-second delay is fine for previewing documentation. A
    rebuild and a ``metrics-registry build`` run at the same time take
    turns (the build's lock); the server keeps serving the previous site
    until the new one is swapped in whole.
    """
    root = find_project_root()
    output = root / "site"
    with _listen(port, output) as server:
        print(build_site(load(), output=output, project_root=root))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(f"serving http://127.0.0.1:{port}/en/ (Ctrl+C to stop)")
        stamps = _snapshot(root)
        try:
            while True:
                time.sleep(poll)
                current = _snapshot(root)
                if current != stamps:
                    stamps = current
                    try:
                        print(build_site(load(), output=output, project_root=root))
                    except RegistryError as error:
                        print(f"rebuild failed: {error}")
        except KeyboardInterrupt:
            server.shutdown()

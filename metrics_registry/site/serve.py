"""``metrics-registry serve``: build, serve on localhost, rebuild on edits."""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Callable
from pathlib import Path

from metrics_registry.registry import Registry, RegistryError
from metrics_registry.site.build import build_site, find_project_root

__all__ = ["serve_site"]

_WATCHED = ("docs", "metrics_registry/data", "metrics_registry/templates", "extensions", "i18n", "mkdocs.yml")


def _snapshot(root: Path) -> dict[Path, float]:
    stamps: dict[Path, float] = {}
    for name in _WATCHED:
        base = root / name
        files = [base] if base.is_file() else base.rglob("*") if base.is_dir() else []
        for path in files:
            if path.is_file():
                stamps[path] = path.stat().st_mtime
    return stamps


def serve_site(load: Callable[[], Registry], *, port: int = 8000, poll: float = 1.0) -> None:
    """Serve ``site/`` on 127.0.0.1 and rebuild when a source file changes.

    Polling is used instead of a file-watching library: it needs nothing
    more and a one-second delay is fine for previewing documentation.
    """
    root = find_project_root()
    output = root / "site"
    print(build_site(load(), output=output, project_root=root))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(output))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
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

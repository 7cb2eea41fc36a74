"""``metrics-registry serve``: build, serve on localhost, rebuild what an edit touched, reload the page.

Edits are seen through watchdog's file-system events (inotify, FSEvents,
ReadDirectoryChangesW), not by polling. An edit under ``docs/<lang>/`` or
``i18n/<lang>/`` rebuilds that language only, the others being kept from the
current site (:func:`.build.build_site` with ``reuse``); an edit to the
registry, the templates, the English catalog templates or ``mkdocs.yml``
rebuilds every language. Edits that arrive together (an editor saving
several files, a ``git checkout``) make one rebuild.

Each page the server sends gets one ``<script src="/__reload.js">`` before
``</body>``: it asks ``/__reload?build=N``, which answers when build N+1 is
swapped in (a long poll, as MkDocs' own server does), and the page reloads
itself. The built files on disk are never changed: the script is added on
the way out.
"""

from __future__ import annotations

import errno
import http.server
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from metrics_registry.registry import Registry, RegistryError
from metrics_registry.site.build import build_site, find_project_root
from metrics_registry.site.languages import SITE_LANGUAGES

__all__ = ["PortInUse", "Rebuilds", "languages_to_rebuild", "serve_site"]

_WATCHED = (
    "docs",
    "metrics_registry/data",
    "metrics_registry/templates",
    "metrics_registry/site/static",  # the generated pages' styles and scripts
    "extensions",
    "i18n",
    "mkdocs.yml",
)
_PER_LANGUAGE = ("docs", "i18n")
#: Edits this close together make one rebuild.
_SETTLE_SECONDS = 0.3
#: How long a page's request for the next build waits before asking again.
_LONG_POLL_SECONDS = 25.0
_RELOAD_SCRIPT = b"""(function () {
  var build = %d;
  function ask() {
    fetch("/__reload?build=" + build, {cache: "no-store"}).then(function (r) { return r.text(); })
      .then(function (text) { if (Number(text) > build) { location.reload(); } else { ask(); } })
      .catch(function () { setTimeout(ask, 2000); });
  }
  ask();
})();
"""


class PortInUse(RegistryError):
    """The port is taken; nothing was built."""

    exit_code = 2


def languages_to_rebuild(root: Path, changed: Iterable[Path]) -> tuple[str, ...] | None:
    """The languages an edit of ``changed`` touches: a tuple, or ``None`` for every language."""
    codes = {language.code for language in SITE_LANGUAGES}
    touched: set[str] = set()
    for path in changed:
        try:
            parts = path.resolve().relative_to(root).parts
        except ValueError:
            continue
        relative = "/".join(parts)
        if len(parts) >= 2 and parts[0] in _PER_LANGUAGE and parts[1] in codes:
            touched.add(parts[1])
        elif any(relative == name or relative.startswith(f"{name}/") for name in _WATCHED):
            return None  # the registry, templates, catalog templates, mkdocs.yml: every page
    return tuple(code for code in (language.code for language in SITE_LANGUAGES) if code in touched)


class Rebuilds:
    """The build number, and a way to wait for the next one (what the pages' script asks)."""

    def __init__(self) -> None:
        self.number = 0
        self._changed = threading.Condition()

    def done(self) -> None:
        with self._changed:
            self.number += 1
            self._changed.notify_all()

    def after(self, number: int, timeout: float) -> int:
        """The build number once it is past ``number``, or the current one after ``timeout``."""
        with self._changed:
            self._changed.wait_for(lambda: self.number > number, timeout)
            return self.number


def _handler(directory: Path, rebuilds: Rebuilds) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(directory), **kwargs)

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            if path == "/__reload":
                since = query.removeprefix("build=")
                number = rebuilds.after(int(since) if since.isdigit() else 0, _LONG_POLL_SECONDS)
                self._send(str(number).encode(), "text/plain")
            elif path == "/__reload.js":
                self._send(_RELOAD_SCRIPT % rebuilds.number, "text/javascript")
            elif path.endswith((".html", "/")):
                self._page(path)
            else:
                super().do_GET()

        def _page(self, path: str) -> None:
            file = Path(self.translate_path(path))
            if file.is_dir():
                file = file / "index.html"
            try:
                body = file.read_bytes()
            except OSError:
                super().do_GET()  # the usual 404 or redirect
                return
            tag = b'<script src="/__reload.js"></script>'
            body = body.replace(b"</body>", tag + b"</body>", 1) if b"</body>" in body else body + tag
            self._send(body, "text/html; charset=utf-8")

        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the build reports are what the terminal shows

    return Handler


def _listen(port: int, directory: Path, rebuilds: Rebuilds) -> http.server.ThreadingHTTPServer:
    """Bind the port first: a busy one fails at once, not after a whole build."""
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _handler(directory, rebuilds))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} is in use; pass --port N") from error
        raise PortInUse(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}") from error
    server.daemon_threads = True
    return server


class _Edits:
    """The paths edited since the last rebuild, filled by watchdog's thread."""

    def __init__(self) -> None:
        self._paths: set[Path] = set()
        self._lock = threading.Lock()
        self.arrived = threading.Event()

    def add(self, path: Path) -> None:
        with self._lock:
            self._paths.add(path)
        self.arrived.set()

    def take(self) -> set[Path]:
        with self._lock:
            paths, self._paths = self._paths, set()
            self.arrived.clear()
            return paths


def _watch(root: Path, edits: _Edits) -> Any:
    """A started watchdog observer that records every path edited under the watched folders."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in ("opened", "closed_no_write") or (
                event.is_directory and event.event_type == "modified"  # a file in it changed: that file says
            ):
                return
            for name in (event.src_path, getattr(event, "dest_path", "")):
                if name:
                    edits.add(Path(str(name)))

    observer = Observer()
    for name in _WATCHED:
        target = root / name
        if target.is_dir():
            observer.schedule(Handler(), str(target), recursive=True)
        elif target.is_file():
            observer.schedule(Handler(), str(root), recursive=False)
    observer.start()
    return observer


def serve_site(load: Callable[[], Registry], *, port: int = 8000) -> None:
    """Serve ``site/`` on 127.0.0.1 and rebuild the languages an edit touches (see the module).

    A rebuild and a ``metrics-registry build`` run at the same time take
    turns (the build's lock); the server keeps serving the previous site
    until the new one is swapped in whole.
    """
    root = find_project_root()
    output = root / "site"
    rebuilds = Rebuilds()
    with _listen(port, output, rebuilds) as server:
        # Watched before the first build: an edit made while it runs, or right after "serving"
        # is printed, is rebuilt (started after it, the watch missed edits made in between).
        edits = _Edits()
        observer = _watch(root, edits)
        try:
            print(build_site(load(), output=output, project_root=root))
            threading.Thread(target=server.serve_forever, daemon=True).start()
            print(f"serving http://127.0.0.1:{port}/en/ (Ctrl+C to stop)")
            while True:
                edits.arrived.wait()
                time.sleep(_SETTLE_SECONDS)  # let a burst of edits finish
                languages = languages_to_rebuild(root, edits.take())
                if languages == ():
                    continue  # nothing the site is built from
                try:
                    report = build_site(
                        load(), output=output, project_root=root, languages=languages, reuse=True
                    )
                    print(report)
                    rebuilds.done()
                except RegistryError as error:
                    print(f"rebuild failed: {error}")
        except KeyboardInterrupt:
            server.shutdown()
        finally:
            observer.stop()
            observer.join()

"""One real build of the whole site (every language), shared by the site tests, a local server,
and a real browser (Debian's Chromium driven by Playwright) for the browser tests."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from _system import require_system
from playwright.sync_api import Browser, Page, sync_playwright

from metrics_registry import Registry
from metrics_registry.site.build import build_site

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def site_port() -> int:
    return _free_port()


@pytest.fixture(scope="session")
def base_url(site_port: int) -> str:
    return f"http://127.0.0.1:{site_port}/"


@pytest.fixture(scope="session")
def site(registry: Registry, base_url: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `metrics-registry build` makes it, for the URL the test server uses."""
    base = tmp_path_factory.mktemp("site")
    build_site(registry, output=base / "out", project_root=ROOT, work=base / "work", site_url=base_url)
    return base / "out"


@pytest.fixture(scope="session")
def served(site: Path, site_port: int, base_url: str) -> Iterator[str]:
    """The built site on a local HTTP server; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", site_port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base_url
    server.shutdown()
    server.server_close()


def _chromium() -> str:
    require_system("chromium")
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    assert path
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser, served: str) -> Iterator[Page]:
    """A fresh page that records every request it makes."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.requests = []  # type: ignore[attr-defined]
    page.on("request", lambda request: page.requests.append(request.url))  # type: ignore[attr-defined]
    yield page
    context.close()

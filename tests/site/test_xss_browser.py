"""Stored XSS (issue 14, class 1): the payload corpus built into a site and read in a real Chromium.

The corpus (``tests/fixtures/hostile/xss/``: ``corpus.yaml`` and its
Vietnamese and Chinese catalogs) puts a payload in every text field of a
family, in every language, and in the UI strings. It is built with the real
``build_site`` (MkDocs, Material, KaTeX) next to a clean build
(``clean.yaml``), and every page of every language is loaded in Debian's
Chromium with ``alert``/``confirm``/``prompt`` and dialogs recorded. Each
page must open no dialog, carry no inline event handler, no
``javascript:``/``data:``/``vbscript:`` URL and no frame, and run exactly
the scripts a clean page runs. A control page, the same corpus made HTML
without the site's policy, shows that these checks see a payload that runs.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import markdown
import pytest
from _system import require_system
from playwright.sync_api import Browser, Page, sync_playwright
from ruamel.yaml import YAML

from metrics_registry.api import validate
from metrics_registry.site.build import build_site
from metrics_registry.site.sanitize import clean_html

ROOT = Path(__file__).resolve().parents[2]
XSS = ROOT / "tests" / "fixtures" / "hostile" / "xss"
LANGUAGES = ("en", "vi", "zh")
TRUSTED_HTML = '<figure class="mr-trusted"><figcaption>Kept as written</figcaption></figure>'
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = pytest.mark.system("chromium")

# Records every alert/confirm/prompt before the page's own scripts run, in every frame.
_RECORD_CALLS = """
window.__mrCalls = [];
for (const name of ["alert", "confirm", "prompt"]) {
  const original = window[name].bind(window);
  window[name] = (...args) => {
    window.__mrCalls.push(`${name}(${args.join(",")})`);
    return original(...args);
  };
}
"""
# What a page carries that could run: handlers, dangerous URLs, frames, and its scripts.
_INSPECT = r"""
() => {
  const dangerous = /^(javascript|data|vbscript):/i;
  const report = {calls: window.__mrCalls || [], handlers: [], urls: [], elements: [], scripts: []};
  for (const element of document.querySelectorAll("*")) {
    for (const attribute of element.attributes) {
      const name = attribute.name.toLowerCase();
      const where = `<${element.tagName.toLowerCase()} ${name}="${attribute.value.slice(0, 60)}">`;
      if (name.startsWith("on")) report.handlers.push(where);
      // a browser skips control characters and spaces around a URL's scheme, and tabs/newlines in it
      const value = attribute.value.replace(/[\u0000-\u0020]/g, "");
      if (name === "srcdoc" || dangerous.test(value)) report.urls.push(where);
    }
  }
  const frames = "iframe, frame, frameset, object, embed, applet, base, meta[http-equiv], portal";
  for (const element of document.querySelectorAll(frames)) {
    report.elements.push(element.outerHTML.slice(0, 120));
  }
  for (const script of document.scripts) {
    if (script.type && !/javascript|module/i.test(script.type)) continue;  // data, e.g. Material's __config
    const path = script.src && new URL(script.src).pathname.replace(/^\/[a-z]{2}\//, "");
    report.scripts.push(script.src ? `src ${path}` : "inline");
  }
  report.scripts.sort();
  report.formulas = document.querySelectorAll(".arithmatex").length;
  report.rendered = document.querySelectorAll(".arithmatex .katex").length;
  return report;
}
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _project(folder: Path, *, catalogs: bool) -> Path:
    """A project folder with the repository's site settings and theme, and two hand-written pages."""
    folder.mkdir(parents=True)
    for name in ("mkdocs.yml", "package.json"):
        shutil.copy(ROOT / name, folder / name)
    (folder / "node_modules").symlink_to(ROOT / "node_modules")
    for part in ("overrides", "assets"):
        shutil.copytree(ROOT / "docs" / part, folder / "docs" / part)
    english = folder / "docs" / "en"
    (english / "contributing").mkdir(parents=True)
    # raw HTML outside the policy: a hand-written page is trusted and keeps it
    (english / "index.md").write_text(f"# Home\n\nA hand-written page.\n\n{TRUSTED_HTML}\n", encoding="utf-8")
    (english / "contributing" / "translating.md").write_text(
        "# Translating\n\nHow to help.\n", encoding="utf-8"
    )
    if catalogs:  # no hand-written translation: vi and zh show the notice, with the catalogs' UI strings
        shutil.copytree(XSS / "i18n", folder / "i18n")
    return folder


@pytest.fixture(scope="module")
def urls() -> dict[str, str]:
    """Each site on its own port (a site's 404 page links from the server's root)."""
    return {name: f"http://127.0.0.1:{_free_port()}/" for name in ("hostile", "clean")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, urls: dict[str, str]) -> dict[str, Path]:
    """The corpus site (every language, with the control page) and a clean one (English)."""
    base = tmp_path_factory.mktemp("xss")
    sites = {}
    for name, registry_file, languages in (
        ("hostile", XSS / "corpus.yaml", LANGUAGES),
        ("clean", XSS / "clean.yaml", ("en",)),
    ):
        # validate(), not load(): the corpus has MR150/MR151/MR152 errors, and the site must survive it anyway
        registry, findings = validate([registry_file], builtin=False)
        others = [f.format() for f in findings if f.rule not in ("MR150", "MR151", "MR152")]
        assert len(registry.families) == 1 and not others, others
        sites[name] = base / name
        build_site(
            registry,
            output=sites[name],
            project_root=_project(base / f"project-{name}", catalogs=name == "hostile"),
            work=base / f"work-{name}",
            languages=languages,
            site_url=urls[name],
        )
    (sites["hostile"] / "control.html").write_text(_control_page(), encoding="utf-8")
    return sites


@pytest.fixture(scope="module")
def served(built: dict[str, Path], urls: dict[str, str]) -> Iterator[dict[str, str]]:
    servers = []
    for name, folder in built.items():
        handler = functools.partial(_QuietHandler, directory=str(folder))
        port = int(urls[name].rsplit(":", 1)[1].strip("/"))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield urls
    for server in servers:
        server.shutdown()
        server.server_close()


def _control_page() -> str:
    """The corpus' details as plain Python-Markdown makes them, without the site's policy."""
    data = YAML(typ="safe").load((XSS / "corpus.yaml").read_text(encoding="utf-8"))
    body = "\n\n".join(markdown.markdown(metric["details"]) for metric in data["metrics"])
    return f"<!doctype html><html><head><meta charset='utf-8'></head><body>{body}</body></html>"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_system("chromium")  # a module fixture is set up before the marker's check runs
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    assert path
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def _inspect(browser: Browser, url: str) -> dict[str, Any]:
    """Load ``url`` in a fresh context and report what on it could run (see ``_INSPECT``)."""
    context = browser.new_context()
    context.add_init_script(_RECORD_CALLS)
    page: Page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(f"{dialog.type}: {dialog.message}"), dialog.dismiss()))
    response = page.goto(url, wait_until="load")
    assert response is not None and response.ok, url
    report: dict[str, Any] = page.evaluate(_INSPECT)
    report["dialogs"] = dialogs
    report["text"] = page.locator("body").inner_text()
    context.close()
    return report


def _pages(site: Path) -> list[str]:
    """Every page of a built site, as the URL path below the site's folder."""
    return sorted(
        path.relative_to(site).as_posix().removesuffix("index.html")
        for path in site.rglob("*.html")
        if len(path.relative_to(site).parts) > 1  # the root pages only redirect to a language
    )


@pytest.fixture(scope="module")
def reports(built: dict[str, Path], served: dict[str, str], browser: Browser) -> dict[str, dict[str, Any]]:
    """What every page of the corpus site, every clean page and the control page carry, by URL path."""
    found = {}
    for name, folder in built.items():
        for page in _pages(folder):
            found[f"{name}/{page}"] = _inspect(browser, f"{served[name]}{page}")
    found["control.html"] = _inspect(browser, f"{served['hostile']}control.html")
    return found


def _hostile(reports: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    pages = {path: report for path, report in reports.items() if path.startswith("hostile/")}
    # every language, each with its family page, generated pages and hand-written pages
    for lang in LANGUAGES:
        assert {f"hostile/{lang}/", f"hostile/{lang}/reference/xss/", f"hostile/{lang}/metrics/"} <= set(
            pages
        )
    return pages


def test_the_checks_see_a_payload_that_runs(reports: dict[str, dict[str, Any]]) -> None:
    """Without the site's policy the corpus runs: the checks below can fail."""
    control = reports["control.html"]
    assert control["calls"] and control["dialogs"]
    assert control["handlers"] and control["urls"] and control["elements"]


def test_no_dialog_opens_and_no_alert_is_called(reports: dict[str, dict[str, Any]]) -> None:
    fired = {
        path: r["calls"] + r["dialogs"] for path, r in _hostile(reports).items() if r["calls"] or r["dialogs"]
    }
    assert not fired


def test_no_inline_event_handler(reports: dict[str, dict[str, Any]]) -> None:
    handlers = {
        path: r["handlers"] for path, r in reports.items() if r["handlers"] and path != "control.html"
    }
    assert not handlers


def test_no_dangerous_url_and_no_frame(reports: dict[str, dict[str, Any]]) -> None:
    found = {
        path: r["urls"] + r["elements"]
        for path, r in reports.items()
        if (r["urls"] or r["elements"]) and path != "control.html"
    }
    assert not found


def test_only_the_sites_own_scripts(reports: dict[str, dict[str, Any]]) -> None:
    """Every page runs scripts a clean page runs: the theme's, KaTeX and the site's, no more.

    Pages differ in which: KaTeX only where a formula is, the family index's
    script only there (docs/overrides/main.html); the clean site has both.
    """
    clean = {tuple(r["scripts"]) for path, r in reports.items() if path.startswith("clean/")}
    expected = set().union(*clean)
    assert any(script.startswith("src assets/javascripts/bundle.") for script in expected)
    assert {"src assets/katex/katex.min.js", "src assets/javascripts/family-index.js"} <= expected
    assert any("src assets/katex/katex.min.js" not in scripts for scripts in clean)  # not on every page
    different = {
        path: sorted(set(r["scripts"]) - expected)
        for path, r in _hostile(reports).items()
        if not set(r["scripts"]) <= expected
    }
    assert not different


def test_the_texts_are_still_shown(reports: dict[str, dict[str, Any]]) -> None:
    """Cleaning removes the markup, not the page: titles and the quoted code stay readable."""

    def family(site: str) -> list[dict[str, Any]]:  # the family's index and its metrics' pages
        return [report for path, report in reports.items() if path.startswith(f"{site}/reference/")]

    english = family("hostile/en")
    assert len(english) > 4  # the index and a page per metric
    assert "Markdown constructs" in reports["hostile/en/reference/xss/"]["text"]  # the index's table
    # KaTeX had run when the page was inspected: its \\href payloads were checked as rendered
    formulas = sum(report["formulas"] for report in english)
    assert formulas >= 2 and sum(report["rendered"] for report in english) == formulas
    assert any("Văn bản tiếng Việt" in report["text"] for report in family("hostile/vi"))
    assert any("中文文本" in report["text"] for report in family("hostile/zh"))
    clean = " ".join(report["text"] for report in family("clean/en"))
    assert '<script>alert("not run")</script>' in clean and "a < b and c > d" in clean


def test_the_search_index_holds_no_markup_that_runs(built: dict[str, Path]) -> None:
    """Material renders search results as HTML: the index keeps bare tags only (<p>, <code>)."""
    for lang in LANGUAGES:
        index = json.loads(
            (built["hostile"] / lang / "search" / "search_index.json").read_text(encoding="utf-8")
        )
        texts = " ".join(doc["title"] + " " + doc["text"] for doc in index["docs"])
        assert "alert(" in texts  # the payloads are there, as text
        tags = set(re.findall(r"<(/?[a-zA-Z][^>]*)>", texts))
        assert tags <= {"p", "/p", "code", "/code", "ul", "/ul", "li", "/li", "ol", "/ol", "pre", "/pre"}, (
            tags
        )


def test_hand_written_pages_are_not_cleaned(built: dict[str, Path]) -> None:
    """Trusted pages keep raw HTML the policy would remove, in every language (English fallback)."""
    assert "<figure" not in clean_html(TRUSTED_HTML)
    for lang in LANGUAGES:
        assert TRUSTED_HTML in (built["hostile"] / lang / "index.html").read_text(encoding="utf-8")

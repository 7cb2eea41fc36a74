"""The MkDocs plugin renders the registry's pages inside another site, in its navigation, cleaned."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

from playwright.sync_api import Browser

from metrics_registry.site.assets import STATIC
from metrics_registry.site.mkdocs_plugin import ASSETS_FOLDER, SCRIPTS, STYLES


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _site(tmp_path: Path, plugin: str, nav: str = "", registry: str = "") -> Path:
    project = tmp_path / "trainer-docs"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "index.md").write_text("# My trainer\n\nIts documentation.\n", encoding="utf-8")
    (project / "mkdocs.yml").write_text(
        f"site_name: My trainer\nsite_url: https://example.org/\n{nav}plugins:\n  - search\n  - {plugin}\n",
        encoding="utf-8",
    )
    if registry:
        (project / "my_trainer.yaml").write_text(registry, encoding="utf-8")
    return project


def _build(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_a_trainers_site_shows_the_chosen_familys_pages_in_its_nav(tmp_path: Path) -> None:
    project = _site(
        tmp_path,
        "metrics-registry:\n      families: [grpo]\n      nav_title: Logged metrics",
        nav="nav:\n  - Home: index.md\n",
    )
    done = _build(project)
    assert done.returncode == 0, done.stderr
    site = project / "site"
    kl = (site / "metrics" / "reference" / "grpo" / "kl" / "index.html").read_text(encoding="utf-8")
    assert "KL" in kl and "arithmatex" in kl
    index = (site / "metrics" / "reference" / "grpo" / "index.html").read_text(encoding="utf-8")
    assert "Logged metrics" in index  # the section in the host's own navigation
    assert not (site / "metrics" / "reference" / "ppo").exists()  # only the chosen family
    assert "reference/ppo/" not in kl  # links to families left out became text
    assert "api/" not in kl  # and so did the links to this project's own pages


def test_a_registry_file_with_markup_stops_the_build_naming_it(tmp_path: Path) -> None:
    registry = """# yaml-language-server: $schema=x
family:
  id: mytrainer
  title: My trainer
  trainer: MyTrainer
  summary: Metrics of my trainer.
  versions_of: mytrainer
  versions:
    introduced: "1.0"
metrics:
  - key: loss
    versions:
      introduced: "1.0"
    category: loss
    title: Loss <script>alert(1)</script>
    summary: The loss <img src=x onerror=alert(1)> of a step.
    details: See [this](javascript:alert(1)) and <a href="javascript:alert(2)">that</a>.
    aggregation:
      reduce: mean
      over: tokens
      across_processes: mean
    unit: nats
    goal: minimize
    computable: false
"""
    project = _site(
        tmp_path,
        "metrics-registry:\n      families: [mytrainer]\n      registry: [my_trainer.yaml]",
        registry=registry,
    )
    done = _build(project)
    assert done.returncode != 0
    assert "my_trainer.yaml" in done.stderr and "MR15" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (project / "site" / "metrics").exists()


def test_an_unknown_family_is_a_clear_error(tmp_path: Path) -> None:
    project = _site(tmp_path, "metrics-registry:\n      families: [nope]")
    done = _build(project)
    assert done.returncode != 0
    assert "unknown families nope" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_pages_styles_and_scripts_work_in_the_host_site(tmp_path: Path, browser: Browser) -> None:
    """The index filter and the family index's sorting, in a Material site with instant navigation
    (pages swapped without loading the scripts again), as its readers use them."""
    project = _site(tmp_path, "metrics-registry:\n      families: [grpo, ppo]")
    config = project / "mkdocs.yml"
    config.write_text(
        config.read_text(encoding="utf-8") + "theme:\n  name: material\n  features: [navigation.instant]\n",
        encoding="utf-8",
    )
    done = _build(project)
    assert done.returncode == 0, done.stderr
    site = project / "site"
    for name in (*STYLES, *SCRIPTS):
        assert (site / ASSETS_FOLDER / name).read_bytes() == (STATIC / name).read_bytes()
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(f"{base}metrics/metrics/", wait_until="networkidle")
        rows = page.locator(".mr-index tbody tr")
        everything = rows.count()
        page.locator(".mr-filter input[type=search]").fill("clip")
        shown = page.locator(".mr-index tbody tr:visible").count()
        assert 0 < shown < everything  # the filter works
        page.goto(f"{base}metrics/reference/grpo/", wait_until="networkidle")
        assert page.locator(".mr-family-index .mr-sort").count() >= 3  # sortable headings
        badge = page.locator(".mr-badge").first
        assert badge.evaluate("b => getComputedStyle(b).borderTopStyle") == "solid"  # the styles apply
        # instant navigation: another family index, swapped in by Material's own script
        page.locator("a[href$='reference/ppo/']").first.evaluate("a => a.click()")
        page.wait_for_url(f"{base}metrics/reference/ppo/")
        page.wait_for_selector(".mr-family-index .mr-sort")
        assert (
            page.locator(".mr-family-index thead th .mr-sort").count()
            == page.locator(".mr-family-index thead th").count()
        )  # each heading set up once
    finally:
        context.close()
        server.shutdown()
        server.server_close()
    assert not problems, problems

"""The concept pages (site/concept_pages.py): what they hold, the real build, and a real browser."""

from __future__ import annotations

import functools
import html as htmllib
import http.server
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch
from playwright.sync_api import Browser, Page

from metrics_registry import Registry
from metrics_registry.api import validate
from metrics_registry.concepts import builtin_concepts, load_concepts
from metrics_registry.links import metric_page
from metrics_registry.models import FamilyInfo
from metrics_registry.reference import grpo, kl
from metrics_registry.reference import legacy_ppo as legacy
from metrics_registry.reference.concept_example import example_batch
from metrics_registry.registry import Entry
from metrics_registry.site.build import build_site
from metrics_registry.site.concept_pages import concept_pages, framework_label, number

LANGUAGES = ("en", "vi", "zh")
EXAMPLE_ROW = re.compile(
    r"<tr>\s*<td>(?P<framework>.*?)</td>\s*<td><a [^>]*><code>(?P<key>.*?)</code></a></td>\s*"
    r'<td[^>]*><span class="mr-example-value">(?P<value>[^<]*)</span></td>',
    re.S,
)


def _links(entry: Entry, page: str) -> str:
    return f"{entry.family.id}#{entry.anchor}"


def _no_numbers(entry: Entry) -> float | None:
    return None


# ------------------------------------------------------------------ content


def test_every_concept_a_metric_names_has_a_page_and_so_has_its_parent(registry: Registry) -> None:
    pages = {page.concept.id: page for page in concept_pages(registry, _links, _no_numbers)}
    named = {entry.metric.concept for entry in registry if entry.metric.concept}
    assert named <= set(pages)
    assert "clip-fraction" in pages and "entropy" in pages  # parents of named concepts
    low = pages["clip-fraction-low"]
    assert [c.id for c in low.parents] == ["clip-fraction"]
    assert {c.id for c in pages["clip-fraction"].children} >= {"clip-fraction-low", "clip-fraction-high"}
    keys = {(row.entry.family.id, row.entry.key) for row in pages["reference-kl"].rows}
    assert keys >= {("grpo", "kl"), ("ppo", "objective/kl"), ("legacy-ppo", "objective/kl")}


def _family(family_id: str, title: str, versions_of: str = "trl") -> FamilyInfo:
    return FamilyInfo.model_validate(
        {
            "id": family_id,
            "title": title,
            "trainer": "T",
            "summary": "s",
            "versions_of": versions_of,
            "versions": {"introduced": "1.0"},
        }
    )


def test_collisions_are_called_out(registry: Registry) -> None:
    """The same key meaning another quantity elsewhere, different names, and families without one."""
    kl_entry = registry.lookup("kl", family="grpo").entry
    approx = registry.lookup("policy/approxkl_avg", family="ppo").entry
    other = _family("other", "Other", versions_of="other")
    bare = _family("bare", "Bare", versions_of="bare")
    # a framework whose `kl` is a policy drift KL, logged with an alias too
    drift = Entry(kl_entry.metric.model_copy(update={"concept": "policy-drift-kl"}), other, kl_entry.path)
    small = Registry(
        {"grpo": kl_entry.family, "ppo": approx.family, "other": other, "bare": bare},
        [kl_entry, approx, drift],
        registry.concepts,
    )
    pages = {page.concept.id: page for page in concept_pages(small, _links, _no_numbers)}
    reference = pages["reference-kl"]
    assert [(name, row.entry.family.id) for name, row in reference.same_name] == [("kl", "other")]
    assert {family.id for family in reference.missing} == {"ppo", "other", "bare"}
    assert reference.names == {}  # one family: nothing named differently
    drift_page = pages["policy-drift-kl"]
    assert [(name, row.entry.family.id) for name, row in drift_page.same_name] == [("kl", "grpo")]
    assert drift_page.names == {"ppo": ["policy/approxkl_avg"], "other": ["kl"]}
    assert {family.id for family in drift_page.missing} == {"grpo", "bare"}
    # a family with a narrower concept's key is not "without equivalent" on the broader page
    assert "grpo" not in {family.id for family in pages["reference-kl"].missing}


def test_framework_labels() -> None:
    assert framework_label(_family("grpo", "GRPO"), "GRPO") == "TRL GRPO"
    assert framework_label(_family("legacy", "Legacy PPO (TRL v0.7)"), "Legacy PPO (TRL v0.7)") == (
        "Legacy PPO (TRL v0.7)"
    )
    assert framework_label(_family("verl", "verl", versions_of="verl"), "verl") == "verl"


def test_numbers_are_printed_short_and_nan_is_spelled() -> None:
    assert number(0.1 + 0.2) == "0.3"
    assert number(float("nan")) == "NaN"
    assert number(-0.0) == "0"
    assert number(123456789.0) == "1.23457e+08"


# --------------------------------------------------------------- real build


def _html(site: Path, lang: str, page: str) -> str:
    return (site / lang / page / "index.html").read_text(encoding="utf-8")


def _example_rows(html: str) -> dict[tuple[str, str], str]:
    section = html.split('class="mr-concept-example"', 1)[1].split("</table>", 1)[0]
    rows = {
        (htmllib.unescape(m["framework"]), htmllib.unescape(m["key"])): m["value"]
        for m in EXAMPLE_ROW.finditer(section)
    }
    assert rows, "no worked example on the page"
    return rows


def _direct_reference_kl() -> dict[str, float]:
    """The reference KL each family logs on the example batch, by direct calls of the references."""
    b = example_batch()
    per_micro = [
        grpo.kl_mean(
            t.logprobs, t.ref_logprobs, t.mask, old_logprobs=t.old_logprobs, use_bias_correction_kl=True
        )
        for t in b.micro_batches()
    ]
    return {
        "grpo": torch.stack(per_micro).mean().item(),
        "ppo": kl.sequence_kl_mean(b.flat.old_logprobs, b.flat.ref_logprobs, b.flat.mask).item(),
        "legacy-ppo": legacy.objective_kl(b.flat.old_logprobs, b.flat.ref_logprobs, b.flat.mask).item(),
    }


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_concept_page_prints_the_numbers_of_direct_calls(site: Path, registry: Registry, lang: str) -> None:
    html = _html(site, lang, "concepts/reference-kl")
    for anchor in ("concept-reference-kl", "keys", "differences", "worked-example"):
        assert f'id="{anchor}"' in html, anchor
    assert "<table>" in html and "| Key |" not in html  # the tables rendered
    rows = _example_rows(html)
    direct = _direct_reference_kl()
    printed = {key: value for (_, key), value in rows.items()}
    assert printed["kl"] == number(direct["grpo"])
    # PPO and the v0.7 trainer both log `objective/kl`: each row holds its own family's number
    assert sorted(v for (_, key), v in rows.items() if key == "objective/kl") == sorted(
        [number(direct["ppo"]), number(direct["legacy-ppo"])]
    )
    assert float(printed["kl"]) != pytest.approx(direct["ppo"])  # the estimators differ on the same tensors


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_concept_page_and_the_index_are_built(site: Path, registry: Registry, lang: str) -> None:
    pages = concept_pages(registry, _links, _no_numbers)
    index = _html(site, lang, "concepts")
    assert 'id="across-frameworks"' in index
    header = index.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert header.count("<th") == 1 + len(registry.families)
    body = index.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert body.count("<tr>") == len(pages)
    for page in pages:
        html = _html(site, lang, f"concepts/{page.concept.id}")
        assert f'id="concept-{page.concept.id}"' in html
        assert f'href="{page.concept.id}/"' in index
        for row in page.rows:
            # each key links to its metric's own page
            assert f'href="../../{metric_page(row.entry)}"' in html, (page.concept.id, row.entry.id)
    # each metric's documentation links to its concept's page
    family_page = _html(site, lang, "reference/grpo")
    assert (
        'href="../../concepts/reference-kl/"' in family_page
        or 'href="../../../concepts/reference-kl/"' in (_html(site, lang, "reference/grpo/kl"))
    )
    # the concept pages stay out of the search (their titles would outrank the metrics' sections)
    index = (site / lang / "search" / "search_index.json").read_text(encoding="utf-8")
    assert '"location":"concepts/reference-kl/' not in index.replace(" ", "")
    assert '"location":"concepts/' in index.replace(" ", "")  # the index of concepts is found


# ------------------------------------------------------------------ browser


@pytest.mark.system("chromium")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_concept_page_renders_its_table_and_example_without_console_errors(
    page: Page, served: str, lang: str
) -> None:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{served}{lang}/concepts/clip-fraction-region/", wait_until="networkidle")
    keys = page.locator("#keys").locator("xpath=following::table[1]").locator("tbody tr")
    assert keys.count() >= 3
    assert keys.first.is_visible()
    values = page.locator(".mr-concept-example .mr-example-value")
    assert values.count() >= 3
    assert all(values.nth(i).is_visible() for i in range(values.count()))
    texts = [values.nth(i).inner_text() for i in range(values.count())]
    assert all(re.fullmatch(r"-?\d+(\.\d+)?(e[+-]\d+)?|NaN", text) for text in texts), texts
    assert page.locator(".arithmatex .katex").count() >= 1  # the formulas rendered
    page.goto(f"{served}{lang}/concepts/", wait_until="networkidle")
    assert page.locator("#across-frameworks").count() == 1
    assert page.locator("article table tbody tr").count() >= 30
    assert errors == []


# ------------------------------------------------------------------ hostile

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile" / "xss"
ROOT = Path(__file__).resolve().parents[2]
_RECORD_CALLS = """
window.__mrCalls = [];
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = (...args) => { window.__mrCalls.push(`${name}(${args.join(",")})`); };
}
"""
_INSPECT = r"""
() => {
  const found = [];
  for (const element of document.querySelectorAll("*")) {
    for (const attribute of element.attributes) {
      const value = attribute.value.replace(/[\u0000-\u0020]/g, "");
      if (attribute.name.startsWith("on") || /^(javascript|data|vbscript):/i.test(value)) {
        found.push(`<${element.tagName} ${attribute.name}="${attribute.value}">`);
      }
    }
  }
  for (const element of document.querySelectorAll("iframe, frame, object, embed")) {
    found.push(element.outerHTML.slice(0, 80));
  }
  return {calls: window.__mrCalls, found, text: document.body.innerText};
}
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_markup_in_the_concept_list_is_reported_with_its_line() -> None:
    loaded = load_concepts(HOSTILE / "concepts" / "concepts.yaml")
    assert set(loaded.concepts) == {"xss-kl", "xss-child"}  # still read: the site must survive it
    found = {(f.rule, f.line, f.field) for f in loaded.findings}
    assert found >= {
        ("MR150", 8, "title"),
        ("MR150", 9, "summary"),
        ("MR151", 9, "summary"),
        ("MR150", 14, "title"),
        ("MR151", 15, "summary"),
    }, found
    assert not [f for f in builtin_concepts().findings if f.rule in ("MR150", "MR151")]


def _project(folder: Path) -> Path:
    """A project folder with the repository's site settings and theme, and the pages the build links to."""
    folder.mkdir(parents=True)
    for name in ("mkdocs.yml", "package.json"):
        shutil.copy(ROOT / name, folder / name)
    (folder / "node_modules").symlink_to(ROOT / "node_modules")
    for part in ("overrides", "assets"):
        shutil.copytree(ROOT / "docs" / part, folder / "docs" / part)
    english = folder / "docs" / "en"
    (english / "contributing").mkdir(parents=True)
    (english / "index.md").write_text("# Home\n\nA hand-written page.\n", encoding="utf-8")
    (english / "contributing" / "translating.md").write_text("# Translating\n\nHow.\n", encoding="utf-8")
    return folder


@pytest.mark.system("chromium")
def test_a_script_in_a_concept_title_never_runs(tmp_path: Path, browser: Browser) -> None:
    concepts = load_concepts(HOSTILE / "concepts" / "concepts.yaml").concepts
    clean, _ = validate([HOSTILE / "clean.yaml"], builtin=False)
    (entry,) = clean.entries
    other = _family("other", "Other <b>family</b>", versions_of="other")
    entries = [
        Entry(entry.metric.model_copy(update={"concept": "xss-kl"}), entry.family, entry.path),
        Entry(entry.metric.model_copy(update={"concept": "xss-child"}), other, entry.path),  # same key
    ]
    hostile = Registry({entry.family.id: entry.family, "other": other}, entries, concepts)
    url = f"http://127.0.0.1:{_free_port()}/"
    output = tmp_path / "site"
    build_site(
        hostile,
        output=output,
        project_root=_project(tmp_path / "project"),
        work=tmp_path / "work",
        languages=("en",),
        site_url=url,
    )
    handler = functools.partial(_QuietHandler, directory=str(output))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/"))), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    dialogs: list[str] = []
    try:
        for path in ("en/concepts/xss-kl/", "en/concepts/xss-child/", "en/concepts/"):
            context = browser.new_context()
            context.add_init_script(_RECORD_CALLS)
            page = context.new_page()
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            response = page.goto(url + path, wait_until="load")
            assert response is not None and response.ok, path
            report = page.evaluate(_INSPECT)
            context.close()
            assert report["calls"] == [] and dialogs == [], (path, report["calls"], dialogs)
            assert report["found"] == [], (path, report["found"])
            assert "KL" in report["text"] and "title" in report["text"], path  # the text stays readable
    finally:
        server.shutdown()
        server.server_close()


_TWICE = """
import sys
from metrics_registry.api import load
from metrics_registry.site.concept_pages import worked_examples

examples = worked_examples(load())
print(len([v for v in examples.values.values() if v is not None]), "torch" in sys.modules)
"""


def test_the_worked_examples_are_kept_in_the_cache(tmp_path: Path) -> None:
    """A second build with the same references reads the numbers back without importing torch."""
    env = {**os.environ, "METRICS_REGISTRY_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", _TWICE], capture_output=True, text=True, env=env, check=True
        ).stdout
        for _ in range(2)
    ]
    count = int(runs[0].split()[0])
    assert count >= 50
    assert runs == [f"{count} True\n", f"{count} False\n"]

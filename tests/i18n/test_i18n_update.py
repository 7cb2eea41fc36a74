"""Editing one English text makes exactly that entry fuzzy, everywhere it is translated."""

from __future__ import annotations

import json
from pathlib import Path

from babel.messages.catalog import Catalog
from click.testing import CliRunner

import metrics_registry
from metrics_registry.cli import cli
from metrics_registry.i18n.catalogs import read_catalog, update_catalog
from metrics_registry.site.generate import generate_pages

STEM = "Mean over completion tokens of the k3 estimate of the KL divergence"
OLD = f"{STEM} from the policy to the reference model."
NEW = f"{STEM} from the reference model to the policy."


def _translated(project: Path, lang: str) -> dict[str | None, tuple[str, bool]]:
    catalog = read_catalog(project / "i18n" / lang / "LC_MESSAGES" / "registry.po")
    return {m.context: (m.string, m.fuzzy) for m in catalog if m.id and m.string}


def test_editing_one_summary_makes_exactly_that_entry_fuzzy(project: Path) -> None:
    runner = CliRunner()
    before = {lang: _translated(project, lang) for lang in ("vi", "zh")}
    assert all(before[lang]["grpo:kl|summary"][1] is False for lang in before)
    yaml = project / "metrics_registry" / "data" / "grpo.yaml"
    text = yaml.read_text(encoding="utf-8")
    assert text.count(f"summary: {OLD}") == 1
    yaml.write_text(text.replace(f"summary: {OLD}", f"summary: {NEW}"), encoding="utf-8")

    result = runner.invoke(cli, ["i18n", "update", "--root", str(project)])
    assert result.exit_code == 0, result.output
    for lang in ("vi", "zh"):
        after = _translated(project, lang)
        changed = {ctx for ctx in after if after[ctx] != before[lang].get(ctx)}
        assert changed == {"grpo:kl|summary"}
        assert after["grpo:kl|summary"] == (before[lang]["grpo:kl|summary"][0], True)
        po = project / "i18n" / lang / "LC_MESSAGES" / "registry.po"
        message = read_catalog(po).get(NEW, context="grpo:kl|summary")
        assert message is not None and message.previous_id == [OLD]
        assert '#| msgid ""\n#| "Mean over completion tokens' in po.read_text(encoding="utf-8")

    status = runner.invoke(
        cli, ["i18n", "status", "--root", str(project), "--format", "json", "--min-translated", "0"]
    )
    report = json.loads(status.output)["languages"]
    for lang in ("vi", "zh"):
        assert report[lang]["families"]["grpo"]["fuzzy"] == 1
        assert report[lang]["total"]["fuzzy"] == 1
    failed = runner.invoke(
        cli, ["i18n", "status", "--root", str(project), "--check", "--min-translated", "0"]
    )
    assert failed.exit_code == 1
    assert "i18n check failed for vi, zh" in failed.output

    # the page shows the new English under the "outdated" notice
    docs = project / "docs"
    (docs / "en").mkdir(parents=True)
    generate_pages(_load(project), project, project / "out", lang="zh")
    section = (project / "out" / "reference" / "grpo" / "kl.md").read_text(encoding="utf-8")
    assert '!!! warning "翻译已过时"' in section
    assert NEW in section
    assert "(../../contributing/translating.md)" in section


def _load(project: Path) -> metrics_registry.Registry:
    """The registry from the edited copy (not the installed package data)."""
    files = sorted((project / "metrics_registry" / "data").glob("*.yaml"))
    return metrics_registry.load([*files, project / "extensions" / "multiturn_grpo.yaml"], builtin=False)


def test_update_never_guesses_translations_for_new_strings() -> None:
    catalog = Catalog(locale="vi")
    catalog.add(
        "Mean KL divergence to the reference model.", "Phân kỳ KL trung bình.", context="grpo:kl|summary"
    )
    template = Catalog()
    template.add("Mean KL divergence to the reference model.", context="ppo:kl|summary")  # same English
    template.add("Mean KL divergences to the reference model!", context="ppo:other|summary")  # close English
    assert update_catalog(catalog, template) == []
    assert all(not m.string and not m.fuzzy for m in catalog if m.id)


def test_no_previous_drops_the_previous_english(project: Path) -> None:
    yaml = project / "metrics_registry" / "data" / "grpo.yaml"
    yaml.write_text(yaml.read_text(encoding="utf-8").replace(OLD, NEW), encoding="utf-8")
    result = CliRunner().invoke(cli, ["i18n", "update", "--root", str(project), "--no-previous"])
    assert result.exit_code == 0, result.output
    po = (project / "i18n" / "vi" / "LC_MESSAGES" / "registry.po").read_text(encoding="utf-8")
    assert "#| msgid" not in po
    assert "#, fuzzy" in po

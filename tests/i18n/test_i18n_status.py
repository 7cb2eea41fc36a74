"""status, compile and add-language on real catalogs."""

from __future__ import annotations

import gettext
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics_registry.cli import cli
from metrics_registry.i18n.catalogs import read_catalog, render_po
from metrics_registry.i18n.translate import Translator, load_catalog


def _status(project: Path, *args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(cli, ["i18n", "status", "--root", str(project), "--format", "json", *args])
    return result.exit_code, json.loads(result.output) if result.output.startswith("{") else {}


def test_status_counts_per_language_and_family(project: Path) -> None:
    code, report = _status(project)
    assert code == 0
    for lang in ("vi", "zh"):
        total = report["languages"][lang]["total"]
        assert total["translated"] + total["fuzzy"] + total["missing"] == total["total"] > 900
        families = report["languages"][lang]["families"]
        assert {"grpo", "ppo", "legacy-ppo", "multiturn-grpo", "ui"} <= set(families)
        assert families["grpo"]["translated"] >= 2  # grpo:kl title and summary
        assert sum(f["total"] for f in families.values()) == total["total"]
    assert report["bar"] == {"min_translated": 100.0, "max_fuzzy": 0, "max_qa_findings": 0}


def test_fuzzy_never_counts_as_translated(project: Path) -> None:
    _, before = _status(project, "--lang", "zh")
    path = project / "i18n" / "zh" / "LC_MESSAGES" / "registry.po"
    catalog = read_catalog(path)
    next(m for m in catalog if m.context == "grpo:kl|title").flags.add("fuzzy")
    path.write_text(render_po(catalog), encoding="utf-8")
    _, after = _status(project, "--lang", "zh", "--verbose")
    grpo_before, grpo_after = (
        before["languages"]["zh"]["families"]["grpo"],
        after["languages"]["zh"]["families"]["grpo"],
    )
    assert grpo_after["translated"] == grpo_before["translated"] - 1
    assert grpo_after["fuzzy"] == grpo_before["fuzzy"] + 1
    assert grpo_after["fuzzy_contexts"] == ["grpo:kl|title"]


def test_check_uses_the_bar(project: Path) -> None:
    for lang in ("vi", "zh"):  # one entry untranslated, so neither language is at 100 %
        path = project / "i18n" / lang / "LC_MESSAGES" / "registry.po"
        catalog = read_catalog(path)
        next(m for m in catalog if m.context == "grpo:kl|title").string = ""
        path.write_text(render_po(catalog), encoding="utf-8")
    _, report = _status(project)
    lowest = min(report["languages"][lang]["total"]["percent"] for lang in ("vi", "zh"))
    assert lowest < 100
    runner = CliRunner()
    base = ["i18n", "status", "--root", str(project), "--check"]
    assert runner.invoke(cli, base).exit_code == 1  # default bar: 100 %
    assert runner.invoke(cli, [*base, "--min-translated", "0"]).exit_code == 0
    assert runner.invoke(cli, [*base, "--min-translated", f"{lowest + 0.01:.2f}"]).exit_code == 1


def test_text_status_lists_languages_and_families(project: Path) -> None:
    result = CliRunner().invoke(cli, ["i18n", "status", "--root", str(project)])
    assert result.exit_code == 0
    assert result.output.startswith("vi: ")
    assert "\nzh: " in result.output and "  grpo " in result.output and "  ui " in result.output


def test_compile_leaves_fuzzy_out(project: Path) -> None:
    path = project / "i18n" / "vi" / "LC_MESSAGES" / "registry.po"
    catalog = read_catalog(path)
    next(m for m in catalog if m.context == "grpo:kl|title").flags.add("fuzzy")
    path.write_text(render_po(catalog), encoding="utf-8")
    result = CliRunner().invoke(cli, ["i18n", "compile", "--root", str(project), "--lang", "vi"])
    assert result.exit_code == 0, result.output
    with path.with_suffix(".mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    title = "KL divergence to the reference model"
    assert compiled.pgettext("grpo:kl|title", title) == title  # fuzzy: left out
    summary = next(m.id for m in catalog if m.context == "grpo:kl|summary")
    assert compiled.pgettext("grpo:kl|summary", summary).startswith("Trung bình")
    # the site reads a language shipped as .mo only, fuzzy entries counting as missing
    path.unlink()
    translator = Translator("vi", load_catalog(project, "vi", "registry"))
    assert translator.catalog is not None
    from metrics_registry.i18n.catalogs import message_state

    assert message_state(translator.catalog, summary, "grpo:kl|summary")[0] == "translated"
    assert message_state(translator.catalog, title, "grpo:kl|title")[0] == "missing"


def test_add_language_is_one_command(project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["i18n", "add-language", "ja", "--root", str(project)])
    assert result.exit_code == 0, result.output
    for domain in ("registry", "ui"):
        path = project / "i18n" / "ja" / "LC_MESSAGES" / f"{domain}.po"
        text = path.read_text(encoding="utf-8")
        assert '"Language: ja\\n"' in text and '"Plural-Forms: nplurals=1; plural=0;\\n"' in text
        assert "POT-Creation-Date" not in text and '#, fuzzy\nmsgid ""' not in text
    _, report = _status(project, "--lang", "ja")
    assert report["languages"]["ja"]["total"]["translated"] == 0
    again = runner.invoke(cli, ["i18n", "add-language", "ja", "--root", str(project)])
    assert again.exit_code == 1 and "already exists" in again.output
    assert (
        runner.invoke(cli, ["i18n", "add-language", "xx-notalocale", "--root", str(project)]).exit_code == 1
    )


def test_shipped_translations_are_complete_and_clean() -> None:
    """The project's bar: every registry field, UI string and page in vi and zh, current, no QA finding."""
    root = Path(__file__).resolve().parents[2]
    result = CliRunner().invoke(cli, ["i18n", "status", "--root", str(root), "--check"])
    assert result.exit_code == 0, result.output
    assert "vi: 100.0% translated" in result.output and "zh: 100.0% translated" in result.output


@pytest.mark.system("gettext")
def test_shipped_catalogs_pass_msgfmt() -> None:
    """What Poedit and Weblate run on open: GNU msgfmt's checks (header, plural forms, formats)."""
    import shutil
    import subprocess

    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "GNU gettext's msgfmt is needed (apt-get install gettext)"
    root = Path(__file__).resolve().parents[2]
    for po in sorted((root / "i18n").glob("*/LC_MESSAGES/*.po")):
        result = subprocess.run(
            [msgfmt, "-c", "-o", "/dev/null", str(po)], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, f"{po}: {result.stderr}"

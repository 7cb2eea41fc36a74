"""The Babel extractor, run through ``pybabel extract`` itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

import metrics_registry
from metrics_registry.cli import cli
from metrics_registry.i18n import I18nError
from metrics_registry.i18n.extract import extract_catalogs
from metrics_registry.i18n.fields import metric_context, metric_texts

KL_SUMMARY = (
    "Mean over completion tokens of the k3 estimate of the KL divergence"
    " from the policy to the reference model."
)


def _pybabel(project: Path, out: Path) -> None:
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run(
        [str(pybabel), "extract", "-F", "i18n/babel.cfg", "-o", str(out), "."],
        cwd=project,
        check=True,
        capture_output=True,
    )


def _yaml_line(path: Path, text: str, after: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    start = lines.index(after)
    return next(i for i in range(start, len(lines)) if lines[i].strip().startswith(text)) + 1


def test_pybabel_extracts_registry_fields_with_context_and_line(project: Path, tmp_path: Path) -> None:
    _pybabel(project, tmp_path / "all.pot")
    with (tmp_path / "all.pot").open("rb") as handle:
        catalog = read_po(handle)
    message = catalog.get(KL_SUMMARY, context="grpo:kl|summary")
    assert message is not None
    yaml = project / "metrics_registry" / "data" / "grpo.yaml"
    assert message.locations == [
        ("metrics_registry/data/grpo.yaml", _yaml_line(yaml, "summary:", "  - key: kl"))
    ]
    contexts = {m.context for m in catalog if m.id and m.context}
    assert "grpo|summary" in contexts and "grpo|title" in contexts
    assert any(c.startswith("grpo:kl|healthy[") and c.endswith("].suggests") for c in contexts)
    assert "grpo:kl|aggregation.over" in contexts
    assert any(c.startswith("multiturn-grpo:") for c in contexts)  # extensions/*.yaml
    # UI strings from the templates (jinja2) and the generator (python)
    ui = {m.id for m in catalog if m.id and m.context is None}
    assert {
        "Healthy values",
        "Aggregation",
        "Logged only when",
        "Not translated yet",
        "goes up over the run",
    } <= ui


def test_every_text_field_of_every_metric_is_extracted(project: Path, tmp_path: Path) -> None:
    _pybabel(project, tmp_path / "all.pot")
    with (tmp_path / "all.pot").open("rb") as handle:
        extracted = {(m.context, m.id) for m in read_po(handle) if m.id}
    registry = metrics_registry.load([project / "extensions" / "multiturn_grpo.yaml"])
    expected = {
        (metric_context(e.family.id, e.key, f.path), f.text)
        for e in registry
        for f in metric_texts(e.metric.model_dump(mode="json"))
    }
    assert len(expected) > 700
    assert expected <= extracted
    fields = {path.split("[")[0].split(".")[0] for (path, _) in ((c.split("|")[1], i) for c, i in expected)}
    assert {"title", "summary", "details", "aggregation", "healthy", "gated_by", "changes"} <= fields
    assert {"meaning_depends_on", "known_issues", "reduction"} <= fields


def test_concepts_are_extracted_with_their_own_context_and_line(project: Path, tmp_path: Path) -> None:
    _pybabel(project, tmp_path / "all.pot")
    with (tmp_path / "all.pot").open("rb") as handle:
        catalog = read_po(handle)
    concepts = project / "metrics_registry" / "data" / "concepts" / "concepts.yaml"
    lines = concepts.read_text(encoding="utf-8").splitlines()
    start = lines.index("  - id: clip-fraction-low")
    title = catalog.get("Clip fraction, low side", context="concept:clip-fraction-low|title")
    assert title is not None
    assert title.locations == [("metrics_registry/data/concepts/concepts.yaml", start + 3)]
    summaries = {m.context for m in catalog if m.context and m.context.endswith("|summary")}
    assert {"concept:clip-fraction-low|summary", "concept:reference-kl|summary"} <= summaries


def test_new_list_fields_are_named_by_their_ids(valid_file: Path) -> None:
    from metrics_registry.i18n.extract import extract_registry

    with valid_file.open("rb") as handle:
        found = {context: line for line, _f, (context, _t), _c in extract_registry(handle, (), (), {})}
    owner = "toy:toy/reward/{name}/mean|"
    lines = valid_file.read_text(encoding="utf-8").splitlines()

    def line_of(text: str) -> int:
        return next(i for i, line in enumerate(lines, 1) if text in line)

    assert found[owner + "meaning_depends_on[scale].effect"] == line_of("effect: Rewards are divided")
    assert found[owner + "known_issues[https://example.org/toy/issues/1].description"] == line_of(
        "description: Summed over workers"
    )
    assert found[owner + "reduction[rank].note"] == line_of("note: Sums and counts")
    assert owner + "reduction[sequence].note" not in found  # a stage without a note has nothing to translate


def test_i18n_extract_writes_two_domains_deterministically(project: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["i18n", "extract", "--root", str(project)])
    assert result.exit_code == 0, result.output
    first = {d: (project / "i18n" / f"{d}.pot").read_bytes() for d in ("registry", "ui")}
    assert runner.invoke(cli, ["i18n", "extract", "--root", str(project)]).exit_code == 0
    assert first == {d: (project / "i18n" / f"{d}.pot").read_bytes() for d in ("registry", "ui")}
    assert b"POT-Creation-Date" not in first["registry"]
    with (project / "i18n" / "registry.pot").open("rb") as handle:
        registry_pot = read_po(handle)
    with (project / "i18n" / "ui.pot").open("rb") as handle:
        ui_pot = read_po(handle)
    assert all(m.context for m in registry_pot if m.id)
    assert not any(m.context for m in ui_pot if m.id)
    _pybabel(project, tmp_path / "all.pot")
    with (tmp_path / "all.pot").open("rb") as handle:
        everything = {(m.context, m.id) for m in read_po(handle) if m.id}
    assert {(m.context, m.id) for m in registry_pot if m.id} | {
        (None, m.id) for m in ui_pot if m.id
    } == everything


def test_a_template_that_does_not_parse_is_an_error_not_a_silent_skip(project: Path) -> None:
    """Jinja's extractor skips such a template by default: all its strings would leave the catalogs."""
    broken = project / "metrics_registry" / "templates" / "broken.md.j2"
    template = '{{ _("Fine") }}\n\n{% for x in y %}\n{% frobnicate %}\n{% endfor %}\n'
    broken.write_text(template, encoding="utf-8")
    with pytest.raises(I18nError, match=r"broken\.md\.j2:4: .*frobnicate.*i18n/babel\.cfg"):
        extract_catalogs(project)

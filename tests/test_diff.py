"""``metrics-registry diff``: two real registry folders, and git revisions of a real repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics_registry import Entry, Registry
from metrics_registry.cli import cli
from metrics_registry.diff import DiffSourceError, FieldChange, MetricDiff, RegistryDiff, compare, load_source
from metrics_registry.diff.render import render_markdown, render_text

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "metrics_registry" / "data"
NEW_FORMULA = r"\mathrm{KL} = \frac{1}{|o|}\sum_t \left(r_t - \log r_t - 1\right)"


def _edit(text: str, anchor: str, old: str, new: str) -> str:
    """Replace the first ``old`` after ``anchor`` (the ``- key:`` line of an entry)."""
    start = text.index(anchor)
    at = text.index(old, start)
    return text[:at] + new + text[at + len(old) :]


def _drop_entry(text: str, anchor: str) -> str:
    start = text.index(anchor)
    end = text.find("\n  - key:", start + len(anchor))
    return text[:start] + text[end + 1 :]


def _changed_grpo(text: str) -> str:
    """The edits the tests look for: a formula, a rename, a deprecation and a removal."""
    formula_line = next(
        line for line in text[text.index("  - key: kl\n") :].splitlines() if line.startswith("    formula:")
    )
    text = _edit(text, "  - key: kl\n", formula_line, f"    formula: {NEW_FORMULA}")
    text = _edit(
        text,
        "  - key: completions/min_length\n",
        "  - key: completions/min_length\n",
        "  - key: completions/shortest_length\n    replaces:\n      - completions/min_length\n",
    )
    text = _edit(
        text,
        "  - key: completions/max_length\n",
        '      introduced: "0.17.0"\n',
        '      introduced: "0.17.0"\n      removed: "2.0.0"\n',
    )
    return _drop_entry(text, "  - key: completions/max_terminated_length\n")


@pytest.fixture(scope="module")
def two_folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("registries")
    old, new = base / "old", base / "new"
    for folder in (old, new):
        folder.mkdir()
        shutil.copy2(DATA / "grpo.yaml", folder / "grpo.yaml")
    grpo = new / "grpo.yaml"
    grpo.write_text(_changed_grpo(grpo.read_text(encoding="utf-8")), encoding="utf-8")
    return old, new


def test_folders(two_folders: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = (load_source(str(p), tmp_path / name) for p, name in zip(two_folders, ("a", "b"), strict=True))
    assert not old.problems and not new.problems
    diff = compare(old.registry, new.registry, "old", "new")
    changed = {m.id: m for m in diff.changed}
    (formula,) = [c for c in changed["grpo:kl"].changes if c.field == "formula"]
    assert formula.new == NEW_FORMULA and formula.old != NEW_FORMULA
    assert [(m.old_id, m.id, m.via) for m in diff.renamed] == [
        ("grpo:completions/min_length", "grpo:completions/shortest_length", "replaces")
    ]
    assert [m.id for m in diff.removed] == ["grpo:completions/max_terminated_length"]
    assert [(m.id, m.removed_in) for m in diff.deprecated] == [("grpo:completions/max_length", "2.0.0")]
    assert diff.added == []
    assert diff.counts() == {"added": 0, "removed": 1, "renamed": 1, "deprecated": 1, "changed": 2}
    text = render_text(diff)
    assert f"formula: {formula.old} -> {NEW_FORMULA}" in text
    assert "~ grpo:completions/min_length -> grpo:completions/shortest_length (via replaces)" in text
    assert "## Renamed" in render_markdown(diff)
    backwards = compare(new.registry, old.registry)
    assert [m.id for m in backwards.added] == [
        "grpo:completions/max_terminated_length",
        "grpo:completions/min_length",
    ]


def test_rename_through_an_alias(registry: Registry) -> None:
    base = registry.lookup("kl", family="grpo").entry

    def only(key: str, aliases: list[str]) -> Registry:
        metric = base.metric.model_copy(update={"key": key, "aliases": aliases})
        return Registry({"grpo": base.family}, [Entry(metric, base.family, base.path)])

    diff = compare(only("kl", []), only("kl_k3", ["kl"]))
    assert [(m.old_id, m.id, m.via) for m in diff.renamed] == [("grpo:kl", "grpo:kl_k3", "alias")]
    assert [c.field for c in diff.renamed[0].changes] == ["aliases"]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with two commits: the registry as shipped, then with a changed formula."""
    repo = tmp_path_factory.mktemp("project")
    data = repo / "metrics_registry" / "data"
    data.mkdir(parents=True)
    shutil.copy2(DATA / "grpo.yaml", data / "grpo.yaml")
    (repo / "extensions").mkdir()
    shutil.copy2(ROOT / "extensions" / "multiturn_grpo.yaml", repo / "extensions" / "multiturn_grpo.yaml")
    (repo / "pyproject.toml").write_text(
        '[tool.metrics-registry]\nextra-registries = ["extensions/multiturn_grpo.yaml"]\n', encoding="utf-8"
    )
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "registry")
    grpo = data / "grpo.yaml"
    grpo.write_text(_changed_grpo(grpo.read_text(encoding="utf-8")), encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "change the kl formula")
    return repo


def test_git_revisions(repo: Path, tmp_path: Path) -> None:
    old = load_source("HEAD~1", tmp_path / "old", cwd=repo)
    new = load_source("HEAD", tmp_path / "new", cwd=repo)
    assert set(old.registry.families) == {"grpo", "multiturn-grpo"}  # the configured extension too
    diff = compare(old.registry, new.registry)
    (formula,) = [c for m in diff.changed if m.id == "grpo:kl" for c in m.changes if c.field == "formula"]
    assert formula.new == NEW_FORMULA


def test_git_revision_against_the_work_tree_from_the_command_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    args = ["diff", "HEAD~1:metrics_registry/data", "metrics_registry/data", "--format", "json"]
    result = CliRunner().invoke(cli, [*args, "--exit-code"], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    kl = next(m for m in document["changed"] if m["id"] == "grpo:kl")
    assert {"field": "formula", "old": kl["changes"][0]["old"], "new": NEW_FORMULA} in kl["changes"]
    assert document["counts"]["renamed"] == 1


def test_entries_the_current_format_cannot_read_are_left_out(repo: Path, tmp_path: Path) -> None:
    extension = repo / "extensions" / "multiturn_grpo.yaml"
    original = extension.read_text(encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text(original.replace("    category:", "    categry:", 1), encoding="utf-8")
    source = load_source(str(broken), tmp_path / "x")
    assert {f.rule for f in source.problems} == {"MR102", "MR103"}  # unknown 'categry', missing 'category'
    assert str(source.problems[0].file).endswith("broken.yaml")
    result = CliRunner().invoke(cli, ["diff", str(extension), str(broken)], catch_exceptions=False)
    assert "entries this version cannot read are left out" in result.stderr
    assert "- multiturn-grpo:train/groups_kept" in result.output


def test_neither_path_nor_revision(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(DiffSourceError, match="neither a file or folder nor a git revision"):
        load_source("no-such-thing", tmp_path, cwd=repo)
    with pytest.raises(DiffSourceError, match="no registry YAML files at docs"):
        load_source("HEAD:docs", tmp_path, cwd=repo)


def test_long_texts_are_shown_as_a_word_diff() -> None:
    old = "Mean over completion tokens of the k3 estimate of the KL divergence, masked."
    new = "Mean over completion tokens of the k1 estimate of the KL divergence, masked."
    diff = RegistryDiff(
        "a", "b", changed=[MetricDiff("changed", "grpo:kl", changes=(FieldChange("summary", old, new),))]
    )
    expected = "Mean over completion tokens of the [-k3-] {+k1+} estimate of the KL divergence,"
    assert expected in render_text(diff)


def test_new_fields_are_compared(tmp_path: Path) -> None:
    text = (DATA / "ppo.yaml").read_text(encoding="utf-8")
    changed = _edit(
        text, "  - key: val/ratio\n", "    concept: probability-ratio", "    concept: clip-fraction"
    )
    changed = _edit(changed, "  - key: val/ratio\n", "        effect: deflated", "        effect: wrong")
    changed = _edit(
        changed, "  - key: objective/kl\n", "        condition: '== \"k3\"'", "        condition: '== \"k2\"'"
    )
    changed = _edit(changed, "  - key: objective/kl\n", "      - level: step\n", "      - level: epoch\n")
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(text, encoding="utf-8")
    new.write_text(changed, encoding="utf-8")
    diff = compare(load_source(str(old), tmp_path).registry, load_source(str(new), tmp_path).registry)
    fields = {item.id: [c.field for c in item.changes] for item in diff.changed}
    assert fields == {
        "ppo:val/ratio": ["concept", "known_issues"],
        "ppo:objective/kl": ["reduction", "meaning_depends_on"],
    }
    ratio = next(item for item in diff.changed if item.id == "ppo:val/ratio")
    assert (ratio.changes[0].old, ratio.changes[0].new) == ("probability-ratio", "clip-fraction")
    assert "known_issues" in render_text(diff) and "meaning_depends_on" in render_markdown(diff)

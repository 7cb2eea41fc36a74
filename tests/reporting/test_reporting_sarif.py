"""SARIF 2.1.0 logs: valid against the official schema, rules once each, locations relative."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest
from _ci import assert_valid_sarif
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_registry.reporting import Annotation, RuleInfo, render, sarif_log, sarif_text
from metrics_registry.reporting.annotation import encodable

KL = RuleInfo("grpo:kl#non-negative", "non-negative", "at least 0", "en/reference/grpo/#kl", "error")
FIELD = RuleInfo("MR102", "unknown-field", "A field the format does not define.", None, "error")


def _results(log: dict) -> list[dict]:
    return log["runs"][0]["results"]


def test_a_log_with_rules_results_and_locations(tmp_path: Path) -> None:
    annotations = [
        Annotation(FIELD, "error", "unknown field 'crucal'", tmp_path / "ppo.yaml", 27),
        Annotation(KL, "warning", "kl: 1 of 50 values is outside", tmp_path / "run" / "state.json"),
        Annotation(FIELD, "error", "again", tmp_path / "b.yaml", 3, 5, 9),
        Annotation(KL, "note", "no file"),
        Annotation(FIELD, "error", "binary", tmp_path / "events.out", byte_offset=1024),
    ]
    log = assert_valid_sarif(sarif_text(annotations, cwd=tmp_path))
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "metrics-registry"
    assert driver["version"] == version("metrics-registry")
    assert [rule["id"] for rule in driver["rules"]] == ["MR102", "grpo:kl#non-negative"]
    assert driver["rules"][0] == {
        "id": "MR102",
        "name": "unknown-field",
        "shortDescription": {"text": "A field the format does not define."},
        "defaultConfiguration": {"level": "error"},
    }
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    results = run["results"]
    assert [(r["ruleId"], r["ruleIndex"], r["level"]) for r in results] == [
        ("MR102", 0, "error"),
        ("grpo:kl#non-negative", 1, "warning"),
        ("MR102", 0, "error"),
        ("grpo:kl#non-negative", 1, "note"),
        ("MR102", 0, "error"),
    ]
    first = results[0]["locations"][0]["physicalLocation"]
    assert first == {
        "artifactLocation": {"uri": "ppo.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 27},
    }
    assert "region" not in results[1]["locations"][0]["physicalLocation"]
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "run/state.json"
    assert results[2]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 5,
        "endColumn": 9,
    }
    assert "locations" not in results[3]
    assert results[4]["locations"][0]["physicalLocation"]["region"] == {"byteOffset": 1024}


def test_help_uri_only_with_an_absolute_site_url(tmp_path: Path) -> None:
    annotations = [Annotation(KL, "error", "m", tmp_path / "a.json")]
    without = assert_valid_sarif(sarif_text(annotations, cwd=tmp_path))
    assert "helpUri" not in without["runs"][0]["tool"]["driver"]["rules"][0]
    for relative in ("", "docs/", "/site/", "file:///srv/site/"):
        log = assert_valid_sarif(sarif_text(annotations, cwd=tmp_path, site_url=relative))
        assert "helpUri" not in log["runs"][0]["tool"]["driver"]["rules"][0]
    log = assert_valid_sarif(sarif_text(annotations, cwd=tmp_path, site_url="https://example.org/metrics"))
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["rules"][0]["helpUri"] == "https://example.org/metrics/en/reference/grpo/#kl"
    assert driver["informationUri"] == "https://example.org/metrics/en/"


def test_paths_outside_the_folder_and_hostile_names(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    # the last: a Latin-1 name, as Python reads it from a UTF-8 file system (surrogate escape)
    names = ["a b,c.md", "50%.md", "x#y?.md", "c:d.md", "ü中.md", "caf\udce9.md"]
    annotations = [Annotation(FIELD, "error", "m", project / name, 1) for name in names]
    annotations.append(Annotation(FIELD, "error", "m", tmp_path / "outside.md", 1))
    log = assert_valid_sarif(sarif_text(annotations, cwd=project))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in _results(log)]
    assert [u["uri"] for u in uris[:-1]] == [
        "a%20b,c.md",
        "50%25.md",
        "x%23y%3F.md",
        "./c:d.md",
        "%C3%BC%E4%B8%AD.md",
        "caf%E9.md",
    ]
    assert uris[-1] == {"uri": (tmp_path / "outside.md").as_uri()}


def test_lone_surrogates_are_written_as_escapes(tmp_path: Path) -> None:
    """A JSON log's key may hold '\\ud800'; the log must still be written as UTF-8."""
    rule = RuleInfo("unknown-key", "unknown-key", "A key\ud800.")
    text = sarif_text([Annotation(rule, "note", "bad\ud800key: not in the registry")], cwd=tmp_path)
    text.encode("utf-8")
    log = assert_valid_sarif(text)
    assert log["runs"][0]["results"][0]["message"]["text"] == "bad\\ud800key: not in the registry"


def test_an_empty_log_is_valid(tmp_path: Path) -> None:
    log = assert_valid_sarif(sarif_text([], cwd=tmp_path))
    assert _results(log) == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_the_first_description_of_a_rule_id_wins(tmp_path: Path) -> None:
    other = RuleInfo("MR102", "renamed", "another description")
    log = sarif_log([Annotation(FIELD, "error", "a"), Annotation(other, "error", "b")], cwd=tmp_path)
    assert [rule["name"] for rule in log["runs"][0]["tool"]["driver"]["rules"]] == ["unknown-field"]


def test_render_dispatches_and_refuses_unknown_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    annotation = Annotation(FIELD, "error", "m", tmp_path / "a.yaml", 1)
    assert render("github", [annotation]) == "::error file=a.yaml,line=1,title=MR102::m\n"
    assert json.loads(render("sarif", [annotation]))["version"] == "2.1.0"
    with pytest.raises(ValueError, match="unknown CI format 'junit'"):
        render("junit", [annotation])  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    message=st.text(max_size=100),
    name=st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=20).filter(
        lambda n: n not in {".", ".."}
    ),
    rule_id=st.text(min_size=1, max_size=20),
    line=st.one_of(st.none(), st.integers(1, 10**6)),
    column=st.one_of(st.none(), st.integers(1, 10**4)),
)
def test_any_text_gives_a_valid_log(
    message: str, name: str, rule_id: str, line: int | None, column: int | None
) -> None:
    cwd = Path("/work/project")
    annotation = Annotation(RuleInfo(rule_id, rule_id, message), "warning", message, cwd / name, line, column)
    log = assert_valid_sarif(sarif_text([annotation], cwd=cwd))
    result = _results(log)[0]
    assert result["message"]["text"] == encodable(message)
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"

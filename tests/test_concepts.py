"""The closed list of concepts: the shipped one, and every way a list can be broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics_registry import Registry
from metrics_registry.concepts import builtin_concepts, lineage, load_concepts

#: Metrics that measure no quantity of the list (a VESPO weight, an EOS token count, counters of one
#: evaluation file): a concept is given "where one applies".
WITHOUT_CONCEPT = {
    "grpo:vespo/phi_seq_mean",
    "ppo:val/num_eos_tokens",
    "multiturn-grpo:eval_logs/step",
    "multiturn-grpo:eval_logs/total_samples",
    "multiturn-grpo:console/group_summary/total_groups",
    "verl:{partition}/rollout_failure/evicted_samples",
}


def test_the_shipped_list_is_clean() -> None:
    concepts = builtin_concepts()
    assert concepts.findings == []
    assert len(concepts.concepts) >= 40
    assert {"clip-fraction-low", "clip-fraction-high", "clip-fraction-region", "clip-fraction-dual"} <= set(
        concepts.concepts
    )
    assert [c.id for c in concepts.lineage("clip-fraction-low")] == ["clip-fraction-low", "clip-fraction"]


def test_every_metric_names_a_concept_where_one_applies(registry: Registry) -> None:
    missing = {entry.id for entry in registry if entry.metric.concept is None}
    assert missing == WITHOUT_CONCEPT
    assert {entry.metric.concept for entry in registry} - {None} <= set(registry.concepts)


def test_same_quantity_across_trainers_shares_a_concept(registry: Registry) -> None:
    def concept(family: str, key: str) -> str | None:
        return registry.lookup(key, family=family).entry.metric.concept

    assert concept("ppo", "policy/clipfrac_avg") == concept("grpo", "clip_ratio/region_mean")
    assert concept("ppo", "objective/kl") == concept("grpo", "kl") == "reference-kl"
    assert concept("ppo", "policy/approxkl_avg") == "policy-drift-kl" != concept("ppo", "objective/kl")
    # The same words, different quantities: per-token entropy against a sampled sequence sum.
    assert concept("ppo", "objective/entropy") != concept("ppo", "policy/entropy_avg")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "concepts.yaml"
    path.write_text(text, encoding="utf-8")
    return path


CASES = [
    (
        "concepts:\n  - id: a\n    title: A\n    summary: S.\n"
        "  - id: a\n    title: A again\n    summary: S.\n",
        5,
        "listed twice",
    ),
    ("concepts:\n  - id: a\n    title: A\n    summary: S.\n    parent: nowhere\n", 2, "not in the list"),
    (
        "concepts:\n  - id: a\n    title: A\n    summary: S.\n    parent: b\n"
        "  - id: b\n    title: B\n    summary: S.\n    parent: a\n",
        2,
        "its own ancestor",
    ),
    ("concepts:\n  - id: Not_Kebab\n    title: A\n    summary: S.\n", 2, "'id'"),
    ("concepts:\n  - id: a\n    title: A\n", 2, "'summary': Field required"),
    ("concepts:\n  - id: a\n    title: A\n    summary: S.\n    colour: red\n", 5, "'colour'"),
    ("concepts: []\n", 1, "non-empty 'concepts' list"),
    ("concepts:\n  - id: a\n    title: [unclosed\n", 4, "YAML syntax"),
    ("concepts:\n  - id: a\n    id: b\n", 3, "duplicate"),
    ("concepts:\n  - !!python/object:os.system {}\n", 2, "tag"),
]


@pytest.mark.parametrize(("text", "line", "message"), CASES)
def test_a_broken_list_is_a_finding_with_its_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    result = load_concepts(_write(tmp_path, text))
    assert result.findings, text
    finding = result.findings[0]
    assert (finding.rule, finding.line) == ("MR161", line), finding.format()
    assert message in finding.message


def test_an_unreadable_list_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "concepts.yaml"
    path.write_bytes(b"concepts:\n  - id: \xff\n")
    result = load_concepts(path)
    assert [f.rule for f in result.findings] == ["MR161"] and not result.readable
    missing = load_concepts(tmp_path / "absent.yaml")
    assert "cannot read" in missing.findings[0].message


def test_lineage_cuts_cycles() -> None:
    concepts = load_concepts(builtin_concepts().path).concepts
    assert lineage(concepts, "nowhere") == []
    assert [c.id for c in lineage(concepts, "token-entropy")] == ["token-entropy", "entropy"]

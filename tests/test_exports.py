"""Every export format: valid, complete, and the committed constants module up to date."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import jsonschema
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from click.testing import CliRunner

import metrics_registry
from metrics_registry import Entry, Registry
from metrics_registry.cli import cli
from metrics_registry.exports import (
    EXPORTERS,
    export_json,
    export_jsonschema,
    export_python,
    export_rename_map,
    export_wandb,
)
from metrics_registry.exports.python_module import REGENERATE
from metrics_registry.exports.rename_map import current_successors
from metrics_registry.schema import json_schema, schema_text

ROOT = Path(__file__).resolve().parent.parent
KL_SUMMARY = (
    "Mean over completion tokens of the k3 estimate of the KL divergence"
    " from the policy to the reference model."
)


def _validate(document: dict) -> None:
    jsonschema.validate(document, json_schema("export"), cls=jsonschema.Draft202012Validator)


def test_json_has_every_language_and_never_english_for_a_translation(registry: Registry) -> None:
    document = json.loads(export_json(registry, i18n_root=ROOT))
    _validate(document)
    assert document["schema_version"] == "3"
    assert document["languages"] == ["en", "vi", "zh"]
    for item in [*document["metrics"], *document["families"]]:
        assert set(item["translations"]) == {"vi", "zh"}
        for fields in item["translations"].values():
            assert fields  # every translatable field is listed, translated or not
            for text in fields.values():
                assert (text["text"] is not None) == (text["status"] == "translated")
                assert (text["outdated"] is not None) == (text["status"] == "fuzzy")
    kl = next(m for m in document["metrics"] if m["id"] == "grpo:kl")
    assert {"title", "summary", "details", "aggregation.over", "healthy[non-negative].suggests"} <= set(
        kl["translations"]["vi"]
    )


def _catalog(root: Path) -> None:
    """A Vietnamese catalog with one current, one outdated and no other translation."""
    catalog = Catalog(locale="vi", domain="registry")
    catalog.add(KL_SUMMARY, "Trung bình ước lượng k3.", context="grpo:kl|summary")
    catalog.add("KL divergence (k3, from the policy to the reference)", "KL cũ", context="grpo:kl|title")
    catalog.add("An English text that changed", "Bản dịch cũ", context="grpo:kl|details", flags=["fuzzy"])
    path = root / "i18n" / "vi" / "LC_MESSAGES" / "registry.po"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        write_po(handle, catalog)


def test_json_marks_missing_and_outdated_translations(registry: Registry, tmp_path: Path) -> None:
    _catalog(tmp_path)
    document = json.loads(export_json(registry, i18n_root=tmp_path))
    _validate(document)
    assert document["languages"] == ["en", "vi"]
    kl = next(m for m in document["metrics"] if m["id"] == "grpo:kl")["translations"]["vi"]
    assert kl["summary"] == {"status": "translated", "text": "Trung bình ước lượng k3.", "outdated": None}
    assert kl["details"] == {"status": "fuzzy", "text": None, "outdated": "Bản dịch cũ"}
    # translated from English that has changed since: outdated, not current
    assert kl["title"] == {"status": "fuzzy", "text": None, "outdated": "KL cũ"}
    assert kl["aggregation.over"] == {"status": "missing", "text": None, "outdated": None}


def test_jsonschema_is_the_export_schema(registry: Registry) -> None:
    text = export_jsonschema(registry)
    assert text == schema_text("export")
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "translations" in json.dumps(schema) and "TranslatedText" in schema["$defs"]


def test_rename_map_covers_every_key_with_a_successor(registry: Registry) -> None:
    document = json.loads(export_rename_map(registry))
    mapped = {(r["from_id"], r["to_id"]) for r in document["renames"]}
    old_ids = {r["from_id"] for r in document["renames"]}
    for entry in registry:
        if entry.metric.replaced_by:
            assert entry.id in old_ids, f"{entry.id} has a successor but is not in the rename map"
        for reference in entry.metric.replaces:
            replaced = registry.resolve(reference, entry.family.id)
            assert replaced is not None and replaced.id in old_ids
    by_id = {e.id: e for e in registry}
    successors = current_successors(registry)
    for _old, new in mapped:
        assert new not in successors, f"{new} is not current"  # chains end at the current key
        assert not by_id[new].metric.replaced_by
    trl = document["by_version"]["trl"]
    assert trl["0.17.0"]["completion_length"] == "completions/mean_length"
    assert trl["0.17.0"]["rewards/{reward_func_name}"] == "rewards/{reward_func_name}/mean"
    assert trl["0.9.2"]["ppo/loss/value"] == "loss/value_avg"
    assert trl["0.9.2"]["env/reward_mean"] == "objective/scores"
    value = next(r for r in document["renames"] if r["from_id"] == "legacy-ppo:ppo/loss/value")
    assert (value["since"], value["until"], value["same_key"]) == ("0.9.2", "0.12.0", False)


def test_rename_map_follows_chains(registry: Registry) -> None:
    base = registry.lookup("kl", family="grpo").entry

    def entry(key: str, **update: list[str]) -> Entry:
        metric = base.metric.model_copy(update={"key": key, "replaces": [], "replaced_by": [], **update})
        return Entry(metric, base.family, base.path)

    chain = Registry(
        {"grpo": base.family},
        [entry("a", replaced_by=["b"]), entry("b", replaced_by=["c"]), entry("c")],
    )
    document = json.loads(export_rename_map(chain))
    assert {(r["from"], r["to"]) for r in document["renames"]} == {("a", "c"), ("b", "c")}


def test_committed_constants_module_is_current() -> None:
    builtin = metrics_registry.load()
    committed = (ROOT / "metrics_registry" / "constants.py").read_text(encoding="utf-8")
    assert committed == export_python(builtin), (
        f"metrics_registry/constants.py is out of date; run: {REGENERATE}"
    )
    constants = importlib.import_module("metrics_registry.constants")
    values = {getattr(constants, name) for name in constants.__all__}
    assert values == {entry.key for entry in builtin}
    assert constants.GRPO_KL == "kl" and constants.LEGACY_PPO_PPO_LOSS_VALUE == "ppo/loss/value"
    assert constants.GRPO_REWARDS_REWARD_FUNC_NAME_MEAN.format(reward_func_name="acc") == "rewards/acc/mean"


def test_python_export_of_an_extension_compiles(registry: Registry) -> None:
    source = export_python(registry)
    namespace: dict[str, object] = {}
    exec(compile(source, "<export>", "exec"), namespace)
    assert namespace["MULTITURN_GRPO_TRAIN_GROUPS_KEPT"] == "train/groups_kept"


def test_wandb_define_metric(registry: Registry) -> None:
    document = json.loads(export_wandb(registry))
    items = {m["id"]: m for m in document["metrics"]}
    scalars = {e.id for e in registry if e.metric.kind == "scalar"}
    assert set(items) == scalars
    allowed = {"min", "max", "mean", "best", "last", "none"}
    for item in items.values():
        arguments = item["define_metric"]
        assert set(arguments["summary"].split(",")) <= allowed
        assert arguments.get("goal") in (None, "minimize", "maximize")
    assert items["grpo:reward"]["define_metric"] == {"summary": "max,last", "goal": "maximize"}
    assert items["grpo:completions/clipped_ratio"]["define_metric"] == {
        "summary": "min,last",
        "goal": "minimize",
    }
    assert items["grpo:kl"]["define_metric"] == {"summary": "mean,last"}
    assert items["grpo:reward"]["names"] == {
        "logged": ["reward"],
        "transformers": ["train/reward", "eval/reward"],
    }
    assert items["ppo:objective/kl"]["names"]["transformers"] == ["train/objective/kl"]
    assert "legacy-ppo:env/reward_dist" not in items  # a histogram


def test_export_command_takes_every_format(tmp_path: Path, registry: Registry) -> None:
    out = tmp_path / "rename-map.json"
    args = ["export", "--format", "rename-map", "-o", str(out)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == EXPORTERS["rename-map"](registry)
    usage = CliRunner().invoke(cli, ["export", "--help"]).output
    assert all(fmt in usage for fmt in EXPORTERS)


def test_json_has_concepts_and_the_new_metric_fields(registry: Registry) -> None:
    document = json.loads(export_json(registry, i18n_root=ROOT))
    _validate(document)
    concepts = {c["id"]: c for c in document["concepts"]}
    assert set(concepts) == set(registry.concepts)
    trl = {entry.id for entry in registry if entry.family.versions_of == "trl"}  # other frameworks add theirs
    assert set(concepts["policy-drift-kl"]["metrics"]) & trl == {
        "ppo:policy/approxkl_avg",
        "legacy-ppo:ppo/policy/approxkl",
        "legacy-ppo:ppo/policy/policykl",
        "verl:actor/ppo_kl",  # the other frameworks' keys join the same concept (issue 15)
    }
    assert concepts["clip-fraction-low"]["parent"] == "clip-fraction"
    assert concepts["reference-kl"]["translations"]["zh"]["title"] == {
        "status": "translated",
        "text": "相对参考模型的 KL",
        "outdated": None,
    }
    ratio = next(m for m in document["metrics"] if m["id"] == "ppo:val/ratio")
    assert ratio["concept"] == "probability-ratio"
    assert ratio["known_issues"][0]["when"][0] == {"option": "num_mini_batches", "op": ">", "value": 1}
    assert ratio["healthy"][0]["except_when"]["versions"] == {"introduced": "0.17.0", "removed": "1.13.0"}
    assert [s["level"] for s in ratio["reduction"]] == ["micro-batch", "rank", "step"]
    issue_path = "known_issues[https://github.com/huggingface/trl/pull/2531].description"
    assert ratio["translations"]["vi"][issue_path]["status"] == "translated"
    kl = next(m for m in document["metrics"] if m["id"] == "ppo:objective/kl")
    assert kl["gated_by"] == [] and kl["meaning_depends_on"][0]["option"] == "kl_estimator"

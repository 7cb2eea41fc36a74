"""``explain`` of any key, once one key was explained, prints from the pack without the models."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _explain_run import explain

from metrics_registry import explain_pack
from metrics_registry.config import registry_paths


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache where one key was explained: the registry and its pack are kept."""
    cache = tmp_path_factory.mktemp("pack") / "cache"
    first = explain(cache, "objective/kl", "--family", "ppo")
    assert first.returncode == 0, first.stderr
    return cache


@pytest.mark.parametrize(
    "arguments",
    [
        ("objective/entropy", "--family", "ppo"),  # a key
        ("num_input_tokens_seen",),  # an alias
        ("kl",),  # several families: the notice, then one panel each
        ("kl", "--family", "openrlhf"),
        ("grpo:kl",),  # the registry's own family:key form
        ("actor/pg_clipfrac_lower",),  # another framework's key
    ],
)
def test_a_key_never_explained_prints_as_the_full_path_does(filled: Path, arguments: tuple[str, ...]) -> None:
    from_pack = explain(filled, *arguments)
    assert from_pack.returncode == 0, from_pack.stderr
    assert "pydantic imported: False" in from_pack.stderr
    full = explain("off", *arguments)
    assert "pydantic imported: True" in full.stderr
    assert from_pack.stdout == full.stdout


@pytest.mark.parametrize(
    "arguments",
    [
        ("objective/kl", "--trl-version", "0.20.0"),  # the pack knows no releases
        ("eval_objective/kl", "--family", "ppo"),  # an evaluation key (prefix)
        ("rewards/accuracy_reward/mean", "--family", "grpo"),  # a templated key's instance
    ],
)
def test_what_the_pack_cannot_answer_takes_the_full_path(filled: Path, arguments: tuple[str, ...]) -> None:
    result = explain(filled, *arguments)
    assert "pydantic imported: True" in result.stderr
    full = explain("off", *arguments)
    assert (result.returncode, result.stdout) == (full.returncode, full.stdout)


def test_an_unknown_key_or_family_is_still_an_error(filled: Path) -> None:
    for arguments in (("no/such/key",), ("objective/kl", "--family", "grpo")):
        result = explain(filled, *arguments)
        assert result.returncode != 0
        assert "metrics-registry:" in result.stderr


def test_a_damaged_pack_is_a_miss(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert explain(cache, "objective/kl", "--family", "ppo").returncode == 0
    files = registry_paths((), include_configured=True)
    os.environ["METRICS_REGISTRY_CACHE"] = str(cache)
    try:
        key = explain_pack._key(files)
    finally:
        os.environ.pop("METRICS_REGISTRY_CACHE")
    entry = cache / f"{key}.pickle"
    assert entry.is_file()
    entry.write_bytes(entry.read_bytes()[:1000])  # truncated
    result = explain(cache, "objective/entropy", "--family", "ppo")
    assert result.returncode == 0, result.stderr
    assert "pydantic imported: True" in result.stderr
    assert "entropy" in result.stdout.lower()


def test_the_pack_answers_every_key_and_alias_of_the_registry() -> None:
    from metrics_registry import load

    registry = load()
    pack = explain_pack.build(registry)
    for entry in registry:
        for name in (entry.key, *entry.metric.aliases, f"{entry.family.id}:{entry.key}"):
            shown = pack.lookup(name, entry.family.id)
            assert shown, (name, entry.family.id)
    assert pack.lookup("no/such/key", None) is None
    assert len(pack) >= 2 * len(registry)


def test_a_registry_with_errors_gets_no_pack(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    source = Path(__file__).resolve().parents[1] / "extensions" / "multiturn_grpo.yaml"
    extension = tmp_path / "extension.yaml"
    text = source.read_text(encoding="utf-8")
    extension.write_text(text.replace("    title: Groups kept for training\n", "", 1), encoding="utf-8")
    result = explain(cache, "objective/kl", "--family", "ppo")  # the built-in registry: a pack
    assert result.returncode == 0
    packs_before = set(cache.glob("*.pickle"))
    environment = {**os.environ, "METRICS_REGISTRY_CACHE": str(cache)}
    broken = subprocess.run(
        [
            *(sys.executable, "-m", "metrics_registry.cli", "--no-config", "--registry", str(extension)),
            *("explain", "objective/entropy", "--family", "ppo"),
        ],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert "the registry has 1 error" in broken.stderr
    new = set(cache.glob("*.pickle")) - packs_before
    assert len(new) == 1  # the validated registry only; no pack for a registry with errors

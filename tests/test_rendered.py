"""``explain`` keeps what it printed and prints it again without importing the models."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _explain_run import PROBE, explain


def _kept(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.txt"))


def test_a_second_explain_prints_the_same_without_the_models(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = explain(cache, "objective/kl", "--family", "ppo")
    assert first.returncode == 0, first.stderr
    assert "pydantic imported: True" in first.stderr
    assert len(_kept(cache)) == 1
    second = explain(cache, "objective/kl", "--family", "ppo")
    assert second.returncode == 0, second.stderr
    assert "pydantic imported: False" in second.stderr
    assert second.stdout == first.stdout
    assert "KL divergence to the reference model" in second.stdout


def test_another_width_or_key_is_rendered_for_itself(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    wide = explain(cache, "objective/kl", "--family", "ppo", columns=140)
    narrow = explain(cache, "objective/kl", "--family", "ppo", columns=70)
    assert max(map(len, wide.stdout.splitlines())) == 140
    assert max(map(len, narrow.stdout.splitlines())) == 70
    other = explain(cache, "objective/entropy", "--family", "ppo")
    assert "pydantic imported: False" in other.stderr  # read from the pack (test_explain_pack)
    assert other.stdout != narrow.stdout
    assert len(_kept(cache)) == 3


def _with_extension(cache: Path, extension: Path, key: str) -> subprocess.CompletedProcess[str]:
    return explain(cache, key, before=("--no-config", "--registry", str(extension)))


def _extension(tmp_path: Path) -> Path:
    source = Path(__file__).resolve().parents[1] / "extensions" / "multiturn_grpo.yaml"
    extension = tmp_path / "extension.yaml"
    extension.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return extension


def test_an_edited_registry_file_is_rendered_again(tmp_path: Path) -> None:
    cache, extension = tmp_path / "cache", _extension(tmp_path)
    before = _with_extension(cache, extension, "train/groups_kept")
    assert before.returncode == 0, before.stderr
    assert "Groups kept for training" in before.stdout
    text = extension.read_text(encoding="utf-8")
    extension.write_text(
        text.replace("title: Groups kept for training", "title: A title edited by the test", 1),
        encoding="utf-8",
    )
    after = _with_extension(cache, extension, "train/groups_kept")
    assert after.returncode == 0, after.stderr
    assert "pydantic imported: True" in after.stderr
    assert "A title edited by the test" in after.stdout


def test_a_registry_with_errors_warns_on_every_call(tmp_path: Path) -> None:
    cache, extension = tmp_path / "cache", _extension(tmp_path)
    text = extension.read_text(encoding="utf-8")
    extension.write_text(text.replace("    title: Groups kept for training\n", "", 1), encoding="utf-8")
    for _ in range(2):
        result = _with_extension(cache, extension, "objective/kl")
        assert "the registry has 1 error" in result.stderr
        assert "KL divergence to the reference model" in result.stdout
    assert _kept(cache) == []


@pytest.mark.parametrize("arguments", [("no/such/key",), ("objective/kl", "--family", "nope")])
def test_errors_are_never_kept(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    cache = tmp_path / "cache"
    for _ in range(2):
        result = explain(cache, *arguments)
        assert result.returncode != 0
        assert "metrics-registry:" in result.stderr
    assert _kept(cache) == []


def test_off_keeps_nothing(tmp_path: Path) -> None:
    environment = {**os.environ, "METRICS_REGISTRY_CACHE": "off"}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "explain", "objective/kl", "--family", "ppo"],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "KL divergence to the reference model" in result.stdout

"""Real TRL PPO steps on tiny local models conform; the diluting layout and broken copies are named.

TRL's PPO trainer ends with 1.12.0 while the test environment pins a later
TRL, so TRL 1.12.0's files are installed beside it (constraints/trl-ppo.txt)
and the runs happen in a subprocess that imports them first
(tests/conformance/_tiny_trl_ppo.py); the captures come back through
`StepCapture.save`'s format and are checked here:

* a layout that writes every cell of the statistics grid: every logged key
  with a reference agrees;
* `num_mini_batches` > 1 with `gradient_accumulation_steps` > 1: the grid
  statistics disagree and the kit names the unwritten cells, exactly the
  keys the registry's known issue lists for that configuration; the
  registry's own functions, given the unwritten cells, reproduce TRL's values;
* a copy of TRL's trainer with single logging reductions broken: each break
  is caught and named, the other keys still agree.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from _system import in_ci
from _tiny_trl_ppo import BREAKS, RUNS

from metrics_registry.conformance import StepCapture, check
from metrics_registry.conformance.capture import close

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TRL_DIR = ROOT / ".venv" / "trl-1.12"
CONSTRAINTS = ROOT / "constraints" / "trl-ppo.txt"
INSTALL = ".venv/bin/pip install --no-deps --upgrade --target .venv/trl-1.12 -c constraints/trl-ppo.txt trl"
VERSION = next(
    line.split("==", 1)[1].strip()
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines()
    if line.startswith("trl==")
)
GRID_KEYS = {
    "policy/approxkl_avg", "policy/clipfrac_avg", "loss/policy_avg", "loss/value_avg", "val/clipfrac_avg",
    "policy/entropy_avg", "val/ratio", "val/ratio_var",
}  # fmt: skip
CHECKED = GRID_KEYS | {
    "objective/kl", "objective/entropy", "objective/non_score_reward", "objective/rlhf_reward",
    "objective/scores", "val/num_eos_tokens",
}  # fmt: skip

Steps = list[tuple[StepCapture, dict[str, Any]]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Steps]:
    if not (TRL_DIR / "trl" / "experimental" / "ppo" / "ppo_trainer.py").is_file():
        message = f"needs TRL {VERSION}'s PPO trainer beside the test environment's TRL: {INSTALL}"
        if in_ci():
            pytest.fail(f"{message} (CI must install it: .ci/run)")
        pytest.skip(message)
    out = tmp_path_factory.mktemp("ppo") / "runs.pt"
    path = [str(TRL_DIR), str(ROOT), os.environ.get("PYTHONPATH", "")]
    done = subprocess.run(
        [sys.executable, str(HERE / "_tiny_trl_ppo.py"), str(out)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    data = torch.load(str(out), weights_only=True)
    assert data["trl_version"] == VERSION  # the subprocess imported the side install, not .venv's TRL
    return {name: [(StepCapture.from_dict(s["capture"]), s["logged"]) for s in data[name]] for name in RUNS}


@functools.cache
def _entries() -> dict[str, Any]:
    from metrics_registry.api import load

    registry = load()
    return {key: registry.lookup(key, family="ppo", trl_version=VERSION).entry for key in CHECKED}


def _registry_issue_keys(capture: StepCapture) -> set[str]:
    """The PPO keys whose registry entry has a known issue that holds for this capture's config."""
    keys = set()
    for key, entry in _entries().items():
        for issue in entry.metric.known_issues:
            if issue.affects.contains(VERSION) and all(c.holds(capture.config) for c in issue.when):
                keys.add(key)
    return keys


def test_every_logged_key_with_a_reference_conforms(runs: dict[str, Steps]) -> None:
    steps = runs["clean"]
    assert len(steps) == 2  # rollout batches
    checked: set[str] = set()
    for capture, logged in steps:
        # 2 PPO epochs × 1 mini-batch × 2 accumulation steps: every grid cell written
        assert [(mb.epoch, mb.mini_batch) for mb in capture.micro_batches] == [(0, 0), (0, 0), (1, 0), (1, 0)]
        assert _registry_issue_keys(capture) == set()
        results = check(capture, logged, family="ppo", version=VERSION)
        assert [r.line() for r in results if r.status not in ("agrees", "no-reference")] == []
        checked |= {r.key for r in results if r.status == "agrees"}
    assert checked == CHECKED
    # the checks saw clipped tokens, clipped values and both sides of the EOS penalty, not only zeros
    assert max(logged["policy/clipfrac_avg"] for _, logged in steps) > 0
    assert max(logged["val/clipfrac_avg"] for _, logged in steps) > 0
    eos = torch.cat([capture.step["contains_eos"] for capture, _ in steps])
    assert eos.any() and not eos.all()


def test_the_unwritten_grid_cells_are_named_on_the_keys_the_registry_lists(runs: dict[str, Steps]) -> None:
    for capture, logged in runs["diluted"]:
        # 2 epochs × 2 mini-batches × 2 accumulation steps = 8 cells; each mini-batch runs one micro-batch
        assert len(capture.micro_batches) == 4
        assert _registry_issue_keys(capture) == GRID_KEYS
        for result in check(capture, logged, family="ppo", version=VERSION):
            if result.key in GRID_KEYS:
                assert result.status == "disagrees", result.line()
                assert result.diagnosis == "unwritten_cells", result.line()
                assert "8 cells of which 4" in (result.cause() or ""), result.line()
            else:
                assert result.status in ("agrees", "no-reference"), result.line()
        assert 0.3 < logged["val/ratio"] < 0.7  # the issue's "val/ratio ≈ 0.5"


@pytest.mark.parametrize("run", ["clean", "diluted"])
def test_the_registry_grid_functions_reproduce_what_trl_logged(runs: dict[str, Steps], run: str) -> None:
    """`reference.ppo.logged` on the stacked grid, with the cells TRL leaves at 0, gives the logged values."""
    from metrics_registry.reference.ppo import common
    from metrics_registry.reference.ppo import logged as reference

    for capture, logged in runs[run]:
        config = capture.config
        empty = common.unwritten_grid_cells(
            int(config["num_ppo_epochs"]),  # type: ignore[arg-type]
            int(config["num_mini_batches"]),  # type: ignore[arg-type]
            int(config["gradient_accumulation_steps"]),  # type: ignore[arg-type]
            int(config["per_device_train_batch_size"]),  # type: ignore[arg-type]
        )
        assert empty == (4 if run == "diluted" else 0)
        grid = {
            name: torch.stack([mb[name] for mb in capture.micro_batches])
            for name in capture.micro_batches[0].tensors
        }
        policy = (grid["logprobs"], grid["old_logprobs"], grid["advantages"], grid["mask"])
        value = (grid["values"], grid["old_values"], grid["returns"], grid["mask"])
        clip, clip_value = float(config["cliprange"]), float(config["cliprange_value"])  # type: ignore[arg-type]
        ratio = (grid["logprobs"], grid["old_logprobs"], grid["mask"])
        expected = {
            "policy/approxkl_avg": reference.approxkl_avg(*ratio, unwritten_cells=empty),
            "policy/clipfrac_avg": reference.policy_clipfrac_avg(
                *policy, cliprange=clip, unwritten_cells=empty
            ),
            "loss/policy_avg": reference.policy_loss_avg(*policy, cliprange=clip, unwritten_cells=empty),
            "loss/value_avg": reference.value_loss_avg(
                *value, cliprange_value=clip_value, unwritten_cells=empty
            ),
            "val/clipfrac_avg": reference.value_clipfrac_avg(
                *value, cliprange_value=clip_value, unwritten_cells=empty
            ),
            "policy/entropy_avg": reference.entropy_avg(
                grid["logits"],
                float(config["temperature"]),
                unwritten_cells=empty,  # type: ignore[arg-type]
            ),
            "val/ratio": reference.ratio_avg(*ratio, unwritten_cells=empty),
            "val/ratio_var": reference.ratio_var(*ratio, unwritten_cells=empty),
        }
        for key, value_ in expected.items():
            assert close(float(value_), float(logged[key]), capture.dtype), (key, float(value_), logged[key])


@pytest.mark.parametrize("key", sorted(BREAKS))
def test_a_broken_reduction_in_a_copy_of_the_trainer_is_caught_and_named(
    runs: dict[str, Steps], key: str
) -> None:
    expected = BREAKS[key][2]
    verdicts = []
    for capture, logged in runs["broken"]:
        for result in check(capture, logged, family="ppo", version=VERSION):
            if result.key == key:
                verdicts.append(result)
            elif result.key not in BREAKS:  # the keys not broken still conform
                assert result.status in ("agrees", "no-reference"), result.line()
    caught = [r for r in verdicts if r.status == "disagrees"]
    assert caught, f"{key}: the break was never caught: {[r.line() for r in verdicts]}"
    assert all(r.diagnosis == expected for r in caught), [r.line() for r in caught]

"""The pytest plugin: a pytest11 entry point whose fixture passes or fails a test as it should."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
HELPERS = Path(__file__).parent


def test_the_plugin_is_a_pytest11_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {
        "metrics_registry": "metrics_registry.conformance.pytest_plugin"
    }


TEST_FILE = """
import sys
sys.path.insert(0, {helpers!r})
from _grpo_capture import grpo_capture
from metrics_registry.conformance.families.trl_grpo import metrics
from metrics_registry.conformance.metric import evaluate

def logged():
    capture = grpo_capture()
    table = metrics(capture)
    values = {{k: evaluate(m, capture) for k, m in table.items() if not k.startswith("completions/")}}
    return capture, values

def test_right(metrics_conformance):
    capture, values = logged()
    results = metrics_conformance.assert_conforms(capture, values, version="1.16.0")
    assert all(r.ok for r in results)

def test_wrong(metrics_conformance):
    capture, values = logged()
    values["entropy"] = -values["entropy"]
    metrics_conformance.assert_conforms(capture, values)

def test_wrong_but_allowed(metrics_conformance):
    capture, values = logged()
    values["entropy"] = -values["entropy"]
    metrics_conformance.assert_conforms(capture, values, allow={{"entropy"}})
"""


def test_the_fixture_fails_a_test_on_a_wrong_metric_and_names_the_cause(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_trainer=TEST_FILE.format(helpers=str(HELPERS)))
    # the plugin comes from the installed package's pytest11 entry point, as in a trainer's own suite
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*entropy: logged *sign_flipped: the sign is flipped*"])
    assert "Traceback" not in result.stdout.str()


def test_capturing_picks_the_adapter_of_the_trainer() -> None:
    """A PPOTrainer (or a subclass) gets the PPO adapter, anything else the GRPO one."""
    from metrics_registry.conformance import trl_adapter, trl_ppo_adapter
    from metrics_registry.conformance.pytest_plugin import Conformance

    class PPOTrainer:  # stands for trl.experimental.ppo.PPOTrainer: only the name is read
        pass

    class MyPPOTrainer(PPOTrainer):
        pass

    class GRPOTrainer:
        pass

    ppo = Conformance.capturing(MyPPOTrainer)
    grpo = Conformance.capturing(GRPOTrainer)
    assert issubclass(ppo, MyPPOTrainer)
    assert issubclass(grpo, GRPOTrainer)
    assert ppo.train.__module__ == trl_ppo_adapter.__name__
    assert grpo.__init__.__module__ == trl_adapter.__name__

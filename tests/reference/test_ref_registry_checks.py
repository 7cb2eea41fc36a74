"""Rules MR130-MR135, ``validate --stats``, and torch staying optional for the registry and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from metrics_registry import validate
from metrics_registry.cli import cli
from metrics_registry.reference_checks import find_reference, reference_coverage

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "tests" / "fixtures" / "registry" / "valid.yaml"
MODELINE = "# yaml-language-server: $schema=../../../metrics_registry/schema/registry-file.schema.json\n"

HEADER = """family:
  id: toy
  title: Toy trainer
  trainer: ToyTrainer
  summary: A family that exists only for the tests.
  versions:
    introduced: "1.0"
metrics:
"""


def _entry(key: str, extra: str = "") -> str:
    return f"""  - key: {key}
    category: kl
    title: T
    summary: A value.
    details: D
    aggregation:
      reduce: mean
      over: tokens
      across_processes: gather
    unit: nats
{extra}"""


K1 = """    computable: true
    reference: metrics_registry.reference.kl.k1
    examples:
      - description: One token.
        inputs:
          logq: [-1.0]
          logp: [-1.5]
        expected: [0.5]
"""


def _write(tmp_path: Path, *entries: str) -> Path:
    path = tmp_path / "toy.yaml"
    path.write_text(MODELINE + HEADER + "".join(entries), encoding="utf-8")
    return path


def _rules(path: Path) -> list[tuple[str, str | None]]:
    _registry, findings = validate([path], builtin=False)
    return [(f.rule, f.key) for f in findings]


def test_a_complete_entry_and_a_non_computable_one_pass(tmp_path: Path) -> None:
    path = _write(tmp_path, _entry("a/kl", K1), _entry("a/lr", "    computable: false\n"))
    assert _rules(path) == []


def test_unclassified_families_are_not_checked() -> None:
    # the toy fixture says nothing about computability: no finding (backwards compatible)
    _registry, findings = validate([VALID], builtin=False)
    assert findings == []


def test_missing_reference_and_missing_example(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _entry("a/one", "    computable: true\n"),
        _entry("a/two", "    computable: true\n    reference: metrics_registry.reference.kl.k1\n"),
    )
    assert _rules(path) == [("MR130", "a/one"), ("MR131", "a/one"), ("MR131", "a/two")]


def test_reference_that_does_not_import(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _entry("a/one", K1.replace("kl.k1", "kl.k9")),
        _entry("a/two", K1.replace("reference.kl.k1", "reference.nothing.k1")),
        _entry("a/three", K1.replace("metrics_registry.reference.kl.k1", "no_such_package.k1")),
    )
    _registry, findings = validate([path], builtin=False)
    assert [(f.rule, f.key) for f in findings] == [
        ("MR132", "a/one"),
        ("MR132", "a/two"),
        ("MR132", "a/three"),
    ]
    assert "defines no 'k9'" in findings[0].message
    assert findings[0].line == 21  # the reference line
    assert "cannot be found" in findings[1].message


def test_example_that_does_not_fit_the_signature(tmp_path: Path) -> None:
    path = _write(tmp_path, _entry("a/kl", K1.replace("logp: [-1.5]", "logr: [-1.5]")))
    _registry, findings = validate([path], builtin=False)
    assert [f.rule for f in findings] == ["MR133"]
    assert "'logr'" in findings[0].message and "'logp'" in findings[0].message


def test_undeclared_entry_in_a_classified_family_and_reference_on_non_computable(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _entry("a/kl", K1),
        _entry("a/new"),
        _entry("a/odd", K1.replace("computable: true", "computable: false")),
    )
    assert _rules(path) == [("MR134", "a/new"), ("MR135", "a/odd")]


def test_an_extension_may_keep_its_reference_module_next_to_its_file(tmp_path: Path) -> None:
    package = tmp_path / "toy_trainer_metrics"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('must not be imported')\n", encoding="utf-8")
    (package / "refs.py").write_text(
        "def mean_kl(logq, logp, *, scale=1.0):\n    return 0\n", encoding="utf-8"
    )
    local = K1.replace("metrics_registry.reference.kl.k1", "toy_trainer_metrics.refs.mean_kl")
    assert _rules(_write(tmp_path, _entry("a/kl", local))) == []
    assert _rules(_write(tmp_path, _entry("a/kl", local.replace("mean_kl", "median_kl")))) == [
        ("MR132", "a/kl")
    ]


def test_find_reference_reads_the_signature_without_importing() -> None:
    target = find_reference("metrics_registry.reference.ppo.logged.approxkl_avg")
    assert not isinstance(target, str)
    assert target.required == ("logprobs", "old_logprobs", "mask")
    assert "unwritten_cells" in (target.parameters or ())
    assert "is a module" in str(find_reference("metrics_registry.reference.kl"))


def test_find_reference_gives_the_function_lines_decorators_included(tmp_path: Path) -> None:
    package = tmp_path / "toy_lines"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    source = "import functools\n\n\n@functools.cache\ndef f(x) -> dict:\n    return {}\n\n\nY = 1\n"
    (package / "refs.py").write_text(source, encoding="utf-8")
    target = find_reference("toy_lines.refs.f", (tmp_path,))
    assert not isinstance(target, str)
    assert target.lines == (4, 6)
    assert target.returns == "dict"
    assert find_reference("toy_lines.refs.Y", (tmp_path,)).lines is None  # type: ignore[union-attr]


def test_coverage_of_the_shipped_registry_is_complete() -> None:
    registry, findings = validate([ROOT / "extensions" / "multiturn_grpo.yaml"])
    assert not [f for f in findings if f.rule.startswith("MR13")]
    coverage = reference_coverage(registry)
    for family, counts in coverage.items():
        assert counts["covered"] == counts["computable"] > 0, family
        assert counts["undeclared"] == 0, family


def test_validate_stats_prints_coverage(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        _entry("a/kl", K1),
        _entry("a/two", "    computable: true\n"),
        _entry("a/lr", "    computable: false\n"),
    )
    runner = CliRunner()
    result = runner.invoke(cli, ["--no-config", "--registry", str(path), "validate", "--stats"])
    assert result.exit_code == 1  # a/two lacks its reference
    toy = next(line for line in result.output.splitlines() if line.strip().startswith("toy "))
    assert toy.split(None, 1)[1] == "1/2 computable covered (50.0%); reference 1, example 1; 1 not computable"
    assert any(line.strip().startswith("total ") for line in result.output.splitlines())
    as_json = runner.invoke(
        cli, ["--no-config", "--registry", str(path), "validate", "--stats", "--format", "json"]
    )
    coverage = json.loads(as_json.output)["coverage"]["toy"]
    assert coverage == {
        "metrics": 3, "computable": 2, "with_reference": 1, "with_example": 1, "covered": 1,
        "not_computable": 1, "undeclared": 0,
    }  # fmt: skip
    plain = runner.invoke(cli, ["--no-config", "validate", "--format", "json"])
    assert "coverage" not in json.loads(plain.output)


BLOCK_TORCH = """
import sys
class _NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError("No module named 'torch' (blocked by the test)")
        return None
sys.meta_path.insert(0, _NoTorch())
"""


@pytest.mark.parametrize(
    "code",
    [
        "import metrics_registry; r = metrics_registry.load(); assert len(r) > 100",
        "import metrics_registry; reg, f = metrics_registry.validate(); "
        "assert not [x for x in f if x.rule.startswith('MR13')], f",
        "from metrics_registry.cli import cli; "
        "cli.main(['validate', '--stats'], prog_name='metrics-registry', standalone_mode=False)",
        "import metrics_registry.reference; import metrics_registry.reference.kl",
    ],
    ids=["load", "validate", "cli", "reference-needs-torch"],
)
def test_torch_stays_optional(code: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", BLOCK_TORCH + code + "\nassert 'torch' not in sys.modules"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    if "reference.kl" in code:
        # the package imports without torch; its modules say clearly that they need it
        assert result.returncode != 0 and "No module named 'torch'" in result.stderr
        return
    assert result.returncode == 0, result.stderr

"""Every figure of the speed issue, each next to its yardstick measured in the same run.

    python benchmarks/speed.py [--repeat 5] [--metrics 10000]

Printed, with the target in brackets:

- ``explain KEY`` in a new process, cache warm: seconds and the ratio to
  ``python -c pass`` [<= 0.25 s, <= 8x]; the same for a key not explained
  before (read from the explain pack, rendered at the console's width), and
  the first ``explain`` after the registry changed (validated, pack built:
  no target);
- ``validate`` of the project (registry, docs pages, catalogs): cold (cache
  off) and warm, seconds and peak memory [warm <= 1.0 s, <= 150 MiB];
- load + validate of a synthetic registry of ~10,000 metrics (``--metrics``:
  the real families copied as many times as it takes), cold and warm, and the cost per metric
  against the real registry's (linear means a ratio near 1) [<= 2 s];
- the core install: MB on disk of the packages ``pip install metrics-registry``
  pulls without extras, and the package itself: the wheels' files [<= 30 MB], and
  with the bytecode pip compiles by default (counted alike for every package);
- ``fix-encoding --check`` on 3.5 MB of clean Chinese and on 31 MB of clean
  mixed Markdown (this project's pages in three languages, with a note that
  quotes mojibake), against ``ftfy.fix_encoding`` on the same text, speed
  and peak memory [>= 1.0x ftfy's speed; memory flat in the file's size].

The site build and the encoding repairer have their own scripts
(``build_site.py``, ``encoding.py``), whose yardsticks (plain MkDocs, ftfy)
need minutes. A loaded machine slows a command and its yardstick alike:
read the ratios.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "metrics_registry"
sys.path.insert(0, str(ROOT / "benchmarks"))


#: PPO keys ``explain`` is timed on for the first time in a run (its output not kept yet).
FRESH_KEYS = [
    "objective/entropy",
    "objective/non_score_reward",
    "objective/rlhf_reward",
    "objective/scores",
    "policy/approxkl_avg",
    "policy/clipfrac_avg",
    "loss/policy_avg",
    "loss/value_avg",
    "val/ratio",
]


def _run(args: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one process."""
    started = time.perf_counter()
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


# A small Python process runs the command and prints its peak memory: measured from this process
# (which may hold a 10,000-metric registry), a child would count the pages it shares with it
# until it starts the command.
_PEAK = (
    "import resource, subprocess, sys; "
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def _peak_mib(args: list[str], env: dict[str, str]) -> float:
    """Peak resident MiB of one run of ``args``."""
    command = [sys.executable, "-c", _PEAK, *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    return int(done.stdout.strip() or 0) / 1024


def _median(args: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Median wall seconds over ``repeat`` runs, and the peak memory of one more."""
    return statistics.median(_run(args, env) for _ in range(repeat)), _peak_mib(args, env)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "metrics_registry.cli", *args]


def _in_process(paths: list[Path]) -> float:
    code = (
        "import sys, time; from metrics_registry.api import validate; t = time.perf_counter(); "
        "validate(sys.argv[1:]); print(time.perf_counter() - t)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    output = subprocess.run(
        [sys.executable, "-c", code, *map(str, paths)], env=env, capture_output=True, text=True, check=True
    )
    return float(output.stdout)


def _synthetic(scale: int, folder: Path) -> list[Path]:
    from build_site import synthetic_registry  # the same copies the site benchmark builds

    folder.mkdir(parents=True, exist_ok=True)
    registry = synthetic_registry(scale, folder)
    del registry
    return [*sorted(folder.glob("*.yaml")), ROOT / "extensions" / "multiturn_grpo.yaml"]


def _core_install_mb() -> tuple[float, float]:
    """Disk size of metrics-registry without extras and its requirement closure: the files the wheels
    hold, and those plus the bytecode ``pip install`` compiles (its default), each counted the same
    way for the dependencies and the package (whose checkout holds no bytecode: compiled here)."""
    seen: set[str] = set()
    pending = [Requirement(r) for r in metadata.requires("metrics-registry") or [] if "extra ==" not in r]
    files = bytecode = 0
    while pending:
        requirement = pending.pop()
        name = requirement.name.lower().replace("_", "-")
        if name in seen or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                if path.suffix == ".pyc":
                    bytecode += path.stat().st_size
                else:
                    files += path.stat().st_size
        pending.extend(Requirement(r) for r in dist.requires or [] if "extra ==" not in r)
    # the package itself, as a wheel installs it (its modules and data), and its bytecode
    own = [path for path in PACKAGE.rglob("*") if path.is_file() and "__pycache__" not in path.parts]
    files += sum(path.stat().st_size for path in own)
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / PACKAGE.name
        shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
        compileall.compile_dir(copy, quiet=2)
        bytecode += sum(path.stat().st_size for path in copy.rglob("*.pyc"))
    return files / 1e6, (files + bytecode) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--metrics",
        type=int,
        default=10_000,
        help="size of the synthetic registry: the real families copied to about this many metrics",
    )
    args = parser.parse_args()
    os.chdir(ROOT)  # the commands run where a user runs them: in the checkout
    os.environ["METRICS_REGISTRY_CACHE"] = "off"  # this process's own loads leave the user's cache alone
    with tempfile.TemporaryDirectory() as work:
        base = {**os.environ, "PYTHONPATH": str(ROOT)}
        warm = {**base, "METRICS_REGISTRY_CACHE": str(Path(work) / "cache")}
        cold = {**base, "METRICS_REGISTRY_CACHE": "off"}

        python, _ = _median([sys.executable, "-c", "pass"], base, args.repeat)
        print(f"yardstick: python -c pass  {python:.3f} s")

        first = _run(_cli("explain", "objective/kl", "--family", "ppo"), warm)  # fills the cache
        print(f"explain, first ever        {first:.3f} s  (registry validated, explain pack built)")
        explain, explain_mb = _median(_cli("explain", "objective/kl", "--family", "ppo"), warm, args.repeat)
        print(
            f"explain KEY (warm)         {explain:.3f} s  {explain / python:5.1f}x python  "
            f"{explain_mb:5.0f} MiB   [<= 0.25 s, <= 8x]"
        )
        # a key never explained before: read from the explain pack, rendered at the console's width
        fresh = statistics.median(
            _run(_cli("explain", key, "--family", "ppo"), warm) for key in FRESH_KEYS[: max(3, args.repeat)]
        )
        print(
            f"explain another KEY        {fresh:.3f} s  {fresh / python:5.1f}x python"
            "            [<= 0.25 s, <= 8x]"
        )

        validate_cold, cold_mb = _median(_cli("validate"), cold, max(1, args.repeat // 2))
        _run(_cli("validate"), warm)
        validate_warm, warm_mb = _median(_cli("validate"), warm, args.repeat)
        print(
            f"validate, cold             {validate_cold:.3f} s  {validate_cold / python:5.1f}x python  "
            f"{cold_mb:5.0f} MiB"
        )
        print(
            f"validate, warm             {validate_warm:.3f} s  {validate_warm / python:5.1f}x python  "
            f"{warm_mb:5.0f} MiB   [<= 1.0 s, <= 150 MiB]"
        )

        real = [
            *sorted((ROOT / "metrics_registry" / "data").glob("*.yaml")),
            ROOT / "extensions" / "multiturn_grpo.yaml",
        ]
        import metrics_registry

        real_count = len(metrics_registry.load(real))
        # the copies needed for the target's size: the real registry grows with every family
        scale = max(1, round(args.metrics / real_count))
        paths = _synthetic(scale, Path(work) / "synthetic")
        count = len(metrics_registry.load(paths))
        os.environ["METRICS_REGISTRY_CACHE"] = "off"
        real_cold = _in_process(real)
        big_cold = _in_process(paths)
        os.environ["METRICS_REGISTRY_CACHE"] = str(Path(work) / "cache")
        _in_process(paths)
        big_warm = _in_process(paths)
        per_real, per_big = real_cold / real_count * 1000, big_cold / count * 1000
        print(
            f"{count:,} metrics, cold      {big_cold:.3f} s  ({per_big:.3f} ms per metric; the real "
            f"{real_count}: {per_real:.3f} ms, ratio {per_big / per_real:.2f})"
        )
        print(f"{count:,} metrics, warm      {big_warm:.3f} s   [<= 2 s, linear]")

        _encoding_rows(Path(work), base, max(1, args.repeat // 2))

    files, installed = _core_install_mb()
    print(
        f"core install               {files:.1f} MB of files beyond Python   [<= 30 MB]; "
        f"{installed:.1f} MB with the bytecode pip compiles"
    )


def _encoding_rows(work: Path, env: dict[str, str], repeat: int) -> None:
    """``fix-encoding --check`` on large clean files against ftfy.fix_encoding on the same text."""
    pages = {
        lang: [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs" / lang).rglob("*.md"))]
        for lang in ("en", "vi", "zh")
    }
    note = "\n\n> Note: read as Windows-1252, `训练` shows as `è®­ç»ƒ` and “é” as “Ã©”. 🎉\n\n"
    mixed = "\n\n".join(pages["en"] + pages["vi"] + pages["zh"]) + note
    chinese = "\n\n".join(pages["zh"])
    ftfy_code = "import ftfy, sys; ftfy.fix_encoding(open(sys.argv[1], encoding='utf-8').read())"
    for label, unit, megabytes in (("clean Chinese", chinese, 3.5), ("clean mixed Markdown", mixed, 31.0)):
        path = work / f"{label.replace(' ', '-')}.md"
        copies = int(megabytes * 1e6 // len(unit.encode())) + 1
        path.write_text(unit * copies, encoding="utf-8")
        size = path.stat().st_size / 1e6
        ours, ours_mb = _median(_cli("fix-encoding", "--check", str(path)), env, repeat)
        theirs, theirs_mb = _median([sys.executable, "-c", ftfy_code, str(path)], env, repeat)
        print(
            f"fix-encoding --check, {size:4.1f} MB {label:<21} {ours:6.2f} s {ours_mb:5.0f} MiB; "
            f"ftfy {theirs:6.2f} s {theirs_mb:5.0f} MiB: {theirs / ours:4.2f}x ftfy's speed   [>= 1.0x]"
        )


if __name__ == "__main__":
    main()

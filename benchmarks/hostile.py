"""Print how long each hostile input of ``tests/fixtures/hostile/`` takes, against a cold start.

    python benchmarks/hostile.py [--repeat 3]

The target is that no hostile input costs more than the command's work on
clean input: each case is printed with its median wall time and its ratio
to the yardstick, ``metrics-registry --no-config validate`` on the clean
built-in registry, run the same way on the same machine (a loaded machine
slows both alike). The tests check behaviour;
this script checks cost.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _hostile_cases import load_cases, run_case


def _yardstick(repeat: int, *args: str) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "metrics_registry.cli", *args], capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    start = _yardstick(options.repeat, "--version")
    yardstick = _yardstick(options.repeat, "--no-config", "validate")
    print(f"cold start (metrics-registry --version): {start:.2f} s")
    print(f"yardstick (--no-config validate, the clean built-in registry): {yardstick:.2f} s")
    print(f"{'case':58} {'median s':>9} {'x clean':>8} {'max s':>7}")
    worst = 0.0
    for case in load_cases():
        times = []
        for _ in range(options.repeat):
            with tempfile.TemporaryDirectory() as work:
                times.append(run_case(case, Path(work)).seconds)
        median = statistics.median(times)
        worst = max(worst, *times)
        print(f"{case.id:58} {median:9.2f} {median / yardstick:8.1f} {max(times):7.2f}")
    print(f"slowest case: {worst:.2f} s ({worst / yardstick:.2f}x validating the clean registry)")


if __name__ == "__main__":
    main()

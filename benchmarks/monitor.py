"""Print what the live health check costs a training loop: time per ``on_log`` with 60 keys, and memory.

    python benchmarks/monitor.py [--steps 5000] [--keys 60]

Feeds ``HealthCheckCallback.on_log`` (transformers' real ``TrainerState``
and ``TrainerControl``; ``HealthMonitor.observe`` directly when
transformers is not installed) the keys a GRPO run logs, each with a
healthy, noisy value, ``--steps`` times. Times are the CPU time of the
calling thread (``time.thread_time``): on a shared machine the wall clock
also counts the moments the OS gave the core to another process (4 ms
slices), which say nothing about this code; the mean wall-clock time is
printed beside it. Prints:

- the mean time per call (target: at most 1 ms), the median, the 99th
  percentile and the worst call (a ``direction`` rule is judged again each
  time its series doubles; the first calls also print the findings);
- the mean over the first and the last 10 % of the steps: equal when the
  work per step does not grow with the run;
- the ratio of the mean to a yardstick timed in the same process
  (``json.dumps`` of the same metrics, as a Trainer writes each log entry
  into ``trainer_state.json``), which stays comparable across machines;
- the memory the monitor keeps, after 20 % of the steps and at the end:
  ``direction`` rules keep their points (16 bytes each), the other rules
  the steps of the values they find at fault (8 bytes each), which the
  report lists; nothing else grows.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import metrics_registry

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 1.0


def grpo_keys(registry: metrics_registry.Registry, count: int) -> list[str]:
    """The keys of the GRPO family (templated ones instantiated), then extra unknown keys up to ``count``."""
    keys = []
    for entry in registry.entries:
        if entry.family.id == "grpo" and "train" in entry.metric.modes:
            keys.append(entry.metric.key.replace("{reward_func_name}", "accuracy_reward"))
    keys = sorted(set(keys))[:count]
    return keys + [f"custom/metric_{i}" for i in range(count - len(keys))]


def metrics_at(step: int, keys: list[str]) -> dict[str, float]:
    return {key: 0.3 + 0.05 * math.sin(1.7 * step + i) + 0.001 * step for i, key in enumerate(keys)}


def feeder(registry: metrics_registry.Registry) -> tuple[Callable[[int, dict[str, float]], None], str, Any]:
    """``feed(step, metrics)`` through the Trainer callback, or the monitor without transformers."""
    try:
        from transformers import TrainerControl, TrainerState, TrainingArguments

        from metrics_registry.integrations.transformers import HealthCheckCallback
    except ImportError:
        from metrics_registry.integrations.monitor import HealthMonitor

        monitor = HealthMonitor(registry)

        def observe(step: int, metrics: dict[str, float]) -> None:
            monitor.observe(step, metrics)

        return observe, "HealthMonitor.observe", monitor
    from io import StringIO

    from rich.console import Console

    callback = HealthCheckCallback(registry=registry, console=Console(file=StringIO()))
    args = TrainingArguments(output_dir="unused", report_to="none", use_cpu=True)
    state, control = TrainerState(), TrainerControl()

    def feed(step: int, metrics: dict[str, float]) -> None:
        state.global_step = step
        callback.on_log(args, state, control, logs=metrics)

    return feed, "HealthCheckCallback.on_log", callback.monitor


def time_calls(
    steps: int, keys: list[str], feed: Callable[[int, dict[str, float]], None]
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each call (the CPU time leaves out the moments the OS ran others)."""
    walls, cpus = [], []
    for step in range(1, steps + 1):
        metrics = metrics_at(step, keys)
        wall, cpu = time.perf_counter(), time.thread_time()
        feed(step, metrics)
        cpus.append(time.thread_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return walls, cpus


def yardstick(steps: int, keys: list[str]) -> float:
    """CPU seconds per ``json.dumps`` of one step's metrics (the median of five passes)."""
    samples = [metrics_at(step, keys) for step in range(1, 201)]
    passes = []
    for _ in range(5):
        started = time.thread_time()
        for metrics in samples:
            json.dumps(metrics)
        passes.append((time.thread_time() - started) / len(samples))
    return statistics.median(passes)


def memory(steps: int, keys: list[str], registry: metrics_registry.Registry) -> tuple[int, int]:
    """Bytes the monitor holds after 20 % of the steps and at the end."""
    from metrics_registry.integrations.monitor import HealthMonitor

    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    monitor = HealthMonitor(registry)
    early = 0
    for step in range(1, steps + 1):
        monitor.observe(step, metrics_at(step, keys))
        if step == steps // 5:
            early = tracemalloc.get_traced_memory()[0] - start
    late = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.stop()
    return early, late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--keys", type=int, default=60)
    options = parser.parse_args()
    registry = metrics_registry.load([ROOT / "extensions" / "multiturn_grpo.yaml"])
    keys = grpo_keys(registry, options.keys)
    known = sum(1 for key in keys if not key.startswith("custom/"))
    feed, what, _monitor = feeder(registry)
    walls, times = time_calls(options.steps, keys, feed)
    tenth = max(1, len(times) // 10)
    mean = statistics.fmean(times)
    ruler = yardstick(options.steps, keys)
    early, late = memory(options.steps, keys, registry)
    worst = max(range(len(times)), key=times.__getitem__)
    print(f"{what}: {len(keys)} keys ({known} in the registry), {options.steps} steps; CPU time per call:")
    wall = statistics.fmean(walls)
    print(f"  mean       {mean * 1e3:8.3f} ms (target <= {TARGET_MS} ms; wall clock {wall * 1e3:.3f} ms)")
    print(f"  median     {statistics.median(times) * 1e3:8.3f} ms")
    print(f"  p99        {sorted(times)[int(0.99 * len(times))] * 1e3:8.3f} ms")
    print(
        f"  worst      {times[worst] * 1e3:8.3f} ms, at step {worst + 1}"
        " (the first step identifies the keys; direction rules are judged again at 10, 20, 40... points)"
    )
    print(
        f"  first 10 % {statistics.fmean(times[:tenth]) * 1e3:8.3f} ms,"
        f" last 10 % {statistics.fmean(times[-tenth:]) * 1e3:.3f} ms"
    )
    print(f"  yardstick  {ruler * 1e3:8.3f} ms per json.dumps of the same metrics")
    print(f"  ratio      {mean / ruler:8.1f} x the yardstick")
    print(
        f"  memory     {early / 1024:8.0f} KiB after {options.steps // 5} steps,"
        f" {late / 1024:.0f} KiB after {options.steps}"
    )
    verdict = "within" if mean * 1e3 <= TARGET_MS else "OVER"
    print(f"{verdict} the {TARGET_MS} ms target")


if __name__ == "__main__":
    main()

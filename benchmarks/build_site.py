"""Print how long the site takes to build, and how the cost grows with the registry.

    python benchmarks/build_site.py [--scale 10] [--repeat 1] [--builds both|parallel|one]

For the real registry and for a synthetic one ``--scale`` times larger
(copies of every family under new ids; ``--scale 1``: the real one only), it builds every language twice,
once with one language at a time and once with all in parallel (each
language's process generates its Markdown, then runs MkDocs), and prints the
time until every language's Markdown was ready against the time MkDocs adds
after that, and of the steps after MkDocs (search fields, root pages, link
check), and the whole build's overhead over plain MkDocs on the same
generated Markdown (the yardstick, run the same way in the same process)
[<= 1.10x], in wall time and in CPU time (the build's processes against the
yardstick's).

Builds and yardstick runs alternate, P B P B P: each build is set against
the mean of the yardstick runs on either side of it, which met the same
load. On the shared 2-core machine the same plain MkDocs run at 10x took
121.8 s, then 130.0 s a few minutes later: a drift of 7%, most of the
budget, which a build timed only against the run after it (as this script
once did) reads as overhead, or hides. With ``--repeat``, the best
build against the best of its yardstick means, and the median of each
build's own ratio (the steadier figure). Each build runs cold (empty work
folder) and again right after (the generated Markdown of unchanged inputs is
reused; MkDocs and the checks run in full). An unmeasured build of each
registry comes first: it writes the Markdown the first yardstick run builds,
and fills the user's cache as any build after the first one on a machine
finds it (the validated registry, the repaired extension notes, the compiled
templates, the worked examples: ``metrics_registry.cache``);
``METRICS_REGISTRY_CACHE=off`` measures without it. Figures vary with the
machine's load: compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ruamel.yaml import YAML

import metrics_registry
from metrics_registry.site.build import build_site
from metrics_registry.site.languages import SITE_LANGUAGES

ROOT = Path(__file__).resolve().parents[1]


def synthetic_registry(scale: int, folder: Path) -> metrics_registry.Registry:
    """The real families plus ``scale - 1`` renamed copies of each (cross-family links dropped)."""
    yaml = YAML()
    sources = [
        *sorted((ROOT / "metrics_registry" / "data").glob("*.yaml")),
        ROOT / "extensions" / "multiturn_grpo.yaml",
    ]
    paths = [ROOT / "extensions" / "multiturn_grpo.yaml"]
    for copy in range(1, scale):
        for source in sources:
            data = yaml.load(source)
            data["family"]["id"] = f"{data['family']['id']}-copy{copy}"
            data["family"]["title"] = f"{data['family']['title']} ({copy})"
            for metric in data["metrics"]:
                for field in ("replaces", "replaced_by"):
                    metric.pop(field, None)
                metric["see_also"] = [ref for ref in metric.get("see_also", []) if ":" not in ref]
            path = folder / f"{source.stem}-copy{copy}.yaml"
            with path.open("w", encoding="utf-8") as handle:
                yaml.dump(data, handle)
            paths.append(path)
    return metrics_registry.load(paths)


def measure(registry: metrics_registry.Registry, jobs: int, work: Path, cold: bool) -> dict[str, float]:
    """One build; ``cold``: from an empty work folder (nothing generated before, no site to replace,
    as the yardstick's first run), else right after a build of the same inputs (the generated pages are
    reused: :mod:`metrics_registry.site.incremental`; the previous site is replaced, as MkDocs
    replaces the yardstick's)."""
    if cold:  # nothing from before: no generated pages, no previous site to replace
        for folder in ("build", "site"):
            if (work / folder).exists():
                shutil.rmtree(work / folder)
    cpu = _children_cpu() + time.process_time()
    started = time.perf_counter()
    report = build_site(registry, output=work / "site", project_root=ROOT, work=work / "build", jobs=jobs)
    total = time.perf_counter() - started
    cpu = _children_cpu() + time.process_time() - cpu
    return {
        "generate": report.seconds_generate,
        "mkdocs": report.seconds_mkdocs,
        "finish": report.seconds_finish,
        "total": total,
        "pages": report.pages,
        "cpu": cpu,
    }


def yardstick(work: Path, jobs: int) -> tuple[float, float]:
    """One yardstick run on the Markdown the last build in ``work`` generated: (wall, CPU) seconds."""
    cpu = _children_cpu()
    wall = plain_mkdocs(work / "build", jobs)
    return wall, _children_cpu() - cpu


def alternating(
    registry: metrics_registry.Registry, jobs: int, work: Path, repeat: int
) -> dict[bool, list[dict[str, float]]]:
    """Cold and again builds, ``repeat`` of each, alternating with yardstick runs (P B P B P ...);
    each build carries the mean of its two neighbouring runs (``plain``, ``plain_cpu``)."""
    # unmeasured: the Markdown of the first yardstick run, and the user's cache filled
    build_site(registry, output=work / "site", project_root=ROOT, work=work / "build", jobs=jobs)
    before = yardstick(work, jobs)
    runs: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    for _ in range(repeat):
        for cold in (True, False):
            run = measure(registry, jobs, work, cold)
            after = yardstick(work, jobs)
            run["plain"] = (before[0] + after[0]) / 2
            run["plain_cpu"] = (before[1] + after[1]) / 2
            runs[cold].append(run)
            before = after
    return runs


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the MkDocs builds)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def plain_mkdocs(build: Path, jobs: int) -> float:
    """The yardstick: plain MkDocs on the same generated Markdown, theme and extensions, without this
    project's hooks and steps (the generated configs with ``hooks`` dropped), run the same way."""
    configs = []
    for config in sorted(build.glob("mkdocs.*.yml")):
        data = json.loads(config.read_text(encoding="utf-8"))
        data.pop("hooks", None)
        data["site_dir"] = str(build / "plain" / config.stem)
        plain = config.with_name(f"plain.{config.name}")
        plain.write_text(json.dumps(data), encoding="utf-8")
        configs.append(plain)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(
            pool.map(
                lambda c: subprocess.run(
                    [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(c)],
                    capture_output=True,
                    check=True,
                ),
                configs,
            )
        )
    return time.perf_counter() - started


def _paired_medians(runs: list[dict[str, float]]) -> str:
    """The median of each build's wall and CPU ratio to the mean of its neighbouring yardstick runs."""
    wall = statistics.median(run["total"] / run["plain"] for run in runs)
    cpu = statistics.median(run["cpu"] / run["plain_cpu"] for run in runs)
    return f"{wall:>14.2f}x{cpu:>6.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--scale",
        type=int,
        default=10,
        help="size of the synthetic registry (default 10x; 1: only the real one)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration; the best is shown")
    parser.add_argument(
        "--builds",
        choices=("both", "parallel", "one"),
        default="both",
        help="parallel (the default build), one by one, or both",
    )
    args = parser.parse_args()
    languages = len(SITE_LANGUAGES)
    print(f"{languages} languages, Python {sys.version.split()[0]}; seconds, best of {args.repeat}\n")
    header = (
        f"{'registry':<22}{'builds':<11}{'work':<6}{'pages':>6}{'generate':>10}{'mkdocs':>9}{'finish':>8}{'total':>8}"
        f"{'plain MkDocs':>14}{'overhead':>10}{'CPU overhead':>14}"
        + (f"{'paired median':>15}{'CPU':>7}" if args.repeat > 1 else "")
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        registries = {
            f"real ({len(metrics_registry.load([ROOT / 'extensions' / 'multiturn_grpo.yaml']))} metrics)": (
                metrics_registry.load([ROOT / "extensions" / "multiturn_grpo.yaml"])
            ),
        }
        if args.scale > 1:  # at 1x the synthetic registry is the real one: built once, not twice
            large = synthetic_registry(args.scale, folder)
            registries[f"{args.scale}x ({len(large)} metrics)"] = large
        results: dict[tuple[str, int], dict[str, float]] = {}
        ways = [(1, "one by one"), (languages, "parallel")]
        ways = [way for way in ways if args.builds == "both" or (args.builds == "one") == (way[0] == 1)]
        for name, registry in registries.items():
            for jobs, label in ways:
                alternated = alternating(registry, jobs, folder / "work", args.repeat)
                for cold in (True, False):
                    runs = alternated[cold]
                    best = {
                        **min(runs, key=lambda run: run["total"]),
                        "plain": min(r["plain"] for r in runs),
                        "cpu": min(r["cpu"] for r in runs),
                        "plain_cpu": min(r["plain_cpu"] for r in runs),
                    }
                    if cold:
                        results[(name, jobs)] = best
                    print(
                        f"{name:<22}{label:<11}{'cold' if cold else 'again':<6}{best['pages']:>6.0f}"
                        f"{best['generate']:>10.2f}{best['mkdocs']:>9.2f}{best['finish']:>8.2f}"
                        f"{best['total']:>8.2f}{best['plain']:>14.2f}{best['total'] / best['plain']:>9.2f}x"
                        f"{best['cpu'] / best['plain_cpu']:>13.2f}x"
                        + (_paired_medians(runs) if args.repeat > 1 else ""),
                        flush=True,
                    )
        print()
        names = list(registries)
        jobs = ways[-1][0]
        for name in names if len(ways) == 2 else []:
            one, many = results[(name, 1)], results[(name, languages)]
            print(f"{name}: parallel MkDocs is {one['mkdocs'] / many['mkdocs']:.2f}x faster than one by one")
        if len(names) < 2:
            return
        small, big = results[(names[0], jobs)], results[(names[1], jobs)]
        print(
            f"{args.scale}x the metrics: generation {big['generate'] / small['generate']:.1f}x, "
            f"MkDocs {big['mkdocs'] / small['mkdocs']:.1f}x, "
            f"total {big['total'] / small['total']:.1f}x the time"
        )


if __name__ == "__main__":
    main()

"""Hound speed (issue 11): stragglers and their causes for 1,000,000 tasks in 1,000 stages.
Target: under 2 minutes of elapsed (wall) time on this 2-core machine, quiet, memory under 4 GB.
Hound shares the stages' learning and the topic models among worker processes, one per core
(hound.worker_pool), so the figure is the elapsed time; the CPU time of this process and of its
workers is printed beside it (on a busy machine the elapsed time is the other processes' too). Also
prints how often each stage's strongest cause is the induced one (the trace's truth), so that a
faster run that learns worse shows. Run on a quiet machine:
    python bench/bench_hound.py [--stages 1000] [--tasks-per-stage 1000]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402
from workload import straggler_workload  # noqa: E402

from protoxplore.loader.stragglers import hound  # noqa: E402
from protoxplore.loader.stragglers.expert import CAUSE, signed_kind  # noqa: E402


def reference_cpu(rounds: int = 200) -> float:
    """CPU seconds of a fixed NumPy kernel shaped like Hound's per-stage work (a 12 x 200 x 200
    comparison and cumulative sum, SSW's inner step), on one thread: how fast a CPU-second is on the
    machine right now. Hound's own CPU time grows with the machine's load (caches and memory shared with
    other processes), so its figures are compared across runs by their ratio to this."""
    rng = np.random.default_rng(0)
    v, order = rng.random(200), np.argsort(rng.random((12, 200)), axis=1)
    cpu = time.process_time()
    with threadpool_limits(1):
        for _ in range(rounds):
            (v[order][:, :, None] <= v).cumsum(axis=1, dtype=np.int32).sum()
    return time.process_time() - cpu


def _children_cpu() -> float:
    """CPU seconds of the finished worker processes (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stages", type=int, default=1_000)
    parser.add_argument("--tasks-per-stage", type=int, default=1_000)
    args = parser.parse_args()
    started = time.perf_counter()
    trace, truth = straggler_workload(stages=args.stages, tasks_per_stage=args.tasks_per_stage)
    print(f"workload: {len(trace.tasks):,} tasks in {len(trace.stages):,} stages, made in "
          f"{time.perf_counter() - started:.1f} s")
    before = reference_cpu()
    started, cpu, workers_cpu = time.perf_counter(), time.process_time(), _children_cpu()
    result = hound.analyse(trace)
    elapsed, cpu, workers_cpu = time.perf_counter() - started, time.process_time() - cpu, _children_cpu() - workers_cpu
    after = reference_cpu()
    stages = result["stages"]
    learned = [s for s in stages if s["causes"]]
    count = hound.worker_count(len(learned))
    print(f"hound.analyse: {elapsed:.1f} s elapsed (the target's figure, on a quiet machine; "
          f"load average {os.getloadavg()[0]:.2f} now), {len(stages)} stages with stragglers, {len(learned)} learned, "
          f"{len(result['topics'])} ensemble topics")
    print(f"CPU: {cpu:.1f} s in this process, {workers_cpu:.1f} s in its {count} worker processes, "
          f"{cpu + workers_cpu:.1f} s in all")
    print(f"reference kernel (reference_cpu): {before:.2f} s of CPU before, {after:.2f} s after: Hound took "
          f"{(cpu + workers_cpu) / ((before + after) / 2):.0f} x the reference")
    main_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    worker_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20 if count else 0.0
    print(f"peak RSS: {main_rss:.2f} GiB this process, {worker_rss:.2f} GiB the largest worker: at most "
          f"{main_rss + count * worker_rss:.2f} GiB together")
    right = sum(signed_kind(s["causes"][0]["metric"], s["causes"][0]["sign"]) == (CAUSE[truth[s["stage"]]], "+")
                for s in learned)
    print(f"strongest cause is the induced one: {right} of {len(learned)} stages ({right / max(len(learned), 1):.1%})")
    for learner in hound.LEARNERS:
        alone = sum(signed_kind(m := max(p := s["profiles"][learner], key=lambda f: abs(p[f])), "+" if p[m] > 0 else "-")
                    == (CAUSE[truth[s["stage"]]], "+") for s in learned)
        print(f"  {learner} alone: {alone / max(len(learned), 1):.1%}")
    agreement = result["agreement"]
    print(f"expert baseline clear on {agreement['clear_stages']} stages; Hound agrees on {agreement['agreeing']}")
    expert = sum(s["expert"]["cause"] == CAUSE[truth[s["stage"]]] for s in stages)
    print(f"expert's clear cause is the induced one: {expert} of {len(stages)} stages")


if __name__ == "__main__":
    main()

"""PerfXplain speed: one explanation over a log of 10,000 runs (about 100 million ordered pairs, a
random draw of candidate pairs, then the balanced sample). Target (issue 12): < 5 s.

The runs are synthetic: four queries under random shuffle partitions, input size, executor cores,
concurrent load and skew, with durations that follow from them. Prints figures; run on a quiet
machine:  python bench/bench_perfxplain.py
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from protoxplore.loader.compare import perfxplain
from protoxplore.loader.compare.pxql import Predicate, Question
from protoxplore.loader.compare.runs import NOMINAL, NUMERIC


def synthetic_runs(n: int, rng) -> pd.DataFrame:
    runs = pd.DataFrame({f: 0.0 for f in NUMERIC}, index=range(n))
    for f in NOMINAL:
        runs[f] = "x"
    runs["signature"] = rng.choice(["q1", "q2", "q3", "q4"], n)
    runs["shuffle_partitions"] = rng.choice([8.0, 64.0, 400.0], n)
    runs["executor_cores"] = rng.choice([1.0, 2.0], n)
    runs["input_bytes"] = rng.choice([1e8, 8e8], n)
    runs["data_skew"] = rng.choice([1.1, 12.0], n)
    runs["input_records"] = runs["input_bytes"] / 50
    runs["other_queries_s"] = rng.choice([0.0, 20.0], n)
    runs["tasks"] = runs["shuffle_partitions"] + 4
    runs["duration_s"] = ((runs["input_bytes"] / 1e8) * (2.0 / runs["executor_cores"]) + runs["tasks"] / 50
                          + runs["data_skew"] / 2 + runs["other_queries_s"]) * rng.uniform(0.97, 1.03, n)
    runs["blocked_s"] = runs["other_queries_s"] * rng.uniform(0.8, 1.2, n)
    return runs


def main() -> None:
    rng = np.random.default_rng(7)
    runs = synthetic_runs(10_000, rng)
    a = int(np.flatnonzero((runs["input_bytes"] > 1e8) & (runs["other_queries_s"] == 0))[0])
    same = ((runs["signature"] == runs.at[a, "signature"]) & (runs["input_bytes"] == 1e8)
            & (runs["other_queries_s"] == 0) & (runs["shuffle_partitions"] == runs.at[a, "shuffle_partitions"])
            & (runs["executor_cores"] == runs.at[a, "executor_cores"]) & (runs["data_skew"] == runs.at[a, "data_skew"]))
    b = int(np.flatnonzero(same)[0])
    question = Question("a", "b", (), (Predicate("duration_s_compare", "=", "GT"),),
                        (Predicate("duration_s_compare", "=", "SIM"),))
    print(f"log: {len(runs)} runs, {len(runs) * (len(runs) - 1):,} ordered pairs; "
          f"{perfxplain.MAX_ENUMERATED_PAIRS:,} drawn, 2000 sampled")
    for method in perfxplain.METHODS:
        started, cpu = time.perf_counter(), time.process_time()
        e = perfxplain.explain(runs, a, b, question, method=method)
        print(f"{method}: {time.perf_counter() - started:.2f} s ({time.process_time() - cpu:.2f} s of CPU); because "
              + " AND ".join(f"{p['feature']} {p['op']} {p['value']}" for p in e["because"])
              + f" (precision {e['precision']:.2f}, generality {e['generality']:.2f})")


if __name__ == "__main__":
    main()

"""Large synthetic workloads for the benchmarks, generated directly (no fluid simulation).

Queries arrive so that at most ``concurrency`` run at once; each has a chain of stages whose tasks
are spread over the hosts' slots with random durations and metrics.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from protoxplore.loader.trace import Trace


def workload(n_queries=125, stages_per_query=2, tasks=24_000, hosts=10, slots=8, concurrency=10, seed=0) -> Trace:
    """A Trace shaped like the paper's experiments (125 queries, 250 stages, 24k tasks, <= 10 at once)."""
    rng = np.random.default_rng(seed)
    n_stages = n_queries * stages_per_query
    per_stage = np.full(n_stages, tasks // n_stages)
    per_stage[: tasks - per_stage.sum()] += 1
    q_of_stage = np.repeat(np.arange(n_queries), stages_per_query)
    # Queries start in waves of `concurrency`; stages of a query run one after the other.
    q_start = (np.arange(n_queries) // concurrency) * 60.0 + rng.uniform(0, 20, n_queries)
    stage_len = rng.uniform(10, 30, n_stages)
    offset = np.zeros(n_stages)
    for s in range(1, n_stages):
        if q_of_stage[s] == q_of_stage[s - 1]:
            offset[s] = offset[s - 1] + stage_len[s - 1]
    s_submit = q_start[q_of_stage] + offset
    s_complete = s_submit + stage_len
    t_stage = np.repeat(np.arange(n_stages), per_stage)
    n = len(t_stage)
    launch = s_submit[t_stage] + rng.uniform(0, 0.5, n) * stage_len[t_stage]
    finish = np.minimum(launch + rng.uniform(0.5, 8, n), s_complete[t_stage])
    finish = np.maximum(finish, launch + 0.05)
    run = finish - launch
    app = "app-bench"
    host_names = np.array([f"node-{i:03d}" for i in range(hosts)])
    t_host = rng.integers(0, hosts, n)
    tasks_frame = pd.DataFrame({
        "app_key": app, "task_id": np.arange(n), "stage_id": t_stage, "stage_attempt": 0,
        "executor": (t_host + 1).astype(str), "host": host_names[t_host], "launch": launch, "finish": finish,
        "failed": False, "speculative": False, "run_s": run, "cpu_s": run * rng.uniform(0.3, 0.9, n),
        "gc_s": run * rng.uniform(0, 0.05, n), "fetch_wait_s": run * rng.uniform(0, 0.1, n),
        "remote_bytes": rng.uniform(0, 5e7, n), "write_s": run * rng.uniform(0, 0.05, n),
        "written_bytes": rng.uniform(0, 5e7, n), "scan_s": run * rng.uniform(0, 0.2, n),
        "read_bytes": rng.uniform(0, 2e8, n)})
    tasks_frame["stage_key"] = app + "/stage-" + tasks_frame["stage_id"].astype(str) + ".0"
    tasks_frame["executor_key"] = app + "/executor-" + tasks_frame["executor"]
    stages = pd.DataFrame({"stage_key": [f"{app}/stage-{s}.0" for s in range(n_stages)], "app_key": app,
                           "query_key": [f"{app}/sql-{q}" for q in q_of_stage], "stage_id": np.arange(n_stages),
                           "attempt": 0, "name": [f"stage {s}" for s in range(n_stages)], "num_tasks": per_stage,
                           "submit": s_submit, "complete": s_complete, "failed": False,
                           "parents": [[s - 1] if s and q_of_stage[s] == q_of_stage[s - 1] else [] for s in range(n_stages)]})
    queries = pd.DataFrame({"query_key": [f"{app}/sql-{q}" for q in range(n_queries)], "app_key": app, "kind": "sql",
                            "local_id": [str(q) for q in range(n_queries)], "name": [f"bench:sql-{q}" for q in range(n_queries)],
                            "description": [f"query {q}" for q in range(n_queries)], "pool": "default",
                            "start": q_start, "end": s_complete.reshape(n_queries, stages_per_query).max(axis=1)})
    apps = pd.DataFrame([{"app_key": app, "app_id": app, "attempt": None, "name": "bench", "start": launch.min(),
                          "end": finish.max(), "spark_version": "3.5.0", "source": "bench", "complete": True}])
    executors = pd.DataFrame({"app_key": app, "executor": [str(i + 1) for i in range(hosts)], "host": host_names,
                              "cores": slots, "added": launch.min()})
    return Trace(apps=apps, executors=executors, queries=queries, stages=stages, tasks=tasks_frame)

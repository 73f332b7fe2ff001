"""Large synthetic workloads for the benchmarks, generated directly (no fluid simulation).

Queries arrive so that at most ``concurrency`` run at once; each has a chain of stages whose tasks
are spread over the hosts' slots with random durations and metrics.
"""
from __future__ import annotations

import heapq

import numpy as np
import pandas as pd

from protoxplore.loader.trace import Trace


def workload(n_queries=125, stages_per_query=2, tasks=24_000, hosts=10, slots=8, concurrency=10, seed=0) -> Trace:
    """A Trace shaped like the paper's experiments (125 queries, 250 stages, 24k tasks, <= 10 at once).

    Tasks are placed by a greedy list scheduler on ``hosts x slots`` task slots, so no host runs
    more tasks at once than it has slots, as in Spark.
    """
    rng = np.random.default_rng(seed)
    n_stages = n_queries * stages_per_query
    per_stage = np.full(n_stages, tasks // n_stages)
    per_stage[: tasks - per_stage.sum()] += 1
    q_of_stage = np.repeat(np.arange(n_queries), stages_per_query)
    # Queries arrive in waves of `concurrency`; a query's stages run one after the other.
    mean_task = 4.0
    wave = per_stage.reshape(n_queries, stages_per_query).sum(axis=1)[:concurrency].sum() * mean_task / (hosts * slots)
    q_start = (np.arange(n_queries) // concurrency) * wave + rng.uniform(0, wave / 3, n_queries)
    t_stage = np.repeat(np.arange(n_stages), per_stage)
    n = len(t_stage)
    duration = rng.uniform(0.5, 2 * mean_task - 0.5, n)
    launch, finish = np.zeros(n), np.zeros(n)
    t_slot = np.zeros(n, dtype=int)
    s_submit, s_complete = np.zeros(n_stages), np.zeros(n_stages)
    first = np.concatenate([[0], np.cumsum(per_stage)])
    free = [(0.0, slot) for slot in range(hosts * slots)]
    heapq.heapify(free)
    ready = [(q_start[q], q * stages_per_query) for q in range(n_queries)]
    heapq.heapify(ready)
    while ready:
        at, s = heapq.heappop(ready)
        s_submit[s] = at
        for i in range(first[s], first[s + 1]):
            slot_free, slot = heapq.heappop(free)
            launch[i] = max(slot_free, at)
            finish[i] = launch[i] + duration[i]
            t_slot[i] = slot
            heapq.heappush(free, (finish[i], slot))
        s_complete[s] = finish[first[s]:first[s + 1]].max()
        if (s + 1) % stages_per_query:
            heapq.heappush(ready, (s_complete[s], s + 1))
    run = finish - launch
    app = "app-bench"
    host_names = np.array([f"node-{i:03d}" for i in range(hosts)])
    t_host = t_slot // slots
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

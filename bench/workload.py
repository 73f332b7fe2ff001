"""Large synthetic workloads for the benchmarks, generated directly (no fluid simulation).

Queries arrive so that at most ``concurrency`` run at once; each has a chain of stages whose tasks
are spread over the hosts' slots with random durations and metrics.
"""
from __future__ import annotations

import heapq
import json
from pathlib import Path

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import Trace


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


#: Induced straggler causes of straggler_workload: the feature the truth names, and what grows.
STRAGGLER_CAUSES = {"gc_s": ("gc_s",), "read_bytes": ("read_bytes", "scan_s", "cpu_s"),
                    "written_bytes": ("written_bytes", "write_s"), "fetch_wait_s": ("fetch_wait_s",),
                    "scheduler_delay_s": ("scheduler_delay_s",)}


def dense_workload() -> Trace:
    """The dense input of issue 14's memory target: 400 queries all running at once (19,000 tasks on
    50 hosts), so that every stage blames almost every other on every host (2.09 M ProtoGraph nodes).
    Its log is 11.5 MB, 0.90 MB as zstd (level 19): under the target's 1 MB of compressed input.
    Byte for byte the log of the audit that found the problem (/tmp/audit/conc.log)."""
    return workload(n_queries=400, stages_per_query=2, tasks=19_000, hosts=50, concurrency=400, seed=1)


def straggler_workload(stages=1_000, tasks_per_stage=1_000, hosts=50, slots=8, share=0.05, seed=0) -> tuple[Trace, dict]:
    """A Trace of ``stages`` one-stage queries run one after the other, each with ``share`` of its tasks
    made stragglers by one known cause (STRAGGLER_CAUSES in turn), and the truth: stage key -> cause.

    A normal task reads, computes, collects garbage, fetches and writes shuffle data in amounts with
    +-30 % noise; a straggler gets 2 to 4 times the stage's typical duration more of its cause (for
    input skew: 3 to 5 times the input, and the scan and computation time that go with it).
    """
    rng = np.random.default_rng(seed)
    n = stages * tasks_per_stage
    stage = np.repeat(np.arange(stages), tasks_per_stage)
    index = np.tile(np.arange(tasks_per_stage), stages)
    noise = lambda: rng.uniform(0.7, 1.3, n)  # noqa: E731
    read_bytes = 1e8 * noise()
    metrics = {"read_bytes": read_bytes, "scan_s": read_bytes / 1e8 * noise(), "cpu_s": 2.0 * read_bytes / 1e8 * noise(),
               "gc_s": 0.2 * noise(), "written_bytes": 2e7 * noise(), "fetch_wait_s": 0.3 * noise(),
               "remote_bytes": 3e7 * noise(), "scheduler_delay_s": 0.05 * noise()}
    metrics["write_s"] = metrics["written_bytes"] / 4e7 * noise()
    typical = 4.0  # s: about the median normal task
    causes = list(STRAGGLER_CAUSES)
    cause_of_stage = np.array([causes[s % len(causes)] for s in range(stages)])
    slow = rng.random(n) < share
    for cause, grown in STRAGGLER_CAUSES.items():
        hit = slow & (cause_of_stage[stage] == cause)
        if cause == "read_bytes":
            factor = rng.uniform(3, 5, hit.sum())
            for column in grown:
                metrics[column][hit] *= factor
        else:
            extra = typical * rng.uniform(2, 4, hit.sum())
            for column in grown:  # time, and for written bytes the bytes at the write time's rate
                metrics[column][hit] += extra * (4e7 if column == "written_bytes" else 1.0)
    run = sum(metrics[c] for c in ("scan_s", "cpu_s", "gc_s", "write_s", "fetch_wait_s"))
    duration = run + metrics["scheduler_delay_s"]
    # Stage s starts at 100 s x s; its tasks fill hosts x slots slots in waves of the typical duration.
    launch = 100.0 * stage + (index // (hosts * slots)) * typical
    t_host = index % hosts
    app = "app-stragglers"
    host_names = np.array([f"node-{i:03d}" for i in range(hosts)])
    tasks = pd.DataFrame({
        "app_key": app, "task_id": np.arange(n), "stage_id": stage, "stage_attempt": 0,
        "executor": (t_host + 1).astype(str), "host": host_names[t_host], "launch": launch, "finish": launch + duration,
        "failed": False, "speculative": False, "run_s": run,
        **{c: metrics[c] for c in ("cpu_s", "gc_s", "fetch_wait_s", "remote_bytes", "write_s", "written_bytes",
                                   "scan_s", "read_bytes")}})
    tasks["stage_key"] = app + "/stage-" + tasks["stage_id"].astype(str) + ".0"
    tasks["executor_key"] = app + "/executor-" + tasks["executor"]
    keys = [f"{app}/stage-{s}.0" for s in range(stages)]
    ends = tasks.groupby("stage_id")["finish"].max().to_numpy()
    stage_frame = pd.DataFrame({"stage_key": keys, "app_key": app, "query_key": [f"{app}/sql-{s}" for s in range(stages)],
                                "stage_id": np.arange(stages), "attempt": 0, "name": [f"stage {s}" for s in range(stages)],
                                "num_tasks": tasks_per_stage, "submit": 100.0 * np.arange(stages), "complete": ends,
                                "failed": False, "parents": [[] for _ in range(stages)]})
    queries = pd.DataFrame({"query_key": stage_frame["query_key"], "app_key": app, "kind": "sql",
                            "local_id": [str(s) for s in range(stages)], "name": [f"bench:sql-{s}" for s in range(stages)],
                            "description": [f"query {s}" for s in range(stages)], "pool": "default",
                            "start": stage_frame["submit"], "end": ends})
    apps = pd.DataFrame([{"app_key": app, "app_id": app, "attempt": None, "name": "stragglers", "start": 0.0,
                          "end": float(ends.max()), "spark_version": "3.5.0", "source": "bench", "complete": True}])
    executors = pd.DataFrame({"app_key": app, "executor": [str(i + 1) for i in range(hosts)], "host": host_names,
                              "cores": slots, "added": 0.0})
    trace = Trace(apps=apps, executors=executors, queries=queries, stages=stage_frame, tasks=tasks)
    return trace, dict(zip(keys, cause_of_stage.tolist()))


def events(trace: Trace, task_starts: bool = False) -> list[tuple[float, int, dict]]:
    """The trace as Spark listener events (only those and the fields the loader reads), in time
    order: ``(time, order at that time, event)``. With ``task_starts``, a TaskStart at each launch
    (a live log's running tasks)."""
    ms = lambda s: int(round(s * 1000))  # noqa: E731
    out = [(trace.start, 0, {"Event": "SparkListenerLogStart", "Spark Version": "3.5.0"}),
           (trace.start, 0, {"Event": "SparkListenerApplicationStart", "App Name": "bench", "App ID": "app-bench",
                             "Timestamp": ms(trace.start)})]
    for q in trace.queries.itertuples():
        sid = int(q.local_id)
        stages = trace.stages[trace.stages.query_key == q.query_key]
        out.append((q.start, 1, {"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
                                 "executionId": sid, "description": q.description, "time": ms(q.start)}))
        out.append((q.start, 2, {"Event": "SparkListenerJobStart", "Job ID": sid, "Submission Time": ms(q.start),
                                 "Stage Infos": [{"Stage ID": int(s.stage_id), "Stage Name": s.name,
                                                  "Number of Tasks": int(s.num_tasks), "Parent IDs": s.parents}
                                                 for s in stages.itertuples()],
                                 "Properties": {"spark.sql.execution.id": str(sid)}}))
        for s in stages.itertuples():
            info = {"Stage ID": int(s.stage_id), "Stage Attempt ID": 0, "Stage Name": s.name,
                    "Number of Tasks": int(s.num_tasks), "Submission Time": ms(s.submit)}
            out.append((s.submit, 3, {"Event": "SparkListenerStageSubmitted", "Stage Info": info}))
            out.append((s.complete, 6, {"Event": "SparkListenerStageCompleted",
                                        "Stage Info": dict(info, **{"Completion Time": ms(s.complete)})}))
        out.append((q.end, 7, {"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
                               "executionId": sid, "time": ms(q.end)}))
    for t in trace.tasks.itertuples():
        info = {"Task ID": int(t.task_id), "Launch Time": ms(t.launch), "Executor ID": t.executor, "Host": t.host}
        if task_starts:
            out.append((t.launch, 4, {"Event": "SparkListenerTaskStart", "Stage ID": int(t.stage_id),
                                      "Stage Attempt ID": 0, "Task Info": info}))
        out.append((t.finish, 5, {
            "Event": "SparkListenerTaskEnd", "Stage ID": int(t.stage_id), "Stage Attempt ID": 0,
            "Task End Reason": {"Reason": "Success"},
            "Task Info": dict(info, **{"Finish Time": ms(t.finish), "Failed": False,
                                       "Accumulables": [{"Name": "scan time", "Update": str(ms(t.scan_s))}]}),
            "Task Metrics": {"Executor Run Time": ms(t.run_s), "Executor CPU Time": int(t.cpu_s * 1e9),
                             "JVM GC Time": ms(t.gc_s),
                             "Shuffle Read Metrics": {"Fetch Wait Time": ms(t.fetch_wait_s),
                                                      "Remote Bytes Read": int(t.remote_bytes)},
                             "Shuffle Write Metrics": {"Shuffle Write Time": int(t.write_s * 1e9),
                                                       "Shuffle Bytes Written": int(t.written_bytes)},
                             "Input Metrics": {"Bytes Read": int(t.read_bytes)}}}))
    out.append((trace.end, 8, {"Event": "SparkListenerApplicationEnd", "Timestamp": ms(trace.end)}))
    out.sort(key=lambda e: (e[0], e[1]))
    return out


def write_log(trace: Trace, path: Path, task_starts: bool = False) -> None:
    """The trace as a Spark event log of JSON lines (:func:`events`)."""
    with open(path, "w") as f:
        for _, _, event in events(trace, task_starts):
            f.write(json.dumps(event, separators=(",", ":")) + "\n")

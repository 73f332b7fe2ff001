"""Hand-made Spark event logs with exactly known numbers, for hand-calculated expectations."""
from __future__ import annotations

from pathlib import Path

from protoxplore.loader.synth import Cluster, QuerySpec, Schedule, StageSpec, TaskRun, write_event_log


def make_log(path: Path, tasks: list[dict], hosts=("h1",), slots=8, spark_properties=None, **app) -> Path:
    """One single-stage query per distinct ``query`` in ``tasks``; each task dict has query, host,
    launch, finish and optional cpu_s, read_bytes, scan_s, net_bytes, fetch_s, write_bytes, write_s, gc_s;
    ``app`` may set write_event_log's app_name, app_id and epoch_ms (several applications in one workload)."""
    names = list(dict.fromkeys(t["query"] for t in tasks))
    queries, runs, submit, complete = [], [], {}, {}
    for q, name in enumerate(names):
        mine = [t for t in tasks if t["query"] == name]
        queries.append(QuerySpec(name, min(t.get("submit", t["launch"]) for t in mine),
                                 (StageSpec(len(mine), name=f"stage of {name}"),)))
        submit[(q, 0)] = min(t.get("submit", t["launch"]) for t in mine)
        complete[(q, 0)] = max(t["finish"] for t in mine)
        for i, t in enumerate(mine):
            runs.append(TaskRun(q, 0, i, t["host"], t["launch"], t["finish"], t.get("cpu_s", 0.0),
                                t.get("read_bytes", 0.0), t.get("net_bytes", 0.0), t.get("write_bytes", 0.0),
                                {"read": t.get("scan_s", 0.0), "net": t.get("fetch_s", 0.0),
                                 "write": t.get("write_s", 0.0), "gc": t.get("gc_s", 0.0)}))
    schedule = Schedule(queries, submit, complete, runs)
    return write_event_log(schedule, Cluster(hosts=tuple(hosts), slots=slots), path,
                           spark_properties=spark_properties, **{"app_name": "hand", **app})


#: (shuffle partitions, large input) of the nightly runs, run i under NIGHTLY_CONDITIONS[i % 4].
NIGHTLY_CONDITIONS = [(partitions, large) for partitions in (8, 64) for large in (False, True)]


def nightly_run(path, i: int, partitions: int, large: bool) -> Path:
    """Run i of one nightly report, in its own application: 8 partitions (2 tasks) or 64 (16 tasks, two
    waves on 8 slots); a large input has 3x the bytes and 3x the task time (tests/test_perfxplain.py)."""
    tasks_n, task_s = (2 if partitions == 8 else 16), (3.0 if large else 1.0) * (1 + 0.01 * i)
    tasks = [{"query": f"nightly report run {i}", "host": "h1", "launch": (t // 8) * task_s,
              "finish": (t // 8 + 1) * task_s, "read_bytes": (3e8 if large else 1e8) / tasks_n}
             for t in range(tasks_n)]
    # Each night's application is named after its id, so its query is named app-nightly-NNNN:sql-0.
    return make_log(path / f"run-{i}.json", tasks, slots=8, app_id=f"app-nightly-{i:04d}", app_name=f"app-nightly-{i:04d}",
                    epoch_ms=1_700_000_000_000 + i * 3_600_000,
                    spark_properties={"spark.sql.shuffle.partitions": str(partitions), "spark.executor.cores": "8"})

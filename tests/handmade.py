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

"""Hand-made Spark event logs with exactly known numbers, for hand-calculated expectations."""
from __future__ import annotations

from pathlib import Path

from protoxplore.evaluation.synth import Cluster, QuerySpec, Schedule, StageSpec, TaskRun, write_event_log


def make_log(path: Path, tasks: list[dict], hosts=("h1",), slots=8, spark_properties=None, host_profiles=(),
             **app) -> Path:
    """One single-stage query per distinct ``query`` in ``tasks``; each task dict has query, host,
    launch, finish and optional submit, pool (its query's FAIR pool), cpu_s, read_bytes, scan_s,
    net_bytes, fetch_s, write_bytes, write_s, gc_s, and index (by default the task's place among
    its query's tasks: give a failed attempt and its retry the same one), attempt and failed, and
    profile (its query's stage's resource profile; ``host_profiles``: the hosts' executors');
    ``app`` may set write_event_log's app_name, app_id and epoch_ms (several applications in one workload)."""
    names = list(dict.fromkeys(t["query"] for t in tasks))
    queries, runs, submit, complete = [], [], {}, {}
    for q, name in enumerate(names):
        mine = [t for t in tasks if t["query"] == name]
        indices = [t.get("index", i) for i, t in enumerate(mine)]
        queries.append(QuerySpec(name, min(t.get("submit", t["launch"]) for t in mine),
                                 (StageSpec(len(set(indices)), name=f"stage of {name}",
                                            profile=mine[0].get("profile", 0)),),
                                 pool=mine[0].get("pool", "default")))
        submit[(q, 0)] = min(t.get("submit", t["launch"]) for t in mine)
        complete[(q, 0)] = max(t["finish"] for t in mine)
        for i, t in zip(indices, mine):
            runs.append(TaskRun(q, 0, i, t["host"], t["launch"], t["finish"], t.get("cpu_s", 0.0),
                                t.get("read_bytes", 0.0), t.get("net_bytes", 0.0), t.get("write_bytes", 0.0),
                                {"read": t.get("scan_s", 0.0), "net": t.get("fetch_s", 0.0),
                                 "write": t.get("write_s", 0.0), "gc": t.get("gc_s", 0.0)},
                                t.get("attempt", 0), t.get("failed", False)))
    schedule = Schedule(queries, submit, complete, runs)
    return write_event_log(schedule, Cluster(hosts=tuple(hosts), slots=slots, host_profiles=tuple(host_profiles)), path,
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


#: Ten tasks per stage: eight normal ones (median 10 s) and two stragglers of 30 s and 32 s.
DURATIONS = [9.0, 9.5, 10.0, 10.0, 10.0, 10.0, 10.5, 11.0, 30.0, 32.0]
#: Per-task jitter in what is not the cause, so that no feature is constant by construction.
JITTER = [0.3, 0.1, 0.5, 0.2, 0.4, 0.0, 0.35, 0.15, 0.25, 0.05]


def straggler_stage(query: str, host: str, start: float, cause: str) -> list[dict]:
    """The tasks of one stage of ``query`` on ``host``: two stragglers whose extra time is ``cause``'s (gc, skew)."""
    tasks = []
    for i, (duration, jitter) in enumerate(zip(DURATIONS, JITTER)):
        slow = duration > 20
        other = JITTER[(i + 3) % len(JITTER)]  # a second, independent jitter
        task = {"query": query, "host": host, "launch": start, "finish": start + duration, "cpu_s": 5.0 + jitter,
                "gc_s": 0.5 + other / 10, "read_bytes": 1e8 * (1 + other), "scan_s": 2.0 + other,
                "write_bytes": 1e7 * (1 + JITTER[(i + 6) % len(JITTER)])}
        # A straggler's extra seconds are all the induced cause's: nothing else (the CPU wait that the
        # rest of the run is, which lowers cpu_rate) sets it apart.
        if cause == "gc" and slow:
            task["gc_s"] += duration - 10.0  # the extra 20 s are garbage collection
        if cause == "skew" and slow:
            task["read_bytes"] *= 10  # ten times the input: data skew
            task["scan_s"] += duration - 10.0
        tasks.append(task)
    return tasks


def gc_and_skew_log(tmp_path) -> Path:
    """Three stages whose stragglers come from GC (on h1) and three from input skew (on h2), so that
    the causes recur across stages as topics."""
    return make_log(tmp_path / "stragglers.json",
                    [t for i in range(3) for t in straggler_stage(f"gc-heavy-{i}", "h1", 100.0 * i, "gc")
                     + straggler_stage(f"skewed-{i}", "h2", 100.0 * i, "skew")], hosts=("h1", "h2"), slots=10)

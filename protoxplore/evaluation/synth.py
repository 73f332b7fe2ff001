"""Synthetic workloads in Spark's event-log format, with a known culprit.

``simulate`` runs a small fluid model of a cluster: each host has task slots, CPUs, and read,
write and network bandwidth; a task fetches remote shuffle data, reads its input, computes,
pauses for GC and writes shuffle output, sharing each resource fairly with the tasks in the same
phase on its host. ``write_event_log`` writes the result as the JSON lines Spark writes (SQL
executions, jobs, stages, tasks with their metrics), so the loader reads it like a real log.
Removing a query and simulating again gives the counterfactual speedup of every other query:
the ground truth of the accuracy sweep.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

PHASES = ("net", "read", "cpu", "gc", "write")
EPOCH_MS = 1_700_000_000_000


@dataclass(frozen=True)
class Cluster:
    hosts: tuple[str, ...] = ("host-1", "host-2")
    slots: int = 4            # task slots (executor cores) per host
    cpus: float = 4.0         # CPU-seconds per second a host can give; below `slots` means CPU contention
    read_bw: float = 200e6    # bytes/s of input a host's disks can read
    write_bw: float = 150e6   # bytes/s of shuffle output a host's disks can write
    net_bw: float = 100e6     # bytes/s of remote shuffle data a host can receive
    # Richer behaviour for the independent accuracy sweep (off by default):
    pipelined: bool = False   # a task reads its input and computes at once (Spark's pipelined iterators)
    locality_wait_s: float = 0.0  # a task waits this long for a slot on its preferred host
    pool_weights: tuple[tuple[str, float], ...] = ()  # FAIR pool weights (default 1)
    # Stage-level scheduling, written to the log only (``simulate`` ignores it): the resource profile
    # of a host's executor, (host, profile) pairs; 0 (the default profile) for a host not named.
    host_profiles: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class StageSpec:
    """Per-task work of one stage: every task gets these amounts."""

    tasks: int
    cpu_s: float = 0.0
    read_bytes: float = 0.0
    net_bytes: float = 0.0
    write_bytes: float = 0.0
    gc_s: float = 0.0
    name: str = ""
    task_scale: tuple[float, ...] = ()  # per-task multipliers of the amounts (skew); default all 1
    profile: int = 0  # its resource profile (Cluster.host_profiles: the executors it runs on)


@dataclass(frozen=True)
class QuerySpec:
    description: str
    submit_s: float
    stages: tuple[StageSpec, ...]
    pool: str = "default"


@dataclass
class TaskRun:
    """One finished task as the event log records it (times in seconds from the workload start)."""

    query: int
    stage: int
    index: int
    host: str
    launch: float
    finish: float
    cpu_s: float
    read_bytes: float
    net_bytes: float
    write_bytes: float
    phase_s: dict = field(default_factory=dict)
    attempt: int = 0  # 1 for the retry of a failed attempt 0 of the same index
    failed: bool = False  # it ended in an exception (ExceptionFailure): Spark tries its index again


@dataclass
class Schedule:
    queries: list[QuerySpec]
    stage_submit: dict          # (query, stage) -> seconds
    stage_complete: dict
    tasks: list[TaskRun]

    def query_runtime(self, q: int) -> float:
        ends = [self.stage_complete[(q, s)] for s in range(len(self.queries[q].stages))]
        return max(ends) - self.queries[q].submit_s


def simulate(queries: list[QuerySpec], cluster: Cluster = Cluster(), policy: str = "FAIR") -> Schedule:
    """Run the fluid model; ``policy`` is FIFO (queries in submission order) or FAIR."""
    if policy not in ("FIFO", "FAIR"):
        raise ValueError(f"unknown scheduling policy {policy!r}: use FIFO or FAIR")
    caps = {"net": cluster.net_bw, "read": cluster.read_bw, "cpu": cluster.cpus, "write": cluster.write_bw}
    per_task_max = {"net": cluster.net_bw, "read": cluster.read_bw, "cpu": 1.0, "write": cluster.write_bw}
    groups = ([("net",), ("read", "cpu"), ("gc",), ("write",)] if cluster.pipelined
              else [(phase,) for phase in PHASES])
    weights = dict(cluster.pool_weights)
    hosts = list(cluster.hosts)
    t = 0.0
    pending: list[tuple[int, int, int]] = []          # (query, stage, index) ready to launch
    since: dict[tuple[int, int, int], float] = {}     # when each pending task became ready
    running: list[dict] = []
    free = {h: cluster.slots for h in cluster.hosts}
    left_in_stage: dict[tuple[int, int], int] = {}
    submit, complete, runs = {}, {}, []
    arrivals = sorted(range(len(queries)), key=lambda q: queries[q].submit_s)

    def submit_stage(q: int, s: int, now: float) -> None:
        spec = queries[q].stages[s]
        submit[(q, s)] = now
        left_in_stage[(q, s)] = spec.tasks
        for i in range(spec.tasks):
            pending.append((q, s, i))
            since[(q, s, i)] = now

    def amounts(spec: StageSpec, i: int) -> dict:
        scale = spec.task_scale[i] if i < len(spec.task_scale) else 1.0
        return {"net": spec.net_bytes * scale, "read": spec.read_bytes * scale, "cpu": spec.cpu_s * scale,
                "gc": spec.gc_s * scale, "write": spec.write_bytes * scale}

    def active(task: dict) -> list[str]:
        return [p for p in groups[task["group"]] if task["left"][p] > 0.0]

    def next_group(task: dict) -> bool:
        while task["group"] < len(groups) - 1:
            task["group"] += 1
            if active(task):
                return True
        return False

    def preferred(task: tuple[int, int, int]) -> str:
        return hosts[(task[0] + task[1] + task[2]) % len(hosts)]

    def priority(p: tuple[int, int, int], load: dict) -> tuple:
        if policy == "FIFO":
            return (queries[p[0]].submit_s, p[0], submit[(p[0], p[1])], p[1], p[2])
        pool = queries[p[0]].pool
        return (load.get(pool, 0) / weights.get(pool, 1.0), submit[(p[0], p[1])], p[0], p[2])

    host_cycle = list(cluster.hosts)
    while arrivals or pending or running:
        while arrivals and queries[arrivals[0]].submit_s <= t + 1e-12:
            submit_stage(arrivals.pop(0), 0, t)
        # Launch tasks on free slots: by policy, each on its preferred host if a slot is free there,
        # else (after the locality wait) on the next host with a free slot.
        launched = True
        while pending and any(free.values()) and launched:
            launched = False
            load: dict[str, int] = {}
            for r in running:
                load[queries[r["q"]].pool] = load.get(queries[r["q"]].pool, 0) + 1
            for choice in sorted(pending, key=lambda p: priority(p, load)):
                home = preferred(choice)
                if free[home] > 0 and cluster.locality_wait_s > 0:
                    host = home
                elif t - since[choice] >= cluster.locality_wait_s - 1e-12:
                    host = next(h for h in host_cycle if free[h] > 0)
                    host_cycle.append(host_cycle.pop(host_cycle.index(host)))
                else:
                    continue
                pending.remove(choice)
                free[host] -= 1
                q, s, i = choice
                task = {"q": q, "s": s, "i": i, "host": host, "launch": t, "group": -1,
                        "left": amounts(queries[q].stages[s], i), "spent": {p: 0.0 for p in PHASES}}
                task["total"] = dict(task["left"])
                if next_group(task):
                    running.append(task)
                else:
                    _finish(task, t, runs, free, left_in_stage, complete, queries, submit_stage)
                launched = True
                break
        waits = [since[p] + cluster.locality_wait_s - t for p in pending if any(free.values())]
        waits = [w for w in waits if w > 1e-12]
        if not running:
            if arrivals or waits:
                t = min(([queries[arrivals[0]].submit_s] if arrivals else []) + [t + w for w in waits])
                continue
            break
        # Fair share of each resource among the tasks using it on the same host.
        counts: dict[tuple[str, str], int] = {}
        for r in running:
            for phase in active(r):
                counts[(r["host"], phase)] = counts.get((r["host"], phase), 0) + 1
        rates = []
        for r in running:
            rates.append({phase: 1.0 if phase == "gc" else min(per_task_max[phase], caps[phase] / counts[(r["host"], phase)])
                          for phase in active(r)})
        dt = min(r["left"][phase] / rate for r, rs in zip(running, rates) for phase, rate in rs.items())
        if arrivals:
            dt = min(dt, max(queries[arrivals[0]].submit_s - t, 0.0))
        if waits:
            dt = min(dt, min(waits))
        t += dt
        still = []
        for r, rs in zip(running, rates):
            for phase, rate in rs.items():
                r["left"][phase] -= rate * dt
                r["spent"][phase] += dt
                if r["left"][phase] <= 1e-9 * max(1.0, r["total"][phase]):
                    r["left"][phase] = 0.0
            if not active(r) and not next_group(r):
                _finish(r, t, runs, free, left_in_stage, complete, queries, submit_stage)
                continue
            still.append(r)
        running = still
    return Schedule(list(queries), submit, complete, runs)


def _finish(task, t, runs, free, left_in_stage, complete, queries, submit_stage) -> None:
    q, s = task["q"], task["s"]
    total = task["total"]
    runs.append(TaskRun(q, s, task["i"], task["host"], task["launch"], t, total["cpu"], total["read"],
                        total["net"], total["write"], dict(task["spent"])))
    free[task["host"]] += 1
    left_in_stage[(q, s)] -= 1
    if left_in_stage[(q, s)] == 0:
        complete[(q, s)] = t
        if s + 1 < len(queries[q].stages):
            submit_stage(q, s + 1, t)


def without(queries: list[QuerySpec], index: int) -> list[QuerySpec]:
    """The workload with one query eliminated (paper 000 Sec. 5.1.1's intervention)."""
    return [q for i, q in enumerate(queries) if i != index]


def write_event_log(schedule: Schedule, cluster: Cluster, path: Path, app_name: str = "synthetic",
                    app_id: str = "app-synthetic-0001", epoch_ms: int = EPOCH_MS,
                    spark_properties: dict | None = None) -> Path:
    """Write ``schedule`` as a Spark 3.5-style event log (JSON lines) and return its path;
    ``spark_properties`` go into an environment update (for example ``spark.task.cpus``)."""
    ms = lambda s: int(round(epoch_ms + s * 1000))  # noqa: E731
    events: list[tuple[float, int, dict]] = []
    add = lambda time_s, order, event: events.append((time_s, order, event))  # noqa: E731
    stage_ids: dict[tuple[int, int], int] = {}
    for q, spec in enumerate(schedule.queries):
        for s in range(len(spec.stages)):
            stage_ids[(q, s)] = len(stage_ids)
    first = min([0.0] + [spec.submit_s for spec in schedule.queries])
    last = max([t.finish for t in schedule.tasks] + [first])
    add(first, 0, {"Event": "SparkListenerLogStart", "Spark Version": "3.5.0"})
    add(first, 1, {"Event": "SparkListenerApplicationStart", "App Name": app_name, "App ID": app_id,
                   "Timestamp": ms(first), "User": "protoxplore"})
    add(first, 1, {"Event": "SparkListenerEnvironmentUpdate", "Spark Properties": dict(spark_properties or {})})
    host_profile = dict(cluster.host_profiles)
    for profile in sorted(set(host_profile.values()) - {0}):
        add(first, 2, {"Event": "SparkListenerResourceProfileAdded", "Resource Profile Id": profile,
                       "Executor Resource Requests": {"cores": {"Resource Name": "cores", "Amount": cluster.slots,
                                                                "Discovery Script": "", "Vendor": ""}},
                       "Task Resource Requests": {"cpus": {"Resource Name": "cpus", "Amount": 1.0}}})
    for n, host in enumerate(cluster.hosts):
        add(first, 2, {"Event": "SparkListenerExecutorAdded", "Timestamp": ms(first), "Executor ID": str(n + 1),
                       "Executor Info": {"Host": host, "Total Cores": cluster.slots, "Log Urls": {},
                                         **({"Resource Profile Id": host_profile.get(host, 0)} if host_profile else {})}})

    def stage_info(q: int, s: int, with_times: bool) -> dict:
        spec = schedule.queries[q].stages[s]
        info = {"Stage ID": stage_ids[(q, s)], "Stage Attempt ID": 0,
                "Stage Name": spec.name or f"stage {s} of query {q}", "Number of Tasks": spec.tasks,
                "Parent IDs": [stage_ids[(q, s - 1)]] if s else [], "Details": "", "Accumulables": []}
        if host_profile:  # a log of stage-level scheduling (Spark 3.1+)
            info["Resource Profile Id"] = spec.profile
        if with_times:
            info["Submission Time"] = ms(schedule.stage_submit[(q, s)])
        return info

    # Job ids count up in submission order, as Spark numbers them.
    per_stage_jobs = str((spark_properties or {}).get("spark.scheduler.mode", "FIFO")).upper() == "FAIR"
    job_of = {key: n for n, key in enumerate(sorted(schedule.stage_submit, key=lambda k: (schedule.stage_submit[k], k)))}
    query_job = {q: n for n, q in enumerate(sorted(range(len(schedule.queries)),
                                                     key=lambda q: (schedule.queries[q].submit_s, q)))}
    for q, spec in enumerate(schedule.queries):
        props = {"spark.sql.execution.id": str(q), "spark.scheduler.pool": spec.pool,
                 "spark.job.description": spec.description}
        end = max(schedule.stage_complete[(q, s)] for s in range(len(spec.stages)))
        add(spec.submit_s, 3, {"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
                               "executionId": q, "description": spec.description, "details": "",
                               "physicalPlanDescription": "", "time": ms(spec.submit_s)})
        # The jobs say the order the simulated scheduler serves stages in (Spark's FIFO priority
        # is the job id): FIFO serves a query's stages before later queries' (one job per
        # query), a FAIR pool serves its stages as they were submitted (a job per stage, as
        # Spark's adaptive execution submits query stages).
        jobs = [(query_job[q], spec.submit_s, end, list(range(len(spec.stages))))] if not per_stage_jobs else [
            (job_of[(q, s)], schedule.stage_submit[(q, s)], schedule.stage_complete[(q, s)], [s])
            for s in range(len(spec.stages))]
        for job_id, submitted, ended, stages in jobs:
            add(submitted, 4, {"Event": "SparkListenerJobStart", "Job ID": job_id, "Submission Time": ms(submitted),
                               "Stage Infos": [stage_info(q, s, False) for s in stages],
                               "Stage IDs": [stage_ids[(q, s)] for s in stages], "Properties": props})
            add(ended, 9, {"Event": "SparkListenerJobEnd", "Job ID": job_id, "Completion Time": ms(ended),
                           "Job Result": {"Result": "JobSucceeded"}})
        for s in range(len(spec.stages)):
            add(schedule.stage_submit[(q, s)], 5, {"Event": "SparkListenerStageSubmitted",
                                                   "Stage Info": stage_info(q, s, True), "Properties": props})
            done = dict(stage_info(q, s, True), **{"Completion Time": ms(schedule.stage_complete[(q, s)])})
            add(schedule.stage_complete[(q, s)], 8, {"Event": "SparkListenerStageCompleted", "Stage Info": done})
        add(end, 10, {"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
                      "executionId": q, "time": ms(end)})
    host_exec = {h: str(n + 1) for n, h in enumerate(cluster.hosts)}
    for task_id, run in enumerate(sorted(schedule.tasks, key=lambda r: (r.launch, r.query, r.stage, r.index))):
        info = {"Task ID": task_id, "Index": run.index, "Attempt": run.attempt, "Launch Time": ms(run.launch),
                "Executor ID": host_exec[run.host], "Host": run.host, "Locality": "PROCESS_LOCAL",
                "Speculative": False, "Getting Result Time": 0}
        stage = stage_ids[(run.query, run.stage)]
        add(run.launch, 6, {"Event": "SparkListenerTaskStart", "Stage ID": stage, "Stage Attempt ID": 0,
                            "Task Info": dict(info, **{"Finish Time": 0, "Failed": False, "Killed": False,
                                                       "Accumulables": []})})
        scan_ms = int(round(run.phase_s.get("read", 0.0) * 1000))
        accumulables = [{"ID": 10_000 + stage, "Name": "scan time", "Update": str(scan_ms), "Value": str(scan_ms),
                         "Internal": False, "Count Failed Values": True, "Metadata": "sql"}] if run.read_bytes or scan_ms else []
        metrics = {
            "Executor Deserialize Time": 0, "Executor Deserialize CPU Time": 0,
            "Executor Run Time": int(round((run.finish - run.launch) * 1000)),
            "Executor CPU Time": int(round(run.cpu_s * 1e9)), "Peak Execution Memory": 0, "Result Size": 1000,
            "JVM GC Time": int(round(run.phase_s.get("gc", 0.0) * 1000)), "Result Serialization Time": 0,
            "Memory Bytes Spilled": 0, "Disk Bytes Spilled": 0,
            "Shuffle Read Metrics": {"Remote Blocks Fetched": 0, "Local Blocks Fetched": 0,
                                     "Fetch Wait Time": int(round(run.phase_s.get("net", 0.0) * 1000)),
                                     "Remote Bytes Read": int(run.net_bytes), "Remote Bytes Read To Disk": 0,
                                     "Local Bytes Read": 0, "Total Records Read": 0},
            "Shuffle Write Metrics": {"Shuffle Bytes Written": int(run.write_bytes),
                                      "Shuffle Write Time": int(round(run.phase_s.get("write", 0.0) * 1e9)),
                                      "Shuffle Records Written": 0},
            "Input Metrics": {"Bytes Read": int(run.read_bytes), "Records Read": 0},
            "Output Metrics": {"Bytes Written": 0, "Records Written": 0}, "Updated Blocks": []}
        ended = ({"Reason": "ExceptionFailure", "Class Name": "java.lang.RuntimeException", "Description": "failed",
                  "Stack Trace": [], "Full Stack Trace": "", "Accumulator Updates": []} if run.failed else
                 {"Reason": "Success"})
        add(run.finish, 7, {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Stage Attempt ID": 0,
                            "Task Type": "ResultTask", "Task End Reason": ended,
                            "Task Info": dict(info, **{"Finish Time": ms(run.finish), "Failed": run.failed,
                                                       "Killed": False, "Accumulables": accumulables}),
                            "Task Metrics": metrics})
    add(last, 11, {"Event": "SparkListenerApplicationEnd", "Timestamp": ms(last)})
    events.sort(key=lambda e: (e[0], e[1]))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        for _, _, event in events:
            handle.write(json.dumps(event, separators=(",", ":")) + "\n")
    return path


def demo_workload() -> tuple[list[QuerySpec], Cluster]:
    """The demo: a nightly report (the victim) overlaps an IO-heavy ETL scan (the culprit).

    Two hosts with 4 slots and 2 CPUs each; a CPU-bound dashboard query and a small query that
    ends before the victim starts complete the picture.
    """
    cluster = Cluster(hosts=("node-1", "node-2"), slots=4, cpus=2.0, read_bw=200e6, write_bw=150e6, net_bw=100e6)
    queries = [
        QuerySpec("morning-check: SELECT count(*) FROM events WHERE day = current_date", 0.0,
                  (StageSpec(4, cpu_s=0.5, read_bytes=50e6, name="scan events"),), pool="adhoc"),
        QuerySpec("etl-load: INSERT OVERWRITE clicks_clean SELECT * FROM raw_clicks", 4.0,
                  (StageSpec(8, cpu_s=0.5, read_bytes=900e6, write_bytes=300e6, name="scan raw_clicks"),
                   StageSpec(4, cpu_s=0.5, net_bytes=200e6, write_bytes=200e6, name="write clicks_clean")), pool="etl"),
        QuerySpec("nightly-report: SELECT region, sum(revenue) FROM sales GROUP BY region", 5.0,
                  (StageSpec(8, cpu_s=1.0, read_bytes=300e6, write_bytes=20e6, name="scan sales"),
                   StageSpec(2, cpu_s=0.5, net_bytes=40e6, name="aggregate by region")), pool="reports"),
        QuerySpec("dashboard: SELECT user, avg(latency) FROM requests GROUP BY user", 6.0,
                  (StageSpec(4, cpu_s=3.0, read_bytes=20e6, gc_s=0.3, name="compute latency"),), pool="adhoc"),
    ]
    return queries, cluster


def random_workload(rng: np.random.Generator, n_queries: int = 6, cluster: Cluster | None = None,
                    span_s: float = 20.0) -> tuple[list[QuerySpec], Cluster]:
    """A random workload for the accuracy sweep and the benchmarks."""
    cluster = cluster or Cluster(hosts=("node-1", "node-2"), slots=4, cpus=2.0)
    queries = []
    for q in range(n_queries):
        stages = []
        for s in range(int(rng.integers(1, 4))):
            kind = rng.choice(["cpu", "read", "net", "write"])
            scale = float(rng.uniform(0.5, 3.0))
            stages.append(StageSpec(
                tasks=int(rng.integers(2, 9)),
                cpu_s=scale * (1.5 if kind == "cpu" else 0.3),
                read_bytes=scale * (300e6 if kind == "read" else 20e6) if s == 0 else 0.0,
                net_bytes=scale * (200e6 if kind == "net" else 10e6) if s > 0 else 0.0,
                write_bytes=scale * (200e6 if kind == "write" else 10e6),
                gc_s=float(rng.uniform(0, 0.1)), name=f"{kind}-heavy stage {s}"))
        queries.append(QuerySpec(f"q{q}: random {stages[0].name}", float(rng.uniform(0, span_s)), tuple(stages),
                                 pool=f"pool-{q % 3}"))
    return queries, cluster


def rich_workload(rng: np.random.Generator, n_queries: int = 6, span_s: float = 20.0) -> tuple[list[QuerySpec], Cluster]:
    """A random workload with what the replay of ``replay`` does not model, for an independent
    accuracy sweep: pipelined input reading and computing, skewed partitions (task amounts drawn
    log-normally), a locality wait, and FAIR pool weights that event logs do not record."""
    cluster = Cluster(hosts=("node-1", "node-2"), slots=4, cpus=2.0, pipelined=True, locality_wait_s=1.0,
                      pool_weights=(("pool-0", 1.0), ("pool-1", 2.0), ("pool-2", 0.5)))
    queries, _ = random_workload(rng, n_queries, cluster, span_s)
    skewed = []
    for q in queries:
        stages = tuple(replace(st, task_scale=tuple(float(x) for x in rng.lognormal(0.0, 0.6, st.tasks)))
                       for st in q.stages)
        skewed.append(replace(q, stages=stages))
    return skewed, cluster

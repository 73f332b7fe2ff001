#!/usr/bin/env python3
"""Generate Spark event logs with induced contention, plus elimination ground truth.

Each scenario is a schedule of Spark SQL DataFrame queries (one victim plus others) started
from Python threads at fixed offsets, on a small ``local-cluster[N,C,MB]`` master so that the
queries really compete for slots and for the machine's CPU and disk.  For each scenario:

1. BASE, logged: in fresh applications with event logging on, one warm-up round of the whole
   schedule (its queries named "warm-up round: ...") and then the logged BASE round, so that the
   logged run is as warm as the measured ones; these event logs (and only these) are copied to
   ``OUT/<scenario>/``.
2. Elimination (paper 000 Sec. 5.1.1): in fresh, unlogged applications, one warm-up BASE
   round is discarded, then ``--repeats`` rounds each run BASE and BASE-without-query-i for
   every non-victim query i (interleaved, to spread drift).  The victim's wall-clock runtime
   is measured around its action; speedup_i = median(BASE) - median(without i).
3. ``truth.json`` records the schedule, the speedups, the true top culprit and checks.

Every Spark application runs in its own Python subprocess (``--app-worker``) driven by this
orchestrator over stdin/stdout, so that the cross-application scenario can start a second
application in another process on the same host.  The orchestrator itself does not import
PySpark; the project's tests never need PySpark, only this regeneration does.

Usage:  /tmp/sparkvenv/bin/python workloads/generate.py --out tests/data/scenarios [--scenario NAME] [--repeats 3]
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field

# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------


@dataclass
class Query:
    key: str            # short identifier, used for job groups
    description: str    # unique, human readable; becomes spark.job.description
    role: str           # victim | culprit | decoy | finished_before
    start_s: float      # offset from the schedule's start
    kind: str           # math | sha | shuffle_parquet | groupby | sleep
    params: dict        # rows, parts; "skew_rows": that many of the rows in one partition
    app: str = "main"   # which application (process) runs it
    pool: str | None = None


@dataclass
class Scenario:
    name: str
    induces: str
    queries: list[Query]
    apps: dict[str, dict] = field(default_factory=dict)  # app role -> {"master", "mode"}
    check_finished_before: bool = False
    # Keys of the queries the schedule is built to lead the measured speedups (default: every
    # "culprit"); with near_tie, the top two are built to be within 5% of BASE of each other.
    designed_top: tuple[str, ...] = ()
    near_tie: bool = False

    def victim(self) -> Query:
        return next(q for q in self.queries if q.role == "victim")

    def designed(self) -> set[str]:
        return set(self.designed_top) or {q.key for q in self.queries if q.role == "culprit"}


FAIR4 = {"master": "local-cluster[2,2,1024]", "mode": "FAIR"}
FIFO2 = {"master": "local-cluster[2,1,1024]", "mode": "FIFO"}
FAIR8 = {"master": "local-cluster[2,4,1024]", "mode": "FAIR"}

SCENARIOS: dict[str, Scenario] = {}


def _add(s: Scenario) -> None:
    SCENARIOS[s.name] = s


_add(Scenario(
    name="cpu_culprit",
    induces=("CPU contention: FAIR pools on 4 slots (2 executors x 2 cores) but only 2 physical "
             "cores; a SHA-256 hashing culprit takes half the slots and half the CPU while the "
             "victim runs."),
    apps={"main": FAIR4},
    queries=[
        Query("culprit", "culprit-cpu: sha-256 hashing of 14M rows", "culprit", 0.0, "sha",
              {"rows": 14_000_000, "parts": 16}, pool="culprit"),
        Query("victim", "victim: sum of sqrt*sin over 50M rows", "victim", 1.0, "math",
              {"rows": 50_000_000, "parts": 8}, pool="victim"),
        Query("light", "light: sum over 3M rows", "decoy", 1.5, "math",
              {"rows": 3_000_000, "parts": 2}, pool="light"),
    ]))

_add(Scenario(
    name="io_culprit",
    induces=("Shuffle/disk contention: the culprit shuffles 3M rows of ~330-byte hash strings "
             "and writes them as parquet to a local temp directory while the victim runs a group-by "
             "whose shuffle moves 4M rows (FAIR pools, 4 slots on 2 cores)."),
    apps={"main": FAIR4},
    queries=[
        Query("culprit", "culprit-io: shuffle 3M wide rows and write parquet", "culprit", 0.0,
              "shuffle_parquet", {"rows": 3_000_000, "parts": 8}, pool="culprit"),
        Query("victim", "victim: group-by shuffle of 4M rows", "victim", 1.0, "groupby",
              {"rows": 4_000_000, "parts": 8}, pool="victim"),
        Query("light", "light: sum over 3M rows", "decoy", 1.5, "math",
              {"rows": 3_000_000, "parts": 2}, pool="light"),
    ]))

_add(Scenario(
    name="slot_hog_fifo",
    induces=("Slot contention under FIFO: 2 slots (2 executors x 1 core); a culprit with 12 long "
             "tasks is submitted 0.5 s before the victim and holds every slot until its tasks run "
             "out; a light query submitted after the victim queues behind it."),
    apps={"main": FIFO2},
    queries=[
        Query("culprit", "culprit-slots: 12 long sha-256 tasks over 12M rows", "culprit", 0.0, "sha",
              {"rows": 12_000_000, "parts": 12}),
        Query("victim", "victim: sum of sqrt*sin over 20M rows", "victim", 0.5, "math",
              {"rows": 20_000_000, "parts": 4}),
        Query("late", "late: sum over 3M rows submitted after the victim", "decoy", 1.0, "math",
              {"rows": 3_000_000, "parts": 2}),
    ]))

_add(Scenario(
    name="decoy",
    induces=("A decoy overlaps the victim for its whole life but uses almost nothing: three tasks that "
             "sleep in a Python UDF (3 of 8 slots, no CPU; 8 slots on 2 physical cores, so slots are "
             "not short). The real culprit, a SHA-256 CPU burst in another FAIR pool, overlaps only "
             "the middle of the victim's life: overlap-based methods rank the decoy first."),
    apps={"main": FAIR8},
    queries=[
        Query("decoy", "decoy: three tasks sleeping 12 s in a python udf", "decoy", 0.0, "sleep",
              {"seconds": 12.0, "parts": 3}, pool="decoy"),
        Query("victim", "victim: sum of sqrt*sin over 160M rows in 2 tasks", "victim", 0.5, "math",
              {"rows": 160_000_000, "parts": 2}, pool="victim"),
        Query("culprit", "culprit-cpu: sha-256 burst over 12M rows", "culprit", 2.5, "sha",
              {"rows": 12_000_000, "parts": 8}, pool="culprit"),
    ]))

_add(Scenario(
    name="cross_app",
    induces=("Cross-application CPU contention: the culprit runs in a second Spark application "
             "(separate process, own executors and event log) on the same 2-core host; inside the "
             "victim's application only a light query queues after it (FIFO, 2 slots each app)."),
    apps={"main": FIFO2, "other": FIFO2},
    queries=[
        Query("culprit", "culprit-other-app: sha-256 hashing of 12M rows", "culprit", 0.0, "sha",
              {"rows": 12_000_000, "parts": 8}, app="other"),
        Query("victim", "victim: sum of sqrt*sin over 30M rows", "victim", 1.0, "math",
              {"rows": 30_000_000, "parts": 8}),
        Query("late", "late: sum over 3M rows submitted after the victim", "decoy", 1.5, "math",
              {"rows": 3_000_000, "parts": 2}),
    ]))

_add(Scenario(
    name="finished_before",
    induces=("A heavy query that finished before the victim started (must get no blame) and a "
             "real concurrent SHA-256 CPU culprit (FAIR pools, 4 slots on 2 cores)."),
    apps={"main": FAIR4},
    check_finished_before=True,
    queries=[
        Query("before", "before: sha-256 hashing of 6M rows, done before the victim", "finished_before",
              0.0, "sha", {"rows": 6_000_000, "parts": 8}, pool="before"),
        Query("culprit", "culprit-cpu: sha-256 hashing of 14M rows", "culprit", 5.5, "sha",
              {"rows": 14_000_000, "parts": 16}, pool="culprit"),
        Query("victim", "victim: sum of sqrt*sin over 50M rows", "victim", 6.0, "math",
              {"rows": 50_000_000, "parts": 8}, pool="victim"),
    ]))

_add(Scenario(
    name="fair_resharing",
    induces=("FAIR re-sharing of freed slots (4 slots on 2 cores): a slot holder keeps two slots with "
             "two tasks sleeping in a python udf (no CPU); a SHA-256 taker and the victim share the "
             "other two.  Without the holder, FAIR re-shares its slots between the taker and the "
             "victim, and the taker's extra tasks take the CPU the victim would have gained: the "
             "holder, which slot-based blame names, barely matters; the taker does."),
    apps={"main": FAIR4},
    queries=[
        Query("holder", "slot-holder: two tasks sleeping 8 s in a python udf", "decoy", 0.0, "sleep",
              {"seconds": 8.0, "parts": 2}, pool="holder"),
        Query("taker", "culprit-taker: sha-256 hashing of 16M rows in 16 tasks", "culprit", 0.0, "sha",
              {"rows": 16_000_000, "parts": 16}, pool="taker"),
        Query("victim", "victim: sum of sqrt*sin over 80M rows", "victim", 1.0, "math",
              {"rows": 80_000_000, "parts": 8}, pool="victim"),
        Query("light", "light: sum over 3M rows", "decoy", 1.5, "math",
              {"rows": 3_000_000, "parts": 2}, pool="light"),
    ]))

_add(Scenario(
    name="chain",
    induces=("A chain (FIFO, 2 slots per application): in the victim's application a slot holder "
             "(4 SHA-256 tasks, two waves) is submitted just before the victim, which queues behind "
             "it; a CPU hog in a second application on the same 2 cores slows the holder's tasks, so "
             "the victim waits longer for its slots, and then slows the victim's own tasks.  The hog "
             "never holds a slot of the victim's application, yet removing it saves the most."),
    apps={"main": FIFO2, "other": FIFO2},
    designed_top=("hog",),
    queries=[
        Query("hog", "culprit-hog: sha-256 hashing of 12M rows in the other application", "culprit", 0.0,
              "sha", {"rows": 12_000_000, "parts": 4}, app="other"),
        Query("holder", "slot-holder: 4 sha-256 tasks over 4M rows ahead of the victim", "culprit", 0.2,
              "sha", {"rows": 4_000_000, "parts": 4}),
        Query("victim", "victim: sum of sqrt*sin over 90M rows in 4 tasks", "victim", 0.5, "math",
              {"rows": 90_000_000, "parts": 4}),
        Query("late", "late: sum over 3M rows submitted after the victim", "decoy", 1.0, "math",
              {"rows": 3_000_000, "parts": 2}),
    ]))

_add(Scenario(
    name="skew",
    induces=("Skewed partitions (FAIR pools, 4 slots on 2 cores): the culprit's first partition holds "
             "9M of its 11M rows, so one SHA-256 task takes a whole core for the victim's whole life "
             "while its seven small tasks end early; an evenly split SHA-256 query with 16 tasks "
             "overlaps the victim's middle with more tasks but less CPU; plus a light query."),
    apps={"main": FAIR4},
    queries=[
        Query("culprit", "culprit-skew: sha-256 over 11M rows, 9M of them in one partition", "culprit", 0.0,
              "sha", {"rows": 11_000_000, "parts": 8, "skew_rows": 9_000_000}, pool="skewed"),
        Query("victim", "victim: sum of sqrt*sin over 80M rows", "victim", 1.0, "math",
              {"rows": 80_000_000, "parts": 8}, pool="victim"),
        Query("even", "even: sha-256 over 3M rows in 16 even tasks", "decoy", 1.5, "sha",
              {"rows": 3_000_000, "parts": 16}, pool="even"),
        Query("light", "light: sum over 3M rows", "decoy", 2.0, "math",
              {"rows": 3_000_000, "parts": 2}, pool="light"),
    ]))

_add(Scenario(
    name="near_tie",
    induces=("A near tie (FAIR pools, 4 slots on 2 cores): two identical SHA-256 culprits in two "
             "pools start together and overlap the victim alike, so removing either saves about "
             "the same; a light query besides.  Top-1 is not scored here, only the ranking."),
    apps={"main": FAIR4},
    near_tie=True,
    queries=[
        Query("culprit_a", "culprit-a: sha-256 hashing of 8M rows in pool a", "culprit", 0.0, "sha",
              {"rows": 8_000_000, "parts": 8}, pool="a"),
        Query("culprit_b", "culprit-b: sha-256 hashing of 8M rows in pool b", "culprit", 0.0, "sha",
              {"rows": 8_000_000, "parts": 8}, pool="b"),
        Query("victim", "victim: sum of sqrt*sin over 60M rows", "victim", 1.0, "math",
              {"rows": 60_000_000, "parts": 8}, pool="victim"),
        Query("light", "light: sum over 3M rows", "decoy", 1.5, "math",
              {"rows": 3_000_000, "parts": 2}, pool="light"),
    ]))

_add(Scenario(
    name="two_apps",
    induces=("Two applications, three candidates: a SHA-256 culprit in a second application (FIFO, "
             "2 slots) and a light query there that starts after it; in the victim's application "
             "(FAIR, 4 slots) a sleeper holds two slots with python udf sleeps (no CPU), so slots "
             "are not short and the CPU is what the victim lacks."),
    apps={"main": FAIR4, "other": FIFO2},
    queries=[
        Query("culprit", "culprit-other-app: sha-256 hashing of 12M rows", "culprit", 0.0, "sha",
              {"rows": 12_000_000, "parts": 8}, app="other"),
        Query("other_late", "other-late: sum over 3M rows in the other application", "decoy", 2.5, "math",
              {"rows": 3_000_000, "parts": 2}, app="other"),
        Query("sleeper", "sleeper: two tasks sleeping 6 s in a python udf", "decoy", 0.0, "sleep",
              {"seconds": 6.0, "parts": 2}, pool="sleeper"),
        Query("victim", "victim: sum of sqrt*sin over 60M rows", "victim", 1.0, "math",
              {"rows": 60_000_000, "parts": 8}, pool="victim"),
    ]))

_add(Scenario(
    name="mixed_kinds",
    induces=("Three kinds of neighbour at once (FAIR pools, 4 slots on 2 cores): a SHA-256 CPU "
             "culprit, a small shuffle that writes parquet, and a sleeper holding one slot with a "
             "python udf sleep (no CPU); the victim is CPU-bound, so the CPU culprit leads."),
    apps={"main": FAIR4},
    queries=[
        Query("culprit", "culprit-cpu: sha-256 hashing of 12M rows", "culprit", 0.0, "sha",
              {"rows": 12_000_000, "parts": 16}, pool="culprit"),
        Query("io", "io: shuffle 0.5M wide rows and write parquet", "decoy", 1.5, "shuffle_parquet",
              {"rows": 500_000, "parts": 4}, pool="io"),
        Query("sleeper", "sleeper: one task sleeping 6 s in a python udf", "decoy", 0.0, "sleep",
              {"seconds": 6.0, "parts": 1}, pool="sleeper"),
        Query("victim", "victim: sum of sqrt*sin over 60M rows", "victim", 1.0, "math",
              {"rows": 60_000_000, "parts": 8}, pool="victim"),
    ]))

_add(Scenario(
    name="alone",
    induces=("A query that ran alone (FIFO, 2 slots): after the warm-ups, the victim runs with nothing "
             "else, so there is no candidate culprit and nothing may be blamed; the elimination "
             "rounds only measure BASE."),
    apps={"main": FIFO2},
    queries=[
        Query("victim", "victim: sum of sqrt*sin over 100M rows, alone", "victim", 0.0, "math",
              {"rows": 100_000_000, "parts": 4}),
    ]))

# --------------------------------------------------------------------------------------------
# Application worker (imports PySpark; one per Spark application)
# --------------------------------------------------------------------------------------------


def _say(tag: str, payload) -> None:
    sys.stdout.write(f"@@{tag} {json.dumps(payload)}\n")
    sys.stdout.flush()


def app_worker(args) -> None:
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import lit, udf

    app = json.loads(args.app_config)
    builder = (SparkSession.builder.master(app["master"]).appName(app["name"])
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "8")
               # No delay scheduling: its 3 s locality waits made runtimes jump by whole seconds.
               .config("spark.locality.wait", "0s")
               .config("spark.scheduler.mode", app["mode"])
               .config("spark.pyspark.python", sys.executable)
               .config("spark.pyspark.driver.python", sys.executable))
    if app.get("event_log_dir"):
        builder = (builder.config("spark.eventLog.enabled", "true")
                   .config("spark.eventLog.dir", "file://" + app["event_log_dir"])
                   .config("spark.eventLog.rolling.enabled", "false")
                   .config("spark.eventLog.compress", "true")
                   .config("spark.eventLog.compression.codec", "zstd")
                   .config("spark.eventLog.logStageExecutorMetrics", "true"))
    else:
        builder = builder.config("spark.eventLog.enabled", "false")
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    # Wait until every executor registered, so that no query waits for executors.
    want = app["executors"] + 1
    deadline = time.time() + 120
    while sc._jsc.sc().getExecutorMemoryStatus().size() < want and time.time() < deadline:
        time.sleep(0.2)
    workdir = app["workdir"]

    @udf("long")
    def sleepy(seconds):  # runs in the executor's Python worker: holds a slot, burns no CPU
        import time as _time
        _time.sleep(seconds)
        return 0

    def ids(p: dict):
        """ids 0..rows-1 in `parts` partitions; with skew_rows, the first partition alone holds that many."""
        if "skew_rows" in p:
            return (spark.range(0, p["skew_rows"], 1, 1)
                    .union(spark.range(p["skew_rows"], p["rows"], 1, p["parts"] - 1)))
        return spark.range(0, p["rows"], 1, p["parts"])

    def action(q: dict) -> None:
        p = q["params"]
        if q["kind"] == "math":
            ids(p).selectExpr("sum(sqrt(id) * sin(id)) AS s").collect()
        elif q["kind"] == "sha":
            (ids(p)
             .selectExpr("sum(hash(sha2(cast(id AS string), 256))) AS h").collect())
        elif q["kind"] == "groupby":
            (spark.range(0, p["rows"], 1, p["parts"])
             .selectExpr("id % 1000000 AS k", "id AS v").groupBy("k").sum("v")
             .selectExpr("count(*) AS groups").collect())
        elif q["kind"] == "shuffle_parquet":
            (spark.range(0, p["rows"], 1, p["parts"])
             .selectExpr("id", "repeat(sha2(cast(id AS string), 256), 3) AS a",
                         "sha2(cast(id AS string), 512) AS b")
             .repartition(p["parts"], "id")
             .write.mode("overwrite").parquet(os.path.join(workdir, q["key"] + ".parquet")))
        elif q["kind"] == "sleep":
            # The duration goes in as data: a UDF pickles its closure once, at its first use.
            n = p.get("parts", 1)
            spark.range(0, n, 1, n).select(sleepy(lit(float(p["seconds"]))).alias("x")).collect()
        else:
            raise ValueError(q["kind"])

    def run_one(q: dict, at: float, out: dict) -> None:
        delay = at - time.time()
        if delay > 0:
            time.sleep(delay)
        sc.setJobGroup(app["name"] + ":" + q["key"], q["description"], interruptOnCancel=False)
        sc.setJobDescription(q["description"])
        sc.setLocalProperty("spark.scheduler.pool", q.get("pool") if app["mode"] == "FAIR" else None)
        start = time.time()
        try:
            action(q)
            err = None
        except Exception as exc:  # reported to the orchestrator
            err = repr(exc)
        out[q["key"]] = {"start": start, "end": time.time(), "error": err}

    # Warm-up (JIT, codegen, Python workers): each kind of query of this application once,
    # smaller, then a pause; in logged runs these show up as "warmup: ..." queries that finished
    # well before the schedule started.
    for w in app.get("warmup", []):
        run_one(w, 0.0, {})
    time.sleep(app.get("warmup_pause_s", 0.0))
    _say("READY", {"app_id": sc.applicationId, "spark_version": spark.version})
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd.get("stop"):
            break
        out: dict = {}
        threads = [threading.Thread(target=run_one, args=(q, q["at"], out)) for q in cmd["run"]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        _say("DONE", out)
    spark.stop()
    _say("STOPPED", {})


# --------------------------------------------------------------------------------------------
# Orchestrator (no PySpark import)
# --------------------------------------------------------------------------------------------


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class AppProc:
    """One Spark application in a subprocess, driven over stdin/stdout."""

    def __init__(self, scenario: Scenario, role: str, event_log_dir: str | None, workdir: str, stderr_path: str):
        conf = dict(scenario.apps[role])
        executors = int(conf["master"].split("[")[1].split(",")[0])
        conf.update(name=f"protoxplore-{scenario.name}-{role}", event_log_dir=event_log_dir,
                    workdir=workdir, executors=executors)
        conf.update(warmup=warmup_queries(scenario, role), warmup_pause_s=3.0)
        self.role, self.conf = role, conf
        self.stderr = open(stderr_path, "ab")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--app-worker",
                                      "--app-config", json.dumps(conf)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     text=True, bufsize=1)
        self.ready = self._expect("READY")

    def _expect(self, tag: str) -> dict:
        for line in self.proc.stdout:
            if line.startswith(f"@@{tag} "):
                return json.loads(line[len(tag) + 3:])
        raise RuntimeError(f"application {self.conf['name']} exited before {tag}; see {self.stderr.name}")

    def send(self, obj) -> None:
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        self.send({"stop": True})
        self._expect("STOPPED")
        self.proc.wait(timeout=120)
        self.stderr.close()


def warmup_queries(scenario: Scenario, role: str) -> list[dict]:
    """One smaller query per kind of query the application runs, to warm its JVMs up."""
    out = []
    for kind in dict.fromkeys(q.kind for q in scenario.queries if q.app == role):
        big = max((q for q in scenario.queries if q.app == role and q.kind == kind),
                  key=lambda q: q.params.get("rows", 0))
        if kind == "sleep":
            params, what = {"seconds": 0.5, "parts": 4}, "4 python udf tasks sleeping 0.5 s"
        else:
            params = {"rows": big.params["rows"] // 3, "parts": max(big.params["parts"], 4)}
            what = f"{kind} query over {params['rows'] // 1_000_000}M rows"
        out.append({"key": f"warmup-{kind}", "description": f"warmup: {what}", "role": "finished_before",
                    "kind": kind, "params": params, "pool": None, "app": role})
    return out


def start_apps(scenario: Scenario, event_log_dir: str | None, workdir: str) -> dict[str, AppProc]:
    procs = {}
    # "other" first, then "main": started one after another, so application ids differ.
    for role in sorted(scenario.apps, key=lambda r: r != "other"):
        procs[role] = AppProc(scenario, role, event_log_dir, workdir, os.path.join(workdir, f"{role}.stderr"))
    return procs


def settle() -> None:
    """Between runs: flush dirty pages (parquet, shuffle files) and let background work end."""
    if hasattr(os, "sync"):
        os.sync()
    time.sleep(1.5)


WARM_UP_ROUND = "warm-up round: "


def run_schedule(scenario: Scenario, procs: dict[str, AppProc], exclude: str | None = None,
                 warm_up: bool = False) -> dict:
    """Run the schedule (optionally without one query); return times relative to its start.
    A warm-up round names its queries apart (WARM_UP_ROUND), so that a logged one is told apart."""
    t0 = time.time() + 1.0
    per_app: dict[str, list] = {}
    for q in scenario.queries:
        if q.key == exclude:
            continue
        run = dict(asdict(q), at=t0 + q.start_s)
        if warm_up:
            run.update(key="warm-up-" + q.key, description=WARM_UP_ROUND + q.description)
        per_app.setdefault(q.app, []).append(run)
    for role, qs in per_app.items():
        procs[role].send({"run": qs})
    result = {}
    for role in per_app:
        for key, r in procs[role]._expect("DONE").items():
            if r["error"]:
                raise RuntimeError(f"{scenario.name}: query {key} failed: {r['error']}")
            result[key] = {"start_s": round(r["start"] - t0, 3), "end_s": round(r["end"] - t0, 3),
                           "runtime_s": round(r["end"] - r["start"], 3)}
    return result


def read_event_log(path: str) -> list[dict]:
    if path.endswith(".zstd"):
        try:
            import zstandard  # type: ignore
            with open(path, "rb") as fh:
                data = zstandard.ZstdDecompressor().stream_reader(fh).read()
        except ImportError:
            if not shutil.which("zstd"):
                return []
            data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
        text = data.decode()
    else:
        with open(path) as fh:
            text = fh.read()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def sql_times(events: list[dict]) -> dict[str, dict]:
    """description -> SQL execution start/end (ms) from one event log."""
    by_id, out = {}, {}
    for e in events:
        if e["Event"].endswith("SparkListenerSQLExecutionStart"):
            by_id[e["executionId"]] = {"description": e.get("description", ""), "start_ms": e["time"]}
        elif e["Event"].endswith("SparkListenerSQLExecutionEnd") and e["executionId"] in by_id:
            by_id[e["executionId"]]["end_ms"] = e["time"]
    for ex in by_id.values():
        out.setdefault(ex["description"], ex)
    return out


def generate(scenario: Scenario, out_root: str, repeats: int, tmp_root: str) -> dict:
    began = time.time()
    victim = scenario.victim()
    work = tempfile.mkdtemp(prefix=scenario.name + "-", dir=tmp_root)

    # 1. logged BASE run
    logdir = os.path.join(work, "eventlogs")
    os.makedirs(logdir)
    log(f"{scenario.name}: logged BASE run")
    procs = start_apps(scenario, logdir, work)
    app_ids = {role: p.ready["app_id"] for role, p in procs.items()}
    spark_version = procs["main"].ready["spark_version"]
    settle()
    # The elimination runs below are warm (their first round is discarded); so is the logged one.
    run_schedule(scenario, procs, warm_up=True)
    settle()
    logged = run_schedule(scenario, procs)
    for p in procs.values():
        p.stop()
    procs_logged = procs
    dest = os.path.join(out_root, scenario.name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    apps = []
    for role, app_id in app_ids.items():
        files = [f for f in os.listdir(logdir) if f.startswith(app_id)]
        if len(files) != 1 or files[0].endswith(".inprogress"):
            raise RuntimeError(f"{scenario.name}: expected one finished event log for {app_id}, got {files}")
        shutil.copy(os.path.join(logdir, files[0]), os.path.join(dest, files[0]))
        apps.append({"app": app_id, "role": role, "name": procs[role].conf["name"], "log": files[0],
                     "master": scenario.apps[role]["master"], "scheduler_mode": scenario.apps[role]["mode"]})
    # Check: every query is identifiable in its application's log by description.
    checks = {}
    log_sql = {}
    for a in apps:
        events = read_event_log(os.path.join(dest, a["log"]))
        if events:
            log_sql[a["role"]] = sql_times(events)
    if log_sql:
        missing = [q.description for q in scenario.queries if q.description not in log_sql.get(q.app, {})]
        missing += [w["description"] for role, p in procs.items() for w in p.conf["warmup"]
                    if w["description"] not in log_sql.get(role, {})]
        checks["all_descriptions_in_logs"] = not missing
        if missing:
            log(f"WARNING {scenario.name}: not found as SQL executions in the logs: {missing}")
        vstart = log_sql.get(victim.app, {}).get(victim.description, {}).get("start_ms")
        warm = [(role, w["description"]) for role, p in procs.items() for w in p.conf["warmup"]]
        warm += [(q.app, WARM_UP_ROUND + q.description) for q in scenario.queries]
        checks["warmups_finished_before_victim_started"] = all(
            log_sql.get(role, {}).get(d, {}).get("end_ms", 1e18) < (vstart or 0) for role, d in warm)
    if scenario.check_finished_before:
        for q in scenario.queries:
            if q.role == "finished_before":
                ok = logged[q.key]["end_s"] < logged[victim.key]["start_s"]
                if log_sql:
                    ok = ok and (log_sql[q.app][q.description]["end_ms"]
                                 < log_sql[victim.app][victim.description]["start_ms"])
                checks[f"finished_before_victim_started: {q.description}"] = ok
                if not ok:
                    log(f"WARNING {scenario.name}: {q.description} did not finish before the victim started")

    # 2. elimination runs (unlogged, warm)
    log(f"{scenario.name}: elimination runs ({repeats} repeats)")
    procs = start_apps(scenario, None, work)
    others = [q for q in scenario.queries if q.role != "victim"]
    configs = [None] + [q.key for q in others]
    settle()
    run_schedule(scenario, procs)  # warm-up, discarded
    samples: dict[str | None, list[float]] = {c: [] for c in configs}
    all_runs = []
    for r in range(repeats):
        for c in configs[r % len(configs):] + configs[:r % len(configs)]:  # rotated order
            settle()
            res = run_schedule(scenario, procs, exclude=c)
            samples[c].append(res[victim.key]["runtime_s"])
            all_runs.append({"repeat": r, "without": c, "times": res})
            log(f"  repeat {r} {'BASE' if c is None else 'without ' + c}: victim {res[victim.key]['runtime_s']:.2f} s")
    for p in procs.values():
        p.stop()

    # 3. truth
    desc = {q.key: q.description for q in scenario.queries}
    base = statistics.median(samples[None])
    speedups = {desc[c]: round(base - statistics.median(samples[c]), 3) for c in configs[1:]}
    ranked = sorted(speedups.items(), key=lambda kv: -kv[1])
    key_of = {q.description: q.key for q in others}
    # No other query (alone): no culprit to find; truth says so with nulls and no top checks.
    top, top_s = ranked[0] if ranked else (None, None)
    second_s = ranked[1][1] if len(ranked) > 1 else 0.0
    compared = [None] + [key_of[d] for d, _ in ranked[:2]]  # BASE, top and second
    noise = max(max(samples[c]) - min(samples[c]) for c in compared) / 2
    if ranked:
        checks["top_speedup_over_20pct_of_base"] = top_s > 0.2 * base
        if scenario.near_tie:  # within evaluate's clear-lead rule (5% of BASE): top-1 not scored
            checks["top_two_within_5pct_of_base"] = (top_s - second_s) < 0.05 * base
        else:
            checks["top_clear_of_second"] = (top_s - second_s) > max(2 * noise, 0.1 * base)
        checks["top_is_designated_culprit"] = key_of[top] in scenario.designed()
    else:
        checks["no_candidate_culprit"] = True
    for name, ok in checks.items():
        if not ok:
            log(f"WARNING {scenario.name}: check failed: {name}")

    truth = {
        "scenario": scenario.name,
        "induces": scenario.induces,
        "designed_top": [desc[k] for k in sorted(scenario.designed())],
        "victim": {"description": victim.description, "app": app_ids[victim.app]},
        "queries": [{"description": q.description, "app": app_ids[q.app], "role": q.role,
                     "start_offset_s": q.start_s, "pool": q.pool if scenario.apps[q.app]["mode"] == "FAIR" else None,
                     "work": dict(q.params, kind=q.kind)} for q in scenario.queries]
                   + [{"description": w["description"], "app": app_ids[role], "role": "finished_before",
                       "warmup": True, "start_offset_s": None, "pool": None, "work": dict(w["params"], kind=w["kind"])}
                      for role, p in procs_logged.items() for w in p.conf["warmup"]]
                   + [{"description": WARM_UP_ROUND + q.description, "app": app_ids[q.app], "role": "finished_before",
                       "warmup": True, "start_offset_s": None, "pool": q.pool if scenario.apps[q.app]["mode"] == "FAIR" else None,
                       "work": dict(q.params, kind=q.kind)} for q in scenario.queries],
        "apps": apps,
        "speedups_s": speedups,
        "speedups_pct_of_base": {d: round(100 * s / base, 1) for d, s in speedups.items()},
        "runtimes_s": dict({"BASE": round(base, 3)},
                           **{f"without: {desc[c]}": round(statistics.median(samples[c]), 3) for c in configs[1:]}),
        "runtime_samples_s": dict({"BASE": samples[None]},
                                  **{f"without: {desc[c]}": samples[c] for c in configs[1:]}),
        "true_top_culprit": top,
        "top_margin_s": round(top_s - second_s, 3) if ranked else None,
        "noise_s": round(noise, 3),
        "checks": checks,
        "logged_base": {"victim_runtime_s": logged[victim.key]["runtime_s"],
                        "queries": {desc[k]: v for k, v in logged.items()},
                        "note": ("the logged BASE ran after a warm-up round of the schedule, as the "
                                 "measured rounds do; speedups were measured in separate unlogged applications")},
        "spark_version": spark_version,
        "master": scenario.apps["main"]["master"],
        "scheduler_mode": scenario.apps["main"]["mode"],
        "repeats": repeats,
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "generation_seconds": round(time.time() - began, 1),
        "generator": "workloads/generate.py",
    }
    with open(os.path.join(dest, "truth.json"), "w") as fh:
        json.dump(truth, fh, indent=2)
        fh.write("\n")
    shutil.rmtree(work, ignore_errors=True)
    log(f"{scenario.name}: BASE {base:.2f} s, speedups {speedups}, top {top!r} "
        f"({time.time() - began:.0f} s)")
    return truth


def measured_table(out_root: str) -> str:
    """The README's table of measured truth, from the committed truth.json files."""
    lines = ["| scenario | victim BASE (s) | speedup without each other query (s) | true top culprit | margin / noise (s) |",
             "|---|---|---|---|---|"]
    for name in SCENARIOS:
        path = os.path.join(out_root, name, "truth.json")
        if not os.path.exists(path):
            continue
        with open(path) as fh:
            t = json.load(fh)
        speedups = "; ".join(f"{d.split(':')[0]} {s:+.2f}" for d, s in t["speedups_s"].items()) or "(no other query)"
        top = (t["true_top_culprit"] or "none").split(":")[0]
        margin = "-" if t["top_margin_s"] is None else f"{t['top_margin_s']:.2f}"
        lines.append(f"| `{name}` | {t['runtimes_s']['BASE']:.2f} | {speedups} | {top} | {margin} / {t['noise_s']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                  "tests", "data", "scenarios"),
                    help="output directory (one sub-directory per scenario)")
    ap.add_argument("--scenario", action="append", choices=sorted(SCENARIOS),
                    help="regenerate only this scenario (repeatable); default: all")
    ap.add_argument("--repeats", type=int, default=3, help="runs per configuration (median is used)")
    ap.add_argument("--tmp", default=None, help="scratch directory (default: system temp)")
    ap.add_argument("--table", action="store_true", help="print the README's table of measured truth and stop")
    ap.add_argument("--app-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--app-config", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.app_worker:
        app_worker(args)
        return
    if args.table:
        print(measured_table(args.out))
        return
    began = time.time()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    tmp_root = tempfile.mkdtemp(prefix="protoxplore-workloads-", dir=args.tmp)
    try:
        for name in args.scenario or list(SCENARIOS):
            generate(SCENARIOS[name], out, args.repeats, tmp_root)
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    log(f"all done in {time.time() - began:.0f} s")


if __name__ == "__main__":
    main()

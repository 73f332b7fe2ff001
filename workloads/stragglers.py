"""Spark event logs with stragglers of known cause, for Hound's validation (paper 002, issue 11).

One Spark application (``local-cluster[2,1,1024]``: two executors of one core, in their own JVMs)
runs ``--rounds`` rounds of five queries; each query has one *induced stage* of TASKS tasks in
which some tasks are made stragglers by a known cause, strongly enough to be unmistakable on a
shared machine:

* ``skewed_keys``: the stage reads a shuffle partitioned by a key where two hot keys hold half the
  rows, so two of its partitions read about 10x the rows of the others (cause: shuffle read).
* ``gc_partition``: two of its partitions call ``System.gc()`` (through Spark SQL's ``reflect``)
  every so many rows, so their tasks spend seconds in full garbage collections (cause: gc).
* ``slow_executor``: while it runs, one executor's JVM is let run 20 ms of every 80 (stopped with
  SIGSTOP, resumed with SIGCONT), as a CPU hog with three times its weight would: every task on it
  takes about 4x as long for the same CPU time (cause: contention). A real busy loop pinned to the
  executor's CPU was tried first: on this shared 2-core machine (load 10-17) the kernel moved the
  other users' processes to the other CPU and the pinned executor was not slower (README).
* ``shuffle_write``: two of its partitions write rows 20x wider to the shuffle (shuffle
  compression off, so the bytes are written as they are) (cause: shuffle write).
* ``first_task``: just before it, one executor's JVM is killed; the standalone master starts a
  fresh one, whose first task pays class loading and code generation while the other executor is
  warm (cause: first task).

Every query is a SQL execution with its own job group and description; after each, the worker asks
Spark's status tracker for the stage with TASKS tasks, so ``truth.json`` names each induced stage
by its key (``APP/stage-ID.0``) with the kind of cause (``hound_expert.CAUSE``'s kinds), chosen
here before any analysis. Nothing else of the truth comes from ProtoXplore. Warm-up queries of
each kind run first (``warmup: ...``, not in the truth). Logs are zstd (Spark's codec).

    /tmp/sparkvenv/bin/python workloads/stragglers.py --out tests/data/stragglers [--rounds 4]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: Tasks of every induced stage (the other stages of the queries have 4 or 1).
TASKS = 16
#: Rows of each query; a normal task of an induced stage handles ROWS / TASKS of them.
ROWS = 2_400_000
#: Partitions made stragglers in the skew, GC and shuffle-write stages.
INDUCED_PARTITIONS = (3, 11)
#: cause name -> (kind of cause, what is induced), written into truth.json.
CAUSES = {
    "skewed_keys": ("shuffle read", "two hot keys hold half the rows: two of the 16 shuffle partitions read ~10x the rows"),
    "gc_partition": ("gc", "partitions 3 and 11 call System.gc() every 7,500 rows (20 full collections each)"),
    "slow_executor": ("contention", "one executor runs 20 ms of every 80 (SIGSTOP/SIGCONT), as beside a 3x-weight CPU hog"),
    "shuffle_write": ("shuffle write", "partitions 3 and 11 write rows 20x wider to the shuffle (uncompressed)"),
    "first_task": ("first task", "one executor killed just before: the replacement's first task runs on a cold JVM"),
}


def executor_pids(app_id: str) -> dict[str, int]:
    """Executor id -> pid of this application's executor JVMs (``CoarseGrainedExecutorBackend``)."""
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"org.apache.spark.executor.CoarseGrainedExecutorBackend" in argv and app_id.encode() in argv:
            out[argv[argv.index(b"--executor-id") + 1].decode()] = int(pid)
    return out


class Throttle(threading.Thread):
    """Let a process run RUN_S of every RUN_S + STOP_S seconds until stopped (then it runs freely)."""

    RUN_S, STOP_S = 0.02, 0.06

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.done = pid, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            os.kill(self.pid, signal.SIGSTOP)
            time.sleep(self.STOP_S)
            os.kill(self.pid, signal.SIGCONT)
            time.sleep(self.RUN_S)

    def stop(self) -> None:
        self.done.set()
        self.join()
        os.kill(self.pid, signal.SIGCONT)


def app_worker(out: Path, rounds: int) -> dict:
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local-cluster[2,1,1024]").appName("protoxplore-stragglers")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.adaptive.enabled", "false")  # AQE would coalesce the small partitions
             .config("spark.sql.shuffle.partitions", str(TASKS)).config("spark.locality.wait", "0s")
             .config("spark.shuffle.compress", "false")  # wide rows are written as they are
             .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", "file://" + str(out))
             .config("spark.eventLog.rolling.enabled", "false").config("spark.eventLog.compress", "true")
             .config("spark.eventLog.compression.codec", "zstd").getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    app_id = sc.applicationId

    def wait_for_executors() -> None:
        deadline = time.time() + 120
        while (sc._jsc.sc().getExecutorMemoryStatus().size() < 3 or len(executor_pids(app_id)) < 2) \
                and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # registered with the driver and the block manager

    # Two hot keys that hash to different shuffle partitions (Spark's HashPartitioning is SQL's hash).
    partition = dict(spark.range(0, 64).selectExpr("id", f"pmod(hash(id), {TASKS})").collect())
    hot = [0, next(k for k in range(1, 64) if partition[k] != partition[0])]
    # Hot rows: a share s of all rows split over two keys, the rest spread over 16 partitions:
    # s/2 + (1 - s)/16 = 10 (1 - s)/16 gives s = 9/17 (53%).
    skewed_key = f"CASE WHEN id % 100 < 53 THEN (CASE WHEN id % 2 = 0 THEN {hot[0]} ELSE {hot[1]} END) " \
                 "ELSE 1000 + id % 5000 END"
    induced = ", ".join(map(str, INDUCED_PARTITIONS))
    per_task = ROWS // TASKS

    def query(cause: str, rows: int) -> None:
        # The same per-row work in every induced stage but the shuffle write's: a normal task takes
        # a few tenths of a second of CPU, so that scheduling noise on a loaded machine stays small.
        work = "hash(sha2(sha2(sha2(sha2(cast(id AS string), 256), 256), 256), 256))"
        if cause == "skewed_keys":
            (spark.range(0, rows, 1, 4).selectExpr(f"{skewed_key} AS k", "id")
             .repartition(TASKS, "k").selectExpr(f"sum({work} + k) AS h").collect())
        elif cause == "gc_partition":
            gc = f"spark_partition_id() IN ({induced}) AND id % {per_task // 20} = 0"
            (spark.range(0, rows, 1, TASKS)
             .selectExpr(f"CASE WHEN {gc} THEN reflect('java.lang.System', 'gc') ELSE '' END AS g", "id")
             .selectExpr(f"sum({work} + length(g)) AS h").collect())
        elif cause == "shuffle_write":
            wide = f"CASE WHEN spark_partition_id() IN ({induced}) THEN repeat(sha2(cast(id AS string), 256), 20) " \
                   "ELSE sha2(cast(id AS string), 256) END"
            (spark.range(0, rows, 1, TASKS).selectExpr("id", f"{wide} AS v").repartition(4, "id")
             .selectExpr("sum(length(v)) AS n").collect())
        else:  # slow_executor, first_task: plain per-row work
            spark.range(0, rows, 1, TASKS).selectExpr(f"sum({work}) AS h").collect()

    def induced_stage(group: str) -> int:
        tracker = sc.statusTracker()
        stages = [s for j in tracker.getJobIdsForGroup(group) for s in list(tracker.getJobInfo(j).stageIds)]
        return next(s for s in stages if tracker.getStageInfo(s).numTasks == TASKS)

    wait_for_executors()
    for cause in CAUSES:
        sc.setJobGroup(f"warmup-{cause}", f"warmup: {cause}")
        sc.setJobDescription(f"warmup: {cause}")
        query(cause, ROWS // 4)
    truth = []
    for number in range(rounds):
        for cause, (kind, what) in CAUSES.items():
            group, throttle, detail = f"{cause}-{number}", None, {}
            pids = executor_pids(app_id)
            if cause == "first_task":
                victim = min(pids)
                os.kill(pids[victim], signal.SIGKILL)
                while victim in executor_pids(app_id):
                    time.sleep(0.1)
                wait_for_executors()
                fresh = sorted(set(executor_pids(app_id)) - set(pids))
                detail = {"killed_executor": victim, "fresh_executor": fresh[0] if fresh else None}
            elif cause == "slow_executor":
                slow = min(pids)
                throttle = Throttle(pids[slow])
                throttle.start()
                detail = {"slow_executor": slow}
            sc.setJobGroup(group, f"{cause} {number}: {what}")
            sc.setJobDescription(f"{cause} {number}: {what}")
            started = time.time()
            try:
                query(cause, ROWS)
            finally:
                if throttle is not None:
                    throttle.stop()
            truth.append({"stage": f"{app_id}/stage-{induced_stage(group)}.0", "cause": kind, "induced": cause,
                          "what": what, "description": f"{cause} {number}: {what}",
                          "wall_s": round(time.time() - started, 3), **detail})
            time.sleep(0.5)
    version = spark.version
    spark.stop()
    return {"app": app_id, "spark_version": version, "master": "local-cluster[2,1,1024]", "tasks_per_stage": TASKS,
            "rows": ROWS, "stages": truth}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/stragglers"))
    parser.add_argument("--rounds", type=int, default=4, help="rounds of the five induced stages")
    parser.add_argument("--app-worker", type=Path, help=argparse.SUPPRESS)  # event-log directory
    args = parser.parse_args()
    if args.app_worker:
        print(json.dumps(app_worker(args.app_worker, args.rounds)))
        return
    logs = Path(tempfile.mkdtemp(prefix="stragglers-"))
    load = os.getloadavg()
    began = time.time()
    done = subprocess.run([sys.executable, __file__, "--rounds", str(args.rounds), "--app-worker", str(logs)],
                          stdout=subprocess.PIPE, text=True, check=True)
    truth = json.loads(done.stdout.strip().splitlines()[-1])
    args.out.mkdir(parents=True, exist_ok=True)
    (log,) = [p for p in logs.iterdir() if p.name.startswith(truth["app"])]
    shutil.copy(log, args.out / log.name)
    truth.update(log=log.name, generator="workloads/stragglers.py", rounds=args.rounds,
                 generated=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 generation_seconds=round(time.time() - began, 1),
                 load_average=[round(x, 2) for x in load] + [round(x, 2) for x in os.getloadavg()])
    (args.out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    shutil.rmtree(logs)
    print(f"{len(truth['stages'])} induced stages in {args.out / log.name} ({truth['generation_seconds']} s)",
          file=sys.stderr)


if __name__ == "__main__":
    main()

"""PerfXplain corpus: runs of one report query on real Spark under recorded, varied conditions.

Each application (its own process, ``local[cores]``) fixes two conditions in its configuration,
``spark.sql.shuffle.partitions`` and the cores; inside it, every run of the report query varies
one of four more: the input size (200,000 or 1,600,000 rows), a skewed input (30% of the rows on the
one key a dimension table repeats 200 times: one task joins 60x the rows), wide rows (the payload
column a 64-character string instead of a 64-bit number: 4.7x the shuffle bytes, the same records),
and a concurrent culprit query (two 4-second tasks holding the cores, submitted a second before).
The payload is random (a hash of the row id), so it dominates the shuffle bytes and they do not
depend on how well the keys compress: a skewed input writes the shuffle bytes of a uniform one
(within 5%), and the shuffle bytes change at equal skew (rows, width), as they would in a log of
real runs; with the payload left out, the uniform input's periodic keys compressed 2.7x better
than the skewed one's, and the shuffle bytes recorded the skew. Only one condition differs
between the runs of a known-cause pair, so ``truth.json`` (run description -> conditions) gives the
cause. The event logs are written zstd-compressed (``spark.eventLog.compression.codec``). Each run
also records the machine's 1-minute load average when it started (``load_1m``): on a shared machine
the wall times are only as good as that.

    /tmp/sparkvenv/bin/python workloads/perfxplain_corpus.py --out tests/data/perfxplain
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: (shuffle partitions, cores) of each application, twice over (two applications per setting).
APPS = [(8, 2), (200, 2), (8, 1), (8, 2), (200, 2), (8, 1)]
#: (input rows, skewed, wide, culprit) of each run in an application.
RUNS = [(200_000, False, False, False), (1_600_000, False, False, False), (200_000, True, False, False),
        (200_000, False, True, False), (200_000, False, False, True)]
#: The payload column: random (incompressible), 8 bytes or a 64-character string.
PAYLOAD = {False: "xxhash64(id, 1) AS val", True: "sha2(CAST(id AS string), 256) AS val"}


def app_worker(out: Path, partitions: int, cores: int, first_run: int, repeats: int) -> list[dict]:
    import threading
    import time

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (SparkSession.builder.master(f"local[{cores}]").appName("perfxplain-corpus")
             .config("spark.sql.shuffle.partitions", str(partitions)).config("spark.executor.cores", str(cores))
             .config("spark.sql.adaptive.enabled", "false").config("spark.eventLog.enabled", "true")
             .config("spark.eventLog.dir", str(out)).config("spark.eventLog.compress", "true")
             .config("spark.eventLog.compression.codec", "zstd").config("spark.ui.enabled", "false")
             .config("spark.sql.autoBroadcastJoinThreshold", "-1").getOrCreate())
    sc = spark.sparkContext
    tmp = Path(tempfile.mkdtemp())
    # the dimension repeats key 0 200 times: a skewed input makes one task join most of its rows with it
    spark.range(2000).selectExpr("CASE WHEN id < 200 THEN 0 ELSE id % 1000 END AS key").write.parquet(str(tmp / "dim"))
    kinds = {run[:3] for run in RUNS}
    for rows, skewed, wide in kinds:
        key = "CASE WHEN id % 10 < 3 THEN 0 ELSE id % 997 + 1 END" if skewed else "id % 997 + 1"
        spark.range(rows).selectExpr(f"{key} AS key", PAYLOAD[wide]).write.parquet(str(tmp / f"in-{rows}-{skewed}-{wide}"))
    # Read every input once, before the runs: reading Parquet infers its schema with a job of its own,
    # which would run (and wait for a culprit) before each run's query instead of inside it.
    sc.setJobDescription("set-up")
    dim = spark.read.parquet(str(tmp / "dim"))
    inputs = {(r, s, w): spark.read.parquet(str(tmp / f"in-{r}-{s}-{w}")) for r, s, w in kinds}
    truth, number = [], first_run

    def report(data):
        data.join(dim, "key").groupBy("key").agg(F.count("*"), F.max("val")).write.format("noop").mode("overwrite").save()

    def culprit():
        sc.setJobDescription("culprit heavy scan")
        slept = spark.range(0, 2, 1, 2).selectExpr("reflect('java.lang.Thread', 'sleep', 4000L) AS s")
        slept.write.format("noop").mode("overwrite").save()

    sc.setJobDescription("warm-up")  # the first query pays for class loading and JIT: not a run of the corpus
    report(inputs[(200_000, False, False)])
    for _ in range(repeats):
        for rows, skewed, wide, with_culprit in RUNS:
            thread = None
            if with_culprit:
                thread = threading.Thread(target=culprit)
                thread.start()
                time.sleep(1.0)  # the culprit's tasks take the cores first (a loaded machine starts them late)
            description = f"report run {number:04d}"
            sc.setJobDescription(description)
            load = os.getloadavg()[0]
            started = time.time()
            report(inputs[(rows, skewed, wide)])
            truth.append({"description": description, "app": sc.applicationId, "partitions": partitions,
                          "cores": cores, "rows": rows, "skewed": skewed, "wide": wide, "culprit": with_culprit,
                          "wall_s": round(time.time() - started, 3), "load_1m": round(load, 2)})
            if thread is not None:
                thread.join()
            number += 1
    spark.stop()
    return truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/perfxplain"))
    parser.add_argument("--repeats", type=int, default=7, help="runs of each condition set per application")
    parser.add_argument("--apps", type=int, default=len(APPS), help="only the first N applications of APPS")
    parser.add_argument("--app-worker", nargs=3, type=int, metavar=("PARTITIONS", "CORES", "FIRST_RUN"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.app_worker:
        print(json.dumps(app_worker(args.out.resolve(), *args.app_worker, args.repeats)))
        return
    truth = []
    for i, (partitions, cores) in enumerate(APPS[:args.apps]):
        first = i * args.repeats * len(RUNS)
        done = subprocess.run([sys.executable, __file__, "--out", str(args.out), "--repeats", str(args.repeats),
                               "--app-worker", str(partitions), str(cores), str(first)],
                              capture_output=True, text=True, check=True)
        truth += json.loads(done.stdout.strip().splitlines()[-1])
        (args.out / "truth.json").write_text(json.dumps(truth, indent=1))  # after each application: usable if stopped
        print(f"application {i + 1}/{args.apps}: {partitions} partitions, {cores} cores, load average "
              f"{os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()

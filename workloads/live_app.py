#!/usr/bin/env python3
"""A real PySpark application that writes its event log while `protoxplore watch` follows it
(tests/test_live.py). Run with the PySpark interpreter:

    /tmp/sparkvenv/bin/python workloads/live_app.py LOGDIR GATE [--codec zstd]

On `local-cluster[2,1,1024]` (two executors of one core, FIFO) with event logging on (plain, or
compressed with --codec), it runs `warm-up` (a short query that ends), then `blocker`, whose two
tasks sleep until the file GATE exists, holding both slots, and, from another thread, `blocked`,
whose tasks wait for those slots. It prints `@@running` once both have been submitted, and
stops (so Spark renames its log) when both have ended.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logdir")
    parser.add_argument("gate")
    parser.add_argument("--codec", help="spark.eventLog.compression.codec (default: not compressed)")
    args = parser.parse_args()
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import udf

    builder = (SparkSession.builder.master("local-cluster[2,1,1024]").appName("live-app")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.locality.wait", "0s").config("spark.scheduler.mode", "FIFO")
               # Plain (pickled) Python UDFs: Arrow-optimized ones, PySpark 4.1's default, need pyarrow.
               .config("spark.sql.execution.pythonUDF.arrow.enabled", "false")
               .config("spark.pyspark.python", sys.executable).config("spark.pyspark.driver.python", sys.executable)
               .config("spark.eventLog.enabled", "true").config("spark.eventLog.dir", "file://" + args.logdir)
               .config("spark.eventLog.compress", str(bool(args.codec)).lower()))
    if args.codec:
        builder = builder.config("spark.eventLog.compression.codec", args.codec)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    deadline = time.time() + 120
    while sc._jsc.sc().getExecutorMemoryStatus().size() < 3 and time.time() < deadline:
        time.sleep(0.2)

    gate = args.gate

    @udf("long")
    def wait_for_gate(x):  # in the executor's Python worker: holds its slot until the gate opens
        import os as _os
        import time as _time
        while not _os.path.exists(gate):
            _time.sleep(0.2)
        return x

    sc.setJobDescription("warm-up: SELECT count(*) FROM range(1000)")
    spark.range(0, 1000, 1, 2).count()

    def blocked():
        time.sleep(2)  # after the blocker took both slots
        sc.setJobDescription("blocked: SELECT sum(id) FROM range(100000)")
        spark.range(0, 100_000, 1, 2).selectExpr("sum(id)").collect()

    thread = threading.Thread(target=blocked)
    thread.start()
    sc.setJobDescription("blocker: SELECT max(wait_for_gate(id)) FROM range(2)")
    timer = threading.Timer(4, lambda: print("@@running", flush=True))
    timer.start()
    spark.range(0, 2, 1, 2).select(wait_for_gate("id").alias("x")).selectExpr("max(x)").collect()
    thread.join()
    spark.stop()


if __name__ == "__main__":
    main()

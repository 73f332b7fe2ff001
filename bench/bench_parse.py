"""Parse rate (issue #3): reading an event log into the trace model and deriving every task's wait
components, against bare orjson decoding of the same lines. Prints both rates.

The log is the paper-scale workload of bench/workload.py written as Spark 3.2 would: every
TaskEnd event is a copy of a real one (tests/data/eventlogs/real/eventlog_4nodes_8cores_dynamic_alloc.zstd,
with its accumulables and full metrics, about 3 KB) with this workload's ids, times and metrics.

    python bench/bench_parse.py [--tasks 100000]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import workload  # noqa: E402

from protoxplore.loader.logs import eventlog  # noqa: E402
from protoxplore.loader.logs.trace import read_trace  # noqa: E402
from protoxplore.loader.model.waits import task_waits  # noqa: E402

REAL = Path(__file__).resolve().parents[1] / "tests/data/eventlogs/real/eventlog_4nodes_8cores_dynamic_alloc.zstd"


def write_spark_log(trace, path: Path) -> None:
    """``trace`` as Spark 3.2 JSON lines, each TaskEnd cloned from a real one."""
    events = [e for _, _, e in eventlog.read_events(eventlog.discover([REAL])[0])]
    template = next(e for e in events if e["Event"] == "SparkListenerTaskEnd" and e["Task Info"]["Accumulables"])
    head = [e for e in events if e["Event"] in ("SparkListenerLogStart", "SparkListenerApplicationStart")]
    ms = lambda s: int(round(s * 1000))  # noqa: E731
    with open(path, "wb") as f:
        for e in head:
            f.write(orjson.dumps(e) + b"\n")
        for s in trace.stages.itertuples():
            info = {"Stage ID": int(s.stage_id), "Stage Attempt ID": 0, "Stage Name": s.name,
                    "Number of Tasks": int(s.num_tasks), "Submission Time": ms(s.submit)}
            f.write(orjson.dumps({"Event": "SparkListenerStageSubmitted", "Stage Info": info}) + b"\n")
        for t in trace.tasks.itertuples():
            e = orjson.loads(orjson.dumps(template))
            e["Stage ID"] = int(t.stage_id)
            info, m = e["Task Info"], e["Task Metrics"]
            info.update({"Task ID": int(t.task_id), "Launch Time": ms(t.launch), "Finish Time": ms(t.finish),
                         "Executor ID": t.executor, "Host": t.host})
            m.update({"Executor Run Time": ms(t.run_s), "Executor CPU Time": int(t.cpu_s * 1e9), "JVM GC Time": ms(t.gc_s)})
            m["Shuffle Read Metrics"].update({"Fetch Wait Time": ms(t.fetch_wait_s), "Remote Bytes Read": int(t.remote_bytes)})
            m["Shuffle Write Metrics"].update({"Shuffle Write Time": int(t.write_s * 1e9),
                                               "Shuffle Bytes Written": int(t.written_bytes)})
            m["Input Metrics"]["Bytes Read"] = int(t.read_bytes)
            f.write(orjson.dumps(e) + b"\n")


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.json"
        write_spark_log(workload(n_queries=125, tasks=args.tasks), log)
        data = log.read_bytes()
        lines = data.count(b"\n")

        def bare():
            for line in data.splitlines():
                orjson.loads(line)

        def ours():
            trace = read_trace(eventlog.discover([log]))
            task_waits(trace.tasks, trace.stages.set_index("stage_key")["submit"], trace.tasks["host"].to_numpy())

        t_bare, t_ours = best_of(3, bare), best_of(3, ours)
    mb = len(data) / 1e6
    print(f"log: {lines} lines, {mb:.1f} MB ({args.tasks} tasks)")
    print(f"bare orjson decoding:           {lines / t_bare:10.0f} lines/s  {mb / t_bare:7.1f} MB/s  ({t_bare:.2f} s)")
    print(f"read_trace + wait components:   {lines / t_ours:10.0f} lines/s  {mb / t_ours:7.1f} MB/s  ({t_ours:.2f} s)")
    print(f"ratio: {t_bare / t_ours:.2f} of the bare rate (target: at least 0.50)")


if __name__ == "__main__":
    main()

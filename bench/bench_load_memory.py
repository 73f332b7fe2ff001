"""Peak memory of a whole `protoxplore load` (issue 14, target: under 1 GB for any compressed input of
at most 1 MB). Each input is loaded by a fresh `protoxplore load` into a fresh PROTOXPLORE_HOME whose
engine was started beforehand, so that the peak RSS printed (the child's ru_maxrss) is the loader's
alone. Inputs: the logs named on the command line, and (``--line``) a zstd log holding one line of
``{}`` objects, the densest line for its parsed objects, of as many bytes as the line limit
(PROTOXPLORE_MAX_LINE_BYTES) allows, or of the bytes given; and (``--dense``) the dense workload of
``workload.dense_workload`` as a zstd log (400 queries at once, 2.09 M ProtoGraph nodes); and
(``--denser``) 800 queries at once on 10 hosts, in under 1 MB of zstd too, whose blame does not fit in
1 GB: the load must stop at its memory budget (PROTOXPLORE_LOAD_MEMORY_MIB, protoxplore/budget.py), exit 1.

    python bench/bench_load_memory.py [--line [BYTES]] [--dense] [--denser] [LOG ...]
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zstandard
from workload import dense_workload, workload, write_log

from protoxplore.settings import Settings

#: Runs its arguments as a child; prints the child's exit status and peak RSS (KiB).
MEASURE = """
import resource, subprocess, sys
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, sep="\\t")
if run.returncode:
    print(run.stderr.strip().splitlines()[-1], file=sys.stderr)
"""


def object_line(size: int) -> bytes:
    """A zstd log whose third line is an event of ``size`` bytes: a list of empty objects, one in 64
    an empty list at random, so that it compresses about 90x, under the loader's 200x limit."""
    head = (b'{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}\n'
            b'{"Event":"SparkListenerApplicationStart","App Name":"line","App ID":"app-line","Timestamp":1700000000000}\n')
    start, end = b'{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{},"x":[', b"{}]}\n"
    rng = random.Random(0)
    body = b"".join(b"[]," if rng.random() < 1 / 64 else b"{}," for _ in range((size - len(start) - len(end) - 1) // 3))
    return zstandard.ZstdCompressor(level=19).compress(head + start + body + end)


def load(path: Path) -> tuple[str, float, float]:
    """(exit status, peak RSS in MiB, seconds) of `protoxplore load path` into a fresh home."""
    cli = str(Path(sys.executable).with_name("protoxplore"))
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PROTOXPLORE_HOME": home}
        subprocess.run([cli, "engine", "start"], env=env, check=True, capture_output=True)
        try:
            started = time.perf_counter()
            run = subprocess.run([sys.executable, "-c", MEASURE, cli, "load", str(path)], env=env,
                                 capture_output=True, text=True, check=True)
            seconds = time.perf_counter() - started
        finally:
            subprocess.run([cli, "engine", "stop"], env=env, capture_output=True)
    status, peak = run.stdout.split("\t")
    return status, int(peak) / 1024, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="*", type=Path)
    parser.add_argument("--line", type=int, nargs="?", const=Settings.from_env().max_line_bytes, metavar="BYTES",
                        help="also a line of {} objects of BYTES bytes (default: the line limit)")
    parser.add_argument("--dense", action="store_true", help="also the dense workload (workload.dense_workload)")
    parser.add_argument("--denser", action="store_true", help="also 800 queries at once on 10 hosts (stops at the memory budget)")
    args = parser.parse_args()
    print(f"{'input':40} {'bytes':>9} {'exit':>4} {'peak RSS':>10} {'seconds':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = list(args.logs)
        if args.line:
            inputs.append(Path(tmp) / "line.zstd")
            inputs[-1].write_bytes(object_line(args.line))
        denser = lambda: workload(n_queries=800, stages_per_query=2, tasks=19_000, hosts=10, concurrency=800, seed=1)  # noqa: E731
        for wanted, name, trace in ((args.dense, "dense", dense_workload), (args.denser, "denser", denser)):
            if wanted:
                inputs.append(Path(tmp) / f"{name}.log.zstd")
                write_log(trace(), Path(tmp) / f"{name}.log")
                inputs[-1].write_bytes(zstandard.ZstdCompressor(level=19).compress((Path(tmp) / f"{name}.log").read_bytes()))
                (Path(tmp) / f"{name}.log").unlink()
        for path in inputs:
            status, peak, seconds = load(path)
            print(f"{path.name:40} {path.stat().st_size:9d} {status:>4} {peak:6.0f} MiB {seconds:8.1f}", flush=True)


if __name__ == "__main__":
    main()

"""Loader peak memory on decompression bombs (issue 14, target: under 1 GB for any compressed input
of at most 1 MB). For each codec, a bomb of --size bytes (tests/bombs.py: as much output as the
codec allows, one endless line) is read by `read_trace` in a fresh process; prints what it
expands to, the process's peak RSS and the time.

    python bench/bench_bombs.py [--size 1048576] [--codec zstd]
"""
from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from bombs import BOMBS  # noqa: E402

from protoxplore.loader import codecs  # noqa: E402

#: Reads the log named by its argument (none: only imports the loader); prints its peak RSS in KiB.
READ = """
import resource, sys
from protoxplore.loader import eventlog, trace
try:
    if sys.argv[1:]:
        trace.read_trace(eventlog.discover(sys.argv[1:]), warn=lambda m: None)
except eventlog.EventLogError as exc:
    print(exc, file=sys.stderr)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def expanded(path: Path, data: bytes) -> int:
    return sum(len(c) for c in codecs.chunks(path, io.BufferedReader(io.BytesIO(data))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1 << 20, help="bomb size in bytes (default 1 MiB)")
    parser.add_argument("--codec", choices=sorted(BOMBS), action="append", help="only these codecs")
    args = parser.parse_args()
    baseline = subprocess.run([sys.executable, "-c", READ], capture_output=True, text=True, check=True)
    print(f"interpreter with the loader imported: {int(baseline.stdout) / 1024:.0f} MiB peak RSS")
    print(f"{'codec':8} {'bomb':>9} {'expands to':>12} {'peak RSS':>10} {'time':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for codec in args.codec or sorted(BOMBS):
            data = BOMBS[codec](args.size)
            path = Path(tmp) / f"bomb.{codec}"
            path.write_bytes(data)
            size = expanded(path, data) if codec != "zstd" else None  # zstd: 32768x, too long to count twice
            started = time.perf_counter()
            run = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True, text=True, check=True)
            elapsed = time.perf_counter() - started
            peak = int(run.stdout.split()[-1]) / 1024
            claim = f"{size / 2**20:9.0f} MiB" if size is not None else f"~{len(data) // 4 * 128 / 2**10:7.0f} MiB"
            print(f"{codec:8} {len(data):9d} {claim:>12} {peak:7.0f} MiB {elapsed:6.1f} s")


if __name__ == "__main__":
    main()

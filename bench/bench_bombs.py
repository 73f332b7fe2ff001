"""Loader peak memory on decompression bombs (issue 14, target: under 1 GB for any compressed input
of at most 1 MB). For each codec, a bomb of --size bytes (tests/bombs.py: as much output as the
codec allows, one endless line), and a zstd flood of valid TaskEnd events, are read by
`read_trace` in a fresh process: as shipped (the bomb is refused once it expands more than
MAX_EXPANSION times), and with that limit lifted, to see what the per-read caps and the line
limit hold alone. Prints what each expands to, peak RSS and time.

    python bench/bench_bombs.py [--size 1048576] [--flood-tasks 200000]
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
from protoxplore.loader.logs import codecs  # noqa: E402

from bombs import BOMBS, flood_bomb  # noqa: E402

#: Runs its arguments as a child and prints the child's output and peak RSS (KiB). A child of this
#: bench itself would report this process's peak instead when it is higher: Linux hands the
#: high-water mark of a vforking process on to the child.
MEASURE = """
import resource, subprocess, sys
run = subprocess.run(sys.argv[1:], capture_output=True, text=True, check=True)
print(run.stdout.strip(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, sep="\\t")
"""

#: Reads the logs named by its arguments (none: only imports the loader), with MAX_EXPANSION set to
#: its first argument; prints the outcome.
READ = """
import sys
from protoxplore.loader import codecs, eventlog, trace
codecs.MAX_EXPANSION = int(sys.argv[1])
outcome = "-"
try:
    if sys.argv[2:]:
        outcome = f"read {len(trace.read_trace(eventlog.discover(sys.argv[2:]), warn=lambda m: None).tasks)} tasks"
except EventLogError as exc:
    outcome = "refused" if "expands more than" in str(exc) else "no events"
print(outcome)
"""


def read(path: Path | None, max_expansion: int) -> tuple[str, float, float]:
    """(outcome, peak RSS in MiB, seconds) of read_trace on ``path`` in a fresh process."""
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-c", READ, str(max_expansion),
                          *([str(path)] if path else [])], capture_output=True, text=True, check=True)
    outcome, peak = run.stdout.split("\t")
    return outcome, int(peak) / 1024, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1 << 20, help="bomb size in bytes (default 1 MiB)")
    parser.add_argument("--flood-tasks", type=int, default=200_000, help="TaskEnd events in the flood")
    args = parser.parse_args()
    print(f"interpreter with the loader imported: {read(None, codecs.MAX_EXPANSION)[1]:.0f} MiB peak RSS")
    print(f"{'input':8} {'bytes':>9} {'expands to':>11} | {'as shipped':>24} | {'no expansion limit':>30}")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = [(codec, lambda c=codec: BOMBS[c](args.size)) for codec in sorted(BOMBS)]
        inputs.append(("flood", lambda: flood_bomb(args.flood_tasks)))
        for name, build in inputs:
            data = build()
            path = Path(tmp) / f"bomb.{'zstd' if name == 'flood' else name}"
            path.write_bytes(data)
            size = sum(len(c) for c in codecs.CODECS[path.suffix[1:]](io.BufferedReader(io.BytesIO(data))))
            row = f"{name:8} {len(data):9d} {size / 2**20:7.0f} MiB"
            for limit in (codecs.MAX_EXPANSION, 10**9):
                outcome, peak, seconds = read(path, limit)
                row += f" | {outcome:>12} {peak:5.0f} MiB {seconds:5.1f} s"
            print(row)


if __name__ == "__main__":
    main()

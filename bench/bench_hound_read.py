"""How long `protoxplore stragglers` takes on a loaded workload (issue 11, point 6): reading the causes
the load stored in the graph (the analysis's threshold) against running Hound again on the saved
trace (another threshold), through the CLI on the embedded engine. The workload is the paper-scale
one of bench/workload.py (125 queries, 250 stages, 24,000 tasks). Run on a quiet machine:
  python bench/bench_hound_read.py [--queries 125] [--tasks 24000]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import workload, write_log  # noqa: E402

from protoxplore.cli.commands import main as cli  # noqa: E402


def timed_cli(*argv: str) -> tuple[float, float, dict]:
    """Elapsed and CPU seconds of one CLI command in this process, and its JSON output."""
    out = io.StringIO()
    started, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out):
        assert cli(list(argv)) == 0
    return time.perf_counter() - started, time.process_time() - cpu, json.loads(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=125)
    parser.add_argument("--tasks", type=int, default=24_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-hound-read-") as tmp:
        home, log = Path(tmp) / "home", Path(tmp) / "paper.json"
        write_log(workload(n_queries=args.queries, tasks=args.tasks), log)
        try:
            elapsed, cpu, loaded = timed_cli("load", str(log), "--home", str(home), "--json")
            print(f"load (Hound's causes included): {elapsed:.1f} s, {cpu:.1f} s of CPU in this process")
            analysis = loaded["id"]
            for label, extra in (("stored causes (threshold 1.5, as loaded)", ()),
                                 ("Hound again on the trace (threshold 1.51)", ("--threshold", "1.51"))):
                elapsed, cpu, result = timed_cli("stragglers", "--analysis", analysis, "--json", "--home", str(home),
                                                 *extra)
                print(f"stragglers --json, {label}: {elapsed:.1f} s, {cpu:.1f} s of CPU; "
                      f"{len(result['stages'])} stages, {len(result['topics'])} topics")
        finally:
            with contextlib.redirect_stdout(io.StringIO()):
                cli(["engine", "stop", "--home", str(home)])


if __name__ == "__main__":
    main()

"""Live updates (issue 13.1): how soon `protoxplore watch` shows an update of the paper-scale workload,
and at what CPU. Run: python bench/bench_live.py [--steps 12] [--pace 10] [--every 0.5] [--last 5]

The paper-scale workload (bench/workload.py: 125 queries, 250 stages, 24,000 tasks, <= 10 at once;
with a TaskStart per task, as a live log has) is appended to an event log in --steps pieces of equal
trace time, one every --pace seconds, while `protoxplore watch LOG --every EVERY --last MINUTES` runs
as its own process on the embedded FalkorDB of a temporary home. For each piece: the seconds from
its flush until a live generation whose last event is that piece's is listed (polled every 50 ms
through the service layer): its last --last minutes (published first, once the workload spans more)
and its total. CPU: user + system seconds of the watch process and of the FalkorDB
server, with their children (the engine's background saves; from /proc), over the wall time from
the first piece's publication to the last's.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import events, workload  # noqa: E402

from protoxplore import service  # noqa: E402
from protoxplore.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.store import open_store  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far, with those of its children that ended (the
    engine's background saves are forked children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12, help="pieces the log grows by")
    parser.add_argument("--pace", type=float, default=10.0, help="seconds between pieces")
    parser.add_argument("--every", type=float, default=0.5, help="the watch's seconds between passes")
    parser.add_argument("--last", type=float, default=5.0, help="the watch's live window, minutes")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the watch and the engine are stopped
    trace = workload()
    lines = [(t, json.dumps(e, separators=(",", ":")) + "\n") for t, _, e in events(trace, task_starts=True)]
    span = trace.end - trace.start
    print(f"paper-scale workload: {len(trace.tasks)} tasks, {len(trace.stages)} stages, {len(trace.queries)} queries, "
          f"{span:.0f} s of trace time, {sum(len(x) for _, x in lines) / 1e6:.1f} MB of log; {args.steps} pieces, "
          f"one every {args.pace:g} s; watch --every {args.every:g} --last {args.last:g}; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pxlive") as tmp:
        settings = Settings.from_env(home=Path(tmp), neo4j_uri="")
        log = Path(tmp) / "logs" / "app-bench.inprogress"
        log.parent.mkdir()
        log.touch()
        store = open_store(settings)
        store.apply_schema()
        server = EmbeddedEngine(settings.home).pid()
        env = dict(os.environ, PROTOXPLORE_HOME=tmp, PROTOXPLORE_NEO4J_URI="")
        watch = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "watch", str(log), "--every", str(args.every),
                                  "--last", str(args.last)], env=env, stdout=subprocess.DEVNULL,
                                 stderr=open(Path(tmp) / "watch.err", "w"))
        try:
            time.sleep(3)  # the watch's start (imports, connecting) is not what is measured
            delays, start_cpu, start_wall, written = [], None, None, 0
            window_delays, firsts = [], []  # the live window's (pieces 2 on), the first of the two
            for step in range(1, args.steps + 1):
                until = trace.start + span * step / args.steps
                piece = []
                while written < len(lines) and (lines[written][0] <= until or step == args.steps):
                    piece.append(lines[written][1])
                    written += 1
                last_ms = max(int(round(t * 1000)) for t, _ in lines[:written]) / 1e3
                began = time.monotonic()
                with open(log, "a") as out:
                    out.write("".join(piece))
                    out.flush()
                flushed = time.perf_counter()
                window_delay = None
                while True:
                    rows = [r for r in service.analyses(store) if r.get("live")]
                    fresh = [r for r in rows if (r.get("trace_end") or 0) >= last_ms - 1e-3]
                    if window_delay is None and any(r.get("parent") for r in fresh):
                        window_delay = time.perf_counter() - flushed
                    if any(not r.get("parent") for r in fresh):
                        break
                    if watch.poll() is not None:
                        raise SystemExit(f"the watch died: {(Path(tmp) / 'watch.err').read_text()[-2000:]}")
                    time.sleep(0.05)
                delays.append(time.perf_counter() - flushed)
                rows = [r for r in rows if not r.get("parent")]
                if window_delay is not None and step > 1:
                    window_delays.append(window_delay)
                firsts.append(min(delays[-1], window_delay or delays[-1]))
                if start_cpu is None:
                    start_cpu, start_wall = cpu_seconds(watch.pid) + cpu_seconds(server), time.monotonic()
                print(f"piece {step:2d}: {len(piece):6d} events up to {last_ms - trace.start:7.1f} s of trace time, "
                      f"visible {delays[-1]:5.2f} s after its flush"
                      + (f" (its last {args.last:g} minutes {window_delay:5.2f} s)" if window_delay is not None else "")
                      + f"; live generation {rows[0]['queries']} queries ({rows[0]['running']} running), "
                      f"{rows[0]['tasks']} tasks; "
                      f"load average {os.getloadavg()[0]:.1f}", flush=True)
                time.sleep(max(0.0, args.pace - (time.monotonic() - began)))
            wall = time.monotonic() - start_wall
            cpu = cpu_seconds(watch.pid) + cpu_seconds(server) - start_cpu
            # The first piece includes nothing the watch had read before: pieces 2 on are counted.
            for what, found in (("the total", delays[1:]), (f"its last {args.last:g} minutes", window_delays),
                                ("the first of the two", firsts[1:])):
                ordered = sorted(found)
                if ordered:
                    print(f"{what} visible after the flush: median {ordered[len(ordered) // 2]:.2f} s, worst "
                          f"{ordered[-1]:.2f} s ({len(ordered)} pieces)")
            print(f"first piece: the total visible {delays[0]:.2f} s after its flush")
            print(f"CPU of watch + FalkorDB server from the first piece's publication on: {cpu:.1f} s over {wall:.1f} s "
                  f"= {cpu / wall:.2f} of a core; load average {os.getloadavg()[0]:.1f}")
        finally:
            watch.terminate()
            watch.wait()
            store.close()
            EmbeddedEngine(settings.home).stop()


if __name__ == "__main__":
    main()

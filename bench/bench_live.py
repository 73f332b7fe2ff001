"""Live updates (issue 13.1): how soon `protoxplore watch` shows an update of the paper-scale workload,
and at what CPU. Run: python bench/bench_live.py [--steps 12] [--pace 10] [--every 0.5] [--last 5] [--from 0]

The paper-scale workload (bench/workload.py: 125 queries, 250 stages, 24,000 tasks, <= 10 at once;
with a TaskStart per task, as a live log has) is appended to an event log in --steps pieces of equal
trace time, one every --pace seconds, while `protoxplore watch LOG --every EVERY --last MINUTES` runs
as its own process on the embedded FalkorDB of a temporary home; pieces come at that pace whatever
the watch publishes. With --from F, the first piece is the first F of the trace time and the
others split the rest: ``--from 0.85 --steps 92 --pace 2`` feeds the last 15% (183 s) at the pace
the trace ran, in the 2 s pieces of a log Spark flushes every 2 s, where the default compresses
the 1,221 s of trace time tenfold (and so the watch's forced whole generations, once per --last
minutes of trace time: docs/model.md, "Live analyses"). For each piece: the seconds from its flush until a live window (the last
--last minutes, once the workload spans more) and a live total that show it (their last event is
that piece's or later) are listed, polled every 50 ms through the service layer (a total the
watch's CPU budget postpones shows a later piece, or comes once the log is quiet). CPU: user +
system seconds of the watch process and of the FalkorDB server, with their children (the engine's
background saves; from /proc), from the first piece's publication to one --pace after the last
piece's flush, and to when the last piece's total was listed (a total postponed past the pieces
counted too).
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

from protoxplore.service import catalog  # noqa: E402
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.storage.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.storage.store import open_store  # noqa: E402


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
    parser.add_argument("--from", dest="start", type=float, default=0.0,
                        help="share of the trace time in the first piece (the others split the rest)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the watch and the engine are stopped
    trace = workload()
    lines = [(t, json.dumps(e, separators=(",", ":")) + "\n") for t, _, e in events(trace, task_starts=True)]
    span = trace.end - trace.start
    print(f"paper-scale workload: {len(trace.tasks)} tasks, {len(trace.stages)} stages, {len(trace.queries)} queries, "
          f"{span:.0f} s of trace time, {sum(len(x) for _, x in lines) / 1e6:.1f} MB of log; {args.steps} pieces, "
          f"one every {args.pace:g} s" + (f", the first up to {args.start:.0%} of it" if args.start else "")
          + f"; watch --every {args.every:g} --last {args.last:g}; "
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
            pieces = []  # per piece: its last event (s), flush time, events, and when a window / a total showed it
            written, began = 0, time.monotonic()
            # CPU of watch + server, and when: at the first piece's publication, one pace after the last
            # flush, and when the last piece's total was listed (a postponed total's work counted too)
            usage: dict[str, tuple[float, float]] = {}
            while len(pieces) < args.steps or pieces[-1]["total"] is None or "paced" not in usage:
                if watch.poll() is not None:
                    raise SystemExit(f"the watch died: {(Path(tmp) / 'watch.err').read_text()[-2000:]}")
                if len(pieces) < args.steps and time.monotonic() >= began + len(pieces) * args.pace:
                    step = len(pieces) + 1
                    share = (args.start + (1 - args.start) * (step - 1) / max(1, args.steps - 1) if args.start
                             else step / args.steps)
                    until = trace.start + span * share
                    piece = []
                    while written < len(lines) and (lines[written][0] <= until or step == args.steps):
                        piece.append(lines[written][1])
                        written += 1
                    with open(log, "a") as out:
                        out.write("".join(piece))
                        out.flush()
                    pieces.append({"last": max(int(round(t * 1000)) for t, _ in lines[:written]) / 1e3,
                                   "flushed": time.perf_counter(), "events": len(piece), "window": None, "total": None})
                rows = [r for r in catalog.analyses(store) if r.get("live")]
                now = time.perf_counter()
                for p in pieces:
                    for kind, found in (("window", [r for r in rows if r.get("parent")]),
                                        ("total", [r for r in rows if not r.get("parent")])):
                        showing = [r for r in found if (r.get("trace_end") or 0) >= p["last"] - 1e-3]
                        too_short = kind == "window" and p["last"] - trace.start <= args.last * 60  # no window yet
                        if p[kind] is None and showing and not too_short:
                            p[kind] = now - p["flushed"]
                            p[kind + " tasks"] = max(r["tasks"] for r in showing)
                now_usage = (cpu_seconds(watch.pid) + cpu_seconds(server), time.monotonic())
                if pieces[0]["total"] is not None:
                    usage.setdefault("first", now_usage)
                if len(pieces) == args.steps and time.perf_counter() >= pieces[-1]["flushed"] + args.pace:
                    usage.setdefault("paced", now_usage)
                if len(pieces) == args.steps and pieces[-1]["total"] is not None:
                    usage.setdefault("last total", now_usage)
                time.sleep(0.05)
            for step, p in enumerate(pieces, 1):
                window = f"its last {args.last:g} minutes {p['window']:5.2f} s" if p["window"] is not None else "no window yet"
                print(f"piece {step:2d}: {p['events']:6d} events up to {p['last'] - trace.start:7.1f} s of trace time: "
                      f"{window}, the total {p['total']:5.2f} s after its flush ({p['total tasks']} tasks)")
            # The first piece includes nothing the watch had read before: pieces 2 on are counted.
            later = pieces[1:]
            firsts = [min(x for x in (p["window"], p["total"]) if x is not None) for p in later]
            for what, found in (("the total", [p["total"] for p in later]),
                                (f"its last {args.last:g} minutes", [p["window"] for p in later if p["window"] is not None]),
                                ("the first of the two", firsts)):
                ordered = sorted(found)
                if ordered:
                    print(f"{what} visible after the flush: median {ordered[len(ordered) // 2]:.2f} s, 90th "
                          f"percentile {ordered[int(0.9 * (len(ordered) - 1))]:.2f} s, worst {ordered[-1]:.2f} s; "
                          f"within 2 s: {sum(x < 2 for x in ordered)} of {len(ordered)} pieces")
            print(f"first piece: the total visible {pieces[0]['total']:.2f} s after its flush")
            cpu0, wall0 = usage["first"]
            for what, (cpu1, wall1) in ((f"to {args.pace:g} s after the last piece's flush", usage["paced"]),
                                        ("to the last piece's total", usage["last total"])):
                print(f"CPU of watch + FalkorDB server from the first piece's publication {what}: {cpu1 - cpu0:.1f} s "
                      f"over {wall1 - wall0:.1f} s = {(cpu1 - cpu0) / (wall1 - wall0):.2f} of a core")
            print(f"load average {os.getloadavg()[0]:.1f}")
        finally:
            watch.terminate()
            watch.wait()
            store.close()
            EmbeddedEngine(settings.home).stop()


if __name__ == "__main__":
    main()

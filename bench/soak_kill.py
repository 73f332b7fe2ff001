"""Soak: N real kill -9 across load, window derivation and delete, with concurrent readers, ending
with a store equal to a clean reload (issue 14), on the embedded FalkorDB or on Neo4j. Prints
figures; run:

    python bench/soak_kill.py --kills 200 [--engine falkordb|neo4j]

Each round starts one real `protoxplore` command that has real work to do (load one of two logs
not listed, derive one of four windows not listed, or delete a listed analysis, never the last full
one, so that the soak ends with analyses to compare) and kill -9s it after a random delay between the time a
command takes to start (Python, imports, connecting: `protoxplore analyses`) and 1.1 times its own
uncut duration; rounds go on until N commands have died of the signal (a command that finishes
before its kill does not count). Reader threads meanwhile list the complete analyses
and count each one's nodes: a listed analysis must always be whole. At the end one command recovers
what the dead processes left and no node may belong to no listed analysis; then every analysis is
deleted and made again without kills (in the same store: community Neo4j has one database), and
each analysis that survived the soak must equal, node by node, its clean remake (a soak that ends
with none fails). On Neo4j the
server is tools/neo4j/run.sh's, started in the soak's directory and stopped at the end.
"""
from __future__ import annotations

import argparse
import atexit
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_reliability import ghost_labels, listed, orphans, signature  # noqa: E402  (one definition of "equal")

sys.path.insert(0, str(ROOT / "bench"))
import neo4j_server  # noqa: E402

from protoxplore.evaluation import synth  # noqa: E402
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.storage.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.storage.store import FalkorStore, Neo4jStore  # noqa: E402

CLI = [sys.executable, "-m", "protoxplore.cli"]


def connect(settings: Settings):
    """A store that only reads and checks: no recovery on opening (that is the commands' job)."""
    return Neo4jStore(settings) if settings.neo4j_uri else FalkorStore(settings)


def command(settings: Settings, *args) -> subprocess.Popen:
    return subprocess.Popen(CLI + [str(a) for a in args] + ["--home", str(settings.home)],
                            env=neo4j_server.environment(settings), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def finish(settings: Settings, *args) -> str:
    proc = command(settings, *args)
    _, err = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"protoxplore {' '.join(map(str, args))} failed:\n{err}")
    return err


def phase(stderr: str) -> str:
    """What a killed command was doing, from its last progress line."""
    last = (stderr.strip().splitlines() or [""])[-1]
    for marker, name in (("deleted", "deleting batches"), ("rows", "writing levels"), ("computing impact", "IF and DOR"),
                         ("found stragglers", "writing levels"), ("computed blame", "Hound, first writes"),
                         ("read ", "reading and blaming"), ("removing", "removing a leftover"),
                         ("waiting", "waiting for the lock"), ("wrote analysis", "saving")):
        if marker in last:
            return name
    return "starting" if not last else "other"


class Readers:
    """Threads that read like the web app does and count every incomplete listing they see."""

    def __init__(self, settings: Settings, n: int):
        self.settings, self.stop, self.reads, self.broken = settings, threading.Event(), 0, []
        self.threads = [threading.Thread(target=self.read, daemon=True) for _ in range(n)]

    def read(self) -> None:
        store = connect(self.settings)
        while not self.stop.is_set():
            try:
                for row in store.run("analyses", {"status": "complete"}):
                    count = store.run_text("MATCH (n:ProtoNode {analysis: $a}) RETURN count(n) AS n",
                                           {"a": row["id"]})[0]["n"]
                    copies = store.run_text("MATCH (a:Analysis {id: $a}) RETURN count(a) AS n", {"a": row["id"]})[0]["n"]
                    # A delete marks the analysis before its first node goes: if it is still listed
                    # after the count, the count saw it whole.
                    still = row["id"] in listed(store)
                    if still and (count != row["nodes"] or copies != 1):
                        self.broken.append((row["id"], count, row["nodes"], copies))
                    self.reads += 1
                time.sleep(0.05)  # a busy web app's pace, not a loop that starves the writers
            except Exception as exc:  # the engine is shared with killed writers: report, keep reading
                self.broken.append(("error", repr(exc)))
        store.close()

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200, help="commands to kill -9 (rounds go on until then)")
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="soak"))
    home = work / "home"
    logs = []
    for i, queries in enumerate((20, 40)):
        q, cluster = synth.random_workload(np.random.default_rng(i + 1), queries)
        logs.append(synth.write_event_log(synth.simulate(q, cluster), cluster, work / f"log{i}"))

    # At exit, whatever happened (last registered runs first): the engine stops, then the work directory goes.
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    atexit.register(neo4j_server.stop if args.engine == "neo4j" else lambda home: EmbeddedEngine(home).stop(), home)
    settings = neo4j_server.start(home) if args.engine == "neo4j" else Settings.from_env(home=home, neo4j_uri="")
    print(f"engine {args.engine}, load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    outcome, phases = Counter(), Counter()
    notes = kills = rounds = 0
    remade = set()  # analyses that were gone at some round: those left at the end were made in the soak
    with Readers(settings, args.readers) as readers:
        # Uncut durations (with the readers running), and the victim and windows each window round asks for.
        durations, windows = {}, []
        started = time.perf_counter()
        finish(settings, "load", logs[1])
        durations["load"] = time.perf_counter() - started
        finish(settings, "load", logs[0])
        store = connect(settings)
        store_ids = {log: row["id"] for log in logs for row in store.run("analyses", {"status": "complete"})
                     if row["sources"] == [str(log)]}
        assert len(store_ids) == len(logs), store_ids
        for row in store.run("analyses", {"status": "complete"}):
            victim = store.run("victims", {"analysis": row["id"], "k": 1})[0]["name"]
            span = row["trace_end"] - row["trace_start"]
            for t0, t1 in ((0, span / 2), (span / 4, span)):
                windows.append((row["id"], victim, f"{t0:.3f},{t1:.3f}"))
        started = time.perf_counter()
        finish(settings, "explain", "--analysis", windows[0][0], "--victim", windows[0][1], "--window", windows[0][2])
        durations["window"] = time.perf_counter() - started
        started = time.perf_counter()
        finish(settings, "delete", windows[0][0])
        durations["delete"] = time.perf_counter() - started
        started = time.perf_counter()
        finish(settings, "analyses")  # a command's start: Python, imports, connecting, recovery
        durations["start"] = time.perf_counter() - started

        window_ids = {}  # (base, window) -> the id of its window analysis, once seen
        started = time.perf_counter()
        while kills < args.kills and rounds < 6 * args.kills:  # the bound: a machine too slow to ever kill
            rounds += 1
            rows = store.run("analyses", {"status": "complete"})
            ids = [r["id"] for r in rows]
            for r in rows:
                if r["parent"]:
                    window_ids.setdefault((r["parent"], ",".join(f"{t:.3f}" for t in r["window"])), r["id"])
            bases = [b for b in store_ids.values() if b in ids]
            remade.update(a for a in store_ids.values() if a not in ids)
            remade.update(a for a in window_ids.values() if a not in ids)
            # Every command does real work (an already-loaded log or derived window would return at
            # once and teach the soak a wrong duration), and the last full analysis is never chosen
            # for a delete, so the soak ends with analyses to compare: kills stay spread over the three.
            choices = {
                "load": [("load", log) for log, a in store_ids.items() if a not in ids],
                "window": [("explain", "--analysis", b, "--victim", v, "--window", w) for b, v, w in windows
                           if b in ids and window_ids.get((b, w)) not in ids],
                "delete": [("delete", a) for a in ids if a not in bases or len(bases) > 1],
            }
            op = rng.choice([op for op, argvs in choices.items() if argvs])
            argv = rng.choice(choices[op])
            key = " ".join(map(str, argv))
            expected = durations.get(key, durations[op])
            proc = command(settings, *argv)
            began = time.perf_counter()
            try:
                # Past the start (a kill there only tests the kernel), up to a little after its end.
                proc.wait(timeout=rng.uniform(min(durations["start"], 0.5 * expected), 1.1 * expected))
                outcome[f"{op} finished"] += 1
                # Follow the command's duration as the machine's load and the server's warmth change
                # (Neo4j's first load on a fresh JVM is many times slower than the next), for this
                # command and for its kind: a delete's key names an analysis never deleted before, so
                # its guess is the kind's, which a busy machine at the soak's start can make 3 times
                # too long, and then no delete is ever killed.
                took = time.perf_counter() - began
                durations[key] = (expected + took) / 2
                durations[op] = (durations[op] + took) / 2
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
            err = proc.stderr.read()
            notes += err.count("note: removing")
            if proc.returncode == -signal.SIGKILL:
                kills += 1
                outcome[f"{op} killed"] += 1
                phases[f"{op}: {phase(err)}"] += 1
            elif proc.returncode != 0:
                outcome[f"{op} failed rc {proc.returncode}: {err.strip().splitlines()[-1:]}"] += 1
        soak_s = time.perf_counter() - started
    notes += finish(settings, "analyses").count("note: removing")

    # The end state: recovered, nothing stray, and each analysis equal to the same one made cleanly.
    remaining = listed(store)
    unfinished = store.run("analyses", {"status": "loading"}) + store.run("analyses", {"status": "deleting"})
    stray = orphans(store)
    ghosts = ghost_labels(store)
    soaked = {a: signature(store, a) for a in remaining}
    for a in listed(store):
        finish(settings, "delete", a)
    for log in logs:
        finish(settings, "load", log)
    for base, victim, window in windows:
        finish(settings, "explain", "--analysis", base, "--victim", victim, "--window", window)
    different = [a for a in remaining if soaked[a] != signature(store, a)]
    for a in different:  # say how, to tell a lost or extra node from a value computed differently
        mine, theirs = soaked[a], signature(store, a)
        nodes = [(m, t) for m, t in zip(mine["nodes"], theirs["nodes"]) if m != t][:3]
        print(f"{a} differs: {len(mine['nodes'])} vs {len(theirs['nodes'])} nodes, edges {mine['edges']} vs "
              f"{theirs['edges']}, first differing nodes {nodes}")

    print("uncut durations: " + ", ".join(f"{k} {v:.1f} s" for k, v in durations.items()))
    print("killed while: " + ", ".join(f"{k} {v}" for k, v in sorted(phases.items())))
    print(f"soak on {args.engine}: {rounds} rounds, {kills} commands killed by kill -9, in {soak_s:.0f} s; "
          f"{args.readers} reader threads, {readers.reads} listings read")
    print("rounds: " + ", ".join(f"{k} {v}" for k, v in sorted(outcome.items())))
    print(f"leftovers removed by a later command (notes): {notes}")
    full = [a for a in remaining if a in store_ids.values()]
    print(f"analyses at the end: {len(remaining)} ({len(full)} full, {len(remaining) - len(full)} windows; "
          f"{len(set(remaining) & remade)} of them made again during the soak after a delete); "
          f"differing from a clean reload: {len(different)}; "
          f"unfinished: {len(unfinished)}; nodes of no listed analysis: {stray}; labels listing deleted nodes: {ghosts}")
    print(f"incomplete or duplicated listings seen by readers: {len(readers.broken)} {readers.broken[:5]}")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    store.close()
    ok = not (different or unfinished or stray or ghosts or readers.broken or kills < args.kills or not remaining
              or any("failed" in k for k in outcome))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

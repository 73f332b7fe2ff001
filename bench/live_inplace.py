"""What updating a live window in place would cost (issue 13.1's next step; not how the watch works
today): the paper-scale workload's log (bench/workload.py) cut at ``--at`` of its trace time and
``--gap`` seconds later, as two passes of ``protoxplore watch --last 5`` see it. Printed:
- per level, the nodes of the two windows' ProtoGraphs: in both with the same blame seconds, in both
  with other numbers, only in the first (gone), only in the second (new);
- the FalkorDB server's CPU seconds, on an embedded store holding the first cut's total and its
  window, to set the changed blame and deep numbers (by node id), to delete the gone blame nodes and
  to compute IF and DOR of the window again, against writing the second window whole and deleting
  the first, as a pass does now. New nodes are not written (a few hundred: see the counts).
Run: python bench/live_inplace.py [--at 0.9] [--gap 2]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import events, workload  # noqa: E402

from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs import trace as trace_mod  # noqa: E402
from protoxplore.loader.model import protograph  # noqa: E402
from protoxplore.loader.model.level_rows import blame_keys  # noqa: E402
from protoxplore.service import pipeline
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.storage import lifecycle
from protoxplore.storage.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.storage.store import open_store  # noqa: E402

LEVELS = ("victim_queries", "victim_stages", "immediate", "deep", "blame", "culprit_stages", "culprit_queries")


def trace_until(lines: list[tuple[float, str]], until: float, folder: Path) -> trace_mod.Trace:
    """The trace of the log's lines up to ``until`` (seconds of trace time), read as a live log (one
    file, as the watch reads: its path is the application's source)."""
    log = folder / "app-bench.inprogress"
    log.write_text("".join(line for t, line in lines if t <= until))
    return trace_mod.read_trace(eventlog.discover([str(log)]), warn=lambda m: None)


def last_minutes(trace: trace_mod.Trace) -> protograph.Options:
    span = trace.end - trace.start
    return protograph.Options(window=(span - 300, span))


def numbers(graph: protograph.ProtoGraph, level: str) -> pd.Series:
    """Blame seconds of a level's nodes by key (culprit levels: 0, their sums are the writer's)."""
    frame = getattr(graph, level)
    keys = blame_keys(frame) if level == "blame" else frame["key"].astype(str)
    seconds = frame["blame_s"].to_numpy(float) if "blame_s" in frame else np.zeros(len(frame))
    return pd.Series(seconds, index=keys.to_numpy())


def arguments(doc: str) -> argparse.Namespace:
    """``--at`` and ``--gap``, with ``doc``'s first line as the description."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--at", type=float, default=0.9, help="first cut, as a share of the trace time")
    parser.add_argument("--gap", type=float, default=2.0, help="seconds of trace time between the two passes")
    return parser.parse_args()


def two_passes(args: argparse.Namespace, folder: Path) -> tuple:
    """The traces of the two passes (the log cut at ``args.at`` of its trace time and ``args.gap``
    seconds later) and their windows' ProtoGraphs."""
    whole = workload()
    lines = [(t, json.dumps(e, separators=(",", ":")) + "\n") for t, _, e in events(whole, task_starts=True)]
    cut = whole.start + (whole.end - whole.start) * args.at
    first, second = trace_until(lines, cut, folder), trace_until(lines, cut + args.gap, folder)
    return first, second, protograph.build(first, last_minutes(first)), protograph.build(second, last_minutes(second))


def timer(engine: EmbeddedEngine):
    """``timed(label, work)``: runs ``work``, prints the CPU it cost the server and this process, and
    returns what it returned."""
    server = Path(f"/proc/{engine.pid()}/stat")

    def cpu() -> float:
        return sum(int(x) for x in server.read_text().rsplit(")", 1)[1].split()[11:15]) / os.sysconf("SC_CLK_TCK")

    def timed(label: str, work):
        began, mine = cpu(), time.process_time()
        out = work()
        print(f"{label}: server {cpu() - began:.2f} s, this process {time.process_time() - mine:.2f} s")
        return out
    return timed


@contextmanager
def store_with_total(folder: Path, trace: trace_mod.Trace):
    """An embedded store in ``folder`` holding ``trace``'s total as analysis ``total``, and
    :func:`timer` of its server."""
    settings = Settings.from_env(home=folder / "home", neo4j_uri="")
    store = open_store(settings)
    engine = EmbeddedEngine(settings.home)
    try:
        store.apply_schema()
        pipeline.analyse(store, trace, pipeline.Target("total", "x", protograph.Options(), "total", ()), with_stragglers=False,
                         save=False)
        yield store, timer(engine)
    finally:
        store.close()
        engine.stop()


def write_window(store, analysis: str, trace: trace_mod.Trace, graph: protograph.ProtoGraph) -> None:
    """``graph`` (the last 5 minutes of ``trace``) written whole as ``analysis``, a window of ``total``."""
    pipeline.analyse(store, trace, pipeline.Target(analysis, "x", last_minutes(trace), "window", (), parent="total"),
                     graph=graph, save=False)


def main() -> None:
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory(prefix="pxinplace") as tmp:
        first, second, before, after = two_passes(args, Path(tmp))
        changes = {}
        for level in LEVELS:
            a, b = numbers(before, level), numbers(after, level)
            both = a.index.intersection(b.index)
            same = np.isclose(a[both].to_numpy(), b[both].to_numpy(), rtol=1e-12, atol=0)
            changes[level] = (both[~same], a.index.difference(b.index))
            print(f"{level:16s} {len(a):6d} -> {len(b):6d} nodes: same {same.sum():6d}, other numbers {(~same).sum():5d}, "
                  f"gone {len(a.index.difference(b.index)):4d}, new {len(b.index.difference(a.index)):4d}")

        with store_with_total(Path(tmp), first) as (store, timed):
            write_window(store, "window", first, before)
            ids = {(r["level"], r["key"]): r["id"] for r in store.run_text(
                "MATCH (n:ProtoNode {analysis: 'window'}) RETURN n.level AS level, n.key AS key, id(n) AS id")}
            blame_now, deep_now = numbers(after, "blame"), numbers(after, "deep")
            blame_rows = [[ids[(4, k)], float(blame_now[k])] for k in changes["blame"][0]]
            deep_rows = [[ids[(3, k)], float(deep_now[k])] for k in changes["deep"][0]]
            gone = [ids[(4, k)] for k in changes["blame"][1]]
            # WITH before MATCH: FalkorDB seeks a node by id from a variable, not from a list element.
            timed(f"set {len(blame_rows)} blame and {len(deep_rows)} deep numbers by id", lambda: [store.run_text(
                "UNWIND $rows AS r WITH r[0] AS at, r[1] AS seconds MATCH (n) WHERE id(n) = at SET n.blame_s = seconds",
                {"rows": rows}, write=True) for rows in (blame_rows, deep_rows)])
            timed(f"delete {len(gone)} gone blame nodes by id", lambda: store.run_text(
                "UNWIND $rows AS at MATCH (n) WHERE id(n) = at DETACH DELETE n", {"rows": gone}, write=True))
            timed("IF and DOR of the window again (compute_impact_and_dor, overview_totals)", lambda: [
                store.run(name, {"analysis": "window"}) for name in ("compute_impact_and_dor", "overview_totals")])
            timed("as a pass does now: write the second window whole", lambda: write_window(store, "window2", second, after))
            timed("as a pass does now: delete the first window", lambda: lifecycle.delete(store, "window", save=False))


if __name__ == "__main__":
    main()

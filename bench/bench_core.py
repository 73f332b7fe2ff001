"""Core speed and memory figures (issue #2). Prints a table; run: python bench/bench_core.py [--skip-million]
[--engines falkordb,neo4j] [--paper-only]

1. paper scale (125 queries, 250 stages, 24,000 tasks, <= 10 concurrent): event log written, then
   loaded and analysed end to end through `pipeline.load_paths` (parse, blame, write, IF, DOR);
2. ProtoGraph build, then write, for a workload giving ~120,000 nodes (200 queries, 32,000 tasks);
3. 1,000,000 tasks (125 queries, 8,000 tasks each): event log written, then loaded end to end like 1.,
   with peak memory (this process and the FalkorDB server);
4. IF and DOR in the database on a ~1,000,000-edge ProtoGraph (1,000 queries, 250,000 tasks),
   beside the same arithmetic in NumPy.

1. and 4. run on each engine asked for (issue 10): the embedded FalkorDB, and Neo4j 5.26 started by
tools/neo4j/run.sh in a temporary home (heap PROTOXPLORE_NEO4J_HEAP, 4g here unless set) and stopped
at the end; 1. is timed twice, on the freshly started server, then again after a delete on the server
warmed by that first load (1'.: how a production server, which runs for many loads, performs; on
Neo4j the first load on a fresh JVM is several times slower); 2. and 3. on FalkorDB only;
--paper-only runs 1. and 1'. alone. Every timed line ends with the 1-minute load average (the
machine is shared).
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from protoxplore.storage import locks

sys.path.insert(0, str(Path(__file__).resolve().parent))
import neo4j_server  # noqa: E402
from workload import workload, write_log  # noqa: E402

from protoxplore.loader.model import protograph  # noqa: E402
from protoxplore.service import pipeline
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.storage import lifecycle
from protoxplore.storage.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.storage.store import FalkorStore, open_store  # noqa: E402


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024


def server_peak_gb(home: Path) -> float:
    """Peak resident memory (VmHWM) of the embedded FalkorDB server process."""
    pid = EmbeddedEngine(home).pid()
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024 / 1024
    return float("nan")


def timed(label, fn, rows):
    start = time.perf_counter()
    result = fn()
    rows.append((label, time.perf_counter() - start))
    print(f"{label:<62} {rows[-1][1]:8.2f} s   peak RSS {rss_gb():.2f} GB   load average {os.getloadavg()[0]:.1f}",
          flush=True)
    return result


def numpy_if_dor(n_edges: int, rng) -> float:
    """The IF/DOR arithmetic on arrays: the floor for the in-database computation."""
    parent_bc = rng.uniform(0, 10, n_edges)
    child = rng.integers(0, n_edges // 4, n_edges)
    start = time.perf_counter()
    incoming = np.bincount(child, parent_bc)
    impact = parent_bc / incoming[child]
    child_dor = rng.uniform(0, 1, n_edges // 4)
    np.bincount(np.arange(n_edges) % (n_edges // 2), impact * child_dor[child])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-million", action="store_true")
    parser.add_argument("--engines", default="falkordb,neo4j", help="engines for 1. and 4. (comma-separated)")
    parser.add_argument("--paper-only", action="store_true", help="1. and 1'. only")
    args = parser.parse_args()
    engines = args.engines.split(",")
    rows = []
    with tempfile.TemporaryDirectory(prefix="pxbench") as tmp:
        settings = Settings.from_env(home=Path(tmp), neo4j_uri="")
        store = FalkorStore(settings)
        store.apply_schema()
        try:
            paper = workload()
            log = Path(tmp) / "paper-scale.json"
            write_log(paper, log)
            print(f"paper-scale log: {len(paper.tasks)} tasks, {len(paper.stages)} stages, "
                  f"{len(paper.queries)} queries, {log.stat().st_size / 1e6:.1f} MB")
            if not args.paper_only:
                big = workload(n_queries=1000, stages_per_query=2, tasks=250_000, hosts=10, concurrency=10, seed=3)
                big_graph = protograph.build(big)
            for engine in engines:
                on = store if engine == "falkordb" else open_store(neo4j_server.start(Path(tmp)))
                on.apply_schema()
                try:
                    paper_id, _ = timed(f"1. paper scale end to end, fresh server [{engine}]",
                                        lambda on=on: pipeline.load_paths(on, pipeline.LoadRequest((str(log),)), settings.home,
                                                                          pipeline.QUIET), rows)
                    # A server runs for many loads: the same load again, once deleted, on a server that
                    # has run one (Neo4j's JVM compiles its hot code during the first).
                    with locks.writing(settings.home, paper_id):
                        lifecycle.delete(on, paper_id)
                    timed(f"1'. the same again, server warmed by 1. [{engine}]",
                          lambda on=on: pipeline.load_paths(on, pipeline.LoadRequest((str(log),)), settings.home,
                                                            pipeline.QUIET), rows)
                    if args.paper_only:
                        continue
                    started = time.perf_counter()
                    pipeline.analyse(on, big, pipeline.Target("abench1me", "bench", protograph.Options(), "bench", ()),
                                     graph=big_graph)
                    edges = on.run_text("MATCH (:ProtoNode {analysis: 'abench1me'})-[e:IMPACTS]->() "
                                        "RETURN count(e) AS n")[0]["n"]
                    print(f"    graph for 4. [{engine}]: {edges} IMPACTS edges, written with IF and DOR in "
                          f"{time.perf_counter() - started:.1f} s")
                    timed(f"4. IF and DOR in the database (compute_impact_and_dor) [{engine}]",
                          lambda on=on: on.run("compute_impact_and_dor", {"analysis": "abench1me"}), rows)
                finally:
                    if on is not store:
                        on.close()
                        neo4j_server.stop(Path(tmp))
            if args.paper_only:
                return
            print(f"    the same IF/DOR arithmetic in NumPy on {edges} edges: "
                  f"{numpy_if_dor(edges, np.random.default_rng(0)):.3f} s")

            mid = workload(n_queries=200, stages_per_query=2, tasks=32_000, hosts=10, concurrency=10, seed=1)
            graph = timed("2a. ProtoGraph of ~120k nodes: blame + levels in memory", lambda: protograph.build(mid), rows)
            print(f"    ProtoGraph nodes: {graph.node_count()}")
            timed("2b. the same ProtoGraph: write + IF + DOR in FalkorDB",
                  lambda: pipeline.analyse(store, mid, pipeline.Target("abench120k", "bench", protograph.Options(), "bench",
                                                                       ()), graph=graph), rows)
            if not args.skip_million:
                # The paper's 125 queries, each 40 times bigger: the task dimension grows, not the
                # number of victims (every query is a victim, so the ProtoGraph grows with queries).
                million_log = Path(tmp) / "million.json"
                timed("3a. generate and write a 1,000,000-task event log (125 queries)", lambda: write_log(workload(
                    n_queries=125, stages_per_query=2, tasks=1_000_000, hosts=10, concurrency=10, seed=2), million_log),
                    rows)
                print(f"    log: {million_log.stat().st_size / 1e9:.2f} GB")
                timed("3b. 1M tasks end to end (parse+blame+write+IF+DOR)",
                      lambda: pipeline.load_paths(store, pipeline.LoadRequest((str(million_log),)), settings.home,
                                                  pipeline.QUIET), rows)
            print(f"peak RSS of the FalkorDB server: {server_peak_gb(settings.home):.2f} GB")
        finally:
            store.close()
            EmbeddedEngine(settings.home).stop()
    print(f"peak RSS of this process: {rss_gb():.2f} GB (the FalkorDB server and Neo4j are separate processes)")


if __name__ == "__main__":
    main()

"""Web app latency: p50/p95/max of every page under 10 concurrent clients.

The app is served over HTTP on 127.0.0.1 (threaded WSGI server, one store) in this process; the
clients are 10 worker processes (a process pool: a second process, not the server's threads) that
send a bounded number of requests per page; the first (cold) request of each page is timed
apart. Data: the paper-scale workload of bench/workload.py (125 queries, 250 stages, 24,000
tasks by default) loaded into a fresh embedded engine in a temporary home, stopped at the end.

    python bench/bench_webapp.py [--queries 125] [--requests 50] [--clients 10] [--home DIR]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import workload  # noqa: E402

from protoxplore.embedded import EmbeddedEngine  # noqa: E402
from protoxplore.loader import pipeline  # noqa: E402
from protoxplore.loader.protograph import Options  # noqa: E402
from protoxplore.settings import Settings  # noqa: E402
from protoxplore.store import open_store  # noqa: E402
from protoxplore.webapp import close_store, create_app, make_server  # noqa: E402


def fetch(url: str) -> tuple[float, int]:
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except Exception:  # noqa: BLE001 - a failed request counts as an error, not a crash
        status = 0
    return time.perf_counter() - started, status


def load(home: Path, n_queries: int, seed: int) -> tuple[Settings, str, float]:
    """The paper-scale workload of bench/workload.py (125 queries, 250 stages, 24,000 tasks)."""
    settings = Settings.from_env(home=home, neo4j_uri="", graph="bench")
    trace = workload(n_queries=n_queries, tasks=192 * n_queries, seed=seed)
    fingerprint = f"bench-{n_queries}-{seed}"
    pipeline.save_trace(trace, pipeline.trace_path(home, fingerprint))
    started = time.perf_counter()
    with open_store(settings) as store:
        store.apply_schema()
        analysis = pipeline.analyse(store, trace, "abenchweb", fingerprint, Options(), "paper scale", [],
                                    say=lambda *_: None)
    return settings, analysis, time.perf_counter() - started


def pages(app, analysis: str) -> dict[str, str]:
    with app.app_context():
        from protoxplore.webapp import get_store
        store = get_store()
        victim = store.run("victims", {"analysis": analysis, "k": 1})[0]["uid"]
        culprit = store.run("aggressive_culprits", {"analysis": analysis, "k": 1})[0]["uid"]
        trail, node = [], victim
        for _ in range(3):  # a walk three levels deep (Level 3 parents shown)
            parents = store.run("node_parents", {"analysis": analysis, "victim": victim, "node": node, "k": 1})
            node = parents[0]["uid"]
            trail.append(node)
    v = f"/analysis/{analysis}/victim/{quote(victim, safe='/')}"
    return {
        "overview /": "/",
        "analysis": f"/analysis/{analysis}",
        "victim (L1)": v,
        "victim walk (L4)": v + "?" + "&".join("at=" + quote(t, safe="") for t in trail),
        "methods": v + "/methods",
        "windows (4, derived)": v + "/windows?windows=4",
        "culprit": f"/analysis/{analysis}/culprit/{quote(culprit, safe='/')}",
        "queries": "/queries",
        "query top_paths": f"/queries/top_paths?analysis={analysis}&victim={quote(victim, safe='')}&k=5",
        "query hot_resources": f"/queries/hot_resources?analysis={analysis}",
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=125)
    parser.add_argument("--requests", type=int, default=50, help="requests per page")
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--home", type=Path, help="default: a temporary directory, removed at the end")
    args = parser.parse_args(argv)
    home = args.home or Path(tempfile.mkdtemp(prefix="protoxplore-bench-web-"))
    app = server = None
    try:
        settings, analysis, seconds = load(home, args.queries, args.seed)
        app = create_app({"SETTINGS": settings})
        import logging
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        server = make_server("127.0.0.1", 0, app=app)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.port}"
        with app.app_context():
            from protoxplore.webapp import get_store
            a = get_store().run("analyses", {})[0]
        print(f"analysis {analysis}: {a['queries']} queries, {a['stages']} stages, {a['tasks']} tasks, "
              f"{a['nodes']} ProtoGraph nodes (loaded in {seconds:.1f} s)")
        urls = pages(app, analysis)
        warm = fetch(base + urls["windows (4, derived)"])  # derives the 4 windowed analyses once
        print(f"first windows request (derives 4 analyses): {warm[0]:.2f} s, status {warm[1]}")
        print(f"{args.clients} client processes, {args.requests} requests per page, over HTTP on 127.0.0.1\n")
        print(f"{'page':<24} {'cold ms':>8} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'errors':>6}")
        worst = 0.0
        with ProcessPoolExecutor(max_workers=args.clients) as pool:
            list(pool.map(fetch, [base + "/queries"] * args.clients))  # start the workers
            for label, url in urls.items():
                cold = fetch(base + url)[0] * 1000
                results = list(pool.map(fetch, [base + url] * args.requests))
                times = sorted(t * 1000 for t, _ in results)
                errors = sum(1 for _, s in results if s != 200)
                p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
                worst = max(worst, p95)
                print(f"{label:<24} {cold:>8.0f} {len(times):>4} {statistics.median(times):>8.0f} {p95:>8.0f} {times[-1]:>8.0f} "
                      f"{errors:>6}")
        print(f"\nworst p95: {worst:.0f} ms")
        return 0
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
        if app is not None:
            close_store(app)
        EmbeddedEngine(home).stop()
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Loads, window derivations and deletes that cannot corrupt or lose analyses (issue 14, items 1,
2 and 4), tested with real `protoxplore` processes, real signals and the real embedded engine:
kill -9 at chosen moments, Ctrl-C, a paused writer, and two processes asking for the same analysis.

Every check ends by comparing the store with a clean load of the same log, node by node."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from protoxplore.errors import StoreError
from protoxplore.evaluation import synth
from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs import trace as trace_mod
from protoxplore.service import live, pipeline
from protoxplore.storage import lifecycle, locks, traces
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.store import open_store

pytestmark = pytest.mark.slow  # real processes killed at many moments

CLI = [sys.executable, "-m", "protoxplore.cli"]
ENV: dict[str, str] = {}  # what points the commands at the engine under test (set by ``bench``)
OURS: set[str] = set()  # this module's analyses: on Neo4j the one database holds other modules' too


def start(home, *args, batch_size: int | None = None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", **ENV)
    if batch_size:
        env["PROTOXPLORE_BATCH_SIZE"] = env["PROTOXPLORE_NEO4J_BATCH_SIZE"] = str(batch_size)
    return subprocess.Popen(CLI + [str(a) for a in args] + ["--home", str(home)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def read_until(proc: subprocess.Popen, marker: str) -> str:
    """The process's stderr up to the first line holding ``marker`` (the process keeps running)."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if marker in line:
            return "".join(seen)
    proc.wait()
    raise AssertionError(f"{marker!r} never came; rc {proc.returncode}; stderr:\n{''.join(seen)}")


def run(home, *args, **kw) -> tuple[int, str, str]:
    proc = start(home, *args, **kw)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def listed(store) -> list[str]:
    return [r["id"] for r in store.run("analyses", {"status": "complete"})]


def mine(store, status: str = "complete") -> list[str]:
    """The ids of this module's analyses (and their windows) with ``status``."""
    return sorted(r["id"] for r in store.run("analyses", {"status": status}) if r["id"] in OURS or r["parent"] in OURS)


def nodes_of(store, analysis: str) -> int:
    return store.run_text("MATCH (n) WHERE n.analysis = $a OR (n:Analysis AND n.id = $a) RETURN count(n) AS n",
                          {"a": analysis})[0]["n"]


def signature(store, analysis: str) -> dict:
    """Everything stored for one analysis: nodes with their values, relationships by type with their weights."""
    nodes = store.run_text("MATCH (n) WHERE n.analysis = $a OR (n:Analysis AND n.id = $a) "
                           "RETURN n.uid AS uid, labels(n) AS labels, n.dor AS dor, n.blame_s AS blame, n.status AS status "
                           "ORDER BY uid", {"a": analysis})
    edges = store.run_text("MATCH (n {analysis: $a})-[r]->(m) RETURN type(r) AS type, count(r) AS n, "
                           "round(sum(coalesce(r.impact_factor, r.dor, 0.0)) * 1e6) AS weight ORDER BY type", {"a": analysis})
    for n in nodes:
        # Sums made by the engine (DOR of culprits, hosts' and resources' totals) add their terms in
        # the order it finds them, which moves with the node ids that deletes free: last bits differ.
        n["dor"] = None if n["dor"] is None else round(n["dor"], 9)
        n["blame"] = None if n["blame"] is None else round(n["blame"], 9)
        n["labels"] = sorted(n["labels"])  # FalkorDB lists them in the order the store first saw them
    return {"nodes": nodes, "edges": edges}


def orphans(store, ours: set[str] | None = None) -> int:
    """Nodes of no listed analysis; with ``ours``, only nodes of those analyses and their windows
    (in whatever state: the Analysis node goes last), as the Neo4j database holds others' too."""
    if ours is None:
        return store.run_text("MATCH (n) WHERE NOT coalesce(n.analysis, n.id) IN $ids RETURN count(n) AS n",
                              {"ids": listed(store)})[0]["n"]
    every = set(ours) | {r["id"] for status in ("complete", "loading", "deleting")
                         for r in store.run("analyses", {"status": status}) if r["id"] in ours or r["parent"] in ours}
    return store.run_text("MATCH (n) WHERE coalesce(n.analysis, n.id) IN $every AND NOT coalesce(n.analysis, n.id) IN $ids "
                          "RETURN count(n) AS n", {"every": sorted(every), "ids": listed(store)})[0]["n"]


def ghost_labels(store) -> list[str]:
    """The labels under which a scan meets a node whose properties are gone: what FalkorDB 4.16 left
    of nodes deleted by a query that did not scan all their labels (cypher/analysis_delete.cypher).
    Counting does not see them (the engine counts a label from its statistics); reading a property does."""
    ghosts = []
    for row in store.run_text("CALL db.labels() YIELD label RETURN label"):
        try:
            store.run_text(f"MATCH (n:`{row['label']}`) RETURN count(n.uid) AS n")
        except StoreError as exc:
            if "undefined attribute" not in str(exc):
                raise
            ghosts.append(row["label"])
    return ghosts


@pytest.fixture(scope="module")
def bench(tmp_path_factory, engine, request):
    """A private home holding one clean load of a 30-query log, and that load's signature; the
    commands run on the engine under test (on Neo4j, its one database, beside other modules' analyses)."""
    settings = request.getfixturevalue("settings")
    ENV.clear()
    ENV.update(PROTOXPLORE_NEO4J_URI=settings.neo4j_uri, PROTOXPLORE_NEO4J_USER=settings.neo4j_user,
               PROTOXPLORE_NEO4J_PASSWORD=settings.neo4j_password, PROTOXPLORE_NEO4J_DATABASE=settings.neo4j_database)
    home = tmp_path_factory.mktemp("reliability")
    queries, cluster = synth.random_workload(np.random.default_rng(3), 30)
    log = synth.write_event_log(synth.simulate(queries, cluster), cluster, home / "log")
    code, _, err = run(home, "load", log)
    assert code == 0, err
    store = open_store(replace(settings, home=home), say=lambda _: None)
    [analysis] = [r["id"] for r in store.run("analyses", {"status": "complete"}) if r["sources"] == [str(log)]]
    OURS.clear()
    OURS.add(analysis)
    yield home, log, store, analysis, signature(store, analysis)
    run(home, "delete", analysis)  # on Neo4j the database outlives the module
    store.close()
    if engine == "falkordb":
        EmbeddedEngine(home).stop()


def test_killed_loads_leave_nothing_listed_and_the_next_command_cleans_up(bench):
    home, log, store, analysis, clean = bench
    code, _, err = run(home, "delete", analysis)
    assert code == 0, err
    leftover = ""
    for moment in ("write_victim_queries", "write_deep_and_blame", "computing impact factors"):
        proc = start(home, "load", log)
        before = read_until(proc, moment)
        assert leftover in before  # this command first removed the leftover of the previous kill
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert analysis not in listed(store), moment
        assert mine(store, "loading") == [analysis], moment  # the leftover is there, unlisted
        leftover = f"note: removing an unfinished load of analysis {analysis}"
    code, _, err = run(home, "analyses")
    assert code == 0 and leftover in err, err
    # Its saved trace too (the logs' SQL text): the killed loads left it in the home once.
    assert not traces.trace_path(home, trace_mod.fingerprint(eventlog.discover([str(log)]))).exists()
    code, _, err = run(home, "load", log)
    assert code == 0, err
    assert mine(store) == [analysis] and orphans(store, OURS) == 0
    assert signature(store, analysis) == clean


@pytest.mark.parametrize("asker", ["its home", "another home"])
def test_a_load_whose_writer_lives_is_never_removed(bench, engine, tmp_path, asker):
    """Not by a command of its home (the lock is held), nor of another home sharing the Neo4j
    server, whose lock lives in another directory (before 2026-11-27 such a command found the lock
    free and removed the load: CI, tests/test_engines_agree.py)."""
    if asker == "another home" and engine != "neo4j":
        pytest.skip("an embedded engine belongs to one home")
    home, log, store, analysis, clean = bench
    run(home, "delete", analysis)
    loader = start(home, "load", log)
    read_until(loader, "write_deep_and_blame")
    os.kill(loader.pid, signal.SIGSTOP)  # alive but silent, like a writer on a slow machine
    try:
        code, _, err = run(home if asker == "its home" else tmp_path / "another-home", "analyses")
        assert code == 0 and "removing" not in err, err
        assert mine(store, "loading") == [analysis]
    finally:
        os.kill(loader.pid, signal.SIGCONT)
    out, err = loader.communicate(timeout=120)
    assert loader.returncode == 0, err
    assert mine(store) == [analysis] and signature(store, analysis) == clean


def test_a_log_loaded_from_another_home_has_its_trace_saved_there_too(bench, engine, tmp_path):
    """Two homes sharing a Neo4j server: the second's load of the first's log finds it loaded and saves
    its trace in the second home too, where Hound's stragglers (read from the trace) then answer."""
    if engine != "neo4j":
        pytest.skip("an embedded engine belongs to one home")
    home, log, store, analysis, clean = bench
    other = tmp_path / "another-home"
    code, _, err = run(other, "load", log)
    assert code == 0 and "already loaded" in err and "saving its trace in this home too" in err, err
    code, _, err = run(other, "stragglers", "--analysis", analysis, "--json")
    assert code == 0, err
    assert mine(store) == [analysis] and signature(store, analysis) == clean


def test_two_loads_of_the_same_logs_at_once_write_it_once(bench):
    home, log, store, analysis, clean = bench
    run(home, "delete", analysis)
    procs = [start(home, "load", log) for _ in range(2)]
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [rc for _, _, rc in results] == [0, 0], results
    errs = "".join(err for _, err, _ in results)
    assert "already loaded" in errs and f"writes analysis {analysis}" in errs  # the second waited, then found it
    assert mine(store) == [analysis] and orphans(store, OURS) == 0
    assert signature(store, analysis) == clean


def test_two_window_derivations_at_once_write_it_once(bench):
    home, _, store, analysis, _ = bench
    victim = store.run("victims", {"analysis": analysis, "k": 1})[0]["name"]
    window = "0,60"
    procs = [start(home, "explain", "--victim", victim, "--window", window) for _ in range(2)]
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [rc for _, _, rc in results] == [0, 0], results
    windows = [r for r in store.run("analyses", {"status": "complete"}) if r["parent"] == analysis]
    assert len(windows) == 1 and orphans(store, OURS) == 0
    made = windows[0]["id"]
    assert sum("ProtoNode" in n["labels"] for n in signature(store, made)["nodes"]) == windows[0]["nodes"]
    code, _, err = run(home, "delete", made)
    assert code == 0, err


def test_loads_of_different_logs_at_once_equal_loads_one_after_the_other(bench, tmp_path):
    """What held in issue 14 and must keep holding: the one-writer-per-id locks do not serialize
    or mix loads of different logs; two at once store what each stores alone."""
    home, log, store, analysis, clean = bench
    queries, cluster = synth.random_workload(np.random.default_rng(4), 20)
    other = synth.write_event_log(synth.simulate(queries, cluster), cluster, tmp_path / "other")
    code, _, err = run(home, "load", other)
    assert code == 0, err
    [second] = [r["id"] for r in store.run("analyses", {"status": "complete"}) if r["sources"] == [str(other)]]
    OURS.add(second)
    alone = signature(store, second)
    for a in (analysis, second):
        run(home, "delete", a)
    procs = [start(home, "load", path) for path in (log, other)]
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [rc for _, _, rc in results] == [0, 0], results
    assert mine(store) == sorted([analysis, second]) and orphans(store, OURS) == 0
    assert signature(store, analysis) == clean and signature(store, second) == alone
    run(home, "delete", second)


def test_a_killed_delete_is_hidden_at_once_and_finished_by_the_next_command(bench):
    home, log, store, analysis, clean = bench
    # Batches of 50 of its 4,630 nodes: 90 more round trips after the line read, so that the delete
    # is still under way when the signal comes even on a busy machine (with 500 it once ended first).
    proc = start(home, "delete", analysis, batch_size=50)
    read_until(proc, "deleted 100 nodes")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert analysis not in listed(store)
    assert mine(store, "deleting") == [analysis]  # marked, and partly deleted
    code, out, err = run(home, "analyses")
    assert code == 0 and f"note: removing an unfinished delete of analysis {analysis}" in err, err
    assert nodes_of(store, analysis) == 0
    code, _, err = run(home, "load", log)
    assert code == 0 and "already loaded" not in err
    assert signature(store, analysis) == clean


def test_ctrl_c_during_a_load_says_what_is_true(bench):
    home, log, store, analysis, clean = bench
    run(home, "delete", analysis)
    proc = start(home, "load", log)
    read_until(proc, "write_deep_and_blame")
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert f"removing the unfinished analysis {analysis}" in err
    assert "interrupted; anything it left unfinished is not listed, and the next protoxplore command removes it" in err
    assert mine(store) == [] and nodes_of(store, analysis) == 0
    code, _, err = run(home, "load", log)
    assert code == 0 and signature(store, analysis) == clean


def test_ctrl_c_during_a_delete_says_what_is_true(bench):
    """Issue 14 item 4: Ctrl-C during a delete used to print "nothing half-written is visible" while
    the analysis stayed listed as complete with part of its nodes. It is hidden at once, the message
    says what is left, and the next command finishes the delete."""
    home, log, store, analysis, clean = bench
    # Batches of 50 of its 4,630 nodes: 90 more round trips after the line read, so that the delete
    # is still under way when the signal comes even on a busy machine (with 500 it once ended first).
    proc = start(home, "delete", analysis, batch_size=50)
    read_until(proc, "deleted 100 nodes")
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err  # once 1 on Neo4j in a CI run (2026-11-26): what it said is the clue
    assert "interrupted; anything it left unfinished is not listed, and the next protoxplore command removes it" in err
    assert analysis not in listed(store)
    code, _, err = run(home, "analyses")
    assert code == 0 and f"note: removing an unfinished delete of analysis {analysis}" in err, err
    assert nodes_of(store, analysis) == 0
    code, _, err = run(home, "load", log)
    assert code == 0 and "already loaded" not in err and signature(store, analysis) == clean


def test_a_leftover_saved_in_the_dump_is_removed_when_the_engine_starts(bench, engine):
    if engine == "neo4j":
        pytest.skip("the embedded engine's dump (Neo4j writes each transaction to its log)")
    home, log, store, analysis, clean = bench
    run(home, "delete", analysis)
    proc = start(home, "load", log)
    read_until(proc, "write_deep_and_blame")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert EmbeddedEngine(home).stop()  # saves the half-written analysis into the dump
    code, _, err = run(home, "engine", "start")
    assert code == 0 and f"note: removing an unfinished load of analysis {analysis}" in err, err
    assert nodes_of(store, analysis) == 0
    code, _, err = run(home, "load", log)
    assert code == 0 and signature(store, analysis) == clean


def test_an_id_never_names_a_path_outside_the_locks(tmp_path):
    for bad in ("../escape", "a/b", "", "x" * 65):
        with pytest.raises(ValueError, match="not an analysis id"):
            with locks.writing(tmp_path, bad):
                pass
    assert not (tmp_path / "escape.lock").exists()


def test_a_generation_replaced_after_a_large_write_leaves_no_ghost(engine, settings, tmp_path):
    """`watch` writes a generation, then deletes the one before (protoxplore/service/live.py). When
    the new generation had grown the graph, FalkorDB 4.16 kept the deleted generation's nodes under
    VictimQuery and the other level labels with their properties gone, and the next scan of those
    labels failed with "Attempted to access undefined attribute" (met by the soak in CI, after a
    killed load's leftover was deleted; FalkorDB issue #2103). 200 queries: ~60,000 nodes, past the
    16,384 nodes by which the embedded engine grows the graph."""
    if engine == "falkordb":  # a graph of its own: the ghosts depend on the graph's size
        settings = replace(settings, home=tmp_path / "home")
    workload, cluster = synth.random_workload(np.random.default_rng(1), 200)
    full = synth.write_event_log(synth.simulate(workload, cluster), cluster, tmp_path / "full").read_bytes()
    log = tmp_path / "logs" / "app-ghosts.inprogress"
    log.parent.mkdir()
    log.write_bytes(full[:full.index(b"\n", len(full) // 20) + 1])
    with open_store(settings) as store:
        store.apply_schema()
        watch = live.Watch(store, pipeline.LoadRequest((str(log),)), settings.home, progress=pipeline.QUIET)
        try:
            assert watch.poll() and watch.publish()
            log.write_bytes(full)
            assert watch.poll()
            current = watch.publish()
            assert ghost_labels(store) == []
            assert len(store.run("victims", {"analysis": current[0], "k": 500})) == 200
        finally:
            for analysis in watch.stop():  # the Neo4j database is shared with other tests
                lifecycle.delete(store, analysis)
    if engine == "falkordb":
        EmbeddedEngine(settings.home).stop()


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)  # Neo4j's: bench/soak_kill.py --engine neo4j
def test_a_short_soak_passes(engine, background):
    """bench/soak_kill.py in CI at a small scale (5 kills on the embedded engine; the figures of
    200-kill soaks on both engines are in docs/reliability.md): random kill -9 across load, window
    derivation and delete with readers, ending with a store equal to a clean remake."""
    result = background  # tests/conftest.py's short_soak, run since the session started
    assert result.returncode == 0 and result.stdout.rstrip().endswith("PASS"), result.stdout + result.stderr


def test_a_ctrl_c_during_a_database_call_stops_the_command_when_the_call_returns(store):
    """Ctrl-C in the middle of a database call is raised once its reply is read (docs/reliability.md,
    "Ctrl-C"), and the connection then answers the next query. A query that takes T seconds, Ctrl-C
    at T/5: the interruption comes after the query's time, not at T/5 (timed against T/2)."""
    import threading
    import time

    store.run_text("MERGE (:CtrlCProbe)", write=True)  # the embedded engine answers a query on no graph at once
    slow = "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b RETURN sum(a % 7 + b % 5) AS n"
    times = []
    for _ in range(2):  # the quicker of two: Neo4j plans the query the first time (1.09 s, then 0.54 s once in CI)
        began = time.perf_counter()
        store.run_text(slow)
        times.append(time.perf_counter() - began)
    alone = min(times)
    threading.Timer(alone / 5, os.kill, (os.getpid(), signal.SIGINT)).start()
    began = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        store.run_text(slow)
    assert time.perf_counter() - began > alone / 2, (alone, time.perf_counter() - began)
    assert store.run_text("RETURN 1 AS one") == [{"one": 1}]
    store.run_text("MATCH (p:CtrlCProbe) DELETE p", write=True)

"""Live applications (issue 13.1): running queries kept and marked, and ``protoxplore watch``
following growing logs, through the product on both engines."""
from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote

import pytest

from protoxplore.cli.commands import main
from protoxplore.errors import AnalysisBusy, NotFound
from protoxplore.evaluation import synth
from protoxplore.loader.logs import codecs
from protoxplore.service import catalog, live, pipeline
from protoxplore.settings import Settings
from protoxplore.storage import locks, traces

from commands import output
from logs import SCENARIOS, lz4_java_stream


def demo_log(path: Path) -> bytes:
    """The demo workload's event log (an ETL load taking the slots a nightly report needs), as bytes."""
    queries, cluster = synth.demo_workload()
    synth.write_event_log(synth.simulate(queries, cluster), cluster, path, app_name="demo-cluster",
                          app_id="app-demo-0001", spark_properties={"spark.scheduler.mode": "FAIR"})
    return path.read_bytes()


@pytest.mark.slow
def test_a_log_cut_while_running_keeps_its_running_queries(home, engine_env, tmp_path, capsys):
    """The demo log cut at line 40: four queries have started, three still run. The nightly report's
    8 tasks were submitted at 5 s and none has a slot at the last event (31 s): blocked 8 x 26 s so
    far, all of it by the ETL load that holds the slots."""
    lines = demo_log(tmp_path / "full").splitlines(keepends=True)
    cut = tmp_path / "app-demo-0001.inprogress"
    cut.write_bytes(b"".join(lines[:40]))
    row = json.loads(output(capsys, "load", cut, "--json", "--home", home))
    # 4 tasks ended and 10 run; the 14 waiting for a slot are waits, not tasks.
    assert (row["queries"], row["running"], row["tasks"]) == (4, 3, 14)
    victims = json.loads(output(capsys, "victims", "--json", "--analysis", row["id"], "--home", home))
    assert {v["description"].split(":")[0]: v["running"] for v in victims} == {
        "morning-check": False, "etl-load": True, "nightly-report": True, "dashboard": True}
    e = json.loads(output(capsys, "explain", "--victim", "nightly-report", "--json", "--analysis", row["id"],
                       "--home", home))
    assert e["victim"]["running"] is True
    assert e["victim"]["blocked_s"] == pytest.approx(8 * 26.0)
    assert e["victim"]["runtime_s"] == pytest.approx(26.0)
    assert e["culprit_queries"][0]["description"].startswith("etl-load") and e["culprit_queries"][0]["running"]
    assert e["culprit_stages"][0]["running"] is True  # Level 5 too: the ETL load's stage holding the slots
    assert e["whatif"] == []  # a replay needs the victim's end
    text = output(capsys, "explain", "--victim", "nightly-report", "--analysis", row["id"], "--home", home)
    assert "is still running: it has run 26.0 s up to the last event" in text
    level5 = text[text.index("L5 Culprit stages"):text.index("L6 Culprit queries")].splitlines()
    assert level5[1].split()[:2] == ["name", "running"] and level5[2].split()[3] == "yes"
    # The web app: the walk's Level 5 rows (four steps down from the victim) and the culprit's page.
    from protoxplore.webapp import close_store, create_app
    app = create_app({"SETTINGS": Settings.from_env(home=home), "TESTING": True})
    try:
        client, url = app.test_client(), f"/analysis/{row['id']}/victim/{e['victim']['id']}"
        for _ in range(4):
            url = html.unescape(re.search(r'class="drill" data-level="\d" href="([^"]+)"',
                                          client.get(url).get_data(as_text=True)).group(1))
        walk = client.get(url).get_data(as_text=True)
        assert 'data-level="5"' in walk and '<span class="tag running">running</span>' in walk.split('id="walk-table"')[1]
        page = client.get(f"/analysis/{row['id']}/culprit/{e['culprit_queries'][0]['uid']}").get_data(as_text=True)
        assert 'id="culprit-running"' in page and '<span class="tag running">running</span></td>' in page
    finally:
        close_store(app)
    assert "running" in output(capsys, "victims", "--analysis", row["id"], "--home", home).splitlines()[0]
    assert main(["whatif", "--victim", "nightly-report", "--hints", "--analysis", row["id"], "--home", str(home)]) == 1
    assert "is still running: a what-if replays the work of every task" in capsys.readouterr().err
    # Cut at line 22 the ETL load has started and nothing has blocked it yet: said as such.
    early = tmp_path / "app-demo-0003.inprogress"
    early.write_bytes(b"".join(line.replace(b"app-demo-0001", b"app-demo-0003") for line in lines[:22]))
    row = json.loads(output(capsys, "load", early, "--json", "--home", home))
    text = output(capsys, "explain", "--victim", "etl-load", "--analysis", row["id"], "--home", home)
    assert "Its slowdown cannot be estimated: it has no task time yet.\nNothing has blocked it so far." in text
    assert "never blocked" not in text and "blocked for all" not in text
    # Spark writes StageSubmitted without flushing its log: a live log often shows the job only. Its
    # stages that wait for no other stage were submitted with it: the same 8 x 26 s so far.
    unflushed = tmp_path / "app-demo-0002.inprogress"
    unflushed.write_bytes(b"".join(line.replace(b"app-demo-0001", b"app-demo-0002") for line in lines[:40]
                                   if not (b"StageSubmitted" in line and b'"Stage ID":3,' in line)))
    row = json.loads(output(capsys, "load", unflushed, "--json", "--home", home))
    e = json.loads(output(capsys, "explain", "--victim", "nightly-report", "--json", "--analysis", row["id"],
                       "--home", home))
    assert e["victim"]["running"] is True and e["victim"]["blocked_s"] == pytest.approx(8 * 26.0)


class Growing:
    """A log written in pieces cut anywhere (mid-line too), plain or as one zstd frame flushed block
    by block, as Spark writes them."""

    def __init__(self, path: Path, data: bytes, codec: str | None):
        self.path, self.data, self.at = path, data, 0
        self.compressor = codecs._zstd().ZstdCompressor() if codec else None

    def grow(self, upto: int) -> None:
        piece, self.at = self.data[self.at:upto], upto
        if self.compressor:
            piece = self.compressor.compress(piece, mode=self.compressor.FLUSH_BLOCK)
        with open(self.path, "ab") as out:
            out.write(piece)


def demo_in_progress(tmp_path: Path) -> tuple[list[bytes], Path, Path]:
    """The demo log's lines, a folder of logs, and the path of its in-progress log there (not written yet)."""
    lines = demo_log(tmp_path / "full").splitlines(keepends=True)
    logs = tmp_path / "logs"
    logs.mkdir()
    return lines, logs, logs / "app-demo-0001.inprogress"


def listed(store, key: str) -> list[dict]:
    return [r for r in catalog.analyses(store) if r.get("live") == key]


def victims(store, analysis: str) -> list[tuple]:
    return sorted((r["name"], round(r["blocked_s"], 6), r["running"])
                  for r in store.run("victims", {"analysis": analysis, "order": "blocked", "k": 1000}))


@pytest.mark.parametrize("codec", [None, "zstd"])
@pytest.mark.slow
def test_watch_reads_each_byte_once_and_publishes_whole_generations(store, settings, tmp_path, codec):
    data = demo_log(tmp_path / "full")
    logs = tmp_path / "logs"
    logs.mkdir()
    name = "app-demo-0001" + (".zstd" if codec else "")
    log = Growing(logs / (name + ".inprogress"), data, codec)
    watch = live.Watch(store, pipeline.LoadRequest((str(logs),)), settings.home, last_minutes=0.25, progress=pipeline.QUIET)
    assert not watch.poll()  # an empty directory is waited for
    seen = []
    for upto in (len(data) // 3 + 7, 2 * len(data) // 3 + 3, len(data)):  # cut inside lines
        log.grow(upto)
        assert watch.poll()
        ids = watch.publish()
        rows = listed(store, watch.key)
        assert sorted(r["id"] for r in rows) == sorted(ids)  # the generations before were deleted
        total = next(r for r in rows if r["id"] == ids[0])
        seen.append((total["queries"], total["running"]))
        if len(ids) > 1:  # the live window: the last 15 s of the workload, derived from this generation
            window = next(r for r in rows if r["id"] == ids[1])
            assert window["parent"] == ids[0] and window["window"][1] - window["window"][0] == pytest.approx(15)
            assert window["loaded"] < total["loaded"]  # the window is published first: its cost is bounded
    assert seen[0][1] > 0 and seen[-1] == (4, 0)  # running queries at first; at the end all have ended
    live_victims = victims(store, ids[0])
    assert not watch.poll()  # nothing new: nothing to publish
    # Spark renames the log when the application ends: published as the ordinary analysis of that log
    log.path.rename(logs / name)
    assert watch.poll()
    assert watch.publish() == [] and listed(store, watch.key) == []
    analysis, new = pipeline.load_paths(store, pipeline.LoadRequest((str(logs / name),)), settings.home, pipeline.QUIET)
    assert not new  # the watch published it
    assert victims(store, analysis) == live_victims  # every byte read once: the same workload as a load


def nodes(store, analysis: str) -> dict[str, dict]:
    """Every ProtoGraph node of ``analysis`` by key, with its properties (ids of its analysis cut)."""
    rows = store.run_text("MATCH (n:ProtoNode {analysis: $analysis}) RETURN n.key AS key, properties(n) AS p",
                          {"analysis": analysis})
    return {r["key"]: {k: v.removeprefix(analysis) if isinstance(v, str) else v for k, v in r["p"].items()
                       if k not in ("analysis", "uid")} for r in rows}


def assert_same_nodes(got: dict[str, dict], expected: dict[str, dict], where: str) -> None:
    """Node by node; numbers to 1e-12: the database sums degrees of responsibility in an order of its
    own (Neo4j: 0.0514360888833932 against 0.051436088883393204 for the same rows)."""
    assert sorted(got) == sorted(expected), where
    for key, properties in expected.items():
        assert sorted(got[key]) == sorted(properties), f"{where}: {key}"
        for name, value in properties.items():
            same = pytest.approx(value, rel=1e-12, nan_ok=True) if isinstance(value, float) else value
            assert got[key][name] == same, f"{where}: {key}.{name}"


@pytest.mark.slow
def test_live_generations_equal_a_fresh_load_of_the_same_bytes(store, settings, tmp_path):
    """After each pass, the live total and its last-15-s window hold, node by node, what a load of
    the log read so far (and its window) holds: a generation built on the last one changes no number.
    One piece ends with a whole event but not yet its newline: both wait for it (a load counted the
    event, the watch did not: a query ended in the one and ran on in the other)."""
    lines = demo_log(tmp_path / "full").splitlines(keepends=True)
    full = b"".join(lines)
    logs, copies = tmp_path / "logs", tmp_path / "copies"
    logs.mkdir()
    copies.mkdir()
    log = logs / "app-demo-0001.inprogress"
    log.touch()
    watch = live.Watch(store, pipeline.LoadRequest((str(log),)), settings.home, last_minutes=0.25, progress=pipeline.QUIET)
    for upto in (30, 45, 60, 76, 90):  # running queries in every pass
        end = len(b"".join(lines[:upto])) - (upto == 76)  # line 76, a query's SQLExecutionEnd, without its newline
        with open(log, "ab") as out:
            out.write(full[len(log.read_bytes()):end])
        assert watch.poll()
        ids = watch.publish()
        prefix = copies / f"{upto}" / log.name
        prefix.parent.mkdir()
        prefix.write_bytes(log.read_bytes())
        loaded, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(prefix),)), settings.home, pipeline.QUIET)
        assert len(nodes(store, loaded)) > 10
        assert_same_nodes(nodes(store, ids[0]), nodes(store, loaded), f"pass up to line {upto}")
        if len(ids) > 1:
            row = next(r for r in listed(store, watch.key) if r["id"] == ids[1])
            window = pipeline.window_analysis(store, next(r for r in catalog.analyses(store) if r["id"] == loaded),
                                              tuple(row["window"]), settings.home, say=lambda m: None)
            assert_same_nodes(nodes(store, ids[1]), nodes(store, window), f"window of the pass up to line {upto}")


def test_a_watch_saves_at_most_every_save_every_seconds_and_a_killed_server_keeps_the_last_saved(tmp_path):
    """Passes between two saves do not save (a save dumps the whole store), and a replaced
    generation's saved trace stays until the save after it: a server killed meanwhile restarts with
    the generation saved last, whole, and its trace. The traces it no longer names (the newer
    generation's) are removed by the next command on that store once no watch of those logs runs
    (one on another graph of the home leaves them); the one it names, once replaced. A second
    watch of the same logs and options is refused while one runs."""
    from protoxplore.storage import lifecycle
    from protoxplore.storage.embedded import EmbeddedEngine
    from protoxplore.storage.store import open_store

    settings = Settings.from_env(home=tmp_path / "home", neo4j_uri="")
    lines = demo_log(tmp_path / "full").splitlines(keepends=True)
    log = tmp_path / "logs" / "app-demo-0001.inprogress"
    log.parent.mkdir()
    engine = EmbeddedEngine(settings.home)
    store = open_store(settings)
    try:
        store.apply_schema()

        def watch() -> live.Watch:
            return live.Watch(store, pipeline.LoadRequest((str(log),)),
                              settings.home, last_minutes=0.25, save_every=3600, progress=pipeline.QUIET)

        def saved_traces() -> set[str]:
            saved = traces.trace_path(settings.home, "x").parent
            return {p.name for p in saved.iterdir()} if saved.exists() else set()

        def trace_of(rows: list[dict], analysis: str) -> str:
            return traces.trace_path(settings.home, catalog.analysis_row(rows, analysis)["fingerprint"]).name

        first_watch = watch()
        key = first_watch.key
        with first_watch.claim():
            log.write_bytes(b"".join(lines[:40]))
            assert first_watch.poll() and first_watch.publish() == [f"{key}-1", f"{key}-1w"]
            first_watch.save()  # as a pass does once save_every seconds have passed
            first = trace_of(listed(store, key), f"{key}-1")
            log.write_bytes(b"".join(lines[:60]))
            assert first_watch.poll() and first_watch.publish() == [f"{key}-2", f"{key}-2w"]
            assert engine.client().info("persistence")["rdb_changes_since_last_save"] > 0  # not saved
            second = trace_of(listed(store, key), f"{key}-2")
            assert saved_traces() == {first, second}  # the replaced generation's stays until the next save
            with pytest.raises(AnalysisBusy, match=f"process [^ ]+:{os.getpid()}(:[0-9a-f]+)? holds the watch "
                                                             f"of .* {key}"):
                with watch().claim():
                    pass
            lifecycle.recover(store, settings.home)  # another command: the running watch's notes are its own
            assert saved_traces() == {first, second}
        # The watch is gone without stopping. A command on another graph of the home names neither
        # trace, yet removes neither: the notes are of this graph.
        other = open_store(replace(settings, graph="elsewhere"))
        other.close()
        assert saved_traces() == {first, second}

        os.kill(engine.pid(), signal.SIGKILL)
        while engine.alive():
            time.sleep(0.05)
        store.close()
        store = open_store(settings)  # starts the server again, from its dump, and recovers
        rows = listed(store, key)
        assert sorted(r["id"] for r in rows) == [f"{key}-1", f"{key}-1w"]
        for row in rows:  # whole, and its saved trace is there
            assert len(store.run("victims", {"analysis": row["id"], "order": "blocked", "k": 100})) == row["queries"]
            assert traces.saved_trace(settings.home, row).end == row["trace_end"]
        assert saved_traces() == {first}  # the newer generation's, named by nothing the server restarted with

        again = watch()
        with again.claim():
            assert again.poll() and again.publish() == [f"{key}-2", f"{key}-2w"]
            assert again.stop() == [f"{key}-2", f"{key}-2w"]  # stopping saves, then the replaced trace goes
        assert saved_traces() == {trace_of(listed(store, key), f"{key}-2")} != {first}
    finally:
        store.close()
        engine.stop()


@pytest.mark.slow
def test_a_window_published_alone_stands_beside_the_last_total(store, settings, engine_env, tmp_path, capsys):
    """A pass whose CPU budget has no room for a total (``publish(total=False)``) publishes only the
    last N minutes, beside the total before it: that window holds, node by node, what the window of
    a load of the log read so far holds; the total's page and its explanation name it, and the
    window before it leads to it. Each such window has a saved trace of its own, removed with it. Once the total would end
    before the next window begins, a whole generation replaces the total and its windows (even with
    no room for it), and leaves one saved trace."""
    from protoxplore.webapp import close_store, create_app

    lines = demo_log(tmp_path / "full").splitlines(keepends=True)
    logs, copies = tmp_path / "logs", tmp_path / "copies"
    logs.mkdir()
    copies.mkdir()
    log = logs / "app-demo-0001.inprogress"
    # Saved after every pass: a replaced generation's saved trace goes at the save after it.
    watch = live.Watch(store, pipeline.LoadRequest((str(log),)),
                       settings.home, last_minutes=0.1, save_every=0, progress=pipeline.QUIET)
    key = watch.key
    saved = traces.trace_path(settings.home, "x").parent

    def saved_traces() -> set[str]:
        """The saved traces the test made (the store is shared with other tests)."""
        return {p.name for p in saved.iterdir()} - others if saved.exists() else set()

    others: set[str] = set()
    others = saved_traces()
    log.write_bytes(b"".join(lines[:40]))
    assert watch.poll() and watch.publish(total=False) == [f"{key}-1", f"{key}-1w"]  # no total yet: a whole one
    app = create_app({"SETTINGS": settings, "TESTING": True})
    client = app.test_client()
    total_version = client.get(f"/analysis/{key}-1/live.json").get_json()["version"]

    try:
        for upto, number in ((60, 2), (72, 3)):
            log.write_bytes(b"".join(lines[:upto]))
            assert watch.poll() and watch.publish(total=False) == [f"{key}-{number}w"] and watch.total_behind
            rows = listed(store, key)
            assert sorted(r["id"] for r in rows) == [f"{key}-1", f"{key}-{number}w"]
            window = catalog.analysis_row(rows, f"{key}-{number}w")
            total = catalog.analysis_row(rows, f"{key}-1")
            assert window["parent"] == f"{key}-1" and window["trace_end"] > total["trace_end"]
            assert saved_traces() == {traces.trace_path(settings.home, r["fingerprint"]).name for r in rows}
            prefix = copies / f"{upto}" / log.name
            prefix.parent.mkdir()
            prefix.write_bytes(log.read_bytes())
            loaded, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(prefix),)), settings.home, pipeline.QUIET)
            fresh = pipeline.window_analysis(store, catalog.analysis_row(catalog.analyses(store), loaded),
                                             tuple(window["window"]), settings.home, say=lambda m: None)
            assert_same_nodes(nodes(store, window["id"]), nodes(store, fresh), f"window alone up to line {upto}")
            page = client.get(f"/analysis/{key}-1").get_data(as_text=True)
            assert f'id="live-window" href="/analysis/{key}-{number}w"' in page and "more often than the total" in page
            capsys.readouterr()
            e = json.loads(output(capsys, "explain", "--victim", "nightly-report", "--json", "--analysis", f"{key}-1",
                                  "--home", str(settings.home)))
            assert f"; its last 0.1 minutes, {key}-{number}w, reach " in e["analysis"]["live"]
            before = client.get(f"/analysis/{key}-{number - 1}w")
            assert before.status_code == 302 and before.headers["Location"].endswith(f"/analysis/{key}-{number}w")
            # The window's old page reloads onto the new one; the total's pages stay as they are.
            assert client.get(f"/analysis/{key}-{number - 1}w/live.json").get_json()["version"] == "replaced"
            assert client.get(f"/analysis/{key}-1/live.json").get_json()["version"] == total_version
            for made in (fresh, loaded):
                main(["delete", made, "--home", str(settings.home)])
        # The total standing ends before the next window would begin: the pass publishes a whole
        # generation even without room for it, so that the two hold every event of the workload.
        log.write_bytes(b"".join(lines[:90]))
        assert watch.poll() and watch.trace().end - 6 > total["trace_end"]
        assert watch.publish(total=False) == [f"{key}-4", f"{key}-4w"] and not watch.total_behind
        rows = listed(store, key)
        assert sorted(r["id"] for r in rows) == [f"{key}-4", f"{key}-4w"]
        assert saved_traces() == {traces.trace_path(settings.home, rows[0]["fingerprint"]).name}
        log.write_bytes(b"".join(lines[:95]))
        assert watch.poll() and watch.publish(total=False) == [f"{key}-5w"] and watch.total_behind
        # Stopped: the total says where its newer window reaches, and no longer that it waits.
        watch.stop()
        rows = catalog.analyses(store)
        status = catalog.live_status(catalog.analysis_row(rows, f"{key}-4"), rows)
        assert f"; its last 0.1 minutes, {key}-5w, reach " in status and "waits" not in status
        # Deleting the total deletes the window published alone beside it, with its saved trace.
        assert main(["delete", f"{key}-4", "--home", str(settings.home)]) == 0
        assert listed(store, key) == [] and saved_traces() == set()
        # The application ends while its total waited: nothing is left to publish, nor waits.
        log.rename(logs / "app-demo-0001")
        assert watch.poll() and watch.publish() == [] and not watch.total_behind
    finally:
        close_store(app)


class Passes:
    """``Watch.run`` on a clock the test moves: a piece of log comes every 10 s, and a pass's work is
    counted as its length: ``lengths[i]`` for the i-th whole generation, ``window`` (None: no live
    window applies) for a window published alone. Passes record (start, end, pieces it took in,
    whether it published a total); the run ends once every piece was seen and a total published."""

    def __init__(self, watch, monkeypatch, lengths: list[float], window: float | None, pace: float = 10.0,
                 flushes: bool = False):
        self.now, self.passes, self.lengths, self.window = 0.0, [], lengths, window
        self.pieces = [pace * n for n in range(len(lengths))]  # when each piece comes
        clock = self

        class Time:
            monotonic = staticmethod(lambda: clock.now)

            @staticmethod
            def sleep(seconds):
                clock.now += seconds

        self.watch = watch
        monkeypatch.setattr(live, "time", Time)
        monkeypatch.setattr(live, "_cpu_clock", lambda _store: None)
        # The kernel's word that a log was written (``flushes``: as each piece comes), else passes poll
        monkeypatch.setattr(live, "_changes", lambda _paths: Flushes(self) if flushes else None)
        monkeypatch.setattr(watch, "poll", self.poll)
        monkeypatch.setattr(watch, "publish", self.publish)
        monkeypatch.setattr(watch, "_published", lambda ids, seconds: "")

    def seen(self) -> int:
        return sum(p for _, _, p, _ in self.passes)

    def poll(self) -> bool:
        if self.seen() == len(self.pieces) and not self.watch.total_behind:
            raise KeyboardInterrupt
        assert self.now < self.pieces[-1] + 600, f"no total after the last piece: {self.passes}"
        return sum(t <= self.now for t in self.pieces) > self.seen()

    def publish(self, total: bool = True) -> list[str]:
        start, came = self.now, sum(t <= self.now for t in self.pieces) - self.seen()
        whole = total or self.window is None or not self.passes
        self.now += self.lengths[sum(w for *_, w in self.passes)] if whole else self.window
        self.passes.append((start, self.now, came, whole))
        self.watch.total_behind, self.watch.current = not whole, ["total", "window"]
        return ["total"] if whole else ["window"]

    def lags(self) -> list[float]:
        """Per piece, the seconds from its coming to the end of the pass that took it in."""
        ends = [end for _, end, came, _ in self.passes for _ in range(came)]
        return [end - t for t, end in zip(self.pieces, ends)]

    def assert_within_half_a_core(self) -> None:
        """The work stays under half a core on average, plus the pass in progress."""
        worked = 0.0
        for start, end, *_ in self.passes:
            worked += end - start
            assert worked <= live.CORE_SHARE * end + (end - start) + 1e-9, (start, end, worked)


class Flushes:
    """``live._changes``'s event on the clock of :class:`Passes`: set by each piece as it comes."""

    def __init__(self, run: Passes):
        self.run, self.cleared = run, -1.0

    def is_set(self) -> bool:
        return any(self.cleared < t <= self.run.now for t in self.run.pieces)

    def clear(self) -> None:
        self.cleared = self.run.now

    def wait(self, seconds: float) -> bool:
        if not self.is_set():
            self.run.now = min([self.run.now + seconds, *(t for t in self.run.pieces if t > self.run.now)])
        return self.is_set()


def test_a_watch_short_of_budget_lets_a_piece_wait_for_the_next_flush_rather_than_drift(store, settings,
                                                                                        monkeypatch):
    """Pieces flushed every 2 s and passes of 1.1 s each: 0.55 of a core, more than the budget. A
    flush during the rest after a pass waits for the next flush (live._rest), so the passes start
    as their pieces come: nine pieces in ten are shown 1.1 s after their flush, the others one
    flush later. Starting each pass at its rest's end (before 2026-11-28) drifted against the
    flushes: a median of 2.1 s, and three pieces in five shown after more than 2 s."""
    watch = live.Watch(store, pipeline.LoadRequest(("unused.log",)), settings.home, every=0.5, progress=pipeline.QUIET)
    run = Passes(watch, monkeypatch, [1.1] * 150, window=1.1, pace=2.0, flushes=True)
    with pytest.raises(KeyboardInterrupt):
        watch.run()
    lags = sorted(run.lags()[10:])  # from when the first pass's burst was spent
    assert lags[len(lags) // 2] == pytest.approx(1.1), lags
    assert sum(lag < 2 for lag in lags) >= 0.9 * len(lags) and max(lags) <= 2 + 1.1 + 1e-9, lags
    run.assert_within_half_a_core()


def test_a_watch_whose_logs_went_quiet_still_saves_within_save_every(store, settings, monkeypatch):
    """A generation published, then no log changes: the store is saved once ``save_every`` seconds
    have passed since the last save, though no pass publishes (a server killed in a long quiet
    stage would otherwise lose it), and once only."""
    watch = live.Watch(store, pipeline.LoadRequest(("quiet.log",)),
                       settings.home, every=0.5, save_every=30, progress=pipeline.QUIET)
    run = Passes(watch, monkeypatch, [1.0], window=None)
    watch.save_every, watch.saved_at, saves = 30.0, 0.0, []  # on Neo4j a watch saves at once (it has nothing to save)

    def publish(total: bool = True) -> list[str]:
        watch._unsaved(["f" * 64])  # as a generation's saved trace is noted
        return run.publish(total)

    def save() -> None:
        saves.append(run.now)
        watch.saved_at = run.now
        watch.unsaved.unlink()

    def poll() -> bool:
        if run.now > 100:
            raise KeyboardInterrupt
        return not run.passes

    monkeypatch.setattr(watch, "publish", publish)
    monkeypatch.setattr(watch, "save", save)
    monkeypatch.setattr(watch, "poll", poll)
    with pytest.raises(KeyboardInterrupt):
        watch.run()
    assert len(saves) == 1 and 30 <= saves[0] <= 30 + watch.every


def test_watch_rests_only_as_long_as_keeps_half_a_core(store, settings, monkeypatch):
    """``Watch.run``'s rest, with no live window (a workload shorter than --last minutes): a pass of
    1 s per piece, then 6 s (0.6 of a core), then 9 s. Short passes leave room for longer ones to
    start as soon as their piece comes, and the work stays under half a core on average; resting as
    long as each pass took made the second 6-s pass wait 2 s. Once passes in a row must rest (the
    9-s ones), the watch says so, once, with what to do."""
    warnings = []
    watch = live.Watch(store, pipeline.LoadRequest(("unused.log",)),
                       settings.home, every=0.5, progress=pipeline.Progress(lambda m: None, warnings.append))
    run = Passes(watch, monkeypatch, [1.0] * 4 + [6.0] * 4 + [9.0] * 6, window=None)
    with pytest.raises(KeyboardInterrupt):
        watch.run()
    delays = [end - max(t for t in run.pieces if t <= start) for start, end, *_ in run.passes]
    assert delays[:6] == [1.0, 1.0, 1.0, 1.0, 6.0, 6.0]  # no wait behind a rest while credit lasts
    run.assert_within_half_a_core()
    assert warnings == ["the logs grow faster than passes can follow within 0.5 of a core (a pass costs about "
                        "9.0 s of work): one comes about every 18.0 s and takes in what came meanwhile; a shorter "
                        "--last makes each pass cheaper"]


def test_a_window_never_waits_for_a_total_the_budget_cannot_pay(store, settings, monkeypatch):
    """With a live window of 2 s per pass and whole generations (window and total) of 1 s per piece,
    then 7 s, then 12 s (more than the budget's 10 s ahead, and than the time between pieces): each
    piece's pass starts as the piece comes, or as the pass before it ends, never after a rest nor
    behind a total started while nothing came; the total rides with a piece whenever the budget
    has room for a whole generation (at least one piece in four) and catches up once the log is
    quiet; the work stays under half a core. Publishing every pass whole made the windows of the
    12-s generations wait behind rests of up to 14 s."""
    watch = live.Watch(store, pipeline.LoadRequest(("unused.log",)), settings.home, every=0.5, progress=pipeline.QUIET)
    run = Passes(watch, monkeypatch, [1.0] * 4 + [float(s) for s in range(5, 21)], window=2.0)
    with pytest.raises(KeyboardInterrupt):
        watch.run()
    ends = [0.0] + [end for _, end, *_ in run.passes]  # ends[i]: when the pass before pass i ended
    with_pieces = [p for p in run.passes if p[2]]
    assert [came for _, _, came, _ in with_pieces] == [1] * len(run.pieces)  # no piece waited for another
    for n, (start, *_) in enumerate(with_pieces):
        assert start == max(run.pieces[n], ends[run.passes.index(with_pieces[n])]), str(run.passes)
    wholes = [n for n, (*_, whole) in enumerate(with_pieces) if whole]
    assert len(wholes) >= len(run.pieces) / 4 and max(b - a for a, b in zip(wholes, wholes[1:])) <= 4, str(run.passes)
    assert not all(whole for *_, whole in with_pieces) and run.passes[-1][3] and not run.passes[-1][2]
    run.assert_within_half_a_core()


@pytest.mark.slow
def test_watch_follows_rolling_logs_and_new_files(store, settings, tmp_path):
    data = demo_log(tmp_path / "full")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "notes.md").write_text("not a log")
    finished = logs / "app-old"
    finished.write_bytes(data)
    lz4 = logs / "app-lz4.lz4.inprogress"  # lz4 cannot be decoded from the middle: loaded when it ends
    lz4.write_bytes(lz4_java_stream(data.replace(b"app-demo-0001", b"app-demo-0003")))
    warnings = []
    watch = live.Watch(store, pipeline.LoadRequest((str(logs),)),
                       settings.home, progress=pipeline.Progress(lambda m: None, warnings.append))
    assert not watch.poll()  # a finished log is published, nothing is live
    assert any("lz4-compressed log cannot be followed" in w for w in warnings)
    old, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(finished),)), settings.home, pipeline.QUIET)
    assert old in {r["id"] for r in catalog.analyses(store)}
    rolling = logs / "eventlog_v2_app-demo-0002"
    rolling.mkdir()
    (rolling / "appstatus_app-demo-0002.inprogress").write_bytes(b"")
    lines = data.replace(b"app-demo-0001", b"app-demo-0002").splitlines(keepends=True)
    (rolling / "events_1_app-demo-0002").write_bytes(b"".join(lines[:40]))
    assert watch.poll()
    ids = watch.publish()
    assert listed(store, watch.key)[0]["running"] == 3
    derived = pipeline.window_analysis(store, listed(store, watch.key)[0], (0.0, 5.0), settings.home, say=lambda m: None)
    (rolling / "events_2_app-demo-0002").write_bytes(b"".join(lines[40:]))
    assert watch.poll()
    ids = watch.publish()
    assert listed(store, watch.key)[0]["id"] == ids[0] and listed(store, watch.key)[0]["tasks"] == 30
    assert derived not in {r["id"] for r in catalog.analyses(store)}  # went with the generation it was derived from
    (rolling / "appstatus_app-demo-0002.inprogress").rename(rolling / "appstatus_app-demo-0002")
    assert watch.poll() and watch.publish() == []
    assert pipeline.load_paths(store, pipeline.LoadRequest((str(rolling),)), settings.home, pipeline.QUIET)[1] is False
    lz4.rename(logs / "app-lz4.lz4")
    assert not watch.poll()
    assert pipeline.load_paths(store, pipeline.LoadRequest((str(logs / "app-lz4.lz4"),)),
                               settings.home, pipeline.QUIET)[1] is False


@pytest.mark.slow
def test_a_window_of_a_generation_the_watch_replaced_is_refused_and_never_left_behind(store, settings, tmp_path,
                                                                                      monkeypatch):
    """A window asked of a live generation that a newer one replaced is refused, saying so, before
    anything is computed. One derived from a listed generation holds that generation's lock until
    it is published, so a watch replacing the generation meanwhile waits for it; a window
    published after a pass had listed the windows, whose generation that pass then deleted (the
    watch lists them again), goes too."""
    from protoxplore.loader.model import protograph
    from protoxplore.storage import lifecycle

    lines = demo_log(tmp_path / "full").splitlines(keepends=True)
    log = tmp_path / "logs" / "app-demo-0001.inprogress"
    log.parent.mkdir()
    watch = live.Watch(store, pipeline.LoadRequest((str(log),)),
                       settings.home, last_minutes=0.25, save_every=0, progress=pipeline.QUIET)

    def grow(until: int) -> dict:
        """The log up to line ``until``, published: the total's row."""
        log.write_bytes(b"".join(lines[:until]))
        assert watch.poll() and watch.publish()
        return catalog.analysis_row(catalog.analyses(store), watch.current[0])

    def ids() -> set[str]:
        return {r["id"] for r in catalog.analyses(store)}

    analyse, written = pipeline.analyse, []

    def holding_the_base(store, trace, target, *args, **kwargs):
        with locks.unless_written(settings.home, target.parent) as free:
            written.append((target.parent, free))
        return analyse(store, trace, target, *args, **kwargs)

    first = grow(40)
    second = grow(52)
    monkeypatch.setattr(pipeline, "analyse", holding_the_base)
    with pytest.raises(NotFound, match=f"analysis {first['id']} is no longer in the store .* live analysis"):
        pipeline.window_analysis(store, first, (0.0, 5.0), settings.home, say=lambda m: None)
    assert written == []  # refused before its trace is read
    window = pipeline.window_analysis(store, second, (0.0, 5.0), settings.home, say=lambda m: None)
    assert written == [(second["id"], False)]  # its generation's lock held while it was written
    monkeypatch.setattr(pipeline, "analyse", analyse)
    third = grow(64)
    assert {second["id"], window} & ids() == set()

    options = protograph.Options(**{**json.loads(third["options"]), "window": (0.0, 5.0)})
    late = pipeline.analysis_id(third["fingerprint"], options)
    trace = watch.trace()
    deleting = lifecycle.delete

    def published_meanwhile(store, analysis, *args, **kwargs):
        """The window is published while the pass deletes its generation, after the pass listed."""
        deleting(store, analysis, *args, **kwargs)
        if analysis == third["id"]:
            with locks.writing(settings.home, late):
                analyse(store, trace,
                        pipeline.Target(late, third["fingerprint"], options, "late", (), parent=third["id"]), lambda m: None)

    monkeypatch.setattr(lifecycle, "delete", published_meanwhile)
    fourth = grow(76)
    monkeypatch.setattr(lifecycle, "delete", deleting)
    assert {third["id"], late} & ids() == set() and fourth["id"] in ids()
    # A window left without its generation (a watch killed between the two deletes) is not handed
    # back as the window asked of that generation: refused, and gone with the next pass.
    with locks.writing(settings.home, late):
        analyse(store, trace,
                pipeline.Target(late, third["fingerprint"], options, "late", (), parent=third["id"]), lambda m: None)
    with pytest.raises(NotFound, match=f"analysis {third['id']} is no longer"):
        pipeline.window_analysis(store, third, (0.0, 5.0), settings.home, say=lambda m: None)
    grow(88)
    assert late not in ids()


def test_a_log_spark_has_just_begun_is_waited_for(store, settings, tmp_path):
    """An .inprogress log still empty, or cut inside its first key, is followed once it has events,
    with no "not a Spark event log" warning meanwhile; an .inprogress file of something else is
    still passed over with one."""
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "app-demo-0001.inprogress"
    log.touch()
    (logs / "notes.inprogress").write_text("not a log")
    warnings = []
    watch = live.Watch(store, pipeline.LoadRequest((str(logs),)),
                       settings.home, progress=pipeline.Progress(lambda m: None, warnings.append))
    assert not watch.poll()
    log.write_bytes(b'{"Eve')
    assert not watch.poll()
    assert len(warnings) == 1 and "notes.inprogress" in warnings[0] and "not a Spark event log" in warnings[0]
    log.write_bytes(b"".join(demo_log(tmp_path / "full").splitlines(keepends=True)[:40]))
    assert watch.poll() and len(warnings) == 1
    assert watch.publish() and listed(store, watch.key)[0]["running"] == 3


@pytest.mark.slow
def test_applications_that_ran_together_are_published_together(store, settings, tmp_path):
    """The cross-application scenario (a real PySpark run whose culprit is a query of another
    application) followed live: once both have ended, their workload is published as one analysis,
    the one a load of both logs gives, where the other application's query is still the victim's
    top culprit (each application alone cannot say so), and the live analysis's pages lead there."""
    truth = json.loads((SCENARIOS / "cross_app" / "truth.json").read_text())
    logs = tmp_path / "logs"
    logs.mkdir()
    for log in sorted((SCENARIOS / "cross_app").glob("app-*")):
        (logs / (log.name + ".inprogress")).write_bytes(log.read_bytes())
    watch = live.Watch(store, pipeline.LoadRequest((str(logs),)), settings.home, progress=pipeline.QUIET)
    assert watch.poll()
    first = watch.publish()[0]
    for log in logs.iterdir():
        log.rename(log.with_suffix(""))  # Spark's rename when an application ends
    assert watch.poll() and watch.publish() == [] and listed(store, watch.key) == []
    together, new = pipeline.load_paths(store, pipeline.LoadRequest(tuple(sorted(str(p) for p in logs.iterdir()))),
                                        settings.home, pipeline.QUIET)
    assert not new  # the watch published the two applications together
    rows = catalog.analyses(store)
    assert next(r for r in rows if r["id"] == together)["apps"] == 2
    assert catalog.live_successor(rows, first)["id"] == together
    victim = catalog.resolve_victim(store, together, truth["victim"]["description"])
    top = store.run("victim_culprit_queries", {"analysis": together, "victim": victim["uid"], "k": 1})[0]
    assert top["description"] == truth["true_top_culprit"] and top["app"] != victim["app"]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
def test_a_flush_wakes_the_watch_before_its_next_poll(home, engine_env, tmp_path, store, capsys):
    """A watch polling every 120 s publishes a flush within seconds: the kernel tells it the log
    changed (``live._changes``). The demo log cut at line 40, then its next 20 lines appended.
    Meanwhile ``analyses`` shows how old the generation is and its last event, uncut."""
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = demo_log(tmp_path / "full").splitlines(keepends=True)
    log = logs / "app-demo-0001.inprogress"
    log.write_bytes(b"".join(lines[:40]))
    said = tmp_path / "watch.out"
    proc = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "watch", str(logs), "--every", "120"],
                            env=dict(os.environ, PROTOXPLORE_HOME=str(home)), stdout=open(said, "w"),
                            stderr=subprocess.STDOUT)
    try:
        def total():  # the session's store can hold other tests' live analyses
            rows = [r for r in catalog.analyses(store) if r.get("live") and str(logs) in str(r["sources"])
                    and not r.get("parent")]
            return rows[0] if rows else None

        first = wait_for("the first live generation", total, 120, said)
        row = next(line for line in output(capsys, "analyses", "--home", home).splitlines()
                   if line.startswith(first["id"] + " "))
        assert re.search(r"  live: updated \d+ s ago \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\), last event "
                         r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\s*$", row), row
        time.sleep(1)  # the watch is resting now, for up to 120 s
        with open(log, "ab") as out:
            out.write(b"".join(lines[40:60]))
        flushed = time.monotonic()
        wait_for("a generation with the appended lines", lambda: (total() or first)["id"] != first["id"], 60, said)
        assert time.monotonic() - flushed < 30
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 0


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_leaves_the_last_generation_marked_stopped(home, engine_env, tmp_path, store, capsys, stop):
    """A watch stopped with Ctrl-C, or SIGTERM (docker stop, systemd), leaves its last generation
    listed, marked stopped: its pages say so and stop refreshing themselves; the live window's ends
    are shown to a tenth of a second."""
    from protoxplore.webapp import close_store, create_app

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "app-demo-0001.inprogress").write_bytes(b"".join(demo_log(tmp_path / "full").splitlines(keepends=True)[:40]))
    said = tmp_path / "watch.out"
    proc = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "watch", str(logs), "--every", "0.5", "--last",
                             "0.25"], env=dict(os.environ, PROTOXPLORE_HOME=str(home)), stdout=open(said, "w"),
                            stderr=subprocess.STDOUT)
    try:
        def mine():  # the session's store can hold other tests' live analyses
            return [r for r in catalog.analyses(store) if r.get("live") and str(logs) in str(r["sources"])]

        wait_for("a live generation and its window, and the watch's line on them",
                 lambda: len(mine()) == 2 and "live analysis" in said.read_text(), 120, said)
    finally:
        proc.send_signal(stop)
        assert proc.wait(60) == 0
    assert "stays listed as it was last published" in said.read_text()
    assert re.search(r"live analysis (w\w+-\d+): .*; its last 0.25 minutes: \1w\)", said.read_text())
    rows = mine()
    assert len(rows) == 2 and all(r["watch_stopped"] for r in rows)  # the total and its last 15 s
    listing = output(capsys, "analyses", "--home", home)
    assert re.search(r"\s\d+\.\d–\d+\.\d s \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d–\d\d:\d\d:\d\d\)\s", listing)
    assert "live, stopped: its watch stopped at" in listing
    said = output(capsys, "explain", "--analysis", rows[0]["id"], "--victim", "nightly-report", "--home", home)
    assert re.search(r"live, stopped: its watch stopped at [^;]+; published [^,]+, last event .+; \d+ of \d+ queries "
                     r"were still running then", said)
    app = create_app({"SETTINGS": Settings.from_env(home=home), "TESTING": True})
    try:
        page = app.test_client().get(f"/analysis/{rows[0]['id']}").get_data(as_text=True)
        assert "http-equiv" not in page and "The watch that published this analysis stopped at" in page
        assert 'name="live-check"' not in page  # nor does it look for new generations
        assert app.test_client().get(f"/analysis/{rows[0]['id']}/live.json").get_json()["version"].startswith(
            f"{rows[0]['id']}|stopped 1")  # a page open while it ran sees the change, and reloads
        total = next(r["id"] for r in rows if not r.get("parent"))
        assert f'id="live-window" href="/analysis/{total}w"' in app.test_client().get(f"/analysis/{total}").get_data(
            as_text=True)
    finally:
        close_store(app)


def test_an_application_that_ends_while_no_watch_runs_ends_its_live_analysis(store, settings, tmp_path):
    """A watch stopped, the application ends, a watch of the same logs starts: it publishes the
    application's analysis, and the stopped generations end with it (deleted; their pages go there)."""
    lines, logs, log = demo_in_progress(tmp_path)
    log.write_bytes(b"".join(lines[:40]))
    first = live.Watch(store, pipeline.LoadRequest((str(logs),)), settings.home, last_minutes=0.25, progress=pipeline.QUIET)
    assert first.poll()
    old = first.publish()
    assert first.stop() and len(old) == 2
    log.write_bytes(b"".join(lines))
    log.rename(logs / "app-demo-0001")
    said = []
    second = live.Watch(store, pipeline.LoadRequest((str(logs),)),
                        settings.home, last_minutes=0.25, progress=pipeline.Progress(said.append, lambda m: None))
    assert second.poll() and second.publish() == [] and listed(store, second.key) == []
    ended = second.done[str(logs / "app-demo-0001")]
    assert said[-1] == f"nothing runs any more: the live analysis ended; its last workload is analysis {ended}"
    assert [catalog.live_successor(catalog.analyses(store), gone)["id"] for gone in old] == [ended, ended]
    assert catalog.resolve_analysis(store, old[1])["id"] == ended  # the CLI follows as the web app redirects
    assert not second.poll()


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
def test_the_end_of_a_live_analysis_is_saved_at_once(store, settings, tmp_path):
    """When its applications end, the mark that sends the live pages to their analysis is saved at
    once, also when no generation is left to delete with it (a user deleted them): a server killed
    then would have lost it."""
    from protoxplore.storage import lifecycle
    from protoxplore.storage.embedded import EmbeddedEngine

    lines, logs, log = demo_in_progress(tmp_path)
    log.write_bytes(b"".join(lines[:40]))
    watch = live.Watch(store, pipeline.LoadRequest((str(logs),)), settings.home, last_minutes=0.25, progress=pipeline.QUIET)
    assert watch.poll()
    old = watch.publish()
    for analysis in reversed(old):  # the window, then its total
        with locks.writing(settings.home, analysis, lambda m: None):
            lifecycle.delete(store, analysis)
    watch.save()  # as a pass does once save_every seconds have passed: nothing is left unsaved
    log.write_bytes(b"".join(lines))
    log.rename(logs / "app-demo-0001")
    assert watch.poll() and watch.publish() == []
    assert catalog.live_successor(catalog.analyses(store), old[0])["id"] == watch.ended
    def persistence() -> tuple[int, int]:
        """Writes since the last save, and saves since the server started."""
        info = EmbeddedEngine(settings.home).client().info("persistence")
        return info["rdb_changes_since_last_save"], info["rdb_saves"]

    unsaved, saves = persistence()
    assert unsaved == 0
    # A later pass with nothing live marks nothing again: no write, no save of the whole store.
    assert watch.publish() == [] and persistence() == (0, saves)


@pytest.mark.slow
def test_a_killed_watch_leaves_only_whole_analyses(home, engine_env, tmp_path, store):
    """kill -9 at moments spread over the passes: every listed analysis is whole, and the next
    command removes an unfinished generation."""
    data = demo_log(tmp_path / "full")
    logs = tmp_path / "logs"
    logs.mkdir()
    log = Growing(logs / "app-demo-0001.inprogress", data, None)
    env = dict(os.environ, PROTOXPLORE_HOME=str(home))
    for kill_after in (0.8, 1.6, 2.4, 3.2):
        log.grow(min(len(data) - 1, log.at + len(data) // 6))
        proc = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "watch", str(logs), "--every", "0.1",
                                 "--last", "0.25"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(kill_after)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert main(["analyses", "--home", str(home)]) == 0  # recovers what the kill left
        rows = catalog.analyses(store)
        for row in rows:
            assert len(store.run("victims", {"analysis": row["id"], "order": "blocked", "k": 10**6})) == row["queries"]
            assert not row.get("parent") or catalog.analysis_row(rows, row["parent"])  # no window without its total
        assert not store.run("analyses", {"status": "loading"})


@pytest.mark.slow
def test_a_window_is_never_left_without_its_total(store, settings, tmp_path, monkeypatch):
    """A generation's window is published before its total. While the total is written, a link to it
    leads to the total before it (for the first, a page says it is being written); a total whose
    write is cut (Ctrl-C) takes its window with it; and a window left by a watch that died between
    the two is removed by the next command, once nobody writes its total."""
    from protoxplore.storage import lifecycle
    from protoxplore.webapp import close_store, create_app

    lines, logs, log = demo_in_progress(tmp_path)
    watch = live.Watch(store, pipeline.LoadRequest((str(logs),)), settings.home, last_minutes=0.25, progress=pipeline.QUIET)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    client = app.test_client()
    real, totals = pipeline.analyse, []

    def analyse(db, trace, target, *args, **kwargs):
        analysis = target.id
        if not analysis.endswith("w"):  # a total, about to be written: its window is listed, it is not
            totals.append(analysis)
            rows = catalog.analyses(store)
            assert catalog.analysis_row(rows, analysis + "w")["parent"] == analysis
            assert not catalog.analysis_row(rows, analysis)
            page = client.get(f"/analysis/{analysis}")
            if len(totals) == 1:
                assert page.status_code == 503 and "is being written" in page.get_data(as_text=True)
            else:
                assert page.status_code == 302 and page.headers["Location"].endswith(f"/analysis/{watch.key}-1")
            assert client.get(f"/analysis/{analysis}w").status_code == 200
            if len(totals) == 2:
                raise KeyboardInterrupt
        return real(db, trace, target, *args, **kwargs)

    monkeypatch.setattr(pipeline, "analyse", analyse)
    try:
        log.write_bytes(b"".join(lines[:40]))
        assert watch.poll() and watch.publish() == [f"{watch.key}-1", f"{watch.key}-1w"]
        log.write_bytes(b"".join(lines[:60]))
        assert watch.poll()
        saved = traces.trace_path(settings.home, "x").parent
        before = set(saved.iterdir())
        with pytest.raises(KeyboardInterrupt):
            watch.publish()
        assert sorted(r["id"] for r in listed(store, watch.key)) == [f"{watch.key}-1", f"{watch.key}-1w"]
        assert set(saved.iterdir()) == before  # the interrupted generation's saved trace went with it
        assert watch.publish() == [f"{watch.key}-2", f"{watch.key}-2w"] and len(totals) == 3
    finally:
        close_store(app)
    # A watch that died after publishing a window, before its total: the next command removes it.
    monkeypatch.setattr(pipeline, "analyse", real)
    trace = watch.trace()
    span = trace.end - trace.start
    options = live.protograph.Options(window=(span - 15, span))
    saved = traces.trace_path(settings.home, "f" * 16)
    traces.save_trace(trace, saved)
    with locks.writing(settings.home, f"{watch.key}-3w"):
        real(store, trace, pipeline.Target(f"{watch.key}-3w", "f" * 16, options, "left", parent=f"{watch.key}-3",
                                           extra={"live": watch.key}), lambda m: None)
    assert catalog.analysis_row(catalog.analyses(store), f"{watch.key}-3w")
    assert lifecycle.recover(store, settings.home, say=lambda m: None) == [f"{watch.key}-3w"]
    assert not saved.exists()  # its saved trace (SQL text) goes with it
    assert sorted(r["id"] for r in listed(store, watch.key)) == [f"{watch.key}-2", f"{watch.key}-2w"]


@pytest.mark.slow
def test_live_pages_mark_running_queries_refresh_and_follow_new_generations(store, settings, tmp_path):
    from protoxplore.webapp import close_store, create_app

    lines, logs, log = demo_in_progress(tmp_path)
    log.write_bytes(b"".join(lines[:40]))
    watch = live.Watch(store, pipeline.LoadRequest((str(logs),)),
                       settings.home, every=3, last_minutes=0.25, progress=pipeline.QUIET)
    assert watch.poll()
    first, its_window = watch.publish()
    app = create_app({"SETTINGS": settings, "TESTING": True})
    client = app.test_client()
    try:
        page = client.get(f"/analysis/{first}").get_data(as_text=True)
        assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in page and 'id="live-status"' in page
        # With scripts the page reloads only when what it shows changed: the version it polls for.
        check = re.search(r'<meta name="live-check" content="([^"]*)" data-version="([^"]*)">', page)
        version = html.unescape(check.group(2))
        looked = client.get(check.group(1)).get_json()
        assert check.group(1) == f"/analysis/{first}/live.json"
        assert looked["version"] == version and re.fullmatch(r"\d+ s", looked["updated"])
        assert client.get(f"/analysis/{watch.key}-99/live.json").status_code == 404  # never a generation
        # Only the overview and victim pages look: a page with work of its own (a what-if, a
        # comparison, windows being made) keeps it until the reader leaves.
        culprit = store.run("aggressive_culprits", {"analysis": first, "k": 1})[0]
        assert 'name="live-check"' not in client.get(f"/analysis/{first}/culprit/{culprit['uid']}").get_data(as_text=True)
        assert f'id="live-window" href="/analysis/{its_window}"' in page and its_window == first + "w"
        assert "Its last 0.25 minutes" in page
        status = catalog.live_status(catalog.analysis_row(catalog.analyses(store), first))
        assert re.fullmatch(r"live: updated \d+ s ago \([^)]+\), last event [^;]+; 3 of 4 queries still running", status)
        # A query that ended before the window: its window page goes to the total's (it left the window).
        in_window = {r["uid"].split("|")[1] for r in store.run("victims", {"analysis": its_window, "order": "blocked",
                                                                            "k": 100})}
        early = next(r["uid"].split("|")[1] for r in store.run("victims", {"analysis": first, "order": "blocked",
                                                                            "k": 100}) if r["uid"].split("|")[1] not in in_window)
        left = client.get(f"/analysis/{its_window}/victim/{its_window}|{early}")
        assert left.status_code == 302 and unquote(left.headers["Location"]) == f"/analysis/{first}/victim/{first}|{early}"
        assert 'id="live-status"' in client.get(f"/analysis/{its_window}").get_data(as_text=True)
        assert client.get(f"/analysis/{watch.key}-99").status_code == 404  # no generation of that number
        assert re.search(r"Updated <span id=\"live-age\">\d+ s</span> ago \(", page)
        assert "3 of 4 queries still running" in page and page.count('class="tag running">running<') >= 3
        nightly = next(r for r in store.run("victims", {"analysis": first, "order": "blocked", "k": 10})
                       if r["description"].startswith("nightly-report"))
        victim_url = f"/analysis/{first}/victim/{nightly['uid']}"
        page = client.get(victim_url).get_data(as_text=True)
        assert 'id="victim-running"' in page and "Still running: so far ran <b>26.0 s</b>" in page
        assert '<noscript><meta http-equiv="refresh"' in page and 'name="live-check"' in page
        whatif = client.get(f"/analysis/{first}/victim/{nightly['uid']}/whatif?fragment=1").get_data(as_text=True)
        assert "is still running: a what-if replays" in whatif
        with open(log, "ab") as out:
            out.write(b"".join(lines[40:]))
        assert watch.poll()
        second, _ = watch.publish()
        assert client.get(f"/analysis/{first}/live.json").get_json() == {"version": "replaced", "updated": None}
        again = client.get(f"/analysis/{second}").get_data(as_text=True)
        assert client.get(f"/analysis/{second}/live.json").get_json()["version"] == html.unescape(
            re.search(r'name="live-check" content="[^"]*" data-version="([^"]*)"', again).group(1)) != version
        assert [catalog.resolve_analysis(store, gone)["id"] for gone in (first, its_window)] == [second, second + "w"]
        assert catalog.resolve_victim(store, second, nightly["uid"])["uid"] == nightly["uid"].replace(first, second)
        moved = client.get(victim_url)  # the generation it showed is gone: the newest takes its place
        assert moved.status_code == 302 and unquote(moved.headers["Location"]) == victim_url.replace(first, second)
        assert client.get(moved.headers["Location"]).status_code == 200
        log.rename(logs / "app-demo-0001")
        assert watch.poll() and watch.publish() == []
        ordinary = catalog.default_analysis(catalog.analyses(store))["id"]
        page = client.get(f"/analysis/{ordinary}").get_data(as_text=True)
        assert "http-equiv" not in page and 'id="live-status"' not in page
        # Nothing live any more: the live pages lead to the analysis of its last workload.
        ended = client.get(victim_url)
        assert ended.status_code == 302 and unquote(ended.headers["Location"]) == victim_url.replace(first, ordinary)
        assert "nightly-report" in client.get(ended.headers["Location"]).get_data(as_text=True)
    finally:
        close_store(app)


SPARK_PYTHON = Path("/tmp/sparkvenv/bin/python")  # PySpark 4, as workloads/README.md says
LIVE_APP = Path(__file__).resolve().parents[1] / "workloads" / "live_app.py"


def wait_for(what: str, check, timeout: float, said: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.5)
    pytest.fail(f"waited {timeout:.0f} s for {what}; the watch said:\n{said.read_text()[-3000:]}")


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
def test_watch_follows_a_real_pyspark_application(home, engine_env, store, tmp_path):
    """A real PySpark application (workloads/live_app.py: a rolling zstd log, as Spark 4 writes by
    default) runs while `protoxplore watch` follows it: the live analysis shows its two queries
    running while the blocker holds both slots; once it ends, its log is the ordinary analysis.
    On the embedded engine only (about 50 s of Spark each): what a real application adds, the log
    as Spark writes it, is read before any engine is involved, and every other test of the watch
    runs on both engines."""
    if not SPARK_PYTHON.exists():
        pytest.skip(f"PySpark is not installed at {SPARK_PYTHON}")
    logs, gate = tmp_path / "logs", tmp_path / "gate"
    logs.mkdir()
    app = subprocess.Popen([str(SPARK_PYTHON), str(LIVE_APP), str(logs), str(gate), "--codec", "zstd"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    said = tmp_path / "watch.err"  # a file, not a pipe: a pipe nobody reads would stop the watch when full
    watch = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "watch", str(logs), "--every", "1", "--unit",
                              "executor"], env=dict(os.environ, PROTOXPLORE_HOME=str(home)),
                             stdout=subprocess.DEVNULL, stderr=open(said, "w"))
    try:
        assert "@@running" in app.stdout.readline()  # both queries submitted (Spark's start can take minutes here)

        def running_in_live():
            for row in catalog.analyses(store):
                if row.get("live") and not row.get("parent") and str(logs) in str(row["sources"]):
                    found = {r["description"].split(":")[0]: r["running"] for r in store.run(
                        "victims", {"analysis": row["id"], "order": "blocked", "k": 100})}
                    if found.get("blocker") and found.get("blocked"):
                        return row
            return None

        row = wait_for("the live analysis to show both queries running", running_in_live, 300, said)
        assert row["running"] >= 2 and row["sources"] == [str(next(logs.glob("eventlog_v2_*")))]
        gate.touch()
        assert app.wait(300) == 0
        rolling = str(next(logs.glob("eventlog_v2_*")))
        # Only this watch's analyses: other tests of the session share the store (a killed watch's
        # live analysis stays listed).
        def published():
            rows = [r for r in catalog.analyses(store) if r["sources"] == [rolling]]
            return rows and not any(r.get("live") for r in rows)

        wait_for("the finished application's analysis and no live one", published, 300, said)
        analysis, new = pipeline.load_paths(store, pipeline.LoadRequest((rolling,),
                                                                        options=pipeline.protograph.Options(unit="executor")),
                                            home, pipeline.QUIET)
        assert not new  # the watch published it as `load` gives it
        blocked = next(r for r in store.run("victims", {"analysis": analysis, "order": "blocked", "k": 10})
                       if r["description"].startswith("blocked"))
        assert not blocked["running"] and blocked["blocked_s"] > 1.0  # its tasks waited for the blocker's slots
        culprit = store.run("victim_culprit_queries", {"analysis": analysis, "victim": blocked["uid"], "k": 1})[0]
        assert culprit["description"].startswith("blocker")
    finally:
        gate.touch()
        watch.send_signal(signal.SIGINT)
        watch.wait(120)
        if app.poll() is None:
            app.kill()
            app.wait()

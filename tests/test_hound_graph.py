"""Hound's causes in the graph and on the web, on each real engine: a log with stragglers of known
cause loaded through the CLI, then the canned Cypher, the delete, and the stragglers page."""
from __future__ import annotations

import html
import json
import re
import shutil
from urllib.parse import quote

import pytest

from protoxplore.loader.stragglers import hound
from protoxplore.service import catalog, stragglers
from protoxplore.storage import traces
from protoxplore.storage.store import open_store
from protoxplore.webapp import close_store, create_app, get_store

from commands import load_analysis, run
from handmade import gc_and_skew_log
from web import computed

COUNT = "MATCH (n {analysis: $analysis}) WHERE n:StragglerStage OR n:StragglerCause RETURN count(n) AS n"


@pytest.mark.slow
def test_causes_are_in_the_graph_for_canned_cypher(home, engine_env, tmp_path, capsys):
    analysis = load_analysis(capsys, home, gc_and_skew_log(tmp_path))
    with open_store(engine_env) as store:
        skewed = store.run("stragglers_skewed_stages", {"analysis": analysis})
        assert sorted(r["name"] for r in skewed) == [f"stage of skewed-{i}" for i in range(3)]
        assert all("read_bytes" in r["metrics"] and r["stragglers"] == 2 for r in skewed), skewed
        gc_hosts = store.run("stragglers_hosts_by_cause", {"analysis": analysis, "cause": "gc"})
        assert [(r["host"], r["stragglers"], r["stages"]) for r in gc_hosts] == [("h1", 6, 3)]
        assert 0 < gc_hosts[0]["weighted_stragglers"] < 6
        input_hosts = store.run("stragglers_hosts_by_cause", {"analysis": analysis, "cause": "input"})
        assert [r["host"] for r in input_hosts] == ["h2"]
        assert store.run_text(COUNT, {"analysis": analysis})[0]["n"] > 6
        # A time window's analysis has none: its stragglers are its parent's.
        code, _, err = run(capsys, "explain", "--victim", "gc-heavy-0", "--analysis", analysis, "--window", "0,150",
                           "--home", home)
        assert code == 0, err
        code, out, _ = run(capsys, "analyses", "--json", "--home", home)
        window = next(a["id"] for a in json.loads(out) if a.get("parent") == analysis)
        assert store.run_text(COUNT, {"analysis": window})[0]["n"] == 0
        code, _, err = run(capsys, "delete", analysis, "--home", home)
        assert code == 0, err
        assert store.run_text(COUNT, {"analysis": analysis})[0]["n"] == 0


@pytest.mark.slow
def test_stragglers_page(home, engine_env, tmp_path, capsys):
    analysis = load_analysis(capsys, home, gc_and_skew_log(tmp_path))
    app = create_app({"SETTINGS": engine_env, "TESTING": True})
    try:
        client = app.test_client()
        overview = client.get(f"/analysis/{analysis}").get_data(as_text=True)  # the page is found from the overview
        assert f'id="stragglers-link" href="/analysis/{analysis}/stragglers"' in overview
        page = computed(client, f"/analysis/{analysis}/stragglers")  # learned in the background, once
        computations = app.extensions["protoxplore.computations"]
        assert computations.runs == 1 and computed(client, f"/analysis/{analysis}/stragglers") == page
        assert computations.runs == 1 and "topics-table" in page and "gc_s(+)" in page and 'id="fig-mix"' in page
        assert page.count("(agrees)") == 6 and "stage of skewed-2" in page
        code, out, _ = run(capsys, "stragglers", "--analysis", analysis, "--json", "--home", home)
        # The stages table says what the CLI says, stage by stage.
        table = page[page.index('id="stages-table"'):]
        cells = [tuple(html.unescape(c) for c in row) for row in re.findall(
            r'<tr><td><a href="[^"]*">([^<]*)</a></td>' + r'\s*<td>([^<]*)</td>' * 6 + r'</tr>', table)]
        assert cells == [(s["stage"], s["name"], f"{s['stragglers']} of {s['tasks']}", f"{s['slowdown_s']:.2f}",
                          stragglers.straggler_causes(s, 3),
                          ", ".join(f"{t['topic']} {t['weight']:.2f}" for t in s["topics"]),
                          (s["expert"]["cause"] or "not clear")
                          + {True: " (agrees)", False: " (differs)"}.get(s["expert"]["cause"] and s["expert"].get("agrees"), ""))
                         for s in json.loads(out)["stages"]], cells
        stage = next(s for s in json.loads(out)["stages"] if s["name"] == "stage of gc-heavy-1")
        page = computed(client, f"/analysis/{analysis}/stragglers?stage={quote(stage['stage'])}")
        boxes = re.findall(r'<script type="application/json" id="fig-box-\d">(.*?)</script>', page)
        # Its four strongest causes, an amount of data with its records beside it (shown, not learned).
        records = [hound.RECORDS[c["metric"]] for c in stage["causes"][:4] if c["metric"] in hound.RECORDS]
        assert len(boxes) == min(4, len(stage["causes"])) + len(records) > 0 and records
        titles = {json.loads(html.unescape(b))["layout"]["title"]["text"] for b in boxes}
        assert set(records) <= titles, titles
        slow, normal = json.loads(html.unescape(boxes[0]))["data"]
        # Its strongest cause, GC: stragglers at about 20 s of it, normal tasks at about 0.5 s.
        assert (slow["name"], normal["name"]) == ("S", "N") and slow["median"][0] > 10 * normal["median"][0]
        with app.app_context():
            victims = get_store().run("victims", {"analysis": analysis, "k": 100})
        victim = next(v for v in victims if v["description"] == "gc-heavy-0")
        link = client.get(f"/analysis/{analysis}/victim/{victim['uid']}").get_data(as_text=True)
        text = computed(client, html.unescape(re.search(r'id="stragglers-link" href="([^"]+)"', link).group(1)))
        assert "stage of gc-heavy-0" in text and "stage of gc-heavy-1" not in text
        assert client.get(f"/analysis/{analysis}/stragglers?stage=nope").status_code == 404
        assert client.get(f"/analysis/{analysis}/stragglers?query=nope").status_code == 404
        # Another threshold, as the CLI's --threshold (only the 32 s task of each stage straggles): the
        # same stages, and the stage links keep it.
        code, out, _ = run(capsys, "stragglers", "--analysis", analysis, "--threshold", "3.1", "--json", "--home", home)
        wanted = [(s["stage"], f"{s['stragglers']} of {s['tasks']}") for s in json.loads(out)["stages"]]
        assert len(wanted) == 6 and {n for _, n in wanted} == {"1 of 10"}, wanted
        page = computed(client, f"/analysis/{analysis}/stragglers?threshold=3.1")
        rows = re.findall(r'<tr><td><a href="([^"]*)">([^<]*)</a></td>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>', page)
        assert [(html.unescape(s), n) for _, s, n in rows] == wanted != [(c[0], c[2]) for c in cells] and 'value="3.1"' in page
        assert all("threshold=3.1" in html.unescape(url) for url, _, _ in rows)
        for bad in ("1", "0.5", "nan", "inf", "x", "1001"):
            answer = client.get(f"/analysis/{analysis}/stragglers?threshold={bad}")
            assert answer.status_code == 400 and "parameter threshold" in answer.get_data(as_text=True), bad
    finally:
        close_store(app)


@pytest.mark.slow
def test_the_command_reads_the_causes_stored_at_load(home, engine_env, tmp_path, capsys):
    """At the threshold the analysis was loaded with, `stragglers` reads the graph (no trace needed:
    Hound is not run again), and answers what Hound computed on the trace; another threshold runs
    Hound on the saved trace."""
    analysis = load_analysis(capsys, home, gc_and_skew_log(tmp_path))
    with open_store(engine_env) as store:
        row = catalog.resolve_analysis(store, analysis)
    assert row["straggler_threshold"] == hound.DEFAULT_THRESHOLD
    trace_dir = traces.trace_path(home, row["fingerprint"])
    learned = hound.analyse(traces.load_trace(trace_dir))
    code, _, err = run(capsys, "explain", "--victim", "gc-heavy-0", "--analysis", analysis, "--window", "0,150",
                       "--home", home)
    assert code == 0, err
    code, out, _ = run(capsys, "analyses", "--json", "--home", home)
    window = next(a["id"] for a in json.loads(out) if a.get("parent") == analysis)
    moved = tmp_path / "trace-away"
    shutil.move(trace_dir, moved)
    try:
        code, out, err = run(capsys, "stragglers", "--analysis", analysis, "--json", "--home", home)
        assert code == 0, err
        stored = json.loads(out)
        # A window's stragglers are its parent's, read from the parent's stored nodes.
        code, out, err = run(capsys, "stragglers", "--analysis", window, "--json", "--home", home)
        assert code == 0 and json.loads(out) == stored, err
        # Another threshold needs the trace.
        code, _, err = run(capsys, "stragglers", "--analysis", analysis, "--threshold", "2", "--home", home)
        assert code == 1 and "is not saved" in err
        # The page reads the same stored causes through the same service function.
        app = create_app({"SETTINGS": engine_env, "TESTING": True})
        try:
            text = computed(app.test_client(), f"/analysis/{analysis}/stragglers")
            assert "topics-table" in text and text.count("(agrees)") == 6 and "gc_s(+)" in text
        finally:
            close_store(app)
    finally:
        shutil.move(moved, trace_dir)
    assert stored["threshold"] == learned["threshold"] and stored["agreement"] == learned["agreement"]
    assert [s["stage"] for s in stored["stages"]] == [s["stage"] for s in learned["stages"]]
    for got, want in zip(stored["stages"], learned["stages"]):
        for field in ("name", "query", "tasks", "stragglers", "straggler_hosts"):
            assert got[field] == want[field], field
        assert (got["median_s"], got["slowdown_s"]) == pytest.approx((want["median_s"], want["slowdown_s"]))
        assert [(c["metric"], c["sign"]) for c in got["causes"]] == [(c["metric"], c["sign"]) for c in want["causes"]]
        assert [c["weight"] for c in got["causes"]] == pytest.approx([c["weight"] for c in want["causes"]])
        for learner, profile in want["profiles"].items():
            assert got["profiles"][learner] == pytest.approx(profile), learner
        assert got["expert"]["cause"] == want["expert"]["cause"] and got["expert"]["agrees"] == want["expert"]["agrees"]
        assert [c["metric"] for c in got["expert"]["causes"]] == [c["metric"] for c in want["expert"]["causes"]]
        assert [t["topic"] for t in got["topics"]] == [t["topic"] for t in want["topics"]]
        assert [t["weight"] for t in got["topics"]] == pytest.approx([t["weight"] for t in want["topics"]])
    assert [[w["word"] for w in t["words"]] for t in stored["topics"]] == [[w["word"] for w in t["words"]]
                                                                             for t in learned["topics"]]
    # What the command shows is what the graph holds: a weight changed there shows (then the analysis
    # is deleted: other tests load the same log).
    try:
        with open_store(engine_env) as store:
            store.run_text("MATCH (:StragglerCause {analysis: $analysis, name: 'gc_s(+)'})-[e:EXPLAINS]->(:StragglerStage) "
                           "SET e.weight = 0.999", {"analysis": analysis}, write=True)
        code, out, err = run(capsys, "stragglers", "--analysis", analysis, "--json", "--home", home)
        gc_stages = [s for s in json.loads(out)["stages"] if "gc-heavy" in s["name"]]
        assert len(gc_stages) == 3
        assert all(s["causes"][0] == {"metric": "gc_s", "sign": "+", "weight": 0.999} for s in gc_stages), gc_stages
        # A graph loaded by a version that stored no profiles (or other features): Hound on the trace.
        with open_store(engine_env) as store:
            store.run_text("MATCH (s:StragglerStage {analysis: $analysis}) REMOVE s.features", {"analysis": analysis},
                           write=True)
        code, out, err = run(capsys, "stragglers", "--analysis", analysis, "--json", "--home", home)
        again = json.loads(out)
        assert code == 0 and [s["causes"] for s in again["stages"]] == [s["causes"] for s in learned["stages"]], err
    finally:
        assert run(capsys, "delete", analysis, "--home", home)[0] == 0

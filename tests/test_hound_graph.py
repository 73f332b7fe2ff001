"""Hound's causes in the graph and on the web, on each real engine: a log with stragglers of known
cause loaded through the CLI, then the canned Cypher, the delete, and the stragglers page."""
from __future__ import annotations

import html
import json
import re

from test_hound import _analysis, gc_and_skew_log, run

from protoxplore.store import open_store
from protoxplore.webapp import close_store, create_app, get_store

COUNT = "MATCH (n {analysis: $analysis}) WHERE n:StragglerStage OR n:StragglerCause RETURN count(n) AS n"


def test_causes_are_in_the_graph_for_canned_cypher(home, engine_env, tmp_path, capsys):
    analysis = _analysis(capsys, home, gc_and_skew_log(tmp_path))
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


def test_stragglers_page(home, engine_env, tmp_path, capsys):
    analysis = _analysis(capsys, home, gc_and_skew_log(tmp_path))
    app = create_app({"SETTINGS": engine_env, "TESTING": True})
    try:
        client = app.test_client()
        page = client.get(f"/analysis/{analysis}/stragglers").get_data(as_text=True)
        assert "topics-table" in page and "gc_s(+)" in page and 'id="fig-mix"' in page
        assert page.count("(agrees)") == 6 and "stage of skewed-2" in page
        code, out, _ = run(capsys, "stragglers", "--analysis", analysis, "--json", "--home", home)
        stage = next(s for s in json.loads(out)["stages"] if s["name"] == "stage of gc-heavy-1")
        page = client.get(f"/analysis/{analysis}/stragglers", query_string={"stage": stage["stage"]}).get_data(as_text=True)
        boxes = re.findall(r'<script type="application/json" id="fig-box-\d">(.*?)</script>', page)
        assert len(boxes) == min(4, len(stage["causes"])) > 0
        slow, normal = json.loads(html.unescape(boxes[0]))["data"]
        # Its strongest cause, GC: stragglers at about 20 s of it, normal tasks at about 0.5 s.
        assert (slow["name"], normal["name"]) == ("S", "N") and slow["median"][0] > 10 * normal["median"][0]
        with app.app_context():
            victims = get_store().run("victims", {"analysis": analysis, "k": 100})
        victim = next(v for v in victims if v["description"] == "gc-heavy-0")
        link = client.get(f"/analysis/{analysis}/victim/{victim['uid']}").get_data(as_text=True)
        only = client.get(html.unescape(re.search(r'id="stragglers-link" href="([^"]+)"', link).group(1)))
        assert only.status_code == 200
        text = only.get_data(as_text=True)
        assert "stage of gc-heavy-0" in text and "stage of gc-heavy-1" not in text
        assert client.get(f"/analysis/{analysis}/stragglers?stage=nope").status_code == 404
        assert client.get(f"/analysis/{analysis}/stragglers?query=nope").status_code == 404
    finally:
        close_store(app)

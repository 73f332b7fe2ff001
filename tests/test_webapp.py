"""The web app through Flask's test client, and served by Waitress over real sockets, on each real
engine (the embedded FalkorDB and Neo4j, through conftest's ``settings``; no mocks).

Each engine holds the demo workload (known culprit: the ETL scan), a workload whose descriptions,
app and stage names are hostile (script, attribute breakout, template syntax, SQL quotes), a
workload of two applications three years apart (time windows), and one deleted and loaded again
(page cache). On FalkorDB each is a graph of its own; community Neo4j has one database, so there
they are analyses side by side (with the other test modules' analyses), as every page reads one
analysis by its id: the logs differ, so the ids do. Two tests are about the embedded engine only:
the empty state (an empty graph; Neo4j's one database is never empty during the session) and the
engine-down test, which stops and kills an engine of its own. `protoxplore serve` runs as a real
process.
"""
from __future__ import annotations

import dataclasses
import html
import inspect
import json
import os
import re
from urllib.parse import quote

import pytest
from markupsafe import escape

from protoxplore import show
from protoxplore.evaluation import synth
from protoxplore.service import pipeline
from protoxplore.storage import locks, queries
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.store import open_store
from protoxplore.webapp import canned, charts, close_store, create_app, make_server, serve

import web
from handmade import make_log
from logs import REAL
from web import RAW, Running, computed, figures, get, hostile_pages, load, params_for, victim_url, victims, walk_links


@pytest.fixture(scope="session")
def empty(web_settings):
    app = create_app({"PROTOXPLORE_HOME": str(web_settings.home), "PROTOXPLORE_NEO4J_URI": "",
                      "PROTOXPLORE_GRAPH": "webempty", "TESTING": True})
    yield app
    close_store(app)


@pytest.fixture(scope="session")
def client(demo):
    return demo[0].test_client()


# ------------------------------------------------------------------ overview

@pytest.mark.slow
def test_overview_lists_analysis_hints_and_charts(client, demo):
    app, analysis = demo
    # "/" is the overview of the most recently loaded analysis (on Neo4j, of another test module perhaps)
    latest = [r["id"] for r in all_analyses(app) if not r.get("parent")][0]
    assert get(client, "/") == get(client, f"/analysis/{latest}")
    for url in (f"/analysis/{analysis}",):
        text = get(client, url)
        assert analysis in text
        assert "nightly-report" in text and "etl-load" in text
        assert "<th>application</th>" not in text  # one application: no column for it
        for table in ("victims-blocked", "victims-slowdown", "hot-resources", "slow-nodes", "aggressive-culprits"):
            assert f'id="{table}"' in text
        figs = figures(text)
        assert len(figs) == 7  # timeline, concurrency, blocked, slowdown, resources, hosts, culprits
        assert "/vendor/plotly.min.js" in text
    # the analyses are listed behind the current one (closed), the summed DOR is explained
    assert '<details id="analyses-list">' in text and 'id="slow-nodes-note"' in text
    assert text.count("can exceed 1") >= 3
    # the most aggressive culprit of the demo is the ETL scan
    culprits = text.split('id="aggressive-culprits"')[1]
    assert culprits.index("etl-load") < culprits.index("dashboard")
    # a cut list says so, with a link to more (it stopped at k without a word); all shown: no link
    assert 'id="more-victims"' not in text
    cut = get(client, f"/analysis/{analysis}?k=2")
    assert 'id="more-victims"' in cut and f"/analysis/{analysis}?k=100" in cut


def test_timeline_and_concurrency(client, demo):
    text = get(client, f"/analysis/{demo[1]}")
    figs = {f["layout"]["title"]["text"]: f for f in figures(text)}
    assert len(figs["Queries over time"]["data"]) == 4
    concurrency = figs["Concurrent queries"]["data"][0]["y"]
    assert max(concurrency) == 3 and concurrency[-1] == 0
    # a count of queries has whole ticks (an audit saw 0.5)
    assert figs["Concurrent queries"]["layout"]["yaxis"]["dtick"] == 1


def test_plotly_is_served_locally_and_no_cdn(client, demo):
    response = client.get("/vendor/plotly.min.js")
    assert response.status_code == 200 and len(response.data) > 1_000_000
    assert response.mimetype == "text/javascript"
    response.close()
    text = get(client, "/")
    assert not re.search(r'<script[^>]+src="(https?:)?//', text)


# ------------------------------------------------------------------ victim

def test_victim_page_explains_the_known_culprit(client, demo):
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    text = get(client, victim_url(analysis, victim["uid"]))
    assert "Why was synthetic:sql-2 slow?" in text
    assert 'id="explanation"' in text and "Culprit 1: synthetic:sql-1" in text
    titles = [f["layout"]["title"]["text"] for f in figures(text)]
    assert any("Top weighted paths" in t for t in titles)
    assert any("Blocked seconds by host and resource" in t for t in titles)
    sankey = next(f["data"][0] for f in figures(text) if f["data"][0]["type"] == "sankey")
    # distinct nodes of a column (its depth along the links, as Plotly places them) read differently;
    # the victim, named in the title, has no label; full names on hover
    labels, links = sankey["node"]["label"], sankey["link"]
    depth = [0] * len(labels)
    for _ in labels:
        for a, b in zip(links["source"], links["target"]):
            depth[b] = max(depth[b], depth[a] + 1)
    assert labels.count("") == 1 and len(labels) > 10
    assert len(set(zip(labels, depth))) == len(labels)
    assert "synthetic:sql-2" in " ".join(titles) and "synthetic:sql-1 stage 1" in sankey["node"]["customdata"]
    assert 'id="walk-level" data-level="1"' in text


def test_walk_from_level_0_to_6_by_links(client, demo):
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    url = victim_url(analysis, victim["uid"])
    seen = []
    for expected in range(1, 7):
        text = get(client, url)
        assert f'id="walk-level" data-level="{expected}"' in text
        links = walk_links(text)
        assert links and all(level == expected for level, _ in links)
        assert len(figures(text)) == 3  # walk chart, Sankey, heatmap
        seen.append(expected)
        url = links[0][1]
    text = get(client, url)
    assert 'id="reached-culprit"' in text and "synthetic:sql-1" in text  # the ETL scan is the top culprit
    crumbs = text.split('id="breadcrumb"')[1].split("</nav>")[0]
    assert len(re.findall(r"<a href=", crumbs)) == 6 and 'class="here" data-level="6"' in crumbs
    culprit_href = html.unescape(re.search(r'id="culprit-page" href="([^"]*)"', text).group(1))
    assert "etl-load" in get(client, culprit_href)
    assert seen == [1, 2, 3, 4, 5, 6]


def test_breadcrumb_goes_back_up(client, demo):
    app, analysis = demo
    victim = victims(app, analysis)[0]
    text = get(client, victim_url(analysis, victim["uid"]))
    level2 = get(client, walk_links(text)[0][1])
    back = re.findall(r'<a href="([^"]*)" data-level="0"', level2)
    assert back and 'data-level="1"' in get(client, html.unescape(back[0]))


def test_walk_parameter_errors(client, demo):
    app, analysis = demo
    victim = victims(app, analysis)[0]
    base = victim_url(analysis, victim["uid"])
    assert "parameter at" in get(client, base + "?at=nope", 404)
    other = victims(app, analysis)[1]
    text = get(client, base)
    level1 = walk_links(text)[0][1].split("?at=")[1]
    assert "parameter at" in get(client, base + "?at=" + level1 + "&at=" + level1, 404)  # L1 twice
    foreign = get(client, victim_url(analysis, other["uid"]))
    assert "walk of this victim" in get(client, base + "?at=" + walk_links(foreign)[0][1].split("?at=")[1], 404)
    assert "parameter k" in get(client, base + "?k=zero", 400)


def test_culprit_page(client, demo):
    app, analysis = demo
    text = get(client, f"/analysis/{analysis}")
    href = html.unescape(re.search(r'class="culprit-link" href="([^"]*)"', text).group(1))
    page = get(client, href)
    assert "Whom did synthetic:sql-1 hurt?" in page and 'id="culprit-victims"' in page
    assert "nightly-report" in page and len(figures(page)) == 1
    total = re.search(r"Total DOR toward other queries: <b>([^<]*)</b>", page).group(1)
    assert float(total) > 0.5  # the ETL load is responsible for most of the nightly report's wait
    assert "no culprit query" in get(client, f"/analysis/{analysis}/culprit/nope", 404)
    # The chart's DOR per victim is the whole of it, not the sum of the table's rows cut at k.
    whole = figures(page)[0]["data"][0]["x"]
    cut = get(client, href + ("&" if "?" in href else "?") + "k=1")
    assert len(re.findall(r"<tr><td><a ", cut.split('id="culprit-victims"')[1])) == 1
    assert figures(cut)[0]["data"][0]["x"] == pytest.approx(whole[-1:])  # the first victim (drawn last)
    assert whole[-1] > float(re.search(r"<td>([0-9.]+)</td><td>[0-9.]+</td></tr>", cut).group(1)) + 0.01


@pytest.mark.slow
def test_methods_page(client, demo):
    """The ProtoGraph's ranking comes with the page; the other methods compute from the saved trace,
    so each is a placeholder that loads its column (a fragment) after the page is shown."""
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    url = victim_url(analysis, victim["uid"], "/methods")
    text = get(client, url)
    assert "ProtoGraph (DOR)" in text and "synthetic:sql-1" in text
    assert len(figures(text)) == 1 and "/vendor/plotly.min.js" in text  # Plotly, for the columns to come
    sources = [html.unescape(src) for src in re.findall(r'class="method" id="method-[^"]+" data-src="([^"]+)"', text)]
    assert sources == [f"{url}?column={method}&k=10" for method in ("counterfactual", "naive-overlap", "deep-overlap",
                                                                     "blocked-time")]
    titles = ("Counterfactual replay: predicted speedup (s)", "Naive-Overlap (s)", "Deep-Overlap (s)", "Blocked time (s)")
    for source, title in zip(sources, titles):
        column = computed(client, source)
        assert "<html" not in column and title in column and len(figures(column)) == 1
        assert "synthetic:sql-1" in column  # every method finds the ETL load beside the nightly report
        assert column in get(client, url + "?column=all")  # the page without JavaScript holds the same columns
    assert 'data-src' not in get(client, url + "?column=all")
    assert "parameter column" in get(client, url + "?column=nope", 400)


def test_whatif_page_and_the_victim_page_that_loads_it(client, demo):
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    page = get(client, victim_url(analysis, victim["uid"], ""))
    fragment_url = html.unescape(re.search(r'id="whatif-body" data-src="([^"]+)"', page).group(1))
    assert fragment_url == victim_url(analysis, victim["uid"], "/whatif") + "?fragment=1"
    body = computed(client, fragment_url)
    assert "<html" not in body and 'id="whatif-sentences"' in body
    # The demo's culprit is the ETL load: removing it is predicted to give back most of the runtime.
    first = re.search(r'<ul class="sentences" id="whatif-sentences">\s*<li>([^<]+)</li>', body).group(1)
    assert first.startswith("Without synthetic:sql-1, synthetic:sql-2 would have finished about")
    assert 'id="remedies"' in body and "delayed" in body
    full = get(client, victim_url(analysis, victim["uid"], "/whatif"))
    assert "<html" in full and body.strip() in full


def all_analyses(app) -> list[dict]:
    with app.app_context():
        from protoxplore.webapp import get_store
        return get_store().run("analyses", {"status": "complete"})


def analysis_ids(app) -> list[str]:
    return [r["id"] for r in all_analyses(app)]


@pytest.mark.slow
def test_pages_default_to_the_latest_full_analysis_never_a_window(client, demo):
    """One answer to "which analysis when none is named" (catalog.default_analysis): a time window
    derived later is newer, but the overview, the canned-query forms and the Neo4j Browser index
    all open on the full analysis, as the CLI does."""
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    response = client.post(victim_url(analysis, victim["uid"], "/windows"), data={"windows": "3"},
                           headers={"Origin": "http://localhost"})  # (test_time_windows derives 2)
    assert response.status_code == 303
    assert analysis_ids(app)[0] != analysis  # the newest is a window
    assert f'<code>{analysis}</code> ·' in get(client, "/")
    assert f'name="analysis" value="{analysis}"' in get(client, "/queries/victims")
    assert f"<code>{analysis}</code>" in get(client, "/neo4j-browser/")


@pytest.mark.slow
def test_time_windows(client, demo):
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    url = victim_url(analysis, victim["uid"], "/windows")
    form = get(client, url)
    assert 'id="windows-form"' in form and 'method="post"' in form
    before = analysis_ids(app)
    for _ in range(3):  # GET never writes: the windows are shown as not derived yet
        text = get(client, url + "?windows=2")
        assert 'id="windows-missing"' in text and text.count('data-state="missing"') == 2
    assert analysis_ids(app) == before
    response = client.post(url, data={"windows": "2", "k": "5"}, headers={"Origin": "http://localhost"})
    assert response.status_code == 303  # redirect-after-POST to the page that shows them
    assert response.headers["Location"] == url + "?windows=2&k=5"
    assert len(analysis_ids(app)) == len(before) + 2
    text = get(client, response.headers["Location"])
    assert text.count('data-state="derived"') == 2 and 'id="windows-missing"' not in text
    fig = figures(text)[0]
    assert fig["layout"]["barmode"] == "stack" and any(t["name"] == "synthetic:sql-1" for t in fig["data"])
    # the victim's own tasks are labelled so, not shown as a culprit of the victim's own name
    assert {t["name"] for t in fig["data"] if "sql-2" in t["name"]} == {"synthetic:sql-2 (own tasks)"}
    # posting again derives nothing new; the derived analyses are listed as windows of their parent
    assert client.post(url, data={"windows": "2"}, headers={"Origin": "http://localhost"}).status_code == 303
    assert len(analysis_ids(app)) == len(before) + 2
    assert "window of" in get(client, "/")
    assert "parameter windows" in get(client, url + "?windows=0", 400)
    assert "parameter windows" in get(client, url + "?windows=many", 400)
    response = client.post(url, data={"windows": "many"}, headers={"Origin": "http://localhost"})
    assert response.status_code == 400 and "parameter windows" in response.get_data(as_text=True)


@pytest.mark.slow
def test_a_window_refuses_what_is_about_whole_runs(client, demo):
    """On a time window the counterfactual column, the what-if, the comparison of runs and a split into
    windows each say which full analysis to ask (catalog.whole_run_only), without computing anything."""
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    windows = victim_url(analysis, victim["uid"], "/windows")
    assert client.post(windows, data={"windows": "2"}, headers={"Origin": "http://localhost"}).status_code == 303
    window = next(r["id"] for r in all_analyses(app) if r.get("parent") == analysis)
    there = next(v for v in victims(app, window) if "nightly-report" in v["description"])
    runs = app.extensions["protoxplore.computations"].runs
    said = f"analysis {window} is a time window: %s works on its full analysis {analysis}"
    column = get(client, victim_url(window, there["uid"], "/methods?column=counterfactual"))
    assert html.unescape(column).count(said % "the counterfactual replay") == 1
    assert said % "a what-if" in html.unescape(get(client, victim_url(window, there["uid"], "/whatif")))
    assert said % "comparing runs" in html.unescape(get(client, victim_url(window, there["uid"], "/compare"), 400))
    response = client.post(victim_url(window, there["uid"], "/windows"), data={"windows": "2"},
                           headers={"Origin": "http://localhost"})
    assert response.status_code == 400 and said % "splitting into windows" in html.unescape(response.get_data(as_text=True))
    assert app.extensions["protoxplore.computations"].runs == runs  # refused, not computed


@pytest.mark.slow
def test_posts_from_other_sites_are_refused(client, demo):
    app, analysis = demo
    victim = victims(app, analysis)[0]
    url = victim_url(analysis, victim["uid"], "/windows")
    before = analysis_ids(app)
    for headers in ({}, {"Origin": "http://evil.example"}, {"Origin": "null"}, {"Origin": "http://localhost:8080"},
                    {"Referer": "http://evil.example/page"}, {"Origin": "https://localhost"}):
        response = client.post(url, data={"windows": "3"}, headers=headers)
        assert response.status_code == 403, headers
        assert "must come from a page of this server" in response.get_data(as_text=True)
    assert analysis_ids(app) == before
    # a browser that sends no Origin but a Referer of our own page is accepted
    response = client.post(url, data={"windows": "1"}, headers={"Referer": "http://localhost" + url})
    assert response.status_code == 303


def multi_year_logs(home) -> list[str]:
    """The demo workload run twice by two applications three years apart: one workload."""
    qs, cluster = synth.demo_workload()
    paths = []
    for i, years in enumerate((0, 3)):
        path = home / f"years-{i}.log"
        synth.write_event_log(synth.simulate(qs, cluster), cluster, path, app_id=f"app-years-{i}",
                              epoch_ms=synth.EPOCH_MS + int(years * 365.25 * 86400e3))
        paths.append(str(path))
    return paths


def test_sankey_labels_keep_what_tells_applications_apart(web_settings):
    """The cross-application scenario (real PySpark logs of two applications named
    protoxplore-cross_app-main and -other): cut in the middle, the culprit stages' labels read
    "protoxplor…l-1 stage 2", hiding which application; the start all of a column's names share is
    left out instead, and the application part stays."""
    settings = dataclasses.replace(web_settings, graph="webcross")
    folder = web.ROOT / "tests" / "data" / "scenarios" / "cross_app"
    truth = json.loads((folder / "truth.json").read_text())
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest(tuple(sorted(str(p) for p in folder.glob("app-*")))),
                                          web_settings.home, pipeline.QUIET)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    try:
        victim = next(v for v in victims(app, analysis) if v["description"] == truth["victim"]["description"])
        text = get(app.test_client(), victim_url(analysis, victim["uid"]))
        sankey = next(f["data"][0] for f in figures(text) if f["data"][0]["type"] == "sankey")
        labels = sankey["node"]["label"]
        assert any(label.startswith("other:") for label in labels), list(zip(labels, sankey["node"]["customdata"]))
        assert any(label.startswith("main:") for label in labels), labels
    finally:
        close_store(app)


def test_sankey_labels_that_would_read_alike_keep_where_they_differ(client, demo):
    """A web audit: the demo's sql-2 Sankey read "sql-1 sta…ts@node-1 #1" and "#2" for stages 1 and 2
    (cut in the middle, then numbered); labels now start where the names differ."""
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if v["name"].endswith("sql-2"))
    sankey = next(f["data"][0] for f in figures(get(client, victim_url(analysis, victim["uid"])))
                  if f["data"][0]["type"] == "sankey")
    labels = sankey["node"]["label"]
    assert not any(re.search(r" #\d+$", label) for label in labels), labels
    assert any(label.startswith("\u2026stage 1 ") for label in labels), list(zip(labels, sankey["node"]["customdata"]))


def test_ranked_bars_of_a_long_named_query_keep_what_tells_its_stages_apart(web_settings, tmp_path):
    """rp_sql_eventlog's sql-0 with a long application name: its victim stages' bars read
    "1. A nightly report of every region's orde…" three times (names cut at the end); cut in the
    middle, each keeps its stage number."""
    import zstandard

    text = zstandard.ZstdDecompressor().stream_reader((REAL / "rp_sql_eventlog.zstd").open("rb")).read().decode()
    log = tmp_path / "rp_sql_long_name"
    log.write_text(text.replace('"App Name":"Spark shell"', '"App Name":"A nightly report of every region\'s orders"'))
    settings = dataclasses.replace(web_settings, graph="weblongname")
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), web_settings.home, pipeline.QUIET)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    try:
        page = get(app.test_client(), victim_url(analysis, f"{analysis}|vq/application_1603128018386_7759/sql-0"))
        walk = next(f for f in figures(page) if f["layout"]["title"]["text"].startswith("L1 Victim stages"))
        labels = [html.unescape(label) for label in walk["data"][0]["y"]]
        assert len(labels) == 3 and all(len(label) <= 43 for label in labels), labels
        assert sorted(label.rsplit(" ", 1)[1] for label in labels) == ["1", "3", "4"], labels
    finally:
        close_store(app)


@pytest.mark.slow
def test_windows_on_a_workload_of_several_years(web_settings):
    """Issue 14 item 7: most windows of a multi-year trace are empty; the page must not fail."""
    settings, web_home = dataclasses.replace(web_settings, graph="webyears"), web_settings.home
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest(tuple(multi_year_logs(web_home))), web_home, pipeline.QUIET)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    try:
        client = app.test_client()
        figs = figures(get(client, f"/analysis/{analysis}"))
        assert len(figs) == 7
        # the timeline stays readable: the three idle years are cut out (and marked), so both runs
        # of the workload fit in minutes of axis, each query a visible bar
        timeline = next(f for f in figs if f["layout"]["title"]["text"] == "Queries over time")
        ends = [bar["base"][0] + bar["x"][0] for bar in timeline["data"]]
        assert max(ends) < 3600 and min(bar["x"][0] for bar in timeline["data"]) > max(ends) / 1000
        assert [note["text"] for note in timeline["layout"]["annotations"]] == ["3.0 years idle"]
        # The two runs' queries share names: each keeps a row of its own, labelled with its name and
        # its application (the labels read the same twice: a web audit), and its hover says when it
        # started (not seconds over years).
        rows = [bar["y"][0] for bar in timeline["data"]]
        names = timeline["layout"]["yaxis"]["ticktext"]
        assert len(set(rows)) == len(rows) == len(set(names)) == 8
        assert len({n.rsplit(" (", 1)[0] for n in names}) == 4 and all(re.search(r" \(app-years-\d\)$", n) for n in names)
        apps = {bar["customdata"][0][3] for bar in timeline["data"]}
        # The victims tables show each query's application (the names repeat), the demo's do not.
        page = get(client, f"/analysis/{analysis}")
        assert page.count('<td class="app">app-years-') == 16 and "<th>application</th>" in page
        assert len(apps) == 2 and all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", bar["customdata"][0][0])
                                      for bar in timeline["data"])
        victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
        # Its other run has its name: the compare page's list shows the run's application.
        listing = computed(client, victim_url(analysis, victim["uid"], "/compare"))
        table = listing.split('id="other-runs"')[1].split("</table>")[0]
        # (on Neo4j, whose one database holds other modules' analyses, runs of theirs are listed too)
        assert "<th>application</th>" in table and "app-years-1" in re.findall(r'<td class="app">([^<]*)</td>', table)
        url = victim_url(analysis, victim["uid"], "/windows")
        response = client.post(url, data={"windows": "24"}, headers={"Origin": "http://localhost"})
        assert response.status_code == 303, response.get_data(as_text=True)[-1500:]
        text = get(client, response.headers["Location"])
        derived = text.count('data-state="derived"')
        assert derived >= 1 and derived + text.count('data-state="idle"') == 24
        assert "did not run" in text and len(figures(text)) == 1
        windows = [r for r in all_analyses(app) if r.get("parent") == analysis]
        assert len(windows) == derived  # only the windows the victim ran in were derived
    finally:
        close_store(app)


def test_a_walk_that_ends_on_the_victims_own_query_links_no_missing_page(web_settings, tmp_path):
    """A query alone on a host, 16 tasks for 8 slots: all its blocked time is its own tasks queueing,
    so its walk ends at Level 6 on itself. The page linked "Whom else did it hurt?" to a culprit page
    that answered 404 (it hurt no other query); it now says so, and no link on the walk is a 404."""
    settings = dataclasses.replace(web_settings, graph="webself")
    log = make_log(tmp_path / "alone", [dict(query="alone", host="h1", launch=(i // 8) * 10.0,
                                             finish=(i // 8 + 1) * 10.0, cpu_s=9.0) for i in range(16)])
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)),
                                          web_settings.home, pipeline.QUIET)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    try:
        client = app.test_client()
        [victim] = victims(app, analysis)
        url, culprit_links = victim_url(analysis, victim["uid"]), []
        # Its top paths start at its own query, and say so as the walk does (an audit: they did not)
        page = get(client, url)
        paths = page[page.index('id="paths"'):].split("</table>")[0]
        assert paths.count('<span class="tag">own tasks</span>') == paths.count("<tr>") - 1 > 0
        sankey = next(f["data"][0] for f in figures(page) if f["data"][0]["type"] == "sankey")
        assert "hand:sql-0 (own tasks)" in sankey["node"]["customdata"]
        for _level in range(1, 7):
            text = get(client, url)
            culprit_links += re.findall(r'href="([^"]*/culprit/[^"]*)"', text)
            url = walk_links(text)[0][1]
        text = get(client, url)
        assert 'id="reached-culprit"' in text and 'id="culprit-page"' not in text
        assert "slowed no other query" in text
        culprit_links += re.findall(r'href="([^"]*/culprit/[^"]*)"', text)
        assert [link for link in culprit_links if client.get(html.unescape(link)).status_code != 200] == []
    finally:
        close_store(app)


def test_a_short_query_never_reads_as_none(web_settings):
    """A web audit on the real local-mode log: job-1 ran 0.012 s and was blocked 0.021 task-seconds,
    and its page said "Ran 0.0 s, blocked 0.0 task-seconds" beside an explanation saying 0.012 s.
    A value that is not zero is shown to two significant digits where the table's decimals show none,
    and a heatmap's colours start at zero."""
    settings = dataclasses.replace(web_settings, graph="webshort")
    with open_store(settings) as store:
        store.apply_schema()
        analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(REAL / "local-1532512550423"),)),
                                          web_settings.home, pipeline.QUIET)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    try:
        job = next(v for v in victims(app, analysis) if v["name"] == "Spark shell:job-1")
        text = get(app.test_client(), victim_url(analysis, job["uid"]))
        assert "Ran <b>0.012 s</b>, blocked <b>0.021 task-seconds</b>" in text
        # its one cell of the host x resource heatmap was drawn mid-scale (the scale ran -0.5 to 0.5)
        [heat] = [f["data"][0] for f in figures(text) if f["data"][0]["type"] == "heatmap"]
        assert heat["z"] == [[pytest.approx(0.021, abs=5e-4)]] and heat["zmin"] == 0
    finally:
        close_store(app)


# ------------------------------------------------------------------ canned queries

def test_queries_index_lists_every_canned_query(client):
    text = get(client, "/queries")
    for name in queries.names("canned"):
        assert f'href="/queries/{name}"' in text
        assert str(escape(queries.load(name).title)) in text
    assert "write_deep_and_blame" not in text


@pytest.mark.parametrize("name", queries.names("canned"))
def test_every_canned_query_page(client, demo, name):
    app, analysis = demo
    q = queries.load(name)
    form = get(client, f"/queries/{name}")
    assert str(escape(q.answers)) in form
    assert str(escape(q.statements[0])) in form  # the Cypher text is shown
    for p in q.parameters:
        assert f'name="{p.name}"' in form
        if p.default is not None:
            assert f'value="{p.default}"' in form or p.type == "boolean"
    params = params_for(app, analysis, name)
    text = get(client, f"/queries/{name}?" + "&".join(f"{k}={quote(str(v))}" for k, v in params.items()))
    assert "Result:" in text
    # The demo has no stragglers nor saved explanations: tests/test_hound_graph.py and
    # tests/test_perfxplain_web.py run those queries on workloads that have.
    if name not in ("victim_culprit_queries", "victim_culprit_stages", "culprit_victims", "toward_culprits",
                    "stragglers_skewed_stages", "stragglers_hosts_by_cause", "perfxplain_explanations"):
        assert 'id="result"' in text, name


def test_canned_query_errors(client, demo):
    analysis = demo[1]
    assert "parameter $k" in get(client, f"/queries/victims?analysis={analysis}&k=ten", 400)
    for bad in ("-1", "1001", "1.5", "1e3", ""):  # a bad value is the user's mistake: 400, never 503
        if bad:
            text = get(client, f"/queries/victims?analysis={analysis}&k={quote(bad)}", 400)
            assert "parameter $k" in text and "Graph database" not in text, bad
    assert "parameter $level" in get(client, f"/queries/victim_level?analysis={analysis}&victim=x&level=-3", 400)
    # Values the query does not take (they answered "No rows"), and an analysis not loaded.
    assert "parameter $level must be an integer from 1 to 4, not &#39;7&#39;" in get(
        client, f"/queries/victim_level?analysis={analysis}&victim=x&level=7", 400)
    assert "parameter $k must be an integer of at least 1, not &#39;0&#39;" in get(
        client, f"/queries/top_paths?analysis={analysis}&victim=x&k=0", 400)
    assert "parameter $order must be one of blocked, slowdown" in get(
        client, f"/queries/victims?analysis={analysis}&order=x", 400)
    assert "no analysis &#39;nope&#39; is loaded" in get(client, "/queries/victims?analysis=nope", 404)
    assert "parameter $min_weight must be a finite number" in get(
        client, f"/queries/stragglers_skewed_stages?analysis={analysis}&min_weight=nan", 400)
    assert "must be an integer, not" in get(client, f"/queries/victims?analysis={analysis}&k=ten", 400)
    # Times read as dates, not 1.795e+09 (the analyses' times too: a web audit), and nothing in e-notation.
    for page in (f"/queries/victims?analysis={analysis}", "/queries/analyses?status=complete"):
        text = get(client, page)
        assert re.search(r"<td>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d</td>", text), page
        assert not re.search(r"<td>-?[\d.]+e[+-]\d+</td>", text), page  # a cell of a number, not the JSON of a list
    assert "no parameter" in get(client, f"/queries/victims?analysis={analysis}&bogus=1", 400)
    # A "+" typed into the address bar arrives as a space: read as the "+" it was.
    assert "Result:" in get(client, f"/queries/stragglers_hosts_by_cause?analysis={analysis}&cause=input&sign=+")
    assert "parameter $sign must be one of +, -, not &#39;  &#39;" in get(
        client, f"/queries/stragglers_hosts_by_cause?analysis={analysis}&cause=input&sign=++", 400)
    assert "parameter $victim is required" in get(client, f"/queries/top_paths?analysis={analysis}", 400)
    assert "no canned query" in get(client, "/queries/nope", 404)
    assert "not a canned query" in get(client, "/queries/write_deep_and_blame", 404)
    assert "no canned query" in get(client, "/queries/Bad.Name", 404)
    # A victim named as the CLI takes it (a name, key or words of its description), not only by its
    # uid: the form said "0 rows" for a victim that has blame
    analysis = demo[1]
    assert 'id="result"' in get(client, f"/queries/victim_blame?analysis={analysis}&victim=nightly-report")
    assert "matches 4 queries" in get(client, f"/queries/victim_blame?analysis={analysis}&victim=SELECT", 400)
    # An analysis that is not loaded is a 404 wherever one is named (the Neo4j Browser index listed none)
    assert "is loaded; the overview page lists them" in get(client, "/neo4j-browser/?analysis=nope", 404)
    get(client, "/queries/..%2Fsettings", 404)


def test_neo4j_browser_command_uses_the_same_cypher(demo):
    app, analysis = demo
    q = queries.load("top_paths")
    bound = q.bind({"analysis": analysis, "victim": "it's \"quoted\""})
    command = canned.browser_command(q, bound)
    assert command.splitlines()[0] == f':param analysis => "{analysis}"'
    assert ':param victim => "it\'s \\"quoted\\""' in command
    assert ":param k => 5" in command
    assert command.endswith(q.statements[-1] + ";")
    with app.test_request_context("/queries/top_paths", base_url="http://example.test:5000"):
        url = canned.browser_url(command)
    assert url.startswith("http://example.test:7474/browser/?cmd=edit&arg=%3Aparam+analysis")


# ------------------------------------------------------------------ errors and empty state

def test_not_found_pages(client, demo):
    app, analysis = demo
    assert "no analysis" in get(client, "/analysis/nope", 404)
    assert "no victim query" in get(client, victim_url(analysis, "nope"), 404)
    assert "no victim query" in get(client, victim_url(analysis, "nope", "/methods"), 404)
    assert "no analysis" in get(client, victim_url("nope", "x"), 404)
    assert "Not found" in get(client, "/no/such/page", 404)
    assert "parameter k" in get(client, f"/analysis/{analysis}?k=0", 400)


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
def test_empty_state(empty):
    client = empty.test_client()
    text = get(client, "/")
    assert "No analysis is loaded yet" in text
    assert "protoxplore load PATH" in text and "protoxplore demo" in text
    assert "protoxplore demo" in get(client, "/analysis/a123", 404)
    assert "No rows." in get(client, "/queries/analyses")
    get(client, "/queries")


# ------------------------------------------------------------------ hostile trace strings

@pytest.mark.slow
def test_hostile_descriptions_are_escaped_everywhere(hostile):
    app, analysis = hostile
    client = app.test_client()
    rows = victims(app, analysis)
    assert any("<script>alert(1)</script>" in v["description"] for v in rows)  # the payloads are in the store
    assert all("<svg onload" in v["name"] for v in rows)
    urls = hostile_pages(client, app, analysis)
    assert len(urls) > 30
    shown = 0
    for url in urls:
        text = computed(client, url)  # the methods columns and what-ifs as they end up, not "computing"
        for raw in RAW:
            assert raw not in text, (url, raw)
        shown += "&lt;script&gt;alert(1)&lt;/script&gt;" in text
        for fig in figures(text):  # figure strings are escaped for Plotly too
            blob = json.dumps(fig)
            assert "<script" not in blob and "<img" not in blob and "<svg" not in blob
    assert shown > 5
    victim_page = get(client, victim_url(analysis, rows[0]["uid"]))
    assert "{{7*7}}" in victim_page  # shown literally, never evaluated as a template
    assert "&#39;O&#39;&#39;Brien&#39;" in get(client, f"/analysis/{analysis}")


# ------------------------------------------------------------------ app plumbing

def test_templates_read_row_keys_as_jinja_does(demo):
    """The app's template environment finds a row's keys without Jinja's exception per lookup, and
    keeps Jinja's meaning: a missing key is undefined, a dict's own methods stay methods even when the
    row has a key of that name (a culprit query named "get" in the windows page's ``w.dor.get(name)``)."""
    from flask import render_template_string
    with demo[0].test_request_context():
        text = render_template_string("{{ r.name }}|{{ r.missing is undefined }}|{{ r.get('name') }}|{{ r.items()|list|length }}",
                                      r={"name": "x", "get": 1, "items": 2})
    assert text == "x|True|x|3"


@pytest.mark.slow
def test_a_template_naming_a_value_no_view_gave_fails_in_tests(demo):
    """Every app the tests make (and the one the browser walks) renders with StrictUndefined: a blank
    where a number should be (the culprit page's total DOR once) fails a test instead of showing."""
    from flask import render_template_string
    from jinja2 import StrictUndefined
    from jinja2.exceptions import UndefinedError
    with demo[0].test_request_context("/"):
        assert render_template_string("{{ given }}", given=0.5) == "0.5"
        with pytest.raises(UndefinedError, match="not_given"):
            render_template_string("{{ not_given }}")
    running = Running(demo[0])  # the server the browser walks
    try:
        assert running.app.jinja_env.undefined is demo[0].jinja_env.undefined is StrictUndefined
    finally:
        running.stop()


@pytest.mark.slow
def test_servers_started_and_stopped_in_turn_never_close_each_others_sockets(demo):
    """A server stopped while its loop still ran (its sockets closed from two threads) closed
    descriptors that the next server had taken: "Bad file descriptor" in CI. Stopped as
    ``Running.stop`` does, 60 servers in a row leave every loop clean."""
    import threading
    failures = []
    hook, threading.excepthook = threading.excepthook, failures.append
    try:
        for _ in range(60):
            Running(demo[0]).stop()
    finally:
        threading.excepthook = hook
    assert [str(f.exc_value) for f in failures] == []


def test_one_store_per_app(demo):
    settings = demo[0].config["SETTINGS"]
    app = create_app({"SETTINGS": settings, "TESTING": True})
    holder = app.extensions["protoxplore"]
    assert holder._store is None  # opened lazily
    client = app.test_client()
    get(client, "/")
    first = holder._store
    assert first is not None
    get(client, "/queries/analyses")
    assert holder._store is first
    close_store(app)
    assert holder._store is None


def test_config_from_environment_names(web_home, monkeypatch):
    monkeypatch.setenv("PROTOXPLORE_GRAPH", "from-env")
    app = create_app({"PROTOXPLORE_HOME": str(web_home)})
    assert app.config["SETTINGS"].graph == "from-env" and app.config["SETTINGS"].home == web_home
    app = create_app({"PROTOXPLORE_HOME": str(web_home), "PROTOXPLORE_GRAPH": "override"})
    assert app.config["SETTINGS"].graph == "override"


def test_serve_binds_localhost_by_default(demo):
    assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"
    server = make_server(port=0, app=create_app({"SETTINGS": demo[0].config["SETTINGS"]}))
    try:
        assert server.host == "127.0.0.1" and server.port > 0
    finally:
        server.server_close()


SECURITY_HEADERS = ("Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy")


def test_security_headers_on_every_response(client, demo):
    app, analysis = demo
    victim = victims(app, analysis)[0]
    responses = [client.get(url) for url in ("/", "/vendor/plotly.min.js", "/static/app.js", "/queries/victims",
                                              "/no/such/page", f"/analysis/{analysis}?k=0")]
    responses += [client.post(victim_url(analysis, victim["uid"], "/windows"), data={"windows": "1"}),  # 403
                  client.get("/", headers={"Host": "evil.example"}),  # 400
                  client.delete("/", headers={"Origin": "http://localhost"})]  # 405
    assert [r.status_code for r in responses] == [200, 200, 200, 200, 404, 400, 403, 400, 405]
    for response in responses:
        assert all(response.headers.get(h) for h in SECURITY_HEADERS), response.status_code
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        csp = response.headers["Content-Security-Policy"]
        assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp and "unsafe-eval" not in csp
        response.close()


def test_host_header_must_name_this_server(client):
    for host in ("localhost", "127.0.0.1", "[::1]", "LOCALHOST", "127.0.0.1:5000"):
        assert client.get("/queries", headers={"Host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:5000", "127.0.0.1.evil.example", "localhost.", "[::2]", "a@localhost",
                 "localhost:99999", "local host"):
        response = client.get("/queries", headers={"Host": host})
        assert response.status_code == 400, host
        assert "does not name this server" in response.get_data(as_text=True) or "malformed Host" in \
            response.get_data(as_text=True), host


def raw_get(port: int, host_header: str) -> tuple[int, dict]:
    """A GET over a real socket with a Host header of our choosing (urllib would set its own)."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("GET", "/queries", skip_host=True)
        connection.putheader("Host", host_header)
        connection.endheaders()
        response = connection.getresponse()
        response.read()
        return response.status, dict(response.getheaders())
    finally:
        connection.close()


def test_waitress_serves_and_checks_host_and_port(demo):
    import threading
    app = create_app({"SETTINGS": demo[0].config["SETTINGS"], "TESTING": True})
    server = make_server("127.0.0.1", 0, app=app, extra_hosts=("protoxplore.internal", "127.0.0.1:8080"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.port
        status, headers = raw_get(port, f"127.0.0.1:{port}")
        assert status == 200 and headers["Server"] == "waitress"
        assert all(h in headers for h in SECURITY_HEADERS)
        for good in (f"localhost:{port}", f"[::1]:{port}", f"protoxplore.internal:{port}",
                     "127.0.0.1:8080"):  # as behind a port mapped by Docker
            assert raw_get(port, good)[0] == 200, good
        for bad in (f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}", f"rebind.attacker.test:{port}",
                    "protoxplore.internal:8080", "localhost:8080"):
            assert raw_get(port, bad)[0] == 400, bad
    finally:
        server.shutdown()
        thread.join(30)
    assert not thread.is_alive()
    with pytest.raises(ValueError, match="--allow-host 'a b' is not a host name"):
        make_server("127.0.0.1", 0, app=app, extra_hosts=("a b",))


def run_serve(home, *args: str, page: str | None = None) -> tuple[str, str]:
    """``protoxplore serve`` as a real process: its first lines (and ``page``'s body, fetched), then
    Ctrl-C (SIGINT)."""
    import os
    import signal
    import subprocess
    import sys
    import time
    process = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "serve", "--port", "0", *args],
                               env={**os.environ, "PROTOXPLORE_HOME": str(home), "PROTOXPLORE_NEO4J_URI": ""},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert "ProtoXplore explorer on http://" in line, process.stderr.read()
        port = int(line.split("://")[1].split("/")[0].rsplit(":", 1)[1])
        time.sleep(0.2)
        status, headers = raw_get(port, f"127.0.0.1:{port}")
        assert status == 200 and headers["Server"] == "waitress"
        if page is not None:
            import urllib.request
            line += urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=60).read().decode()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        return line + out, err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow  # protoxplore serve as a process
@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)  # run_serve serves the embedded engine
def test_serve_links_to_the_neo4j_browser_it_is_told(demo, monkeypatch):
    """tools/neo4j/run.sh serves Browser on a free port: `serve --neo4j-browser-url` is where the
    pages' links go (the setting was reachable from Python only)."""
    settings = demo[0].config["SETTINGS"]
    monkeypatch.setenv("PROTOXPLORE_GRAPH", settings.graph)  # the demo's graph, which lists victims
    out, _ = run_serve(settings.home, "--neo4j-browser-url", "http://127.0.0.1:7999/browser/", page="/neo4j-browser/")
    assert "http://127.0.0.1:7999/browser/?" in html.unescape(out) and ":7474/" not in out


def test_serve_warns_beyond_loopback(web_home):
    out, err = run_serve(web_home)
    assert "warning" not in err.lower()
    out, err = run_serve(web_home, "--host", "0.0.0.0", "--allow-host", "box.lan")
    assert "warning: serving on 0.0.0.0, beyond this machine" in err and "--allow-host" in err


def test_a_get_never_writes_what_a_dead_writer_left_is_removed_by_a_command(demo):
    """An analysis a killed load left 'loading' stays as it is while pages are read (a GET never
    writes: the app's store opens without recovering, and readers see published analyses only); the
    next command (and ``serve`` as it starts) removes it."""
    from protoxplore.storage import lifecycle

    settings, aid = demo[0].config["SETTINGS"], "deadwriter01"
    with open_store(settings) as store:
        with locks.writing(settings.home, aid):  # the writer's lock is gone once this ends: a dead writer
            lifecycle.begin(store, aid, {"name": "killed load"}, say=lambda m: None)
    left = "MATCH (a:Analysis {id: $a}) RETURN a.status AS status"
    app = create_app({"SETTINGS": settings, "TESTING": True})
    try:
        with app.test_client() as fresh:
            for url in ("/", f"/analysis/{demo[1]}", "/queries/"):
                get(fresh, url)
        with open_store(settings, recover=False) as store:
            assert store.run_text(left, {"a": aid}) == [{"status": "loading"}]
    finally:
        close_store(app)
    with open_store(settings) as store:  # as every command opens it
        assert store.run_text(left, {"a": aid}) == []


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
@pytest.mark.slow
def test_engine_down_gives_503_with_the_fix_then_recovers(tmp_path_factory, settings):
    """Stop the real engine under a running app: 503 naming `protoxplore engine start` (not 500), and
    the app does not start the engine behind the user's back; after `engine start`, pages work again."""
    home = tmp_path_factory.mktemp("webdown")
    settings, analysis = load(dataclasses.replace(settings, home=home), "webdown", *synth.demo_workload())
    app = create_app({"SETTINGS": settings, "TESTING": True, "PAGE_CACHE_SIZE": 0})
    engine = EmbeddedEngine(home)
    try:
        client = app.test_client()
        get(client, f"/analysis/{analysis}")
        assert engine.stop()
        for url in (f"/analysis/{analysis}", "/", "/queries/analyses", f"/analysis/{analysis}"):
            text = get(client, url, 503)
            assert "run `protoxplore engine start" in text.lower() and f"engine start --home {home}`" in text, url
        assert not engine.running()  # the app did not restart it
        from protoxplore.cli.commands import main
        assert main(["engine", "start", "--home", str(home)]) == 0
        assert analysis in get(client, f"/analysis/{analysis}")  # the saved analysis is back
        kill = engine.pid()  # a server that dies (kill -9) is the same to the app
        import os
        import signal
        os.kill(kill, signal.SIGKILL)
        assert "engine start" in get(client, "/", 503)
    finally:
        close_store(app)
        engine.stop()


@pytest.mark.slow
def test_no_stale_pages_after_a_delete_and_a_reload(web_settings):
    """Issue 14 item 4: pages viewed while an analysis is being deleted must not be served again once
    the same logs are loaded again (same id): the cache is keyed on the analysis's creation time."""
    from protoxplore.storage.lifecycle import delete as delete_analysis
    settings, web_home = dataclasses.replace(web_settings, graph="webreload"), web_settings.home
    logdir = web_home / "logs-webreload"
    logdir.mkdir()
    synth.write_event_log(synth.simulate(*synth.demo_workload()), synth.demo_workload()[1], logdir / "eventlog",
                          app_id="app-webreload")  # logs of their own: an analysis of its own on Neo4j

    def load_again():
        with open_store(settings) as store:
            store.apply_schema()
            return pipeline.load_paths(store, pipeline.LoadRequest((str(logdir / "eventlog"),)), web_home, pipeline.QUIET)[0]

    analysis = load_again()
    app = create_app({"SETTINGS": settings, "TESTING": True})
    fresh = create_app({"SETTINGS": settings, "TESTING": True, "PAGE_CACHE_SIZE": 0})  # the truth, uncached
    try:
        client = app.test_client()
        victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
        urls = [f"/analysis/{analysis}", victim_url(analysis, victim["uid"]),
                f"/queries/aggressive_culprits?analysis={analysis}", victim_url(analysis, victim["uid"], "/methods")]
        column = victim_url(analysis, victim["uid"], "/methods?column=counterfactual&k=10")
        computations = fresh.extensions["protoxplore.computations"]  # kept results, even without a page cache
        assert "synthetic:sql-1" in computed(fresh.test_client(), column) and computations.runs == 1
        with open_store(settings) as store:  # a delete under way: most nodes gone, the analysis still listed
            store.run("analysis_delete", {"analysis": analysis, "limit": 60}, write=True)
        during = [client.get(url) for url in urls]  # viewed during the delete: half-empty pages, or 404
        assert [r.status_code for r in during] == [200, 404, 200, 404]
        assert "etl-load" not in during[2].get_data(as_text=True)
        with open_store(settings) as store:
            delete_analysis(store, analysis)
        assert "no analysis" in get(client, urls[0], 404)
        assert load_again() == analysis  # the same logs: the same id
        after = [get(client, url) for url in urls]
        truth = [get(fresh.test_client(), url) for url in urls]
        assert "etl-load" in after[0] and "Culprit 1: synthetic:sql-1" in after[1] and "etl-load" in after[2]
        for url, seen, right in zip(urls, after, truth):
            assert seen == right, url
        assert computed(fresh.test_client(), column) == computed(client, column)
        assert computations.runs == 2  # the re-loaded analysis's column was computed afresh
    finally:
        close_store(app)
        close_store(fresh)


@pytest.mark.slow
def test_pages_answer_while_another_process_loads(web_settings, tmp_path):
    """What held in issue 14 and must keep holding: pages keep answering, without an error, while a
    `protoxplore load` in another process writes into the same store; then the new analysis is listed."""
    import os
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    import numpy as np
    settings, analysis = load(web_settings, "webduring", *synth.demo_workload())
    queries, cluster = synth.random_workload(np.random.default_rng(5), 60)
    log = synth.write_event_log(synth.simulate(queries, cluster), cluster, tmp_path / "busy")
    env = dict(os.environ, PROTOXPLORE_HOME=str(settings.home), PROTOXPLORE_GRAPH=settings.graph,
               PROTOXPLORE_NEO4J_URI=settings.neo4j_uri, PROTOXPLORE_NEO4J_USER=settings.neo4j_user,
               PROTOXPLORE_NEO4J_PASSWORD=settings.neo4j_password, PROTOXPLORE_NEO4J_DATABASE=settings.neo4j_database)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    running = Running(app)
    victim = victims(app, analysis)[0]["uid"]
    urls = ["/", f"/analysis/{analysis}", victim_url(analysis, victim), "/queries/analyses"]
    statuses = []
    try:
        loader = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "load", str(log)], env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        while loader.poll() is None:
            for url in urls:
                try:
                    with urllib.request.urlopen(running.base + url, timeout=60) as response:
                        statuses.append(response.status)
                except urllib.error.HTTPError as exc:
                    statuses.append(exc.code)
        assert loader.returncode == 0, loader.stderr.read()
        assert len(statuses) >= len(urls) and set(statuses) == {200}, statuses
        with app.app_context():
            from protoxplore.webapp import get_store
            assert [r["sources"] for r in get_store().run("analyses", {"status": "complete"})
                    if r["sources"] == [str(log)]] == [[str(log)]]  # listed once, complete
    finally:
        running.stop()
        close_store(app)


def test_page_cache_computes_once_for_concurrent_requests_and_stays_bounded():
    """Ten requests that miss the same entry at once compute it once (no thundering herd on the
    database), an error is not cached, and the cache holds at most its size."""
    import threading
    import time

    from protoxplore.webapp.db import PageCache
    cache = PageCache(3)
    a = {"id": "a1", "created": 1.0, "status": "complete"}
    calls = []

    def compute():
        calls.append(1)
        time.sleep(0.2)
        return [{"rows": 1}]

    threads = [threading.Thread(target=cache.get, args=(a, ("k",), compute)) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    with pytest.raises(ZeroDivisionError):
        cache.get(a, ("bad",), lambda: 1 / 0)
    assert cache.get(a, ("bad",), lambda: 2) == 2
    assert cache.get(a, ("k",), compute) is cache.get(a, ("k",), compute) and len(calls) == 1  # shared, not copied
    assert cache.get(dict(a, created=2.0), ("k",), compute) and len(calls) == 2  # a re-load: computed afresh
    assert cache.get(dict(a, status="loading"), ("x",), lambda: 3) == 3 and len(cache) == 3
    for i in range(10):
        cache.get(a, (i,), lambda i=i: i)
    assert len(cache) == 3


def column_rows(text: str) -> list[tuple[str, str]]:
    """(culprit, score) of a methods column, in order, as shown."""
    return [(html.unescape(name), score) for name, score in re.findall(
        r"<tr><td>\d+</td><td>([^<]+?)(?: <span class=\"sql\">[^<]*</span>)?</td><td>([^<]+)</td></tr>", text)]


@pytest.mark.slow
def test_the_counterfactual_column_is_computed_once_in_the_background(demo, monkeypatch, capsys):
    """Issue 14's web target: ten clients asking at once for the methods page's counterfactual
    column (a minute of replays at paper scale) are each answered at once, 202 "computing", while
    ONE computation runs in the background; asked again, the column has the numbers of `protoxplore
    explain --method counterfactual --json`. Real HTTP to the app served by Waitress."""
    import threading
    import urllib.error
    import urllib.request

    from protoxplore.cli.commands import main
    app, analysis = demo
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    running = Running(app)
    computations = running.app.extensions["protoxplore.computations"]
    url = running.base + victim_url(analysis, victim["uid"], "/methods?column=counterfactual&k=10")
    start, answers = threading.Barrier(10), []

    def ask():
        start.wait()
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                answers.append((response.status, response.read().decode()))
        except urllib.error.HTTPError as exc:
            answers.append((exc.code, exc.read().decode()))

    try:
        clients = [threading.Thread(target=ask) for _ in range(10)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        assert computations.runs == 1  # ten requests, one computation
        assert len(answers) == 10 and {status for status, _ in answers} <= {200, 202}
        assert 202 in {status for status, _ in answers}  # the first answer came before the replays ended
        for status, text in answers:
            if status == 202:
                assert "Computing from the saved trace" in text and "<table" not in text
        column = computed(running.app.test_client(), url)  # asked again, as the page does
        assert computations.runs == 1  # the answer is kept: asking again computes nothing
    finally:
        running.stop()
    settings = app.config["SETTINGS"]
    for name, value in (("URI", settings.neo4j_uri), ("USER", settings.neo4j_user),
                        ("PASSWORD", settings.neo4j_password), ("DATABASE", settings.neo4j_database)):
        monkeypatch.setenv(f"PROTOXPLORE_NEO4J_{name}", value)
    monkeypatch.setenv("PROTOXPLORE_GRAPH", settings.graph)
    capsys.readouterr()
    assert main(["explain", "--victim", "nightly-report", "--method", "counterfactual", "--top", "10",
                 "--analysis", analysis, "--home", str(settings.home), "--json"]) == 0
    ranking = json.loads(capsys.readouterr().out)["culprit_queries"]
    assert ranking and column_rows(column) == [(c["name"], show.number(c["blame_s"])) for c in ranking]


@pytest.mark.slow
def test_background_computations_are_bounded_and_forget_failures(tmp_path):
    """The queue of computations is as long as the kept results at most (the least recently asked
    for, still queued, is cancelled); a failure is not kept; a re-loaded analysis computes afresh."""
    import time

    from protoxplore.webapp.computations import Computations
    computations = Computations(workers=1, size=2)
    a = {"id": "a1", "created": 1.0, "status": "complete"}
    started, release = tmp_path / "started", tmp_path / "release"

    def done(key):
        """The result for ``key``, asked for again (as a page does) until it is there."""
        deadline = time.monotonic() + 60
        while (result := computations.get(a, key, web.same, "not started")) is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        return result

    try:
        assert computations.get(a, ("block",), web.wait_for_file, str(started), str(release)) is None
        deadline = time.monotonic() + 60
        while not started.exists():  # the one worker is busy: what comes next is queued
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert computations.get(a, ("x",), web.same, "x") is None
        assert computations.get(a, ("y",), web.same, "y") is None  # drops "block" (running: it finishes) ...
        assert computations.get(a, ("z",), web.same, "z") is None  # ... then "x", cancelled in the queue
        release.touch()
        assert done(("y",)) == "y" and done(("z",)) == "z" and computations.runs == 4
        assert computations.get(a, ("x",), web.same, "x again") is None and computations.runs == 5  # asked again
        assert done(("x",)) == "x again"
        assert computations.get(dict(a, created=2.0), ("x",), web.same, "x2") is None  # a re-load: computed afresh
        assert computations.get(a, ("bad",), divmod, 1, 0) is None
        with pytest.raises(ZeroDivisionError):
            done(("bad",))
        assert computations.get(a, ("bad",), web.same, 2) is None  # not kept: started again
        assert done(("bad",)) == 2 and computations.runs == 8
    finally:
        computations.close()


@pytest.mark.slow
def test_background_computations_run_in_a_process_of_their_own_that_may_die():
    """A computation holds neither the server's interpreter lock nor its connection: it runs in
    another process. When that process dies mid-computation the requests see an error (not
    "computing" for ever), and the next request computes in a new process."""
    import time

    from protoxplore.errors import ComputationLost
    from protoxplore.webapp.computations import Computations
    computations = Computations(workers=1, size=8)
    a = {"id": "a1", "created": 1.0, "status": "complete"}

    def done(key, function):
        deadline = time.monotonic() + 60
        while (result := computations.get(a, key, function)) is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        return result

    try:
        first = done(("pid",), web.process_id)
        assert first != os.getpid()
        with pytest.raises(ComputationLost, match="reload the page"):
            done(("die",), web.exit_at_once)
        assert done(("pid again",), web.process_id) not in (first, os.getpid())
    finally:
        computations.close()


def test_pages_leave_cached_rows_unchanged(demo):
    """Cached rows are shared by every request (no copies): a page that changed them would change
    the next page's answer. Every row the cache holds after the pages are viewed is as the database gave it."""
    app, analysis = demo
    client = app.test_client()
    victim = next(v for v in victims(app, analysis) if "nightly-report" in v["description"])
    text = get(client, victim_url(analysis, victim["uid"]))
    for _level, url in walk_links(text)[:1]:
        text = get(client, url)
    culprit = re.search(r'href="(/analysis/[^"]+/culprit/[^"]+)"', get(client, f"/analysis/{analysis}")).group(1)
    get(client, html.unescape(culprit))
    entries = app.extensions["protoxplore.cache"]._entries
    assert entries
    for key, rows in entries.items():
        if key[2] == "run":
            assert all("url" not in row for row in rows), key


# ------------------------------------------------------------------ Neo4j Browser guide

def test_neo4j_browser_guide_is_up_to_date():
    from pathlib import Path

    from protoxplore.webapp import guide
    committed = (Path(__file__).resolve().parents[1] / "docs" / "neo4j-browser-guide.md").read_text()
    assert committed == guide.generate(), "run: python -m protoxplore.webapp.guide > docs/neo4j-browser-guide.md"
    blocks = re.findall(r"`cypher/(\w+)\.cypher`\)\n.*?```cypher\n(.*?)\n```", committed, re.S)
    assert {"slow_nodes", "hot_resources", "top_paths", "victim_level", "aggressive_culprits"} <= {n for n, _ in blocks}
    for name, text in blocks:
        assert text == ";\n".join(queries.load(name).statements) + ";"
        for p in queries.load(name).parameters:
            assert f":param {p.name} => " in committed




def test_sankey_tells_long_host_names_apart_in_every_column():
    """A web audit: with long host names cut alike, "slots on …mple.corp #1" was one host in one column
    and the other in the next (numbered in the order nodes came). Labels now keep where the names
    differ (and any still alike are numbered by full name, alike in every column)."""
    hosts = [f"analytics-worker-node-{i}.datacenter-eu-west.example.corp" for i in (2, 1)]  # host 2's path first
    paths = [{"uids": [f"cq{i}", f"cs{i}", f"be{i}", f"de{i}", f"ie{i}", f"vs{i}", "vq"],
              "names": ["app:sql-9", "app:sql-9 stage 3", f"stage 3 on SLOTS@{host}", f"SLOTS on {host}", "SLOTS",
                        "app:sql-1 stage 0", "app:sql-1"], "weight": 1.0 - i / 10, "self": False}
             for i, host in enumerate(hosts)]
    node = charts.sankey(paths)["data"][0]["node"]
    label = dict(zip(node["customdata"], node["label"]))
    for column in ("SLOTS on {}", "stage 3 on SLOTS@{}"):  # cut from where the hosts differ: told apart
        one, two = (label[column.format(host)] for host in (hosts[1], hosts[0]))
        assert one != two and "-1" in one and "-2" in two, label


def test_timeline_idle_gap_labels_close_together_take_different_lines():
    """A web audit: four idle gaps between short spells after a long one printed over each other
    ("245.5 days idl519.1 days idle"); two labels closer than a tenth of the axis take different lines.
    Three runs of one application name get their rows told apart by their application ids."""
    day = 86400.0
    spans = [(0.0, 1000.0)] + [(1000.0 + k * 300 * day, 1001.0 + k * 300 * day) for k in range(1, 5)]
    rows = [{"name": "etl:sql-0", "app_key": f"spark-110be3a8c0ffee-{k}-0123456789abcdef0123456789", "start_time": a,
             "end_time": b,
             "description": "x"} for k, (a, b) in enumerate(spans)]
    figure = charts.timeline(rows, 0.0)
    notes = figure["layout"]["annotations"]
    assert [n["text"] for n in notes] == ["300.0 days idle"] * 4
    width = max(bar["base"][0] + bar["x"][0] for bar in figure["data"])
    for before, after in zip(notes, notes[1:]):
        assert after["x"] - before["x"] < width / 10 and after["yshift"] != before["yshift"]
    ticks = figure["layout"]["yaxis"]["ticktext"]
    assert len(set(ticks)) == len(ticks) == 5, ticks

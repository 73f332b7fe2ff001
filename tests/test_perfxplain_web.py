"""The compare page (PerfXplain) through Flask's test client, on each real engine: from a victim page,
"compare with another run of this query", pick a run of another analysis, read the explanation the
CLI prints (one code path: ``protoxplore.service.compare.ask``) with both runs' features side by side,
and save it in the graph by POST (GET never writes).

The home holds two analyses of the nightly report of tests/handmade.py (runs 0-7 and 8-15; run i
under NIGHTLY_CONDITIONS[i % 4]), loaded by the CLI.
"""
from __future__ import annotations

import dataclasses
import html
import json
import re

import pytest

from protoxplore import show
from protoxplore.cli.commands import main
from protoxplore.loader.compare.pxql import value_text
from protoxplore.storage.store import open_store
from protoxplore.webapp import close_store, create_app

from commands import printed
from handmade import NIGHTLY_CONDITIONS, nightly_run
from logs import REAL
from web import computed, get, victim_url

ORIGIN = {"Origin": "http://localhost"}


@pytest.fixture(scope="module")
def nights(nightly_home, engine_env):
    home, ids = nightly_home("compare", (0, 8), 8)
    app = create_app({"SETTINGS": dataclasses.replace(engine_env, home=home), "TESTING": True})
    runs = {}
    for aid in ids:
        for v in json.loads(printed("victims", "--analysis", aid, "--top", "100", "--json", "--home", home)):
            runs[v["name"]] = (aid, v["uid"])
    yield app, home, runs
    close_store(app)


def saved_explanations(app, analysis: str) -> list[dict]:
    with app.app_context():
        from protoxplore.webapp import get_store
        return get_store().run("perfxplain_explanations", {"analysis": analysis, "k": 100})


@pytest.mark.slow
def test_victim_page_lists_the_other_runs_of_its_query(nights):
    app, _, runs = nights
    client = app.test_client()
    aid, uid = runs["app-nightly-0001:sql-0"]
    page = get(client, victim_url(aid, uid))
    link = html.unescape(re.search(r'id="compare-link" href="([^"]*)"', page).group(1))
    listing = computed(client, link)
    table = listing.split('id="other-runs"')[1].split("</table>")[0]
    names = re.findall(r"<td>(app-nightly-\d+:sql-0)</td>", table)
    assert sorted(names) == sorted(n for n in runs if n != "app-nightly-0001:sql-0") and len(names) == 15
    assert len(re.findall(r'class="compare-link"', table)) == 15


@pytest.mark.slow
def test_compare_page_explains_as_the_cli_does_with_both_runs_side_by_side(nights):
    app, home, runs = nights
    client = app.test_client()
    # run 0 (first analysis: 8 partitions, small input) against run 9 (second analysis: 8 partitions,
    # large input, 3x slower): the page asks why-slower with the slower run first
    aid, uid = runs["app-nightly-0000:sql-0"]
    other_aid, other_uid = runs["app-nightly-0009:sql-0"]
    listing = computed(client, victim_url(aid, uid, "/compare"))
    link = next(html.unescape(h) for h in re.findall(r'class="compare-link" href="([^"]*)"', listing)
                if other_uid.rsplit("/", 2)[-2] in html.unescape(h))
    runs_before = app.extensions["protoxplore.computations"].runs
    page = computed(client, link)  # the explanation is learned in the background, once
    assert app.extensions["protoxplore.computations"].runs == runs_before + 1 and computed(client, link) == page
    e = json.loads(printed("why-slower", f"{other_aid}:{other_uid}", f"{aid}:{uid}", "--json", "--home", home))
    sentence = re.search(r'id="sentence">([^<]*)<', page).group(1)
    assert html.unescape(sentence) == e["sentence"] and "app-nightly-0009:sql-0 was slower than" in e["sentence"]
    assert e["because"][0]["feature"].startswith("input_bytes")
    clauses = page.split('id="clauses"')[1].split("</table>")[0]
    assert len(re.findall(r'data-clause="because"', clauses)) == len(e["because"])
    rows = [[html.unescape(x) for x in re.findall(r"<td>([^<]*)</td>", row)]
            for row in re.findall(r'<tr data-clause="[a-z]+">(.*?)</tr>', clauses)]
    assert rows == [[clause, p["feature"], p["op"], value_text(p["value"])]
                    for clause in ("despite", "because") for p in e[clause]]
    metrics = page.split('id="metrics"')[1].split("</table>")[0]
    assert f"<td>{e['precision']:.2f}</td>" in metrics and f"<td>{e['examples']}</td>" in metrics
    # the features side by side: the named ones first, the slower run (A) in the first column
    features = page.split('id="features"')[1].split("</table>")[0]
    first_row = re.search(r'<tr class="named" data-feature="([^"]+)"><td><b>[^<]+</b></td><td>([^<]*)</td><td>([^<]*)</td>',
                          features)
    assert first_row.group(1) == "input_bytes"
    assert [first_row.group(2), first_row.group(3)] == ["300,000,000", "100,000,000"]  # not 3e+08
    assert e["features"]["input_bytes"] == [3e8, 1e8]
    assert 'data-feature="shuffle_partitions"' in features and 'data-feature="signature"' in features
    assert re.search(r'data-feature="duration_s"><td>duration_s</td><td>3.270</td><td>1.000</td>', features)
    # another method and question through the form's parameters
    page = computed(client, link + "&method=rule-of-thumb&question=why-same", 400)  # run 0 is not as fast as run 9
    # said on the compare page, whose form stays to ask the other question
    refused = html.unescape(re.search(r'id="refused">([^<]*)<', page).group(1))
    assert "does not perform as OBSERVED" in refused and "A took" in refused and 'id="question-form"' in page
    assert "more than 10% apart, the log counts them as different" in refused and "ask why-slower" in refused
    assert '<option value="why-same" selected>' in page and 'id="save-form"' not in page
    page = computed(client, link + "&method=sim-but-diff&width=2")
    assert "<td>sim-but-diff</td>" in page


def test_saving_is_a_post_from_the_page_and_get_never_writes(nights):
    app, home, runs = nights
    client = app.test_client()
    aid, uid = runs["app-nightly-0002:sql-0"]  # 64 partitions, small input
    other_aid, other_uid = runs["app-nightly-0008:sql-0"]  # 8 partitions, small input
    url = victim_url(aid, uid, "/compare")
    page = computed(client, f"{url}?with={other_uid}")
    assert 'id="save-form"' in page and 'id="saved"' not in page
    assert saved_explanations(app, aid) == []  # reading pages wrote nothing
    form = {"with": other_uid, "question": "", "method": "perfxplain", "width": "3"}
    assert client.post(url, data=form).status_code == 403  # not from one of our pages
    assert client.post(url, data=form, headers={"Origin": "http://evil.example"}).status_code == 403
    response = client.post(url, data=form, headers=ORIGIN)
    assert response.status_code == 303
    page = computed(client, response.headers["Location"])
    uid_saved = re.search(r'id="saved">Saved in the graph as explanation <code>([^<]+)</code>', page).group(1)
    stored = saved_explanations(app, aid)
    assert [r["uid"] for r in stored] == [html.unescape(uid_saved)] == [r["uid"] for r in saved_explanations(app, other_aid)]
    assert stored[0]["first"] == "app-nightly-0002:sql-0" and stored[0]["second"] == "app-nightly-0008:sql-0"
    assert html.unescape(re.search(r'id="sentence">([^<]*)<', page).group(1)) == stored[0]["sentence"]
    # posting again finds it; the canned query lists it
    assert client.post(url, data=form, headers=ORIGIN).status_code == 303
    assert len(saved_explanations(app, aid)) == 1
    listing = get(client, f"/queries/perfxplain_explanations?analysis={aid}&k=10")
    assert "app-nightly-0002:sql-0" in listing and 'id="result"' in listing


def test_bad_compare_parameters(nights):
    app, _, runs = nights
    client = app.test_client()
    aid, uid = runs["app-nightly-0000:sql-0"]
    _, other_uid = runs["app-nightly-0009:sql-0"]
    url = victim_url(aid, uid, "/compare")
    assert "parameter with" in computed(client, f"{url}?with=nope", 404)
    assert "parameter with" in computed(client, f"{url}?with={uid}", 404)  # not another run
    assert "parameter method" in computed(client, f"{url}?with={other_uid}&method=bogus", 400)
    assert "parameter width" in computed(client, f"{url}?with={other_uid}&width=99", 400)
    assert "parameter question" in computed(client, f"{url}?with={other_uid}&question=why", 400)
    assert client.post(url, data={"method": "perfxplain"}, headers=ORIGIN).status_code == 400


@pytest.mark.slow
def test_the_same_run_in_another_analysis_is_not_another_run(engine_env, tmp_path):
    """Runs 0 and 4 (the same conditions) as one analysis, then run 0 alone as another: from run 0,
    the compare page offers run 4, not run 0's copy (on Neo4j, other modules' runs may be listed too)."""
    home, logs = tmp_path / "home", tmp_path / "both"
    logs.mkdir()
    for i in (0, 4):
        nightly_run(logs, i, *NIGHTLY_CONDITIONS[i % 4])
    both = json.loads(printed("load", logs, "--name", "both", "--json", "--home", home))["id"]
    alone = json.loads(printed("load", logs / "run-0.json", "--name", "alone", "--json", "--home", home))["id"]
    app = create_app({"SETTINGS": dataclasses.replace(engine_env, home=home), "TESTING": True})
    try:
        victim = next(v for v in json.loads(printed("victims", "--analysis", both, "--json", "--home", home))
                      if v["name"] == "app-nightly-0000:sql-0")
        listing = computed(app.test_client(), victim_url(both, victim["uid"], "/compare"))
        names = re.findall(r"<td>(app-nightly-\d+:sql-0)</td>", listing.split('id="other-runs"')[1].split("</table>")[0])
        assert "app-nightly-0004:sql-0" in names and "app-nightly-0000:sql-0" not in names, names
        # nor can it be asked for by its uid
        copy = json.loads(printed("victims", "--analysis", alone, "--json", "--home", home))[0]["uid"]
        assert "parameter with" in computed(app.test_client(), victim_url(both, victim["uid"], "/compare")
                                            + f"?with={copy}", 404)
    finally:
        close_store(app)
        main(["engine", "stop", "--home", str(home)])  # on Neo4j: refused, nothing to stop


@pytest.mark.slow
def test_another_application_of_the_same_id_is_another_run(engine_env, tmp_path):
    """Two clusters both number an application app-nightly-0000: another start, other conditions, another
    run. Loaded as two analyses, the compare page of the one lists the other, and the log of past runs
    of a question keeps both (both were taken for copies of one run, and the second dropped)."""
    from protoxplore.service.compare import log_runs, one_copy_per_run

    home, one, other = tmp_path / "home", tmp_path / "one", tmp_path / "other"
    one.mkdir(), other.mkdir()
    # Run 0 in conditions no other test gives it: a shared Neo4j server holds the other tests' analyses,
    # and a log loaded in another home is "already loaded" there, without its trace saved in this one.
    nightly_run(one, 0, *NIGHTLY_CONDITIONS[3])
    log = nightly_run(other, 4, *NIGHTLY_CONDITIONS[1])  # four hours later, 64 partitions
    log.write_text(log.read_text().replace("app-nightly-0004", "app-nightly-0000"))
    ids = [json.loads(printed("load", logs, "--json", "--home", home))["id"] for logs in (one, other)]
    uids = [json.loads(printed("victims", "--analysis", a, "--json", "--home", home))[0]["uid"] for a in ids]
    settings = dataclasses.replace(engine_env, home=home)
    app = create_app({"SETTINGS": settings, "TESTING": True})
    try:
        listing = computed(app.test_client(), victim_url(ids[0], uids[0], "/compare"))
        listed = listing.split('id="other-runs"')[1].split("</table>")[0]
        assert html.escape(f"with={uids[1]}") in listed.replace("%7C", "|").replace("%2F", "/"), listed
        with open_store(settings) as store:
            kept = one_copy_per_run(log_runs(store, settings), [uids[0]])
        assert set(uids) <= set(kept["uid"]), kept[["uid", "run"]]
    finally:
        close_store(app)
        main(["engine", "stop", "--home", str(home)])  # on Neo4j: refused, nothing to stop


def loaded_runs(engine_env, home, path):
    """PerfXplain's log of past runs of a home where the CLI loaded ``path``."""
    from protoxplore.service.compare import log_runs

    printed("load", path, "--home", home)
    settings = dataclasses.replace(engine_env, home=home)
    try:
        with open_store(settings) as store:
            return log_runs(store, settings)
    finally:
        main(["engine", "stop", "--home", str(home)])  # on Neo4j: refused, nothing to stop


@pytest.mark.slow
@pytest.mark.parametrize("start", ["missing", "1e300"])
def test_an_application_without_a_usable_start_time_is_still_a_run(engine_env, tmp_path, start):
    """A log without its ApplicationStart event (cut, or converted), or with a start time no clock
    gives: its run is still in the log of past runs, beside another's (the log of every analysis
    raised TypeError, breaking every compare page and question of the home)."""
    home, logs = tmp_path / "home", tmp_path / "logs"
    logs.mkdir()
    nightly_run(logs, 0, *NIGHTLY_CONDITIONS[0])
    odd = nightly_run(logs, 4, *NIGHTLY_CONDITIONS[0])
    lines = odd.read_text().splitlines(keepends=True)
    started = [i for i, line in enumerate(lines) if "SparkListenerApplicationStart" in line]
    assert started
    for i in started:
        lines[i] = "" if start == "missing" else re.sub(r'"Timestamp": *\d+', '"Timestamp": "1e300"', lines[i])
    odd.write_text("".join(lines))
    runs = loaded_runs(engine_env, home, logs)
    assert len(runs) == 2 and runs["run"].is_unique, runs[["uid", "run"]]


@pytest.mark.slow
def test_a_stage_with_a_null_name_is_still_a_run(engine_env, tmp_path):
    """A real log (one job of three stages) whose first stage has "Stage Name": null: its query is
    still in the log of past runs (sorting the query's stage names, None beside text, raised TypeError
    for every compare page and question of the home)."""
    home, log = tmp_path / "home", tmp_path / "application_1506645932520_24630151"
    lines = (REAL / log.name).read_text().splitlines(keepends=True)
    submitted = next(i for i, line in enumerate(lines) if "SparkListenerStageSubmitted" in line)
    lines[submitted] = re.sub(r'"Stage Name": *"[^"]*"', '"Stage Name": null', lines[submitted])
    assert '"Stage Name": null' in lines[submitted]
    log.write_text("".join(lines))
    runs = loaded_runs(engine_env, home, log)
    assert len(runs) == 1 and runs["signature"].str.len().eq(10).all(), runs


def test_a_features_two_values_read_alike():
    """Counts held as floats read as counts when both runs' are whole (8 and 64 partitions, not 8.000
    and 64.000); otherwise both show the same decimals (3.270 and 1.000, not 3.270 and 1)."""
    assert show.side_by_side(8.0, 64.0) == ("8", "64")
    assert show.side_by_side(3e8, 1e8) == ("300,000,000", "100,000,000")
    assert show.side_by_side(3.27, 1.0) == ("3.270", "1.000")
    assert show.side_by_side(None, 2.0) == (show.MISSING, "2.000")
    assert show.side_by_side(8, 64) == ("8", "64")

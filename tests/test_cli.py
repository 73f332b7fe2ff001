"""The command line, run in-process against each real engine (embedded FalkorDB, Neo4j)."""
from __future__ import annotations

import json
import re

import pytest

from protoxplore.cli.commands import main
from protoxplore.evaluation import synth
from protoxplore.service import catalog

from commands import output, run
from handmade import make_log
from logs import SCENARIOS


@pytest.fixture(scope="module")
def demo_home(home, engine_env):
    assert main(["demo", "--home", str(home)]) == 0
    return home


@pytest.mark.slow
def test_demo_prints_the_worst_victim_and_its_culprit(demo_home, capsys):
    code, out, err = run(capsys, "demo", "--home", demo_home)
    assert code == 0
    assert "nightly-report" in out and "etl-load" in out
    assert "Culprit 1:" in out and "Path 1" in out and "MEMORY" in out
    # Levels 5 and 6 label the victim's own query, which is no culprit of another's
    assert "\ndemo-cluster:sql-2 (own tasks)  " in out and "\ndemo-cluster:sql-2 stage 3 (own tasks)  " in out


def test_explain_json_shape(demo_home, capsys):
    code, out, _ = run(capsys, "explain", "--victim", "nightly-report", "--json", "--home", demo_home)
    assert code == 0
    e = json.loads(out)
    assert set(e["victim"]) >= {"id", "name", "runtime_s", "blocked_s"}
    for key in ("victim_stages", "resources", "hosts", "blame", "culprit_stages", "culprit_queries", "paths",
                "explanations", "whatif"):
        assert isinstance(e[key], list), key
    for key in ("victim_stages", "resources", "hosts", "blame", "culprit_stages", "culprit_queries"):
        # Largest DOR first; in the culprit lists a victim's own other tasks after every other culprit.
        culprits = key.startswith("culprit")
        order = [(culprits and bool(i.get("self")), -i["dor"]) for i in e[key] if i["dor"] is not None]
        assert order == sorted(order), key
        assert all("blame_s" in i for i in e[key])
    assert {s["level"] for s in e["victim_stages"]} == {1} and {b["level"] for b in e["blame"]} == {4}
    # Blame nodes are named by culprit stage, resource and host: the victim stage is beside the name.
    assert e["blame"] and all(b["victim_stage"].startswith(f"{e['victim']['name']} stage ") for b in e["blame"])
    top = e["culprit_queries"][0]
    assert top["description"].startswith("etl-load") and top["name"]
    assert {"resource": "MEMORY", "dor": None, "blame_s": None, "service_s": None, "slowdown": None,
            "measured": False} in e["resources"]
    assert all(p["weight"] > 0 and len(p["names"]) == 7 for p in e["paths"])
    assert e["explanations"] and all(isinstance(s, str) for s in e["explanations"])


@pytest.mark.slow
def test_explain_window_and_other_commands(demo_home, capsys):
    code, out, _ = run(capsys, "explain", "--victim", "nightly-report", "--window", "5,20", "--json", "--home", demo_home)
    assert code == 0 and json.loads(out)["analysis"]["window"]
    # The window's victims and counts are of what ran in it: the morning check (0-1 s) is no victim
    # of [5 s, 20 s] (it was listed at 0 s), and the window holds fewer tasks than the trace
    window = json.loads(out)["analysis"]["id"]
    rows = {r["id"]: r for r in json.loads(run(capsys, "analyses", "--json", "--home", demo_home)[1])}
    listed = json.loads(run(capsys, "victims", "--analysis", window, "--json", "--home", demo_home)[1])
    assert sorted(v["description"].split(":")[0] for v in listed) == ["dashboard", "etl-load", "nightly-report"]
    assert rows[window]["queries"] == 3 and rows[window]["tasks"] < rows[rows[window]["parent"]]["tasks"]
    # An id's unique beginning names it; an empty victim name says what to give
    code, out, _ = run(capsys, "victims", "--analysis", window[:5], "--json", "--home", demo_home)
    assert code == 0 and json.loads(out) == listed
    code, _, err = run(capsys, "explain", "--victim", "", "--home", demo_home)
    assert code != 0 and "no victim named: give a query's name" in err and "$text" not in err
    # A window of the window would be the whole run's, listed under the window: refused, naming the run
    code, _, err = run(capsys, "explain", "--victim", "nightly-report", "--analysis", window, "--window", "6,7",
                       "--home", demo_home)
    assert code != 0 and f"is a time window: --window works on its full analysis {rows[window]['parent']}" in err
    for command in ("victims", "culprits", "hosts", "resources", "analyses"):
        code, out, _ = run(capsys, command, "--json", "--home", demo_home)
        assert code == 0 and json.loads(out), command
    code, out, _ = run(capsys, "culprits", "--home", demo_home)
    assert "etl-load" in out.splitlines()[1]
    # a cut list says so (it stopped at --top without a word); its JSON stays the rows
    code, out, _ = run(capsys, "victims", "--top", "1", "--home", demo_home)
    assert "\n(the first 1; --top N shows more)\n" in out
    assert len(json.loads(run(capsys, "victims", "--top", "1", "--json", "--home", demo_home)[1])) == 1
    assert "shows more" not in run(capsys, "victims", "--top", "100", "--home", demo_home)[1]


def test_ambiguous_and_missing_victims_are_clear_errors(demo_home, capsys):
    code, _, err = run(capsys, "explain", "--victim", "SELECT", "--home", demo_home)
    assert code == 1 and "matches 4 queries" in err and "nightly-report" in err
    code, _, err = run(capsys, "explain", "--victim", "no-such-query", "--home", demo_home)
    assert code == 1 and "no query matches 'no-such-query'" in err
    code, _, err = run(capsys, "explain", "--victim", "x", "--analysis", "zzz", "--home", demo_home)
    assert code == 1 and "no analysis 'zzz'" in err


def test_a_victim_named_by_its_whole_description_is_that_one(demo_home, capsys):
    """The skew scenario's victim, named by its exact description, was "ambiguous": its warm-up
    round's description ("warm-up round: victim: ...") contains it. An exact description wins."""
    code, out, err = run(capsys, "load", SCENARIOS / "skew", "--json", "--home", demo_home)
    assert code == 0, err
    analysis = json.loads(out)["id"]
    code, out, err = run(capsys, "explain", "--victim", "victim: sum of sqrt*sin over 80M rows", "--analysis", analysis,
                         "--json", "--home", demo_home)
    assert code == 0, err
    assert json.loads(out)["victim"]["description"] == "victim: sum of sqrt*sin over 80M rows"
    code, _, err = run(capsys, "explain", "--victim", "sum of sqrt*sin", "--analysis", analysis, "--home", demo_home)
    assert code == 1 and "matches 2 queries" in err  # words of it still match both


def test_a_pyspark_query_says_its_python_time_reads_as_cpu_wait(demo_home, capsys):
    """mixed_kinds's sleeper sleeps 6 s in a Python UDF: the JVM's CPU time leaves that out, so its
    CPU 'wait' of 6.1 s (slowdown 155) is its own Python time, which a user must be told (user
    audit). A PySpark application is known by its launch (pyspark-shell) or Python call sites; a
    Scala one (the rp_sql log, whose sql-0 waited for CPU too) says nothing of it."""
    from logs import REAL

    code, out, err = run(capsys, "load", SCENARIOS / "mixed_kinds", "--json", "--home", demo_home)
    assert code == 0, err
    said = output(capsys, "explain", "--victim", "sleeper", "--analysis", json.loads(out)["id"], "--home", demo_home)
    assert "Its application runs Python (PySpark): time its tasks spent in Python workers" in said
    code, out, err = run(capsys, "load", REAL / "rp_sql_eventlog.zstd", "--json", "--home", demo_home)
    said = output(capsys, "explain", "--victim", "sql-0", "--analysis", json.loads(out)["id"], "--home", demo_home)
    assert "Resources: " in said and "CPU " in said and "PySpark" not in said
    # a ranking with nothing in it says why, without the footnote of a table it does not print
    said = output(capsys, "explain", "--victim", "job-0", "--method", "counterfactual", "--analysis",
                  json.loads(out)["id"], "--home", demo_home)
    assert said.rstrip().endswith("no other query ran beside it: nothing to rank") and "share:" not in said


def test_bad_arguments(demo_home, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["explain", "--victim", "x", "--window", "9,3", "--home", str(demo_home)])
    assert exit_.value.code == 2
    assert "need 0 <= T0 < T1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["victims", "--top", "0"])
    with pytest.raises(SystemExit):  # Waitress took 99999 as 34463 (99999 - 65536)
        main(["serve", "--port", "99999"])
    assert "expected a TCP port, 0 to 65535, not '99999'" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # refused before any log is read (it read them all first)
        main(["load", "/nonexistent", "--victim-stages", "bogus"])
    assert "expected 'critical', 'all' or a stage key such as APPLICATION/stage-3.0, not 'bogus'" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse reads "-100,5" as an option: the error says how to write it
        main(["explain", "--victim", "x", "--window", "-100,5"])
    assert "expected one argument (a value that starts with '-' is read as an option: write --window=VALUE)" \
        in capsys.readouterr().err


def test_hostile_arguments_and_paths_get_one_line_errors(demo_home, tmp_path, capsys, monkeypatch):
    """Found by a hostile-input audit: each gave a traceback, a database error naming nothing, a wrong
    answer or a hang before."""
    import os

    with pytest.raises(SystemExit):  # FalkorDB refused the query, naming nothing
        main(["explain", "--victim", "x", "--window", "0,inf", "--home", str(demo_home)])
    assert "window '0,inf': need 0 <= T0 < T1, finite numbers of seconds" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # FalkorDB reads a LIMIT modulo 2^32: it printed nothing
        main(["victims", "--top", "4294967296", "--home", str(demo_home)])
    assert "argument --top: expected a positive integer up to 2147483647, not '4294967296'" in capsys.readouterr().err
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "load", fifo, "--home", demo_home)  # it waited forever
    assert code == 1 and f"{fifo}: not a regular file (a FIFO, device or socket)" in err
    monkeypatch.setenv("PROTOXPLORE_GRAPH", "")  # a TypeError traceback from the client
    code, _, err = run(capsys, "analyses", "--home", demo_home)
    assert code != 0 and "PROTOXPLORE_GRAPH (the embedded engine's graph name) must not be empty" in err


def test_load_errors_name_the_file_and_line(demo_home, tmp_path, capsys):
    code, _, err = run(capsys, "load", tmp_path / "missing.log", "--home", demo_home)
    assert code == 1 and "missing.log" in err and "no such file" in err
    log = make_log(tmp_path / "good", [dict(query="q", host="h1", launch=0, finish=2, cpu_s=1)])
    lines = log.read_text().splitlines()
    lines.insert(3, '{"Event": "SparkListenerJobStart", broken')
    bad = tmp_path / "bad"
    bad.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "load", bad, "--strict", "--home", demo_home)
    assert code == 1 and f"{bad}:4" in err and "malformed JSON" in err
    code, out, err = run(capsys, "load", bad, "--home", demo_home)
    assert code == 0 and f"{bad}:4" in err and "line skipped" in err
    empty = tmp_path / "empty"
    empty.write_text("")
    code, _, err = run(capsys, "load", empty, "--home", demo_home)
    assert code == 1 and str(empty) in err


@pytest.mark.slow
def test_deleting_an_analysis_deletes_its_time_windows(demo_home, tmp_path, capsys, monkeypatch):
    log = make_log(tmp_path / "windowed", [dict(query="q1", host="h1", launch=0, finish=10, cpu_s=5),
                                          dict(query="q2", host="h1", launch=0, finish=10, cpu_s=10)])
    code, out, _ = run(capsys, "load", log, "--json", "--home", demo_home)
    base = json.loads(out)["id"]
    for window in ("0,5", "5,10"):
        code, out, _ = run(capsys, "explain", "--victim", "q1", "--analysis", base, "--window", window, "--json",
                           "--home", demo_home)
        assert code == 0
    windows = [a["id"] for a in analyses(capsys, demo_home) if a["parent"] == base]
    assert len(windows) == 2
    trace = next(a for a in analyses(capsys, demo_home) if a["id"] == base)["fingerprint"]
    saved = demo_home / "traces" / trace[:16]
    assert saved.is_dir()
    # The second window is derived while the delete runs: published after its first listing
    # (a derivation holds the base's lock until then), it is found by the listing after the base.
    windows_of, listings = catalog.windows_of, []

    def not_yet_derived(rows, analysis):
        listings.append(analysis)
        return [r for r in windows_of(rows, analysis) if len(listings) > 1 or r["id"] != windows[1]]

    monkeypatch.setattr(catalog, "windows_of", not_yet_derived)
    code, out, _ = run(capsys, "delete", base, "--json", "--home", demo_home)
    assert listings == [base, base]
    assert code == 0 and sorted(json.loads(out)["windows"]) == sorted(windows)
    left = {a["id"] for a in analyses(capsys, demo_home)}
    assert base not in left and not left & set(windows) and left  # the demo stays
    assert not saved.exists()  # its saved trace (the logs' SQL text) goes with it: it stayed once


def test_slow_nodes_are_ranked_by_blocked_seconds(demo_home, tmp_path, capsys):
    # h1: four queries each blocked a moment (0.1 s of CPU wait): four explanations, impact (sum of
    # IF) 4. h2: two queries blocked 50 s each: impact 2. Ranked by impact h1 would come first.
    tasks = [dict(query=f"brief{i}", host="h1", launch=0, finish=1, cpu_s=0.9) for i in range(4)]
    tasks += [dict(query=f"long{i}", host="h2", launch=0, finish=100, cpu_s=50) for i in range(2)]
    code, out, _ = run(capsys, "load", make_log(tmp_path / "hosts", tasks, hosts=("h1", "h2")), "--json",
                       "--home", demo_home)
    analysis = json.loads(out)["id"]
    code, out, _ = run(capsys, "hosts", "--analysis", analysis, "--json", "--home", demo_home)
    rows = json.loads(out)
    assert [r["host"] for r in rows] == ["h2", "h1"]
    assert rows[0]["blame_s"] > rows[1]["blame_s"] and rows[0]["impact"] < rows[1]["impact"]
    code, out, _ = run(capsys, "hosts", "--analysis", analysis, "--home", demo_home)
    assert "summed over victims can exceed 1" in out  # a DOR above 1 is explained
    assert "Impact (ΣIF): the sum of the impact factors" in out  # and the column it is no longer ranked by

    # Hot resources likewise: four queries each waited 0.1 s for the network (impact 4), two waited
    # 50 s each for the CPU (impact 2). Ranked by impact the network would come first.
    tasks = [dict(query=f"brief{i}", host="h1", launch=0, finish=1, cpu_s=0.9, fetch_s=0.1, net_bytes=1e6)
             for i in range(4)]
    tasks += [dict(query=f"long{i}", host="h1", launch=0, finish=100, cpu_s=50) for i in range(2)]
    code, out, _ = run(capsys, "load", make_log(tmp_path / "resources", tasks), "--json", "--home", demo_home)
    code, out, _ = run(capsys, "resources", "--analysis", json.loads(out)["id"], "--json", "--home", demo_home)
    rows = {r["resource"]: r for r in json.loads(out)}
    assert list(rows)[:2] == ["CPU", "NETWORK"], rows
    assert rows["CPU"]["blame_s"] > rows["NETWORK"]["blame_s"] and rows["CPU"]["impact"] < rows["NETWORK"]["impact"]


def test_queries_of_applications_of_one_name_are_told_apart(demo_home, tmp_path, capsys):
    """Two runs of the demo application (one name, two ids) loaded together: their queries share
    names, so the victims table shows each one's application."""
    queries, cluster = synth.demo_workload()
    paths = [synth.write_event_log(synth.simulate(queries, cluster), cluster, tmp_path / f"run{i}",
                                   app_id=f"app-rerun-{i}", epoch_ms=synth.EPOCH_MS + i * 3_600_000) for i in range(2)]
    code, out, _ = run(capsys, "load", *paths, "--json", "--home", demo_home)
    text = output(capsys, "victims", "--analysis", json.loads(out)["id"], "--top", "20", "--home", demo_home)
    assert text.splitlines()[0].split()[:2] == ["name", "app_key"]
    rows = [line.split()[:2] for line in text.splitlines()[1:-1]]  # the last line says what the columns are
    assert sorted(rows) == sorted([f"synthetic:sql-{q}", f"app-rerun-{i}"] for q in range(4) for i in range(2))
    # A name two queries share is refused with their keys, which pick one.
    both = json.loads(out)["id"]
    code, _, err = run(capsys, "explain", "--victim", "synthetic:sql-1", "--analysis", both, "--home", demo_home)
    assert code == 1 and "app-rerun-0/sql-1  synthetic:sql-1" in err and "app-rerun-1/sql-1  synthetic:sql-1" in err
    explained = output(capsys, "explain", "--victim", "app-rerun-1/sql-1", "--analysis", both, "--json",
                       "--home", demo_home)
    assert json.loads(explained)["victim"]["id"].endswith("|vq/app-rerun-1/sql-1")
    # One run alone: one name each, no application column.
    code, out, _ = run(capsys, "load", paths[0], "--json", "--home", demo_home)
    alone = output(capsys, "victims", "--analysis", json.loads(out)["id"], "--home", demo_home)
    assert alone.splitlines()[0].split()[:2] == ["name", "by_others_s"]


def test_no_query_starts_before_the_trace(demo_home, capsys):
    """Time 0 is the earliest thing the logs saw: in the cross-application scenario (real PySpark
    logs) a query of the other application started 1.7 s before any stage was submitted."""
    folder = SCENARIOS / "cross_app"
    code, out, _ = run(capsys, "load", *sorted(folder.glob("app-*")), "--json", "--home", demo_home)
    analysis = json.loads(out)["id"]
    start = next(a["trace_start"] for a in analyses(capsys, demo_home) if a["id"] == analysis)
    rows = json.loads(output(capsys, "victims", "--analysis", analysis, "--top", "100", "--json", "--home", demo_home))
    assert min(r["start_time"] for r in rows) == pytest.approx(start, abs=1e-6)


def analyses(capsys, home) -> list[dict]:
    code, out, _ = run(capsys, "analyses", "--json", "--home", home)
    assert code == 0
    return json.loads(out)


def test_explain_text_walks_the_levels_in_order(demo_home, capsys):
    """`explain` in text: one section per level, L1 to L6 in order, headed as the levels table says;
    Level 3 lists resources on hosts. `--method` names its method and its victim, in text and JSON."""
    from protoxplore.loader.model.levels import LEVELS
    demo = next(r["id"] for r in analyses(capsys, demo_home) if r["name"] == "demo")  # other tests load more
    code, out, _ = run(capsys, "explain", "--victim", "nightly-report", "--analysis", demo, "--home", demo_home)
    assert code == 0
    lines = out.splitlines()
    at = [lines.index(level.heading) for level in LEVELS[1:]]
    assert at == sorted(at)
    deep = lines[at[2] + 1:at[3]]
    assert deep[0].split() == ["resource", "host", "dor", "blame_s"]
    # A level longer than --top says it was cut (one row past --top is read to know), a shorter one does not.
    code, out, _ = run(capsys, "explain", "--victim", "nightly-report", "--analysis", demo, "--top", "1", "--json",
                       "--home", demo_home)
    e = json.loads(out)
    assert e["more"]["culprit_queries"] and len([c for c in e["culprit_queries"] if not c["self"]]) == 1
    code, text, _ = run(capsys, "explain", "--victim", "nightly-report", "--analysis", demo, "--top", "1", "--home", demo_home)
    notes = [i for i, line in enumerate(text.splitlines()) if line == "(the first 1; --top N shows more)"]
    cut = [e["more"][k] for k in ("victim_stages", "blame", "culprit_stages", "culprit_queries", "paths")]
    assert len(notes) == sum(cut) + (len(e["host_resources"]) > 1) > 0  # JSON has every L3 row, the text --top
    assert deep[1].split()[:2] in (["SLOTS", "node-1"], ["SLOTS", "node-2"])  # the etl-load's slots, both hosts
    code, out, _ = run(capsys, "explain", "--victim", "nightly-report", "--method", "naive-overlap", "--analysis", demo,
                       "--home", demo_home)
    assert code == 0 and out.splitlines()[0] == "naive-overlap ranking of culprits of demo-cluster:sql-2"
    assert out.splitlines()[1].split() == ["name", "naive_overlap_s", "share", "description"]  # its score by name
    code, out, _ = run(capsys, "explain", "--victim", "nightly-report", "--method", "naive-overlap", "--json",
                       "--analysis", demo, "--home", demo_home)
    ranking = json.loads(out)
    assert ranking["method"] == "naive-overlap" and ranking["victim"]["name"] == "demo-cluster:sql-2"
    assert ranking["score"] == "naive_overlap_s"
    assert ranking["culprit_queries"][0]["description"].startswith("etl-load")


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
def test_engine_status(demo_home, capsys, tmp_path):
    code, out, _ = run(capsys, "engine", "status", "--json", "--home", demo_home)
    assert code == 0 and json.loads(out)["running"] is True
    # none running: exit 3, as service managers say it, for a script that asks (it exited 0)
    code, out, _ = run(capsys, "engine", "status", "--json", "--home", tmp_path / "no-engine")
    assert code == 3 and json.loads(out)["running"] is False


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
def test_a_read_of_a_home_holding_no_data_makes_nothing(engine_env, tmp_path, capsys):
    """A mistyped --home made the directory, started a server in it and answered "(nothing)"."""
    typo = tmp_path / "typo"
    for command in (["victims"], ["explain", "--victim", "q1"], ["delete", "a1"]):
        code, _, err = run(capsys, *command, "--home", typo)
        assert code == 1 and f"no analysis is loaded yet: {typo} holds no data (check --home" in err, command
    code, out, err = run(capsys, "analyses", "--json", "--home", typo)  # a listing of nothing, said so
    assert code == 0 and json.loads(out) == [] and f"note: {typo} holds no data" in err
    for action, rc in (("status", 3), ("stop", 0)):
        assert run(capsys, "engine", action, "--home", typo)[0] == rc
    assert not typo.exists()


def test_readme_command_lines_parse_as_written():
    """Every `protoxplore ...` line of the README's shell blocks is a command the CLI accepts."""
    import shlex
    from pathlib import Path

    from protoxplore.cli.arguments import build_parser
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    lines = [line.split(" #")[0].strip() for block in re.findall(r"```bash\n(.*?)```", readme, re.S)
             for line in block.splitlines() if line.startswith("protoxplore ")]
    assert len(lines) > 10
    for line in lines:
        try:
            build_parser().parse_args(shlex.split(line)[1:])
        except SystemExit:
            pytest.fail(f"README line does not parse: {line}")


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
@pytest.mark.slow
def test_readme_demo_lines_run_as_written(engine_env, tmp_path, capsys):
    """The README's usage lines for the demo, run in its order on a home holding only the demo: each
    one succeeds (the lines come after the first command, which runs the demo)."""
    import shlex
    from pathlib import Path

    from protoxplore.storage.embedded import EmbeddedEngine
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = re.search(r"These run as\s+written on the demo.*?```bash\n(.*?)```", readme, re.S).group(1)
    lines = [line.split(" #")[0].strip() for line in block.splitlines() if line.startswith("protoxplore ")]
    assert len(lines) >= 10
    try:
        assert run(capsys, "demo", "--home", tmp_path)[0] == 0
        for line in lines:
            code, _, err = run(capsys, *shlex.split(line)[1:], "--home", tmp_path)
            assert code == 0, f"README line failed: {line}: {err}"
    finally:
        EmbeddedEngine(tmp_path).stop()


def test_load_of_a_window_after_the_trace_is_refused_not_stored(demo_home, tmp_path, capsys):
    """Issue 14 item 7: `load --window 100,200` on a log with nothing there crashed; then it stored an
    analysis of zeros ("ran 0.0 s ... never blocked"). It is refused as `explain --window` refuses it."""
    log = make_log(tmp_path / "short", [dict(query="q1", host="h1", launch=0, finish=2, cpu_s=1),
                                        dict(query="q2", host="h1", launch=0, finish=2, cpu_s=2)])
    before = json.loads(run(capsys, "analyses", "--json", "--home", demo_home)[1])
    code, _, err = run(capsys, "load", log, "--window", "100,200", "--home", demo_home)
    assert code == 1 and "the window [100 s, 200 s] starts after the trace ends: it spans 0 s to 2.0 s" in err, err
    assert json.loads(run(capsys, "analyses", "--json", "--home", demo_home)[1]) == before


def test_an_os_error_is_one_line_not_a_traceback(tmp_path, capsys):
    """Only FileNotFoundError was caught: a home that is a file (or a path the user may not read)
    ended in a traceback. Every OSError is one line naming the path."""
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("x")
    code, _, err = run(capsys, "analyses", "--home", not_a_directory)
    assert code == 1 and err.startswith("protoxplore analyses: error: ") and str(not_a_directory) in err, err
    assert err.count("\n") == 1, err


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_command_quietly(demo_home):
    """`protoxplore analyses | head`: the reader closes the pipe before the command writes. No
    BrokenPipeError, no error line (a broken pipe is an OSError: it must not read as one)."""
    import os
    import subprocess
    import sys
    proc = subprocess.Popen([sys.executable, "-m", "protoxplore.cli", "analyses", "--home", str(demo_home)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    proc.stdout.close()  # long before the command's start (imports, the engine) is over
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == "", err


def test_seconds_never_read_as_minus_nothing():
    """What-if speedups are differences of two replays: -0.01 s printed as "-0.0 s" (.1f) read as a
    negative nothing (user audit); a tiny time keeps two significant digits, a zero is 0.0."""
    from protoxplore.show import seconds

    assert [seconds(v) for v in (-0.0, -0.01, 0.0004, 0.06, -3.26)] == ["0.0 s", "-0.01 s", "0.0004 s", "0.1 s", "-3.3 s"]

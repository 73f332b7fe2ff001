"""PerfXplain through the product: event logs -> load -> why-slower / why-same / pxql --json, on each engine.

The log of past runs is 16 runs of one nightly report, each in its own application, under two known
conditions: shuffle partitions (8: 2 tasks, 64: 16 tasks, two waves on 8 slots) and input size
(large input: 3x the bytes and 3x the task time). Every duration follows from them, so the cause of
each pair's difference is known.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from protoxplore.cli.commands import main
from protoxplore.errors import PXQLError
from protoxplore.loader.compare import pxql as perfxplain_pxql
from protoxplore.storage import locks

from commands import run
from handmade import NIGHTLY_CONDITIONS as CONDITIONS
from handmade import nightly_run

#: The committed PySpark corpus (workloads/perfxplain_corpus.py, workloads/README.md)
CORPUS = Path(__file__).parent / "data" / "perfxplain"
HELD_OUT = Path(__file__).parent / "data" / "perfxplain_heldout"  # the same generator, run again: docs/evaluation.md


@pytest.fixture(scope="module")
def nightly(engine_env, tmp_path_factory):
    # A home of its own: the log of past runs is every analysis of the home, and other modules'
    # analyses in a shared home would change the explanations.
    home = tmp_path_factory.mktemp("nightly-home")
    logs = tmp_path_factory.mktemp("nightly")
    for i in range(16):
        nightly_run(logs, i, *CONDITIONS[i % 4])
    assert main(["load", str(logs), "--name", "nightly", "--home", str(home), "--json"]) == 0
    yield home
    main(["engine", "stop", "--home", str(home)])


@pytest.mark.slow
def test_why_slower_names_the_larger_input(nightly, capsys):
    capsys.readouterr()
    # run 1: 8 partitions, large input; run 0: 8 partitions, small input
    code, out, err = run(capsys, "why-slower", "app-nightly-0001:sql-0", "app-nightly-0000:sql-0", "--json", "--home", nightly)
    assert code == 0, err
    e = json.loads(out)
    assert e["because"] and e["because"][0]["feature"].startswith("input_bytes"), e["because"]
    assert set(e["because"][0]) == {"feature", "op", "value"}
    assert e["precision"] == 1.0 and 0 < e["generality"] <= 1 and e["relevance"] is not None
    assert "slower than" in e["sentence"] and "most likely because input_bytes" in e["sentence"]
    assert e["features"]["input_bytes"][0] == pytest.approx(3 * e["features"]["input_bytes"][1])


def test_why_slower_sets_the_unchanged_input_aside(nightly, capsys):
    # run 2: 64 partitions, small input; run 0: 8 partitions, small input. The despite clause is grown
    # (none given): the inputs are the same; the because clause names the changed condition, never the
    # seconds the second wave of tasks waited for slots: blocked seconds are part of the duration asked
    # about (loader/perfxplain_runs.PARTS; they separate these examples as well as the condition does).
    code, out, err = run(capsys, "why-slower", "app-nightly-0002:sql-0", "app-nightly-0000:sql-0", "--json", "--home", nightly)
    assert code == 0, err
    e = json.loads(out)
    assert {"feature": "input_bytes_isSame", "op": "=", "value": "T"} in e["despite"]
    assert e["because"] and not any(p["feature"].startswith("input_bytes") for p in e["because"])
    assert e["because"][0]["feature"].startswith(("shuffle_partitions", "tasks")), e["because"]
    assert not any(p["feature"].startswith("blocked_") for p in e["because"] + e["despite"])
    assert e["precision"] == 1.0


#: Settings of the run log of ``test_a_grown_despite_clause_joins_the_question``: shuffle partitions
#: (a slowdown of 1.44x a step) and executor memory (2g: 1.2x), with a small or a large input (3x the
#: bytes, 5x the time): the eight settings of an input are 1.2x apart, beyond the 10% of SIM.
PARTITIONS_SLOWDOWN = {8: 1.0, 16: 1.44, 32: 1.44 ** 2, 64: 1.44 ** 3}


@pytest.fixture
def settings_log(engine_env, tmp_path, capsys):
    """32 runs of one report in their own applications: input (small, large) x partitions (4) x
    memory (2g, 4g), twice. Every duration follows from the three (and a jitter of 0.1% a run).
    Deleted after its test: on Neo4j every home shares the server's store, and the tests after it
    take the newest analysis as the default one."""
    from handmade import make_log

    home, logs = tmp_path / "settings-home", tmp_path / "settings"
    logs.mkdir()
    cells = [(large, p, memory) for large in (False, True) for p in PARTITIONS_SLOWDOWN for memory in ("2g", "4g")]
    for i in range(2 * len(cells)):
        large, partitions, memory = cells[i % len(cells)]
        task_s = (5.0 if large else 1.0) * PARTITIONS_SLOWDOWN[partitions] * (1.2 if memory == "2g" else 1.0) * (1 + 0.001 * i)
        tasks = [{"query": f"settings report run {i}", "host": "h1", "launch": 0.0, "finish": task_s,
                  "read_bytes": (3e8 if large else 1e8) / 8} for _ in range(8)]
        make_log(logs / f"run-{i}.json", tasks, slots=8, app_id=f"app-settings-{i:04d}", app_name=f"app-settings-{i:04d}",
                 epoch_ms=1_700_000_000_000 + i * 3_600_000,
                 spark_properties={"spark.sql.shuffle.partitions": str(partitions), "spark.executor.memory": memory})
    capsys.readouterr()
    assert main(["load", str(logs), "--name", "settings", "--home", str(home), "--json"]) == 0
    analysis = json.loads(capsys.readouterr().out)["id"]
    yield home
    assert main(["delete", analysis, "--home", str(home)]) == 0
    main(["engine", "stop", "--home", str(home)])


@pytest.mark.slow
def test_a_grown_despite_clause_joins_the_question(settings_log, capsys, monkeypatch):
    """Paper 004 Sec. 4.2: the despite clause grows until its relevance over the log's related pairs
    (Def. 4) reaches 0.8 or no predicate raises it; then it joins the question, whose related pairs are
    sampled anew for the because clause. Small samples (PROTOXPLORE_PERFXPLAIN_SAMPLE) of the 512
    related pairs (32 perform as expected, the repeats of a setting; 480 as observed) set the two
    apart: a balanced sample's share of expected pairs is no measure of the log's, and the few sampled
    pairs inside the despite clause cannot teach the because clause."""
    def why_slower(sample: int) -> dict:
        monkeypatch.setenv("PROTOXPLORE_PERFXPLAIN_SAMPLE", str(sample))
        # run 8: large input, 8 partitions, 2g; run 0 the same with a small input: 5x faster
        code, out, err = run(capsys, "why-slower", "app-settings-0008:sql-0", "app-settings-0000:sql-0", "--json",
                             "--home", settings_log)
        assert code == 0, err
        return json.loads(out)

    # 64 sampled: the same partitions hold every expected pair and 96 of the 480 observed: 0.83 of a
    # balanced sample inside them is expected, 32 / 128 of the log's related pairs (relevance 0.25);
    # with the same memory too, 32 / 64 (observed: the pairs whose input differs and nothing else):
    # relevance 0.5, and a despite clause of 2 predicates at most
    e = why_slower(64)
    raw = {re.sub(r"_(isSame|compare|diff)$", "", p["feature"]) for p in e["despite"]}
    assert len(e["despite"]) == 2 and raw & {"shuffle_partitions", "tasks"} and "executor_memory" in raw, e["despite"]
    assert e["relevance"] == pytest.approx(0.5)
    assert e["because"] and e["because"][0]["feature"].startswith("input_bytes") and e["precision"] == 1.0, e
    # 10 sampled: cut to the despite clause, about 2 of them would be left, none observed (no because
    # clause at all); sampled anew inside it, the because clause names the input
    e = why_slower(10)
    assert e["because"] and e["because"][0]["feature"].startswith("input_bytes") and e["precision"] == 1.0, e


def test_analysis_prefix_baselines_and_text(nightly, capsys):
    code, out, _ = run(capsys, "analyses", "--json", "--home", nightly)
    analysis = json.loads(out)[0]["id"]
    for method in ("rule-of-thumb", "sim-but-diff"):
        code, out, err = run(capsys, "why-slower", f"{analysis}:app-nightly-0005:sql-0", "app-nightly-0004:sql-0",
                             "--method", method, "--json", "--home", nightly)
        assert code == 0, err
        e = json.loads(out)
        assert e["method"] == method and {"because", "despite", "precision", "generality", "sentence"} <= set(e)
    code, out, err = run(capsys, "why-slower", "app-nightly-0005:sql-0", "app-nightly-0004:sql-0", "--home", nightly)
    assert code == 0 and "most likely because" in out and "precision" in out
    # The text's table starts with how long each run took; the sentence's numbers are rounded.
    table = out.split("\n\n", 1)[1].splitlines()
    assert table[0].split() == ["feature", "A", "B"] and table[1].split()[0] == "duration_s"
    code, _, err = run(capsys, "pxql", "FOR 'app-nightly-0005:sql-0', 'app-nightly-0004:sql-0' DESPITE input_bytes <= "
                       "1.23456789 OBSERVED duration_s_compare = GT EXPECTED duration_s_compare = SIM", "--home", nightly)
    assert code == 1 and "does not satisfy DESPITE: input_bytes <= 1.235" in err, err


@pytest.mark.slow
def test_why_slower_compares_two_stages_or_two_tasks(nightly, capsys):
    # A stage run is named as its query is, then /stage-ID[.ATTEMPT]; the log is then the stage runs of
    # every analysis (here one stage per query: 16 stage runs, every ordered pair of them an example)
    code, out, err = run(capsys, "why-slower", "app-nightly-0001:sql-0/stage-0", "nightly report run 0/stage-0.0",
                         "--json", "--home", nightly)
    assert code == 0, err
    e = json.loads(out)
    assert [(r["name"], r["level"]) for r in e["runs"]] == [
        ("app-nightly-0001:sql-0/stage-0.0", "stage"), ("app-nightly-0000:sql-0/stage-0.0", "stage")]
    assert e["runs"][0]["id"].endswith("|vs/app-nightly-0001/stage-0.0") and e["pairs_considered"] == 16 * 15
    assert e["features"]["stages"] == [1, 1] and e["features"]["tasks"] == [2, 2]
    assert e["because"][0]["feature"].startswith("input_bytes"), e["because"]
    assert "app-nightly-0001:sql-0/stage-0.0 was slower than app-nightly-0000:sql-0/stage-0.0" in e["sentence"]
    code, _, err = run(capsys, "why-slower", "app-nightly-0001:sql-0/stage-0", "app-nightly-0000:sql-0", "--home", nightly)
    assert code == 1 and "compare two queries, two stages or two tasks" in err
    code, _, err = run(capsys, "why-slower", "app-nightly-0001:sql-0/stage-7", "app-nightly-0000:sql-0/stage-0",
                       "--home", nightly)
    # The analysis is in the log: the stage is not one of its query's (the error named the analysis instead).
    assert code == 1 and "app-nightly-0001:sql-0/stage-7.0: analysis" in err and "has no such stage" in err
    assert "(the stages of app-nightly-0001:sql-0: stage-0.0)" in err
    code, _, err = run(capsys, "why-slower", "app-nightly-0001:sql-0/stage-0", "app-nightly-0000:sql-0/stage-0",
                       "--save", "--home", nightly)
    assert code == 1 and "explanations of stage and task runs are not saved" in err
    # a task run: QUERY/stage-ID[.ATTEMPT]/task-ID, over the log of every task run (run 1: 2 tasks
    # of 3x the bytes of run 0's 2; 8 runs of 2 tasks and 8 of 16: 144 task runs)
    code, out, err = run(capsys, "why-slower", "app-nightly-0001:sql-0/stage-0/task-1", "app-nightly-0000:sql-0/stage-0/task-0",
                         "--json", "--home", nightly)
    assert code == 0, err
    e = json.loads(out)
    assert [r["level"] for r in e["runs"]] == ["task", "task"] and e["pairs_considered"] == min(144 * 143, 50_000)
    assert e["features"]["input_bytes"] == [1.5e8, 0.5e8] and e["features"]["tasks"] == [1, 1]
    assert e["because"][0]["feature"].startswith("input_bytes"), e["because"]
    code, _, err = run(capsys, "why-slower", "app-nightly-0001:sql-0/stage-0/task-9", "app-nightly-0000:sql-0/stage-0/task-0",
                       "--home", nightly)
    assert code == 1 and "has no such task (the tasks of app-nightly-0001:sql-0/stage-0.0: task-0, task-1)" in err


def test_why_same_and_pxql(nightly, capsys):
    # runs 0 and 4 share both conditions: why the same, although expected slower?
    code, out, err = run(capsys, "why-same", "app-nightly-0004:sql-0", "app-nightly-0000:sql-0", "--json", "--home", nightly)
    assert code == 0, err
    assert "took about as long as" in json.loads(out)["sentence"]
    text = ("FOR 'app-nightly-0001:sql-0', 'app-nightly-0000:sql-0' DESPITE tasks_compare = SIM "
            "OBSERVED duration_s_compare = GT EXPECTED duration_s_compare = SIM")
    code, out, err = run(capsys, "pxql", text, "--json", "--home", nightly)
    assert code == 0, err
    e = json.loads(out)
    assert e["despite"] == [{"feature": "tasks_compare", "op": "=", "value": "SIM"}]
    assert e["because"][0]["feature"].startswith("input_bytes")
    # The sentence says the pair features in words (the PXQL notation stays in the JSON)
    assert e["sentence"].startswith("Despite tasks about the same, "), e["sentence"]
    # A base feature is the value both runs share (runs 0 and 1: 8 partitions each), and reads so.
    shared = text.replace("tasks_compare = SIM", "shuffle_partitions = 8")
    code, out, err = run(capsys, "pxql", shared, "--json", "--home", nightly)
    assert code == 0, err
    assert json.loads(out)["sentence"].startswith("Despite both runs having shuffle_partitions = 8, app-nightly-0001:sql-0 ")
    # A property neither log sets (spark.dynamicAllocation.enabled) is "unset" in both: it read None->None.
    unset = text.replace("tasks_compare = SIM", "dynamic_allocation_diff = 'unset->unset'")
    code, out, err = run(capsys, "pxql", unset, "--json", "--home", nightly)
    assert code == 0, err
    assert json.loads(out)["despite"][0] == {"feature": "dynamic_allocation_diff", "op": "=", "value": "unset->unset"}
    # "a->a" is no change: it reads the value in both (it read as if the setting had changed)
    assert json.loads(out)["sentence"].startswith("Despite dynamic_allocation unset in both, ")


def test_bad_questions_get_one_line_errors(nightly, capsys):
    code, _, err = run(capsys, "pxql", "FOR 'app-nightly-0001:sql-0', 'app-nightly-0000:sql-0' OBSERVED duration_s_compare = GT",
                       "--home", nightly)
    assert code == 1 and "column 86: unexpected end of query" in err and "EXPECTED" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "pxql", "FOR 'app-nightly-0001:sql-0', 'app-nightly-0000:sql-0' OBSERVED speed = GT "
                       "EXPECTED duration_s_compare = SIM", "--home", nightly)
    assert code == 1 and "unknown PXQL feature 'speed'" in err
    code, _, err = run(capsys, "why-slower", "app-nightly-0000:sql-0", "app-nightly-0001:sql-0", "--home", nightly)
    assert code == 1 and "does not perform as OBSERVED (duration_s_compare = GT): A took" in err
    assert "duration_s_compare = LT: name the runs the other way round" in err
    # Runs 4 and 0 share their conditions: 4% apart, alike for the log, so neither order is slower.
    code, _, err = run(capsys, "why-slower", "app-nightly-0004:sql-0", "app-nightly-0000:sql-0", "--home", nightly)
    assert code == 1 and "within 10% of each other, the log counts them as alike (duration_s_compare = SIM" in err
    assert "ask why-same" in err and "other way round" not in err
    code, _, err = run(capsys, "why-slower", "app-nightly-0000:sql-0", "app-nightly-0000:sql-0", "--home", nightly)
    assert code == 1 and "A and B are the same run" in err
    # --analysis picks the analysis of runs named without a prefix (it was ignored: the latest one was used)
    code, _, err = run(capsys, "why-slower", "app-nightly-0001:sql-0", "app-nightly-0000:sql-0", "--analysis", "nope",
                       "--home", nightly)
    assert code == 1 and "no analysis 'nope'" in err
    code, _, err = run(capsys, "why-slower", "no such query", "app-nightly-0001:sql-0", "--home", nightly)
    assert code == 1 and "no query matches 'no such query'" in err


def test_pxql_error_points_at_the_token():
    expected = r"column 26: unexpected '='; expected one of SIGNED_NUMBER, STRING, WORD"
    with pytest.raises(PXQLError, match=expected):
        perfxplain_pxql.parse("FOR 'a', 'b' OBSERVED x == GT EXPECTED y = 1")


@pytest.mark.slow
def test_known_cause_pairs_are_scored_by_the_changed_condition():
    import numpy as np
    import pandas as pd

    from protoxplore.evaluation import perfxplain_eval
    from protoxplore.loader.compare.runs import NOMINAL, NUMERIC

    # 48 runs: input rows x partitions x 6 repeats; duration follows both (rows dominate)
    truth = [{"description": f"report run {i}", "partitions": p, "cores": 2, "rows": r, "skewed": False,
              "culprit": False} for i, (r, p, _) in enumerate(
                  (r, p, k) for r in (1, 4) for p in (8, 200) for k in range(12))]
    runs = pd.DataFrame({f: 0.0 for f in NUMERIC}, index=range(len(truth))).assign(**{f: "x" for f in NOMINAL})
    runs["description"] = [t["description"] for t in truth]
    runs["name"] = [f"report:sql-{i}" for i in range(len(truth))]
    runs["input_bytes"] = [t["rows"] * 1e8 for t in truth]
    runs["shuffle_partitions"] = [float(t["partitions"]) for t in truth]
    runs["duration_s"] = (runs["input_bytes"] / 1e8 * 2 + runs["shuffle_partitions"] / 40) * np.linspace(1, 1.02, len(truth))
    results = perfxplain_eval.evaluate(runs, truth, limit=6)
    assert len(results) == 6 * 3 and set(results["condition"]) <= {"rows", "partitions"}
    perfxplain = results[results["method"] == "perfxplain"]
    assert perfxplain["named"].all(), perfxplain[["condition", "because"]]
    # the seed draws the pairs asked (--seed): another seed, another draw; seed 0 is the default
    pairs = lambda r: list(zip(r["slower"], r["faster"]))  # noqa: E731
    assert pairs(perfxplain_eval.evaluate(runs, truth, limit=6, seed=0)) == pairs(results)
    assert pairs(perfxplain_eval.evaluate(runs, truth, limit=6, seed=1)) != pairs(results)


@pytest.mark.slow
def test_one_real_application_records_contention_skew_and_input_rows(engine_env, tmp_path):
    """One application of the committed PySpark corpus (8 partitions, 2 cores; workloads/README.md)
    through load and the log of runs: the culprit's seconds are the only other-query seconds (JVM GC
    and Unknown are no queries), the skewed input shows as data skew in records per task but not in
    the shuffle bytes, wide rows in the shuffle bytes but not in the records, and the input's rows as
    input records (the report also reads the 2,000-row dimension). Its stage runs split the query's."""
    import dataclasses
    import shutil

    from protoxplore.service.compare import log_runs
    from protoxplore.storage.store import open_store

    truth = {t["description"]: t for t in json.loads((CORPUS / "truth.json").read_text())}
    app = truth["report run 0000"]["app"]
    shutil.copytree(CORPUS / f"eventlog_v2_{app}", tmp_path / "logs" / f"eventlog_v2_{app}")
    home = tmp_path / "home"
    assert main(["load", str(tmp_path / "logs"), "--home", str(home)]) == 0
    try:
        settings = dataclasses.replace(engine_env, home=home)
        with open_store(settings) as store:
            runs = log_runs(store, settings)
            stage_runs = log_runs(store, settings, "stage")
    finally:
        main(["engine", "stop", "--home", str(home)])
    report = runs[runs["name"].str.contains(":sql-")].set_index("description")
    plain, large, skewed, wide, culprit = (report.loc[f"report run {i:04d}"] for i in range(5))
    assert [truth[f"report run {i:04d}"]["rows"] for i in range(5)] == [200_000, 1_600_000, 200_000, 200_000, 200_000]
    assert truth["report run 0002"]["skewed"] and truth["report run 0003"]["wide"] and truth["report run 0004"]["culprit"]
    # alone in its application: blocked (Unknown, GC) but by no other query
    assert plain["blocked_s"] > 0 and plain["other_queries_s"] == 0 and large["other_queries_s"] == 0
    assert culprit["other_queries_s"] > 3  # two 4-second culprit tasks held both cores
    assert plain["input_records"] == skewed["input_records"] == 202_000 and large["input_records"] == 1_602_000
    # 30% of the rows on one key: its task joins about 4x the median task's records; uniform keys about 1.2x
    assert skewed["data_skew"] > 3 and plain["data_skew"] < 1.5 and large["data_skew"] < 1.5 and wide["data_skew"] < 1.5
    # the payload is random: the shuffle bytes follow the rows and their width, not how the keys compress
    assert abs(skewed["shuffle_write_bytes"] / plain["shuffle_write_bytes"] - 1) < 0.1
    assert wide["shuffle_write_bytes"] > 3 * plain["shuffle_write_bytes"] and wide["input_records"] == plain["input_records"]
    assert large["shuffle_write_bytes"] > 6 * plain["shuffle_write_bytes"]
    # stage runs: each stage of a query, its tasks and records its own, its skew on the one stage that joins
    for query, name in ((skewed, report.loc["report run 0002", "name"]), (plain, report.loc["report run 0000", "name"])):
        stages = stage_runs[stage_runs["name"].str.startswith(name + "/stage-")]
        assert len(stages) == query["stages"] >= 2 and stages["tasks"].sum() == query["tasks"]
        assert stages["input_records"].sum() == query["input_records"] and (stages["stages"] == 1).all()
        assert stages["data_skew"].max() == query["data_skew"]
        assert (stages["signature"] != query["signature"]).all() and stages["signature"].nunique() == 2  # scans, join
    assert (stage_runs[stage_runs["name"].str.startswith(report.loc["report run 0002", "name"] + "/")]["data_skew"]
            > 3).sum() == 1


@pytest.fixture(scope="module")
def corpus_home(engine_env, tmp_path_factory):
    """The committed PySpark corpus loaded once per engine, in a home of its own (a load takes a minute)."""
    home = tmp_path_factory.mktemp("corpus-home")
    assert main(["load", str(CORPUS), "--home", str(home)]) == 0
    yield home
    main(["engine", "stop", "--home", str(home)])


@pytest.mark.slow  # loads the 210-run corpus: a minute and more on a busy machine
def test_real_spark_corpus_loads_with_its_conditions(corpus_home, capsys):
    """The committed PySpark corpus (zstd logs): configuration, input and contention reach the run features."""
    home = corpus_home
    # run 4 had a concurrent culprit, run 0 the same conditions without it (the runs are the SQL
    # executions of the report; workloads/README.md)
    code, out, _ = run(capsys, "victims", "--top", "1000", "--json", "--home", home)
    # by uid: every application of the corpus has the same name, so its queries' names repeat
    sql = {v["description"]: v["uid"] for v in json.loads(out) if ":sql-" in v["name"]}
    code, out, err = run(capsys, "why-slower", sql["report run 0004"], sql["report run 0000"], "--json", "--home", home)
    assert code == 0, err
    e = json.loads(out)
    f = e["features"]
    assert f["shuffle_partitions"] == [8, 8] and f["executor_cores"] == [2, 2] and f["aqe"] == ["false", "false"]
    assert f["signature"][0] == f["signature"][1] and f["input_bytes"][0] == f["input_bytes"][1] > 0
    assert f["other_queries_s"][0] > 3 and f["other_queries_s"][1] == 0, f["other_queries_s"]  # the culprit's blame
    assert e["because"] and e["precision"] is not None and "most likely because" in e["sentence"]


@pytest.mark.slow  # the corpus
def test_a_numeric_predicate_is_false_where_its_value_is_missing(corpus_home, capsys):
    """A DESPITE predicate on a numeric pair feature holds only where the pair has its value (both runs
    alike, paper 004 Table 1): ``data_skew != 999`` selects the same pairs as ``data_skew >= 0``, not
    also the pairs without a value (NumPy's NaN != 999 is true: it selected every pair)."""
    code, out, _ = run(capsys, "victims", "--top", "1000", "--json", "--home", corpus_home)
    sql = {v["description"]: v["uid"] for v in json.loads(out) if ":sql-" in v["name"]}
    examples = {}
    for despite in ("data_skew != 999", "data_skew >= 0", "input_records_isSame = T"):
        text = (f"FOR '{sql['report run 0009']}', '{sql['report run 0010']}' DESPITE input_records_isSame = T"
                f" AND {despite} OBSERVED duration_s_compare = GT EXPECTED duration_s_compare = SIM")
        code, out, err = run(capsys, "pxql", text, "--json", "--home", corpus_home)
        assert code == 0, err
        examples[despite] = json.loads(out)["examples"]
    assert examples["data_skew != 999"] == examples["data_skew >= 0"] < examples["input_records_isSame = T"], examples


@pytest.mark.slow  # asks four questions of the 210-run corpus
def test_an_answer_names_its_runs_apart_puts_its_cause_first_and_says_what_it_weighs(corpus_home, capsys):
    """Found by an audit on this corpus, whose applications all have one name: the sentence read
    "perfxplain-corpus:sql-12 was slower than perfxplain-corpus:sql-12"; runs of different queries
    were compared without a word; the metrics did not say over which pairs (PerfXplain's are within
    its despite clause, the baselines' over all); and the because clause began with what all the
    related pairs share, the cause second (paper 004 Sec. 3.3 puts the most important first)."""
    def ask(*argv, command="why-slower") -> dict:
        code, out, err = run(capsys, command, *argv, "--json", "--home", corpus_home)
        assert code == 0, err
        return json.loads(out)

    e = ask("report run 0040", "report run 0005")
    assert 'sql-12 ("report run 0040") was slower than perfxplain-corpus:sql-12 ("report run 0005")' in e["sentence"]
    assert e["caveats"] == [f"relevance, precision and generality are shares of the {e['examples']} pairs of related "
                            "runs in the log that agree with the despite clause (paper 004 Sec. 3.3)"]
    baseline = ask("report run 0040", "report run 0005", "--method", "rule-of-thumb")
    assert baseline["caveats"][-1].startswith(f"relevance, precision and generality are shares of the "
                                              f"{baseline['examples']} pairs of related runs in the log (paper")
    other = ask("local-1795655517859/sql-10", "report run 0075")  # a culprit heavy scan
    assert other["caveats"][0].startswith("A and B are runs of different queries"), other["caveats"]
    # run 0150 had more shuffle partitions than 0008, and wide rows (tests/data/perfxplain/truth.json):
    # "tasks alike" came first
    because = ask("report run 0150", "report run 0008")["because"]
    assert [p["feature"] for p in because] == ["shuffle_partitions_compare", "input_bytes_compare", "tasks_isSame"]
    # "most likely because" at a precision under one half is said to be weak; no value in e-notation
    weak = ask("report run 0072", "report run 0070", command="why-same")
    assert weak["precision"] < 0.5 and weak["caveats"][0].startswith("a weak explanation: of the related pairs")
    assert "input_bytes <= 16310 " in weak["sentence"], weak["sentence"]


@pytest.mark.slow  # asks 150 questions of the 210-run corpus: a minute or two
def test_known_cause_pairs_of_the_real_corpus_stay_named(corpus_home, engine_env):
    """docs/evaluation.md's clear known-cause pairs at width 3 (50 pairs, seed 0, as
    ``python -m protoxplore.evaluation.perfxplain_eval tests/data/perfxplain 50`` draws them), through
    load and the log of runs: fails when a method names the changed condition for fewer pairs, or
    PerfXplain's precision drops, than measured on the committed corpus."""
    import dataclasses

    from protoxplore.evaluation import perfxplain_eval
    from protoxplore.service.compare import log_runs
    from protoxplore.storage.store import open_store

    settings = dataclasses.replace(engine_env, home=corpus_home)
    with open_store(settings) as store:
        runs = log_runs(store, settings)
    truth = json.loads((CORPUS / "truth.json").read_text())
    results = perfxplain_eval.evaluate(runs, truth, settings.perfxplain_similarity, 50, clear=True)
    named = results.groupby("method")["named"].sum().to_dict()
    assert named["perfxplain"] >= 44 and named["rule-of-thumb"] >= 50 and named["sim-but-diff"] >= 43, named
    ours = results[results["method"] == "perfxplain"]
    by_condition = ours.groupby("condition")["named"].mean()
    # measured on both engines, which now give the log of runs in one order (by uid) and so the same
    # answers: every culprit, partitions, rows, skew and wide-row pair since the despite clause follows
    # paper 004 Sec. 4.2; 1 of the 7 cores pairs (the others go to the task count; docs/evaluation.md)
    assert (by_condition.drop("cores") >= 0.85).all(), by_condition
    assert ours["precision"].mean() >= 0.93, ours["precision"].mean()


@pytest.mark.slow  # loads a second 210-run corpus and asks 50 questions of it
def test_known_cause_pairs_of_the_held_out_corpus_meet_the_target(engine_env, tmp_path_factory):
    """Issue 12's target on the held-out corpus (made after the method was fixed, never tuned on):
    the because clause names the changed condition for at least 90% of the 50 clear known-cause
    pairs of seed 0 (measured: 50, and 48 and 50 at seeds 1 and 2; docs/evaluation.md). On FalkorDB
    only: the committed corpus's test checks that the engines give the same answers."""
    import dataclasses

    from protoxplore.evaluation import perfxplain_eval
    from protoxplore.service.compare import log_runs
    from protoxplore.storage.store import open_store

    if engine_env.neo4j_uri:
        pytest.skip("checked on the embedded engine; both engines answer alike (the committed corpus's test)")
    home = tmp_path_factory.mktemp("held-out-home")
    assert main(["load", str(HELD_OUT), "--home", str(home)]) == 0
    try:
        settings = dataclasses.replace(engine_env, home=home)
        with open_store(settings) as store:
            runs = log_runs(store, settings)
        truth = json.loads((HELD_OUT / "truth.json").read_text())
        results = perfxplain_eval.evaluate(runs, truth, settings.perfxplain_similarity, 50, clear=True)
        ours = results[results["method"] == "perfxplain"]
        assert len(ours) == 50 and ours["named"].sum() >= 45, ours["named"].sum()
    finally:
        main(["engine", "stop", "--home", str(home)])


@pytest.fixture(scope="module")
def two_nights(nightly_home):
    """A home of its own with two analyses of four nightly runs each: runs 0-3, and runs 4-7."""
    return nightly_home("nights", (0, 4), 4)


def _explanations(settings, home, analysis) -> list[dict]:
    import dataclasses

    from protoxplore.storage.store import open_store
    with open_store(dataclasses.replace(settings, home=home)) as store:
        listed = store.run("perfxplain_explanations", {"analysis": analysis, "k": 100})
        nodes = store.run_text("MATCH (n) WHERE (n:PerfExplanation OR n:PerfFeature) AND "
                               "(n.analysis = $a OR n.other_analysis = $a) RETURN labels(n) AS labels", {"a": analysis})
    return listed, nodes


@pytest.mark.slow
def test_save_writes_the_explanation_linked_to_its_runs_and_features(two_nights, engine_env, capsys):
    home, (first_night, second_night) = two_nights
    # run 5 (analysis 2: 8 partitions, large input) against run 4 (analysis 2) then run 0 (analysis 1)
    code, out, err = run(capsys, "why-slower", f"{second_night}:app-nightly-0005:sql-0", f"{first_night}:app-nightly-0000:sql-0",
                         "--json", "--home", home)
    assert code == 0, err
    assert "saved" not in json.loads(out)  # nothing is written without --save
    assert _explanations(engine_env, home, second_night) == ([], [])
    code, out, err = run(capsys, "why-slower", f"{second_night}:app-nightly-0005:sql-0", f"{first_night}:app-nightly-0000:sql-0",
                         "--save", "--json", "--home", home)
    assert code == 0, err
    e = json.loads(out)
    assert e["saved"]["created"] and e["saved"]["uid"].startswith(f"{second_night}|why/")
    listed, nodes = _explanations(engine_env, home, first_night)  # found from the second run's analysis too
    assert [r["uid"] for r in listed] == [e["saved"]["uid"]]
    row = listed[0]
    assert (row["first"], row["first_analysis"], row["second"], row["second_analysis"]) == (
        "app-nightly-0005:sql-0", second_night, "app-nightly-0000:sql-0", first_night)
    assert row["sentence"] == e["sentence"] and row["precision"] == pytest.approx(e["precision"])
    # one feature node per raw feature named, holding both runs' values; a relationship per predicate
    import dataclasses

    from protoxplore.storage.store import open_store
    with open_store(dataclasses.replace(engine_env, home=home)) as store:
        edges = store.run_text("MATCH (e:PerfExplanation {uid: $uid})-[r]->(x) RETURN type(r) AS type, r.feature AS feature, "
                               "r.op AS op, r.value AS value, x.name AS name, x.first AS first, x.second AS second, "
                               "x.uid AS uid", {"uid": e["saved"]["uid"]})
    runs = {r["type"]: r["uid"] for r in edges if r["type"].endswith("_RUN")}
    assert runs == {"FIRST_RUN": e["runs"][0]["id"], "SECOND_RUN": e["runs"][1]["id"]}
    named = [{"feature": r["feature"], "op": r["op"], "value": r["value"]} for r in edges if r["type"] == "BECAUSE"]
    assert sorted(named, key=str) == sorted(e["because"], key=str)
    assert len([r for r in edges if r["type"] == "DESPITE"]) == len(e["despite"])
    for r in edges:
        if r["type"] in ("BECAUSE", "DESPITE"):
            assert [r["first"], r["second"]] == e["features"][r["name"]], r
    # saved again: found, not written twice
    code, out, err = run(capsys, "why-slower", f"{second_night}:app-nightly-0005:sql-0", f"{first_night}:app-nightly-0000:sql-0",
                         "--save", "--home", home)
    assert code == 0 and f"Saved in the graph as explanation {e['saved']['uid']}" in out
    assert len(_explanations(engine_env, home, second_night)[0]) == 1


def test_explanations_go_with_either_runs_analysis_also_after_a_killed_delete(two_nights, engine_env, capsys):
    from protoxplore.storage import lifecycle
    from protoxplore.storage.store import open_store

    home, (first_night, second_night) = two_nights
    code, out, err = run(capsys, "why-slower", f"{second_night}:app-nightly-0007:sql-0", f"{second_night}:app-nightly-0004:sql-0",
                         "--save", "--json", "--home", home)
    assert code == 0, err
    code, out, err = run(capsys, "why-slower", f"{second_night}:app-nightly-0005:sql-0", f"{first_night}:app-nightly-0000:sql-0",
                         "--save", "--json", "--home", home)
    assert code == 0, err
    listed, nodes = _explanations(engine_env, home, second_night)
    assert len(listed) == 2 and {"PerfFeature"} in [set(n["labels"]) for n in nodes]
    # A delete of the first analysis killed after its first batch (marked deleting, part of its nodes
    # gone): the next command finishes it, with the explanation naming one of its runs
    import dataclasses
    import socket
    import subprocess
    gone = subprocess.Popen(["true"])
    gone.wait()  # a process that ran and was reaped: the deleter that died
    with open_store(dataclasses.replace(engine_env, home=home)) as store:
        store.run("analysis_mark_deleting", {"analysis": first_night, "writer": f"{socket.gethostname()}:{gone.pid}"},
                  write=True)
        store.run("analysis_delete", {"analysis": first_night, "limit": 2}, write=True)
    code, out, err = run(capsys, "analyses", "--home", home)
    assert code == 0 and f"removing an unfinished delete of analysis {first_night}" in out + err
    assert _explanations(engine_env, home, first_night) == ([], [])
    listed, _ = _explanations(engine_env, home, second_night)
    assert [(r["first"], r["second"]) for r in listed] == [("app-nightly-0007:sql-0", "app-nightly-0004:sql-0")]
    # and a delete in batches of one node takes the other analysis' explanation with it
    with open_store(dataclasses.replace(engine_env, home=home, batch_size=1, neo4j_batch_size=1)) as store:
        with locks.writing(home, second_night):
            lifecycle.delete(store, second_night)
    assert _explanations(engine_env, home, second_night) == ([], [])


@pytest.mark.slow
def test_a_run_loaded_in_two_analyses_is_one_run_of_the_log(engine_env, tmp_path, capsys):
    """Four nightly runs loaded together, then runs 0 and 1 loaded again on their own: the log holds
    four runs, not six (every ordered pair of four: 4 x 3 pairs, not 6 x 5), whichever copies the
    question names (docs/model.md, "Log of past runs")."""
    from protoxplore.service import catalog
    from protoxplore.storage.store import open_store

    home, logs = tmp_path / "home", tmp_path / "logs"
    paths = [str(nightly_run(logs, i, *CONDITIONS[i % 4])) for i in range(4)]
    assert main(["load", *paths, "--home", str(home)]) == 0
    assert main(["load", *paths[:2], "--home", str(home)]) == 0
    capsys.readouterr()
    try:
        with open_store(engine_env.__class__.from_env(home=home)) as store:
            # (A Neo4j server is shared with other tests' homes: their analyses are listed too.)
            analyses = [a["id"] for a in sorted(catalog.analyses(store), key=lambda a: a["created"])
                        if any(str(logs) in source for source in a.get("sources") or ())]
        assert len(analyses) == 2
        for analysis in analyses:
            code, out, err = run(capsys, "why-slower", f"{analysis}:app-nightly-0001:sql-0",
                                 f"{analysis}:app-nightly-0000:sql-0", "--json", "--home", str(home))
            assert code == 0, err
            e = json.loads(out)
            assert e["pairs_considered"] == 4 * 3
            assert [r["analysis"] for r in e["runs"]] == [analysis, analysis]
    finally:
        main(["engine", "stop", "--home", str(home)])

"""Every real Spark event log of ../shared/spark-events (copied to tests/data/eventlogs/real) loads
into the trace model with the counts its PROVENANCE.md lists, and through to an explanation."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs.trace import MEMORY_COLUMNS, read_trace
from protoxplore.loader.model import protograph
from protoxplore.service import catalog, pipeline, report
from protoxplore.storage import traces

REAL = Path(__file__).resolve().parent / "data" / "eventlogs" / "real"

#: file -> (tasks, failed tasks, stages, jobs, SQL executions, application end), from PROVENANCE.md
PROVENANCE = {
    "application_1506645932520_24630151": (9, 0, 3, 1, 3, True),
    "app-20161116163331-0000": (24, 8, 1, 1, 0, True),
    "event_log_1": (10, 0, 1, 1, 0, True),
    "local-1532512550423": (8, 0, 2, 2, 0, True),
    "spark2-eventlog.zstd": (6, 0, 6, 6, 4, True),
    "rp_sql_eventlog.zstd": (217, 0, 5, 2, 1, True),
    "eventlog_4nodes_8cores_dynamic_alloc.zstd": (235, 0, 20, 20, 5, True),
    "eventlog_v2_spark-110be3a8424d4a2789cb88134418217b": (39, 0, 6, 6, 3, True),
    "application_1713000000000_0001_1.zstd": (21, 12, 5, 5, 3, False),
    "application_1713000000000_0001_2.zstd": (50, 12, 23, 23, 10, True),
}


@pytest.mark.parametrize("name", sorted(PROVENANCE))
@pytest.mark.slow
def test_real_log_counts(name):
    tasks, failed, stages, jobs, sql, ended = PROVENANCE[name]
    warnings = []
    trace = read_trace(eventlog.discover([REAL / name]), warn=warnings.append)
    assert len(trace.tasks) == tasks
    assert int(trace.tasks["failed"].sum()) == failed
    assert trace.stages["stage_id"].nunique() == stages
    assert int(trace.apps["jobs"].sum()) == jobs
    assert int(trace.apps["sql_executions"].sum()) == sql
    assert bool(trace.apps["complete"].all()) == ended
    assert any("no application end" in w for w in warnings) == (not ended)
    graph = protograph.build(trace)
    assert len(graph.victim_queries) >= 1


@pytest.mark.slow
def test_all_real_logs_as_one_workload(store, settings):
    """Ten applications (two attempts of one among them) form one workload, end to end."""
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(REAL),)), settings.home, pipeline.QUIET)
    row = catalog.resolve_analysis(store, analysis)
    assert row["apps"] == 10 and row["tasks"] == sum(p[0] for p in PROVENANCE.values())
    apps = store.run_text("MATCH (a:Application {analysis: $a}) RETURN a.app_key AS k", {"a": analysis})
    assert {"application_1713000000000_0001-1", "application_1713000000000_0001-2"} <= {r["k"] for r in apps}
    worst = store.run("victims", {"analysis": analysis, "k": 1})[0]
    explanation = report.explain(store, row, worst)
    assert explanation["explanations"]
    total = sum(c["blame_s"] for c in store.run("victim_culprit_queries",
                                                 {"analysis": analysis, "victim": worst["uid"], "k": 1000}))
    assert total == pytest.approx(worst["blocked_s"])
    # IF_uv = BC_u / BC_v below the culprits (cypher/compute_impact_and_dor.cypher) is paper 000 Eq. 3 only
    # because blame is conserved: every node of Levels 0-3 has the sum of its parents' BC.
    children = store.run_text(
        "MATCH (v:ProtoNode {analysis: $a})<-[e:IMPACTS]-(u) WHERE v.level <= 3 "
        "RETURN v.uid AS v, v.blame_s AS bc, sum(u.blame_s) AS parents, sum(e.impact_factor) AS impact", {"a": analysis})
    assert len(children) > 100
    for child in children:
        assert child["parents"] == pytest.approx(child["bc"], rel=1e-9, abs=1e-9), child
        assert child["impact"] == pytest.approx(1.0 if child["bc"] > 0 else 0.0), child


@pytest.mark.slow
def test_executor_unit_for_local_cluster_logs(store, settings):
    # app-20161116163331-0000 is local-cluster[4,4,1024]: four executors on one host.
    path = REAL / "app-20161116163331-0000"
    trace = read_trace(eventlog.discover([path]))
    by_host = protograph.build(trace, protograph.Options(unit="host"))
    by_executor = protograph.build(trace, protograph.Options(unit="executor"))
    assert set(by_host.hosts["name"]) == {"172.22.0.167"}
    assert len(by_executor.hosts) == 4


def test_memory_peaks_from_executor_metric_updates():
    """Spark 2.4 writes executor metric updates with memory peaks: kept per host, as context."""
    trace = read_trace(eventlog.discover([REAL / "application_1506645932520_24630151"]))
    one = trace.memory[trace.memory["executor"] == "1"]
    assert sorted(one["heap_bytes"]) == [214174608, 755008624]
    assert set(one["host"]) == {"node1404.grid.company.com"}
    hosts = protograph.build(trace).hosts.set_index("name")
    # Peaks read off the log by hand (the larger of each executor's two updates).
    assert hosts.loc["node1404.grid.company.com", "peak_heap_bytes"] == 755008624
    assert hosts.loc["node4243.grid.company.com", "peak_execution_bytes"] == 37748736
    assert hosts.loc["node0998.grid.company.com", "peak_storage_bytes"] == 69535048


def test_logs_without_executor_metrics_leave_memory_not_measured(store, settings):
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(REAL / "local-1532512550423"),)),
                                      settings.home, pipeline.QUIET)
    rows = store.run("slow_nodes", {"analysis": analysis, "k": 10})
    assert rows and all(r["peak_heap_bytes"] is None for r in rows)


def test_a_trace_saved_before_memory_peaks_existed_still_loads(tmp_path):
    """Windows re-read the trace saved at load time; one saved without a table gets its default."""
    trace = read_trace(eventlog.discover([REAL / "event_log_1"]))
    traces.save_trace(trace, tmp_path / "trace")
    (tmp_path / "trace" / "memory.parquet").unlink()
    old = traces.load_trace(tmp_path / "trace")
    assert old.memory.empty and list(old.memory.columns) == MEMORY_COLUMNS
    assert len(protograph.build(old, protograph.Options(window=(0.0, 5.0))).hosts) >= 1


def test_a_query_keeps_its_name_alone_or_with_others():
    """Two attempts of one application share its name; loaded together, their queries keep the names
    they have alone (told apart by their keys)."""
    alone = read_trace(eventlog.discover([REAL / "application_1713000000000_0001_2.zstd"]), warn=lambda m: None)
    together = read_trace(eventlog.discover([REAL]), warn=lambda m: None)
    names = dict(zip(together.queries["query_key"], together.queries["name"]))
    assert len(alone.queries) > 1
    assert {key: names[key] for key in alone.queries["query_key"]} == dict(zip(alone.queries["query_key"],
                                                                           alone.queries["name"]))


def test_localhost_of_unrelated_local_mode_applications_are_different_hosts(tmp_path):
    from handmade import make_log
    logs = [make_log(tmp_path / f"laptop{i}", [dict(query=f"q{i}", host="localhost", launch=0, finish=2, cpu_s=1)],
                     hosts=("localhost",)) for i in (1, 2)]
    trace = read_trace(eventlog.discover(logs), warn=lambda m: None)
    hosts = dict(zip(trace.tasks["app_key"], trace.tasks["host"]))
    assert len(set(hosts.values())) == 2 and all(h == f"localhost ({app})" for app, h in hosts.items())
    assert set(trace.executors["host"]) == set(hosts.values())
    real = read_trace(eventlog.discover([REAL / "local-1532512550423"]), warn=lambda m: None)
    assert set(real.tasks["host"]) == {"localhost (local-1532512550423)"}


def test_a_wait_before_the_first_executor_is_the_executors_not_unknown(store, settings):
    """The kubeflow log (Spark 3.5.3): job-0's stage is submitted at 1750983918.544 and its one task
    waits for a slot until 1750983953.947 on 100.64.221.138. The application's first executor is
    added at 1750983953.852 (on 100.64.216.237): the 35.308 s before it are the executors'
    (docs/model.md, "Executors"), the 0.095 s after it go by the slot rules (Unknown: no slot of
    the application was full). Once launched, its executor took 0.301 s to load it, 0.242 s of them
    on the CPU: 0.059 s more of the executors'."""
    log = REAL / "eventlog_v2_spark-110be3a8424d4a2789cb88134418217b"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "job-0")
    culprits = {c["name"]: c["blame_s"] for c in store.run("victim_culprit_queries",
                                                           {"analysis": analysis, "victim": victim["uid"], "k": 10})}
    assert culprits["Executors"] == pytest.approx(1750983953.852 - 1750983918.544 + 0.301 - 0.241759717, abs=1e-6)
    assert culprits["Unknown"] == pytest.approx(1750983953.947 - 1750983953.852, abs=1e-6)
    row = catalog.resolve_analysis(store, analysis)
    said = report.explain(store, row, victim)["explanations"]
    assert ("Culprit 1: waiting for its application's executors (none it could run on, or one loading the task) "
            "caused 35.4 s (100%)") in " ".join(said)


def test_dynamic_allocation_slots_are_those_of_the_executors_alive_then(store, settings):
    """The YARN log eventlog_4nodes_8cores_dynamic_alloc.zstd (Spark 3.2.1): the application's two
    first executors are removed at 1727966040.792; stages 0 and 1 of sql-0 (6 tasks each) are
    submitted at 1727966085.560 and .712, when it has none; executor 4 (4 cores) is added on host1
    at 1727966095.765, executor 3 (4 cores) on somehost-08 at 1727966097.743. Stage 0 takes host1's
    slots (one task at 1727966096.099, three at .116) and two of somehost-08's; stage 1's tasks launch
    at 1727966098.088 (two, on somehost-08) and .545-.548 (four, on host1). So each stage-1 task waits
    10.053 s for executors (docs/model.md, "Executors"); then 0.351 s while host1 had a free slot and
    no unit was full (Unknown); then, until its launch, for stage 0's holders of the full host1
    (on somehost-08 by delay scheduling: it had no slot, then free ones, while host1 was full).
    With the slots of every executor a host ever had (before removals were read) host1 never
    filled up, and 76.1 s of the stage's waits were Unknown."""
    log = REAL / "eventlog_4nodes_8cores_dynamic_alloc.zstd"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "sql-0")
    rows = [r for r in store.run("victim_blame", {"analysis": analysis, "victim": victim["uid"], "k": 100})
            if r["victim_stage"].endswith("stage 1") and " on slots@" in r["name"]]
    blame = {(r["name"].split(" on slots@")[0], r["host"]): r["blame_s"] for r in rows}
    submitted, executor_back, host1_full = 1727966085.712, 1727966095.765, 1727966096.116
    assert blame[("Executors", "host1.some.com")] == pytest.approx(4 * (executor_back - submitted), abs=1e-5)
    assert blame[("Executors", "somehost-08.some.com")] == pytest.approx(2 * (executor_back - submitted), abs=1e-5)
    assert blame[("Unknown", "host1.some.com")] == pytest.approx(4 * (host1_full - executor_back), abs=1e-5)
    assert blame[("Unknown", "somehost-08.some.com")] == pytest.approx(2 * (host1_full - executor_back), abs=1e-5)
    launches = 2 * 1727966098.088 + 1727966098.545 + 1727966098.546 + 1727966098.547 + 1727966098.548
    waited = launches - 6 * submitted
    by_holders = sum(v for (culprit, _), v in blame.items() if culprit not in ("Executors", "Unknown"))
    assert by_holders == pytest.approx(waited - 6 * (host1_full - submitted), abs=1e-5)


def test_a_task_waits_while_its_executor_loads_it(store, settings):
    """The dynamic-allocation YARN log, sql-1's stage 9: task 29 ran on executor 6, added 0.75 s
    before, and spent 15.126 s of `Executor Deserialize Time` (0.065 s of it on the CPU) before a
    run of 0.625 s; it alone kept the stage open 15 s, and stage 13 waited for it. That time was in
    no wait (sql-1: slowdown 0.04). Per host, from the log: deserialization less its CPU time, summed
    over the stage's tasks, is the executors' (waiting for its executor to load the task)."""
    log = REAL / "eventlog_4nodes_8cores_dynamic_alloc.zstd"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "sql-1")
    rows = store.run_text(
        "MATCH (d:DeepExplanation {analysis: $analysis, victim: $victim, request: 'task_start'})-[:IMPACTS]->"
        "(:ImmediateExplanation)-[:IMPACTS]->(s:VictimStage) WHERE s.name ENDS WITH ' stage 9' "
        "RETURN d.host AS host, d.blame_s AS blame_s", {"analysis": analysis, "victim": victim["uid"]})
    assert {r["host"]: r["blame_s"] for r in rows} == pytest.approx({
        "somehost-03.some.com": 15.126 - 0.0651328, "somehost-08.some.com": 0.013 - 0.00842028,
        "host1.some.com": 0.020 - 0.005726414 + 0.020 - 0.012932779,
        "somehost-01.some.com": 0.018 - 0.005378021 + 0.019 - 0.013452365}, abs=1e-7)
    said = report.explain(store, catalog.resolve_analysis(store, analysis), victim)["explanations"]
    assert ("Culprit 1: waiting for its application's executors (none it could run on, or one loading the task) "
            "caused 16.1 s (32%) of the blocked time.") in said


def test_no_slowdown_over_a_service_time_under_a_millisecond(store, settings):
    """The dynamic-allocation log, sql-0: its stage 4 wrote 59 bytes a task in 0.2-9.8 ms of shuffle
    write time, 1.9e-5 s at the disk's capacity in all (set by stages writing 8.4 MB): below the
    millisecond that Spark's times resolve, that stage's IO slowdown (776.63 once) is not estimated,
    at Level 2 and Level 3; the blocked seconds stay. The query's IO slowdown is over all of its IO
    (paper 001 Eq. 3-4: the victim's whole amount): its stage 1 read 1.27 s of bytes at capacity
    without being blocked on IO, and counts (it was left out once, for having no blocked IO)."""
    log = REAL / "eventlog_4nodes_8cores_dynamic_alloc.zstd"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "sql-0")
    e = report.explain(store, catalog.resolve_analysis(store, analysis), victim)
    io = next(r for r in e["resources"] if r["resource"] == "IO")
    assert io["blame_s"] == pytest.approx(0.0148, abs=1e-4) and io["service_s"] == pytest.approx(1.2733, abs=1e-4)
    assert io["slowdown"] == pytest.approx(io["blame_s"] / io["service_s"])
    assert "IO 0.015 s (0%, slowdown 0.01)." in e["explanations"][1]
    stages = {r["stage"]: r for r in store.run_text(
        "MATCH (s:VictimStage {analysis: $analysis})<-[:IMPACTS]-(i:ImmediateExplanation {resource: 'IO'}) "
        "WHERE s.victim = $victim RETURN s.stage_id AS stage, i.blame_s AS blame_s, i.service_s AS service_s, "
        "i.slowdown AS slowdown", {"analysis": analysis, "victim": victim["uid"]})}
    assert stages[1]["blame_s"] == 0 and stages[1]["service_s"] == pytest.approx(1.2733, abs=1e-4)
    assert stages[4]["service_s"] < 1e-3 and stages[4]["blame_s"] > 0.014 and stages[4]["slowdown"] is None
    deep = store.run_text("MATCH (d:DeepExplanation {analysis: $analysis, victim: $victim, resource: 'IO'}) "
                          "RETURN d.service_s AS service_s, d.slowdown AS slowdown",
                          {"analysis": analysis, "victim": victim["uid"]})
    assert deep and all(r["slowdown"] is None for r in deep if r["service_s"] < 1e-3)


def test_a_log_without_executor_events_explains_and_replays(home, capsys, tmp_path):
    """spark2-eventlog.zstd without its ExecutorAdded lines: its saved trace has an empty executors
    table (read back with text columns), and the replay's slots come from its tasks. explain and a
    what-if crashed there once (the slots per executor divided a text column)."""
    import json

    import zstandard

    from protoxplore.cli.commands import main

    raw = zstandard.ZstdDecompressor().stream_reader((REAL / "spark2-eventlog.zstd").open("rb")).read().decode()
    log = tmp_path / "spark2-noexec"
    log.write_text("".join(line for line in raw.splitlines(keepends=True) if "SparkListenerExecutorAdded" not in line))
    for argv in (["load", log, "--json"], ["explain", "--victim", "sql-2", "--json"],
                 ["whatif", "--victim", "sql-2", "--hints", "--json"]):
        assert main([str(a) for a in argv] + ["--home", str(home)]) == 0, capsys.readouterr().err
        json.loads(capsys.readouterr().out)


def test_forged_resource_requests_do_not_stop_a_load(tmp_path):
    """rp_sql_eventlog.zstd with profile 0's GPU amount a task asks forged to 1e-320 (1 / amount is
    infinite) and an executor's GPU addresses not a list: the load goes on, those requests ignored."""
    import zstandard

    raw = zstandard.ZstdDecompressor().stream_reader((REAL / "rp_sql_eventlog.zstd").open("rb")).read().decode()
    forged = raw.replace('"gpu":{"Resource Name":"gpu","Amount":0.25}', '"gpu":{"Resource Name":"gpu","Amount":1e-320}', 1)
    forged = forged.replace('"Resources":{"gpu":{"name":"gpu","addresses":["0"]}}', '"Resources":{"gpu":{"addresses":7}}', 1)
    assert forged.count("1e-320") == 1 and forged.count('"addresses":7') == 1
    log = tmp_path / "rp_forged"
    log.write_text(forged)
    trace = read_trace(eventlog.discover([log]), warn=lambda m: None)
    assert trace.executors.set_index("executor").at["1", "slots"] == 4  # its 4 cores, 1 cpu a task


def test_a_stage_waits_for_executors_of_its_own_resource_profile(store, settings):
    """rp_sql_eventlog.zstd (Spark 3.1.1, stage-level scheduling): stage 0 runs on executors of
    resource profile 1 (2, 3, 4, 5, added from 1622846409.367 and never removed); stages 1-4 use
    profile 0, whose only executor (1) was removed at 1622846404.679. Stage 1 (6 tasks) is submitted
    at 1622846431.120 and the next profile-0 executor (8, on host9) is added at 1622846435.801: each
    of its tasks waits 4.681 s for executors of its profile, although the application had four
    others (docs/model.md, SLOTS and "Executors"). Four of them ran on host9, two on host10..com."""
    log = REAL / "rp_sql_eventlog.zstd"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "sql-0")
    rows = [r for r in store.run("victim_blame", {"analysis": analysis, "victim": victim["uid"], "k": 100})
            if r["victim_stage"].endswith("stage 1") and r["name"].startswith("Executors on slots@")]
    waited = 1622846435.801 - 1622846431.120
    assert {r["host"]: r["blame_s"] for r in rows} == {"host9": pytest.approx(4 * waited, abs=1e-5),
                                                       "host10..com": pytest.approx(2 * waited, abs=1e-5)}


def test_a_profile_that_asks_two_cores_a_task_has_one_slot_on_two(store, settings):
    """rp_sql_eventlog.zstd, job-0: resource profile 1 asks 2 cpus and 2 GPUs per task of executors
    of 2 cores and 2 GPUs, so executor 2 runs one task at a time, as its tasks did (launched at
    409.553, 410.204, 410.214, 410.224; seconds past 1622846000). Stage 0's 4 tasks, submitted at
    402.796, waited 6.571 s each for an executor of the profile (added at 409.367), then 0.186 s
    each with its slot free (Unknown), then tasks 1-3 for task 0 (0.651 s each) and each the next for
    the one before (0.010 s, three times): 1.983 s on its own tasks. With the slots as cores over
    spark.task.cpus (two), Unknown was 2.720 s and its own tasks 0.007 s. Executor 2 also took 0.555 s
    to load the first task, 0.429 s of them on the CPU (the others loaded in less CPU time than
    their 2 ms): 0.126 s more of the executors'."""
    log = REAL / "rp_sql_eventlog.zstd"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "job-0")
    culprits = {r["name"]: r["blame_s"] for r in store.run("victim_culprit_queries", {
        "analysis": analysis, "victim": victim["uid"], "k": 10})}
    assert culprits == {"Executors": pytest.approx(4 * 6.571 + 0.555 - 0.428665976, abs=1e-5),
                        "Unknown": pytest.approx(4 * 0.186, abs=1e-5),
                        "Spark shell:job-0": pytest.approx(3 * 0.651 + 3 * 0.010, abs=1e-5)}


def test_a_task_of_a_profile_that_asks_two_cores_holds_two(store, settings):
    """rp_sql_eventlog.zstd, job-0: a task of resource profile 1 asks 2 cpus (spark.task.cpus is 1), so
    the SLOTS its stage 0 acquired on host4..com are its 4 tasks x 2 cores = 8, and the RATP of its
    29.011 s waiting there (4 x (6.571 + 0.186 s), 3 x 0.651 s and 3 x 0.010 s) is 29.011 / 8 s a core
    (paper 001 Eq. 2). With spark.task.cpus, 4 and 7.25."""
    log = REAL / "rp_sql_eventlog.zstd"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "job-0")
    [deep] = [r for r in store.run("victim_level", {"analysis": analysis, "victim": victim["uid"], "level": 3, "k": 50})
              if r["name"].startswith("slots on ")]
    assert (deep["host"], deep["blame_s"]) == ("host4..com", pytest.approx(29.011, abs=1e-5))
    assert deep["ratp"] == pytest.approx(29.011 / 8, abs=1e-5)


def test_an_amount_counts_every_task_of_the_stage_on_the_host(store, settings):
    """rp_sql_eventlog.zstd, job-0 stage 0 on host4..com: of its 4 tasks only task 0 loaded off the
    CPU (Executor Deserialize Time 555 ms, of which 428.666 ms CPU); tasks 1-3 took 2 ms, less than
    their deserialization CPU. The task start-up RATP is the 126.334 ms over the 4 tasks the stage
    started there (paper 000 Eq. 6: RA_h is the stage's amount on the host), not over task 0 alone."""
    log = REAL / "rp_sql_eventlog.zstd"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "job-0")
    [deep] = store.run_text("MATCH (d:DeepExplanation {analysis: $analysis, victim: $victim, request: 'task_start'}) "
                            "RETURN d.host AS host, d.amount AS amount, d.blame_s AS blame_s, d.ratp AS ratp",
                            {"analysis": analysis, "victim": victim["uid"]})
    assert (deep["host"], deep["amount"]) == ("host4..com", 4)
    assert deep["blame_s"] == pytest.approx(0.555 - 0.428665976, abs=1e-6)
    assert deep["ratp"] == pytest.approx((0.555 - 0.428665976) / 4, abs=1e-6)


def test_a_running_stage_waits_on_executors_of_its_profile(store, settings, tmp_path):
    """rp_sql_eventlog.zstd cut while stage 3 (profile 0) runs, as a live log: its waiting tasks are
    counted on the live executors of profile 0, not on the profile-1 ones, and each blame node is
    one per unit, victim stage and culprit (the fuzzer's run 30 of seed 37 had a stage waiting for
    two owners' slots on host10, two Unknown rows of one uid, which Neo4j refused)."""
    import zstandard

    raw = zstandard.ZstdDecompressor().stream_reader((REAL / "rp_sql_eventlog.zstd").open("rb")).read()
    log = tmp_path / "application_1603128018386_7759.inprogress"
    log.write_bytes(raw[:1295654])
    trace = read_trace(eventlog.discover([log]), warn=lambda m: None)
    waiting = trace.tasks[(trace.tasks["executor"] != "None") & (trace.tasks["launch"] == trace.tasks["finish"])
                          & trace.tasks["stage_key"].str.endswith("stage-3.0")]
    profile = dict(zip(trace.executors["executor"], trace.executors["profile"]))
    assert len(waiting) > 0 and {profile[e] for e in waiting["executor"]} == {0}
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    uids = [r["uid"] for r in store.run_text("MATCH (n:BlameExplanation {analysis: $a}) RETURN n.uid AS uid",
                                             {"a": analysis})]
    assert uids and len(uids) == len(set(uids))


def test_a_live_stage_before_any_executor_of_its_profile_waits_for_executors(tmp_path):
    """rp_sql_eventlog.zstd cut after its 12th line, as a live log: stage 0 (profile 1, 4 tasks) was
    submitted at 1622846402.796 and the last event is at 1622846404.679, when the application had
    had only a profile-0 executor (just removed). Each task has waited 1.883 s for an executor of
    its profile: Executors, as the finished log says of the same wait (docs/model.md, SLOTS)."""
    import zstandard

    raw = zstandard.ZstdDecompressor().stream_reader((REAL / "rp_sql_eventlog.zstd").open("rb")).read()
    log = tmp_path / "application_1603128018386_7759.inprogress"
    log.write_bytes(b"".join(raw.splitlines(keepends=True)[:12]))
    graph = protograph.build(read_trace(eventlog.discover([log]), warn=lambda m: None))
    rows = graph.blame[graph.blame["victim_stage"].str.endswith("stage-0.0")]
    assert dict(zip(rows["culprit"], rows["blame_s"])) == {"Executors": pytest.approx(4 * (404.679 - 402.796), abs=1e-5)}


def live_without_executors(folder: Path) -> Path:
    """The kubeflow log's first 7 lines (job-0's one-task stage submitted at 1750983918.544, no
    executor added yet) and a later job submitted at 1750983930.000, as a live log."""
    src = REAL / "eventlog_v2_spark-110be3a8424d4a2789cb88134418217b" / "events_1_spark-110be3a8424d4a2789cb88134418217b"
    later = '{"Event":"SparkListenerJobStart","Job ID":1,"Submission Time":1750983930000,"Stage Infos":[],"Stage IDs":[]}\n'
    log = folder / "spark-110be3a8424d4a2789cb88134418217b.inprogress"
    log.write_bytes(b"".join(src.read_bytes().splitlines(keepends=True)[:7]) + later.encode())
    return log


def test_a_live_application_still_without_executors_waits_for_executors(tmp_path):
    """A live application whose task has waited 11.456 s so far (:func:`live_without_executors`):
    for executors (none yet, none of its tasks ran on one), not for Unknown causes (docs/model.md,
    "Executors")."""
    log = live_without_executors(tmp_path)
    graph = protograph.build(read_trace(eventlog.discover([log]), warn=lambda m: None))
    assert dict(zip(graph.blame["culprit"], graph.blame["blame_s"])) == {
        "Executors": pytest.approx(1750983930.000 - 1750983918.544, abs=1e-5)}


def test_the_replay_of_a_live_application_without_executors_invents_none(tmp_path):
    """The what-if's replay of :func:`live_without_executors`: the task waiting for an executor is
    not run on one made up from the tasks (``APP/executor-None``, one slot, which ran it at once in
    the replay): no executor offers a slot, so job-0 does not end in the replay, as it had not in
    the log."""
    from protoxplore.loader.whatif import replay

    model = replay.Replay(read_trace(eventlog.discover([live_without_executors(tmp_path)]), warn=lambda m: None))
    assert model.slots == {}
    assert list(model.run().values()) == [math.inf]


@pytest.mark.parametrize("unit", protograph.CONTENTION_UNITS)
def test_a_wait_before_any_executor_is_stored_on_its_unknown_host(store, settings, tmp_path, unit):
    """The same live application loaded: its 11.456 s are on the host ``unknown-host`` (no executor
    ran its task yet), whose node is written with the others, so the victim's hosts hold its whole
    blocked time. The hosts were taken from the tasks' hosts, which left that one out, and the
    deep explanation on it found no host node to hang on: the victim's hosts held nothing. With
    executors as the unit, the same (it was the executor ``APP/executor-None``)."""
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(live_without_executors(tmp_path)),),
                                                                  options=protograph.Options(unit=unit)),
                                      settings.home, pipeline.QUIET)
    victim = store.run("victims", {"analysis": analysis, "order": "blocked", "k": 1})[0]
    hosts = store.run("victim_hosts", {"analysis": analysis, "victim": victim["uid"]})
    assert [(r["host"], r["resource"]) for r in hosts] == [("unknown-host", "SLOTS")]
    assert sum(r["blame_s"] for r in hosts) == pytest.approx(victim["blocked_s"]) == pytest.approx(11.456, abs=1e-5)


@pytest.mark.parametrize("name, observed", [("eventlog_4nodes_8cores_dynamic_alloc.zstd", 19.04),
                                            ("rp_sql_eventlog.zstd", 11.04)])
def test_the_replay_of_an_unchanged_log_keeps_its_executors_spans_and_profiles(name, observed):
    """The what-if's replay (docs/model.md, "What-if") of the log unchanged gives sql-0 about its
    observed runtime when executors offer slots only from their addition to their removal, and a
    stage only those of its resource profile: 18.65 s of 19.04 and 10.09 s of 11.04. With every
    executor there to the end it gave 8.9 s on the first log; with every profile's executors open to
    every stage, 5.22 s on the second."""
    from protoxplore.loader.whatif import replay

    trace = read_trace(eventlog.discover([REAL / name]), warn=lambda m: None)
    query = next(k for k in trace.queries["query_key"] if k.endswith("/sql-0"))
    start = trace.queries.set_index("query_key").at[query, "start"]
    assert replay.Replay(trace).run()[query] - start == pytest.approx(observed, rel=0.1)


def test_a_retry_waits_for_its_failed_attempt_not_for_a_slot(store, settings):
    """app-20161116163331-0000 (Spark 2.1): 16 tasks, 8 of them failed once and ran again. A retry
    could not run before its first attempt failed: its slot wait starts then, not at the stage's
    submission (docs/model.md, SLOTS). From the log: the waits, launch - max(submission 1479335616.653,
    the previous attempt's finish), sum to 0.756 s over the 24 attempts (6.155 s from the submission)."""
    log = REAL / "app-20161116163331-0000"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "job-0")
    slots = [r["blame_s"] for r in store.run("victim_blame", {"analysis": analysis, "victim": victim["uid"], "k": 100})
             if " on slots@" in r["name"]]
    assert sum(slots) == pytest.approx(0.756, abs=1e-5)  # epoch seconds in floats


def test_a_failed_tasks_cpu_time_is_not_measured(store, settings):
    """app-20161116163331-0000 again: its 8 failed attempts report `Executor CPU Time` 0 beside runs
    of 442-453 ms, as Spark's executor sets a failed task's run and GC times only. Read as measured,
    all of those runs were CPU waits (CPU 3.7 s, slowdown 57.9, 3.38 s on job-0's own tasks). From the
    log: JVM GC is the failed attempts' 204 ms of GC plus, per successful task, min(GC, run - CPU):
    95.659 ms (the first wave's 8 tasks); the retries' residuals beyond GC (0.013 + 0.934 + 0.995 +
    0.042 + 0.004 + 0.858 ms) went on beside job-0's other tasks."""
    log = REAL / "app-20161116163331-0000"
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "job-0")
    cpu = [r for r in store.run("victim_resources", {"analysis": analysis, "victim": victim["uid"]})
           if r["resource"] == "CPU"]
    assert [r["blame_s"] for r in cpu] == [pytest.approx(0.204 + 0.095659 + 0.002846, abs=1e-6)]
    culprits = {r["name"]: r["blame_s"] for r in store.run("victim_culprit_queries", {
        "analysis": analysis, "victim": victim["uid"], "k": 10})}
    assert culprits["JVM GC"] == pytest.approx(0.204 + 0.095659, abs=1e-6)
    assert culprits["Spark shell:job-0"] == pytest.approx(0.002846, abs=1e-6)


def test_an_io_wait_fits_in_the_time_off_the_cpu(store, settings):
    """kubeflow's eventlog_v2 log, sql-1's stage 2 (17 tasks on 4 hosts): Spark's `scan time` is the
    wall time of the scan, its CPU decoding included (stage 2: scan 14.511 s, CPU 5.945 s, run 15.716
    s), so the whole scan time was an IO wait beside a CPU time that filled most of the run. Per task
    from the log, the scan's time off the CPU is min(scan, run - CPU - fetch wait - shuffle write);
    per host, its IO-read wait is those seconds less the service time of the bytes at capacity."""
    import json

    log = REAL / "eventlog_v2_spark-110be3a8424d4a2789cb88134418217b"
    expected: dict[str, float] = {}
    for line in (log / "events_1_spark-110be3a8424d4a2789cb88134418217b").read_text().splitlines():
        e = json.loads(line)
        if e["Event"] != "SparkListenerTaskEnd" or e["Stage ID"] != 2:
            continue
        m, info = e["Task Metrics"], e["Task Info"]
        scan = sum(float(a["Update"]) for a in info["Accumulables"] if a.get("Name") == "scan time") / 1e3
        off_cpu = m["Executor Run Time"] / 1e3 - m["Executor CPU Time"] / 1e9 - m["Shuffle Read Metrics"]["Fetch Wait Time"] / 1e3
        write = m["Shuffle Write Metrics"]["Shuffle Write Time"] / 1e9
        expected[info["Host"]] = expected.get(info["Host"], 0.0) + min(scan, max(0.0, off_cpu) - write)
    assert sum(expected.values()) == pytest.approx(9.736, abs=1e-3)  # against 14.511 s of scan time
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), settings.home, pipeline.QUIET)
    victim = catalog.resolve_victim(store, analysis, "sql-1")
    rows = store.run_text("MATCH (d:DeepExplanation {analysis: $analysis, victim: $victim, request: 'io_read'}) "
                          "RETURN d.host AS host, d.blame_s AS blame_s, d.service_s AS service_s",
                          {"analysis": analysis, "victim": victim["uid"]})
    assert {r["host"]: r["blame_s"] + r["service_s"] for r in rows} == pytest.approx(expected, abs=1e-6)


def test_a_retry_waits_from_the_attempt_that_ended_before_it():
    """Task 0: attempt 0 fails at 5 while its speculative copy (attempt 1, launched at 3) runs on
    to 8; attempt 2 launches at 6: it waited from 5, not from 8 (the copy still ran), nor from the
    stage's submission at 0. Task 1's speculative copy waited for no slot."""
    import numpy as np
    import pandas as pd

    from protoxplore.loader.model.waits import ready_for_a_slot
    tasks = pd.DataFrame({"stage_key": ["s"] * 5, "task_index": [0, 0, 0, 1, 1], "task_attempt": [0, 1, 2, 0, 1],
                          "speculative": [False, True, False, False, True],
                          "launch": [1.0, 3.0, 6.0, 1.0, 4.0], "finish": [5.0, 8.0, 9.0, 7.0, 6.0]})
    assert list(ready_for_a_slot(tasks, np.zeros(5))) == [0.0, 3.0, 5.0, 0.0, 4.0]


def test_a_running_retry_waits_from_its_failed_attempt(tmp_path):
    """The same log cut after the TaskStart of task 2's retry (line 42), before its TaskEnd: the
    running retry keeps its index and attempt, so its wait starts when attempt 0 failed, as it will
    once it has ended (a live log read it as waiting from the stage's submission)."""
    import numpy as np

    from protoxplore.loader.model.waits import ready_for_a_slot
    cut = tmp_path / "app-20161116163331-0000.inprogress"
    cut.write_text("\n".join((REAL / "app-20161116163331-0000").read_text().splitlines()[:42]) + "\n")
    trace = read_trace(eventlog.discover([cut]), warn=lambda m: None)
    tasks = trace.tasks.reset_index(drop=True)
    retry = tasks.index[(tasks["task_index"] == 2) & (tasks["task_attempt"] == 1)]
    failed = tasks.index[(tasks["task_index"] == 2) & (tasks["task_attempt"] == 0)]
    assert len(retry) == 1 and tasks.at[retry[0], "running"] and len(failed) == 1
    ready = ready_for_a_slot(tasks, np.zeros(len(tasks)))
    assert ready[retry[0]] == tasks.at[failed[0], "finish"] < tasks.at[retry[0], "launch"]

"""Spark scheduling events the trace model must get right, in one hand-written log whose every
number is known: adaptive re-planning (one SQL execution over several jobs, plan updates), a
skipped stage (listed by a job, never submitted), a failed stage attempt retried, and a
speculative copy of a task that was killed when the original won."""
from __future__ import annotations

import json

import pytest

from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs.trace import read_trace
from protoxplore.loader.model import protograph

SQL = "org.apache.spark.sql.execution.ui."


def task(stage, attempt, task_id, launch, finish, reason="Success", speculative=False, executor="1", cpu_ms=None):
    run_ms = finish - launch
    return {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Stage Attempt ID": attempt,
            "Task End Reason": {"Reason": reason},
            "Task Info": {"Task ID": task_id, "Launch Time": launch, "Finish Time": finish, "Executor ID": executor,
                          "Host": "h1", "Speculative": speculative, "Failed": reason not in ("Success", "TaskKilled"),
                          "Killed": reason == "TaskKilled"},
            "Task Metrics": {"Executor Run Time": run_ms,
                             "Executor CPU Time": int((run_ms if cpu_ms is None else cpu_ms) * 1e6)}}


def stage_info(stage, attempt, submit, complete=None, failure=None):
    info = {"Stage ID": stage, "Stage Attempt ID": attempt, "Stage Name": f"stage {stage}", "Number of Tasks": 2,
            "Submission Time": submit}
    if complete is not None:
        info["Completion Time"] = complete
    if failure:
        info["Failure Reason"] = failure
    return info


EVENTS = [
    {"Event": "SparkListenerLogStart", "Spark Version": "3.5.1"},
    {"Event": "SparkListenerApplicationStart", "App Name": "semantics", "App ID": "app-sem", "Timestamp": 0},
    {"Event": "SparkListenerExecutorAdded", "Timestamp": 0, "Executor ID": "1",
     "Executor Info": {"Host": "h1", "Total Cores": 4}},
    {"Event": SQL + "SparkListenerSQLExecutionStart", "executionId": 0, "description": "select with AQE", "time": 1000},
    # Job 0: stage 0 (the map side).
    {"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": 1000,
     "Stage Infos": [{"Stage ID": 0, "Stage Name": "stage 0", "Number of Tasks": 2, "Parent IDs": []}],
     "Properties": {"spark.sql.execution.id": "0"}},
    {"Event": "SparkListenerStageSubmitted", "Stage Info": stage_info(0, 0, 1000)},
    task(0, 0, 0, 1000, 3000),
    task(0, 0, 1, 1000, 3000),
    {"Event": "SparkListenerStageCompleted", "Stage Info": stage_info(0, 0, 1000, 3000)},
    {"Event": "SparkListenerJobEnd", "Job ID": 0, "Completion Time": 3000, "Job Result": {"Result": "JobSucceeded"}},
    # Adaptive re-planning, then job 1 of the same SQL execution: stage 1 is skipped (its shuffle
    # output exists), stage 2 fails once (a fetch failure) and is retried as attempt 1.
    {"Event": SQL + "SparkListenerSQLAdaptiveExecutionUpdate", "executionId": 0, "physicalPlanDescription": "...",
     "sparkPlanInfo": {}},
    {"Event": "SparkListenerJobStart", "Job ID": 1, "Submission Time": 3000,
     "Stage Infos": [{"Stage ID": 1, "Stage Name": "stage 1", "Number of Tasks": 2, "Parent IDs": []},
                     {"Stage ID": 2, "Stage Name": "stage 2", "Number of Tasks": 2, "Parent IDs": [1]}],
     "Properties": {"spark.sql.execution.id": "0"}},
    {"Event": "SparkListenerStageSubmitted", "Stage Info": stage_info(2, 0, 3000)},
    task(2, 0, 2, 3000, 4000, reason="FetchFailed"),
    task(2, 0, 3, 3000, 4000),
    {"Event": "SparkListenerStageCompleted", "Stage Info": stage_info(2, 0, 3000, 4000, failure="FetchFailed")},
    {"Event": "SparkListenerStageSubmitted", "Stage Info": stage_info(2, 1, 4000)},
    task(2, 1, 4, 4000, 6000),
    task(2, 1, 5, 4000, 6000),
    # A speculative copy of task 5, killed when the original finished first.
    task(2, 1, 6, 5000, 6000, reason="TaskKilled", speculative=True),
    {"Event": "SparkListenerStageCompleted", "Stage Info": stage_info(2, 1, 4000, 6000)},
    {"Event": "SparkListenerJobEnd", "Job ID": 1, "Completion Time": 6000, "Job Result": {"Result": "JobSucceeded"}},
    {"Event": SQL + "SparkListenerSQLExecutionEnd", "executionId": 0, "time": 6000},
    {"Event": "SparkListenerApplicationEnd", "Timestamp": 6000},
]


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("semantics") / "app-sem"
    path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    return read_trace(eventlog.discover([path]))


def test_a_job_without_sql_is_named_after_its_final_stage(tmp_path):
    # as Spark's UI names it: the stage with the highest id, not the first listed
    events = [EVENTS[1], {"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": 1000,
                          "Stage Infos": [{"Stage ID": 0, "Stage Name": "scan at report.py:3", "Parent IDs": []},
                                          {"Stage ID": 1, "Stage Name": "collect at report.py:9", "Parent IDs": [0]}],
                          "Properties": {}},
              {"Event": "SparkListenerStageSubmitted", "Stage Info": stage_info(0, 0, 1000)}, task(0, 0, 0, 1000, 2000)]
    path = tmp_path / "app-job"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert list(read_trace(eventlog.discover([path]), warn=lambda m: None).queries["description"]) == [
        "collect at report.py:9"]


def test_adaptive_execution_is_one_query_over_several_jobs(trace):
    assert list(trace.queries["description"]) == ["select with AQE"]
    assert set(trace.stages["query_key"]) == {"app-sem/sql-0"}
    assert int(trace.apps["jobs"].iloc[0]) == 2 and int(trace.apps["sql_executions"].iloc[0]) == 1


def test_skipped_stage_is_not_a_stage_that_ran(trace):
    # Stage 1 is listed by job 1 but never submitted: no stage row, no task, no blame.
    assert sorted(trace.stages["stage_key"]) == ["app-sem/stage-0.0", "app-sem/stage-2.0", "app-sem/stage-2.1"]


def test_failed_attempt_and_its_retry_are_separate_stages(trace):
    stages = trace.stages.set_index("stage_key")
    assert bool(stages.loc["app-sem/stage-2.0", "failed"]) and not bool(stages.loc["app-sem/stage-2.1", "failed"])
    tasks = trace.tasks.set_index("task_id")
    assert bool(tasks.loc[2, "failed"]) and not bool(tasks.loc[3, "failed"])
    assert tasks.loc[4, "stage_key"] == "app-sem/stage-2.1"


def test_killed_speculative_copy_is_kept_as_a_task_that_used_resources(trace):
    copy = trace.tasks.set_index("task_id").loc[6]
    assert bool(copy["speculative"]) and bool(copy["killed"]) and not bool(copy["failed"])  # counted apart
    assert trace.tasks["killed"].sum() == 1 and trace.tasks["failed"].sum() == 1  # the FetchFailed task
    assert copy["launch"] == 5.0 and copy["finish"] == 6.0


@pytest.mark.parametrize("engine", ["falkordb"], indirect=True)
def test_analyses_count_killed_tasks_apart_from_failed_ones(engine_env, tmp_path, capsys):
    """`protoxplore analyses` (table and JSON) says how many tasks failed and how many were killed."""
    from protoxplore.cli.commands import main
    from protoxplore.storage.embedded import EmbeddedEngine
    path = tmp_path / "app-sem"
    path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
    try:
        assert main(["load", str(path), "--home", str(tmp_path)]) == 0
        capsys.readouterr()
        assert main(["analyses", "--json", "--home", str(tmp_path)]) == 0
        [row] = json.loads(capsys.readouterr().out)
        assert (row["failed_tasks"], row["killed_tasks"]) == (1, 1)
        assert main(["analyses", "--home", str(tmp_path)]) == 0
        header, line = capsys.readouterr().out.splitlines()[:2]
        columns = dict(zip(header.split(), line.split()))
        assert (columns["failed_tasks"], columns["killed_tasks"]) == ("1", "1"), (header, line)
    finally:
        EmbeddedEngine(tmp_path).stop()


def test_blame_adds_up_with_retries_and_speculation(trace):
    graph = protograph.build(trace, protograph.Options(victim_stages="all"))
    # Every stage attempt that ran is a victim stage of the one query.
    assert set(graph.victim_stages["victim_stage"]) == {"app-sem/stage-0.0", "app-sem/stage-2.0", "app-sem/stage-2.1"}
    victim = graph.victim_queries.iloc[0]
    assert graph.blame[graph.blame["victim_query"] == victim["query_key"]]["blame_s"].sum() == pytest.approx(
        victim["blame_s"])


def test_a_log_without_executor_events_builds(tmp_path):
    """A log without ExecutorAdded events (as bench/bench_core.py writes them) still builds: with no
    executor, there are no task slots from them (pandas types the empty frame's columns as text)."""
    path = tmp_path / "app-sem"
    path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS if e["Event"] != "SparkListenerExecutorAdded"))
    trace = read_trace(eventlog.discover([path]))
    assert trace.executors.empty
    graph = protograph.build(trace, protograph.Options(victim_stages="all"))
    assert len(graph.victim_stages) == 3


def test_a_trace_made_by_hand_without_task_start_up_times_builds(monkeypatch):
    """bench/workload.py makes its traces without Executor Deserialize Time (no such column): its
    build failed with KeyError 'deserialize_s' once the task start-up request was added, and every
    benchmark that builds one with it (bench/bench_core.py's 250,000-task workload)."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "bench"))
    from workload import workload

    trace = workload(n_queries=6, tasks=300, hosts=2, concurrency=3)
    assert "deserialize_s" not in trace.tasks
    graph = protograph.build(trace, protograph.Options())
    assert len(graph.victim_queries) == 6 and "task_start" not in set(graph.immediate["resource"])

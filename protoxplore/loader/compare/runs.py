"""PerfXplain's log of past executions: one row of raw features per query run, from the store.

Every loaded (full, not windowed) analysis contributes its queries. Features come from two places:
the analysis's saved trace (configuration, input/shuffle bytes, task and stage counts, executors,
hosts, skew) and the ProtoGraph in the store (duration, blocked seconds by resource, seconds caused
by other queries: contention as a feature, which paper 004 did not have).

Runs of "the same" query across applications share a *signature*: the query's description with
digits and spacing normalized ("report run 17" and "report run 18" match), or, for a query
without a description, the shape of its plan (its stage names, normalized the same way).
"""
from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd

from protoxplore.loader.model.levels import VICTIM_QUERY, VICTIM_STAGE, task_uid, uid
from protoxplore.loader.model.units import ran_on_executor
from protoxplore.loader.model.waits import RESOURCES

#: Numeric raw features of a run (compared LT/SIM/GT between two runs).
NUMERIC = ["duration_s", "shuffle_partitions", "executor_cores", "stages", "tasks", "input_bytes", "input_records",
           "shuffle_write_bytes", "shuffle_remote_bytes", "executors", "hosts", "data_skew", "blocked_s",
           "other_queries_s", *(f"blocked_{r.lower()}_s" for r in RESOURCES)]
BLOCKED_PER_RESOURCE = [f"blocked_{r.lower()}_s" for r in RESOURCES]
#: Raw features that are parts of another: the seconds a run's tasks were blocked, in all and per
#: resource, are part of its time (the ProtoGraph's breakdown of where the time went). An explanation
#: never names the parts of what the question is about (docs/model.md, "Parts of the question").
PARTS = {"duration_s": ["blocked_s", *(f"blocked_{r.lower()}_s" for r in RESOURCES)],
         "blocked_s": [f"blocked_{r.lower()}_s" for r in RESOURCES]}
#: Nominal raw features (compared equal or not; their pair's values form the _diff feature).
NOMINAL = ["signature", "executor_memory", "aqe", "dynamic_allocation", "master", "scheduler_mode", "pool",
           "spark_version", "app_name"]

#: Columns of the log of runs: the run's node and identity (``run_identity``), then its raw features.
COLUMNS = ["uid", "run", "analysis", "name", "description", *NUMERIC, *NOMINAL]

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def signature(description: str, stage_names: list[str]) -> str:
    """A short id shared by runs of the same query: the normalized description, else the plan's shape."""
    text = description if description.strip() else "stages: " + " | ".join(stage_names)
    normal = _SPACES.sub(" ", _DIGITS.sub("#", text.lower())).strip()
    return hashlib.sha1(normal.encode()).hexdigest()[:10]


def data_skew(tasks: pd.DataFrame, by: str = "query_key") -> pd.Series:
    """Per query (or per stage, ``by="stage_key"``): the records of the largest task of its most
    skewed stage over the median task's (input plus shuffle records read, stages of two tasks or
    more; 1 when none). A data characteristic (paper 004 Sec. 2's kinds), not a time: Spark's own
    skew test (AQE's skew join) also compares a partition with the median one. NaN for a trace saved
    before records were kept."""
    if "shuffle_records" not in tasks:
        return pd.Series(np.nan, index=tasks[by].unique())
    done = tasks[~tasks["running"]] if "running" in tasks else tasks
    records = done["input_records"].fillna(0) + done["shuffle_records"].fillna(0)
    per_stage = records.groupby([done["query_key"], done["stage_key"]])
    ratio = (per_stage.max().clip(lower=1) / per_stage.median().clip(lower=1)).where(per_stage.size() > 1, 1.0)
    return ratio.groupby(level=by).max()


def _measured(tasks: pd.DataFrame, by: str) -> pd.DataFrame:
    """The task-level features of each query or stage (``by``): task count, bytes, records, skew, executors, hosts."""
    group = tasks.groupby(by)
    return pd.DataFrame({
        "tasks": group.size(),
        "input_bytes": group["read_bytes"].sum(),
        "shuffle_write_bytes": group["written_bytes"].sum(),
        "shuffle_remote_bytes": group["remote_bytes"].sum(),
        "input_records": group["input_records"].sum(min_count=1) if "input_records" in tasks else np.nan,
        # a task still waiting (a live trace) ran on no executor: its key names executor "None"
        "executors": tasks["executor_key"].where(ran_on_executor(tasks)).groupby(tasks[by]).nunique(),
        "hosts": group["host"].nunique(),
        "data_skew": data_skew(tasks, by),
    })


def _blocked_per_resource(store, name: str, analysis: str) -> pd.DataFrame:
    """Blocked seconds per run uid (rows) and resource (columns ``blocked_<resource>_s``), 0 where none."""
    blocked = pd.DataFrame(store.run(name, {"analysis": analysis}), columns=["uid", "resource", "blame_s"])
    per_resource = blocked.pivot_table(index="uid", columns="resource", values="blame_s", aggfunc="sum")
    return pd.DataFrame({f"blocked_{r.lower()}_s": per_resource[r] if r in per_resource else pd.Series(dtype=float)
                         for r in RESOURCES}).fillna(0.0)


def _configuration(runs: pd.DataFrame, trace) -> pd.DataFrame:
    """``runs`` (with ``query_key``) with the features of their application and query: configuration,
    application name, pool."""
    queries = trace.queries.set_index("query_key")
    apps = trace.apps.set_index("app_key")
    app_of = runs["query_key"].map(queries["app_key"])
    for column in ("shuffle_partitions", "executor_cores"):
        runs[column] = pd.to_numeric(app_of.map(apps[column]) if column in apps else np.nan, errors="coerce")
    for column in ("executor_memory", "aqe", "dynamic_allocation", "master", "scheduler_mode", "spark_version"):
        runs[column] = app_of.map(apps[column]) if column in apps else None
    runs["app_name"] = app_of.map(apps["name"])
    runs["pool"] = runs["query_key"].map(queries["pool"])
    return runs


def run_identity(trace, app_keys: pd.Series, keys: pd.Series) -> list[str]:
    """Which run each row is, in any analysis: its application's id, attempt and start time, then the
    rest of its query, stage or task key (``keys``, each beginning with its ``app_keys``). The key
    alone does not say: two clusters both number an application app-<time>-0000, and the same log's
    key gets a suffix (``~2``) when loaded beside another of the same id, not when loaded alone."""
    apps = trace.apps.set_index("app_key")
    start = pd.to_numeric(apps["start"], errors="coerce")  # a log without ApplicationStart has none
    start = [str(round(s * 1000)) if np.isfinite(s) and abs(s) < 1e13 else "" for s in start]  # ms, as Spark logs it
    named = apps["app_id"].where(apps["app_id"].notna(), apps.index.to_series())  # no id: the key the load gave it
    app = named.astype(str) + "#" + apps["attempt"].fillna("").astype(str) + "@" + pd.Series(start, index=apps.index)
    return [app.get(a, a) + (k[len(a):] if k.startswith(a) else "/" + k)
            for a, k in zip(app_keys.astype(str), keys.astype(str))]


def _finish(runs: pd.DataFrame, analysis: dict) -> pd.DataFrame:
    runs["analysis"] = analysis["id"]
    runs[NOMINAL] = runs[NOMINAL].astype(object).where(runs[NOMINAL].notna(), None)
    return runs[COLUMNS]


def analysis_runs(store, analysis: dict, trace) -> pd.DataFrame:
    """The runs of one analysis: a row per query with NUMERIC and NOMINAL features, and its uid,
    name, description and analysis id (to name it back)."""
    graph = pd.DataFrame(store.run("perfxplain_runs", {"analysis": analysis["id"]}))
    if graph.empty:
        return pd.DataFrame(columns=COLUMNS)
    graph = graph.join(_blocked_per_resource(store, "perfxplain_run_resources", analysis["id"]), on="uid")
    graph[BLOCKED_PER_RESOURCE] = graph[BLOCKED_PER_RESOURCE].fillna(0.0)
    tasks = trace.tasks.merge(trace.stages[["stage_key", "query_key"]], on="stage_key")
    # dropna: a trace saved before the parser read a null "Stage Name" as "" keeps None there
    stage_names = trace.stages.groupby("query_key")["name"].agg(lambda names: sorted(set(names.dropna())))
    runs = graph.join(_measured(tasks, "query_key"), on="query_key")
    runs["run"] = run_identity(trace, runs["query_key"].map(trace.queries.set_index("query_key")["app_key"]),
                               runs["query_key"])
    runs["stages"] = runs["query_key"].map(trace.stages.groupby("query_key").size())
    runs = _configuration(runs, trace)
    runs["signature"] = [signature(d or "", stage_names.get(k, [])) for d, k in zip(runs["description"], runs["query_key"])]
    return _finish(runs, analysis)


def _depths(stages: pd.DataFrame) -> list[int]:
    """Each stage's depth in its application's stage graph: 0 for a stage without parents, else one
    more than its deepest parent's."""
    parents = {(a, s): p for a, s, p in zip(stages["app_key"], stages["stage_id"], stages["parents"])}
    depth: dict = {}

    def of(key) -> int:
        if key not in depth:
            depth[key] = 0  # a cycle (none in Spark) would stop here
            depth[key] = 1 + max((of((key[0], p)) for p in parents.get(key, []) if (key[0], p) in parents), default=-1)
        return depth[key]

    return [of(key) for key in zip(stages["app_key"], stages["stage_id"])]


def analysis_stage_runs(store, analysis: dict, trace) -> pd.DataFrame:
    """The stage runs of one analysis: a row per stage attempt of its queries, named
    ``<query name>/stage-<id>.<attempt>``, with the features of ``analysis_runs`` for the stage alone
    (``stages`` is 1). Blocked and other queries' seconds come from the stage's victim-stage node
    (paper 001 Level 1); a stage without one (off the critical path) has them missing. Its signature
    is its query's, its depth in the query's stage graph and its normalized name, so the join stage
    of one night's report matches the next night's (stage ids are not: Spark numbers a query's two
    scan stages in either order)."""
    queries = analysis_runs(store, analysis, trace).set_index("uid")
    if queries.empty:
        return queries.reset_index()
    stages = trace.stages[uid(analysis["id"], VICTIM_QUERY.key(trace.stages["query_key"])).isin(queries.index)].copy()
    query_uid = uid(analysis["id"], VICTIM_QUERY.key(stages["query_key"]))
    stages["uid"] = uid(analysis["id"], VICTIM_STAGE.key(stages["stage_key"]))
    stages["run"] = run_identity(trace, stages["app_key"], stages["stage_key"])
    stages["name_of_stage"] = stages["name"]
    stages["name"] = (query_uid.map(queries["name"]) + "/stage-" + stages["stage_id"].astype(str) + "."
                      + stages["attempt"].astype(str))
    stages["description"] = query_uid.map(queries["description"])
    shape = [f"{d}/{signature(n or '', [])}" for d, n in zip(_depths(stages), stages["name_of_stage"])]
    stages["signature"] = query_uid.map(queries["signature"]) + "/" + pd.Series(shape, index=stages.index)
    stages["duration_s"] = stages["complete"] - stages["submit"]
    stages["stages"] = 1
    tasks = trace.tasks.merge(trace.stages[["stage_key", "query_key"]], on="stage_key")
    runs = stages.join(_measured(tasks, "stage_key"), on="stage_key")
    graph = pd.DataFrame(store.run("perfxplain_stage_runs", {"analysis": analysis["id"]}),
                         columns=["uid", "blocked_s", "other_queries_s"]).set_index("uid")
    runs = runs.join(graph, on="uid").join(_blocked_per_resource(store, "perfxplain_stage_resources", analysis["id"]),
                                           on="uid")
    in_graph = runs["uid"].isin(graph.index)
    runs.loc[in_graph, BLOCKED_PER_RESOURCE] = runs.loc[in_graph, BLOCKED_PER_RESOURCE].fillna(0.0)
    return _finish(_configuration(runs, trace), analysis)


def analysis_task_runs(store, analysis: dict, trace) -> pd.DataFrame:
    """The task runs of one analysis: a row per finished task attempt of its stage runs, named
    ``<stage run name>/task-<task id>``, with its stage's configuration, description and signature,
    and its own duration (launch to finish), bytes and records; ``data_skew`` is its records over
    its stage's median task's (a task's share of the skew), and ``tasks``, ``stages``, ``executors``
    and ``hosts`` are 1. The ProtoGraph has no node per task: its blocked and other queries' seconds
    are missing."""
    stages = analysis_stage_runs(store, analysis, trace)
    stages.index = stages["uid"].str.split("|vs/", n=1, regex=False).str[1]  # the stage key
    tasks = trace.tasks[~trace.tasks["running"]] if "running" in trace.tasks else trace.tasks
    tasks = tasks[tasks["stage_key"].isin(stages.index)].reset_index(drop=True)
    runs = stages.loc[tasks["stage_key"]].reset_index(drop=True)
    task = "/task-" + tasks["task_id"].astype(str)
    runs["uid"] = task_uid(analysis["id"], tasks["stage_key"] + task)
    runs["run"] = runs["run"] + task
    runs["name"] = runs["name"] + task
    runs["duration_s"] = tasks["finish"] - tasks["launch"]
    runs[["tasks", "stages", "executors", "hosts"]] = 1
    runs["input_bytes"], runs["shuffle_write_bytes"] = tasks["read_bytes"], tasks["written_bytes"]
    runs["shuffle_remote_bytes"] = tasks["remote_bytes"]
    runs["input_records"] = tasks["input_records"] if "input_records" in tasks else np.nan
    if "shuffle_records" in tasks:
        records = (tasks["input_records"].fillna(0) + tasks["shuffle_records"].fillna(0)).clip(lower=1)
        runs["data_skew"] = records / records.groupby(tasks["stage_key"]).transform("median")
    else:
        runs["data_skew"] = np.nan
    runs[["blocked_s", "other_queries_s", *BLOCKED_PER_RESOURCE]] = np.nan
    return runs[COLUMNS]


def all_runs(store, analyses: list[dict], trace_of, level: str = "query") -> pd.DataFrame:
    """The log of past runs: the query (``level="stage"`` or ``"task"``: stage or task) runs of the
    ``analyses`` (full ones: ``service.full_analyses``; ``trace_of(analysis)`` gives its saved
    trace), in the order of their uids. A fixed order: the pairs of a large log are drawn at random
    by position, and each engine returns the rows in its own order (on the PySpark corpus the two
    engines' explanations differed for 5 of 50 pairs)."""
    of = {"query": analysis_runs, "stage": analysis_stage_runs, "task": analysis_task_runs}[level]
    frames = [of(store, a, trace_of(a)) for a in analyses]
    if not frames:  # no analysis with a saved trace: an empty log (a run named is then "not in the log")
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames).sort_values("uid", kind="stable", ignore_index=True)

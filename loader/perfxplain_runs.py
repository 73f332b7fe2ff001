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

from .waits import RESOURCES

#: Numeric raw features of a run (compared LT/SIM/GT between two runs).
NUMERIC = ["duration_s", "shuffle_partitions", "executor_cores", "stages", "tasks", "input_bytes", "input_records",
           "shuffle_write_bytes", "shuffle_remote_bytes", "executors", "hosts", "data_skew", "blocked_s",
           "other_queries_s", *(f"blocked_{r.lower()}_s" for r in RESOURCES)]
#: Raw features that are parts of another: the seconds a run's tasks were blocked, in all and per
#: resource, are part of its time (the ProtoGraph's breakdown of where the time went). An explanation
#: never names the parts of what the question is about (docs/model.md, "Parts of the question").
PARTS = {"duration_s": ["blocked_s", *(f"blocked_{r.lower()}_s" for r in RESOURCES)],
         "blocked_s": [f"blocked_{r.lower()}_s" for r in RESOURCES]}
#: Nominal raw features (compared equal or not; their pair's values form the _diff feature).
NOMINAL = ["signature", "executor_memory", "aqe", "dynamic_allocation", "master", "scheduler_mode", "pool",
           "spark_version", "app_name"]

#: Columns of the log of runs: the run's identity, then its raw features.
COLUMNS = ["uid", "analysis", "name", "description", *NUMERIC, *NOMINAL]

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def signature(description: str, stage_names: list[str]) -> str:
    """A short id shared by runs of the same query: the normalized description, else the plan's shape."""
    text = description if description.strip() else "stages: " + " | ".join(stage_names)
    normal = _SPACES.sub(" ", _DIGITS.sub("#", text.lower())).strip()
    return hashlib.sha1(normal.encode()).hexdigest()[:10]


def data_skew(tasks: pd.DataFrame) -> pd.Series:
    """Per query: the records of the largest task of its most skewed stage over the median task's
    (input plus shuffle records read, stages of two tasks or more; 1 when none). A data
    characteristic (paper 004 Sec. 2's kinds), not a time: Spark's own skew test (AQE's skew join)
    also compares a partition with the median one. NaN for a trace saved before records were kept."""
    if "shuffle_records" not in tasks:
        return pd.Series(np.nan, index=tasks["query_key"].unique())
    done = tasks[~tasks["running"]] if "running" in tasks else tasks
    records = done["input_records"].fillna(0) + done["shuffle_records"].fillna(0)
    per_stage = records.groupby([done["query_key"], done["stage_key"]])
    ratio = (per_stage.max().clip(lower=1) / per_stage.median().clip(lower=1)).where(per_stage.size() > 1, 1.0)
    return ratio.groupby(level="query_key").max()


def analysis_runs(store, analysis: dict, trace) -> pd.DataFrame:
    """The runs of one analysis: a row per query with NUMERIC and NOMINAL features, and its uid,
    name, description and analysis id (to name it back)."""
    graph = pd.DataFrame(store.run("perfxplain_runs", {"analysis": analysis["id"]}))
    if graph.empty:
        return pd.DataFrame(columns=COLUMNS)
    blocked = pd.DataFrame(store.run("perfxplain_run_resources", {"analysis": analysis["id"]}),
                           columns=["uid", "resource", "blame_s"])
    per_resource = blocked.pivot_table(index="uid", columns="resource", values="blame_s", aggfunc="sum")
    for r in RESOURCES:
        column = per_resource[r] if r in per_resource else pd.Series(dtype=float)
        graph[f"blocked_{r.lower()}_s"] = graph["uid"].map(column).fillna(0.0)

    tasks = trace.tasks.merge(trace.stages[["stage_key", "query_key"]], on="stage_key")
    by_query = tasks.groupby("query_key")
    measured = pd.DataFrame({
        "tasks": by_query.size(),
        "input_bytes": by_query["read_bytes"].sum(),
        "shuffle_write_bytes": by_query["written_bytes"].sum(),
        "shuffle_remote_bytes": by_query["remote_bytes"].sum(),
        "input_records": by_query["input_records"].sum(min_count=1) if "input_records" in tasks else np.nan,
        "executors": by_query["executor_key"].nunique(),
        "hosts": by_query["host"].nunique(),
        "data_skew": data_skew(tasks),
    })
    stage_names = trace.stages.groupby("query_key")["name"].agg(lambda names: sorted(set(names)))
    queries = trace.queries.set_index("query_key")
    apps = trace.apps.set_index("app_key")
    runs = graph.join(measured, on="query_key")
    runs["stages"] = runs["query_key"].map(trace.stages.groupby("query_key").size())
    app_of = runs["query_key"].map(queries["app_key"])
    for column in ("shuffle_partitions", "executor_cores"):
        runs[column] = pd.to_numeric(app_of.map(apps[column]) if column in apps else np.nan, errors="coerce")
    for column in ("executor_memory", "aqe", "dynamic_allocation", "master", "scheduler_mode", "spark_version"):
        runs[column] = app_of.map(apps[column]) if column in apps else None
    runs["app_name"] = app_of.map(apps["name"])
    runs["pool"] = runs["query_key"].map(queries["pool"])
    runs["signature"] = [signature(d or "", stage_names.get(k, [])) for d, k in zip(runs["description"], runs["query_key"])]
    runs["analysis"] = analysis["id"]
    runs[NOMINAL] = runs[NOMINAL].astype(object).where(runs[NOMINAL].notna(), None)
    return runs[COLUMNS]


def all_runs(store, analyses: list[dict], trace_of) -> pd.DataFrame:
    """The log of past runs: the runs of every full analysis (``trace_of(analysis)`` gives its saved trace)."""
    frames = [analysis_runs(store, a, trace_of(a)) for a in analyses if not a.get("window")]
    if not frames:  # no analysis with a saved trace: an empty log (a run named is then "not in the log")
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames, ignore_index=True)

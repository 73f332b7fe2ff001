"""The baselines of paper 001 Sec. 6.1, ranking culprit queries for one victim in seconds.

- Naive-Overlap: how long the culprit query's lifetime overlapped the victim's (support staff's
  "who ran at the same time as me").
- Deep-Overlap: the overlap time of every pair of tasks (victim task on a victim stage, culprit
  task) running on the same host, summed.
- Blocked-Time Analysis (BTA, the blocked-time metric of Ousterhout et al. that paper 001 cites):
  the victim's IO and network blocked time, spread uniformly over each victim task and given to
  every culprit task running beside it on the same host, without any RATP weighting.

None of them uses rates; the ProtoGraph method (``protograph``) does. In a time window
(``Options.window``) the overlaps count only their part inside it, as paper 001 Sec. 6.2 compares
the methods in its live windows. The counterfactual method
(``replay``) ranks by the predicted speedup of removing each query. ``protograph-offered-slots`` is
the ProtoGraph with paper 000 Table 5's rule for slot waits (the other queued stages, by the slots
they were offered) instead of ours (the slot holders): ``protoxplore evaluate`` scores it to
compare the two rules on data (docs/evaluation.md).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import Trace
from protoxplore.loader.model.blame import sweep_blame
from protoxplore.loader.model.protograph import Options, _victim_stages, build
from protoxplore.loader.model.units import task_units
from protoxplore.loader.model.windows import clip, window_in_trace
from protoxplore.loader.whatif.replay import counterfactual

METHODS = ("protograph", "counterfactual", "naive-overlap", "deep-overlap", "blocked-time")


def _intervals(trace: Trace, options: Options):
    tasks = trace.tasks.dropna(subset=["launch", "finish"]).reset_index(drop=True)
    stages = trace.stages[trace.stages["stage_key"].isin(tasks["stage_key"])]
    query_of = dict(zip(stages["stage_key"], stages["query_key"]))
    victims = _victim_stages(stages, options.victim_stages)
    unit = task_units(tasks, options.unit)
    return tasks, stages, query_of, victims, unit


def _in_window(start: pd.Series, end: pd.Series, trace: Trace, options: Options) -> tuple[np.ndarray, np.ndarray]:
    """``[start, end)`` clipped to the analysis's window (seconds since the trace start), if any: an
    interval outside it becomes empty."""
    return clip(start.to_numpy(float), end.to_numpy(float), window_in_trace(trace, options.window))


def naive_overlap(trace: Trace, victim_query: str, options: Options = Options()) -> pd.Series:
    """Seconds each other query's lifetime overlapped the victim query's lifetime."""
    _, stages, _, _, _ = _intervals(trace, options)
    bounds = stages.groupby("query_key").agg(start=("submit", "min"), end=("complete", "max"))
    bounds["start"], bounds["end"] = _in_window(bounds["start"], bounds["end"], trace, options)
    v = bounds.loc[victim_query]
    overlap = (np.minimum(bounds["end"], v["end"]) - np.maximum(bounds["start"], v["start"])).clip(lower=0)
    return overlap.drop(victim_query).sort_values(ascending=False)


def _task_overlap(trace: Trace, victim_query: str, options: Options, blocked_per_second) -> pd.Series:
    tasks, _, query_of, victims, unit = _intervals(trace, options)
    mine = (tasks["stage_key"].isin(victims) & (tasks["stage_key"].map(query_of) == victim_query)).to_numpy()
    start, end = _in_window(tasks["launch"], tasks["finish"], trace, options)
    consumers = pd.DataFrame({"unit": unit, "start": start, "end": end, "stage": tasks["stage_key"], "rate": 1.0})
    vic = pd.DataFrame({"unit": unit, "start": start, "end": end, "stage": tasks["stage_key"],
                        "blocked_rate": blocked_per_second(tasks)})[mine]
    overlap, _ = sweep_blame(consumers, vic, normalize=False)
    scores = overlap.groupby(overlap["culprit_stage"].map(query_of))["blame_s"].sum()
    return scores.drop(victim_query, errors="ignore").sort_values(ascending=False)


def deep_overlap(trace: Trace, victim_query: str, options: Options = Options()) -> pd.Series:
    """Summed same-host overlap seconds of every victim task with every task of each other query."""
    return _task_overlap(trace, victim_query, options, lambda tasks: 1.0)


def blocked_time(trace: Trace, victim_query: str, options: Options = Options()) -> pd.Series:
    """The victim's IO and network blocked seconds, given to every task overlapping it on its host."""
    def per_second(tasks: pd.DataFrame) -> np.ndarray:
        # The blocked-time metric of Ousterhout et al.: the measured IO and network times as they are.
        blocked = tasks[["fetch_wait_s", "scan_s", "write_s"]].fillna(0.0).sum(axis=1).to_numpy()
        duration = (tasks["finish"] - tasks["launch"]).to_numpy()
        return np.where(duration > 0, np.asarray(blocked, dtype=float) / np.where(duration > 0, duration, 1), 0.0)
    return _task_overlap(trace, victim_query, options, per_second)


def offered_slots(trace: Trace, victim_query: str, options: Options = Options()) -> pd.Series:
    """The ProtoGraph's blame seconds per culprit query with slot waits blamed by paper 000 Table 5's
    rule (``Options.slot_rule="offered"``, see ``protograph._contention``)."""
    return protograph_scores(build(trace, replace(options, slot_rule="offered")), victim_query)


BASELINES = {"naive-overlap": naive_overlap, "deep-overlap": deep_overlap, "blocked-time": blocked_time}
#: Every ranking computed from the trace rather than read from the ProtoGraph, by method name.
RANKERS = {"counterfactual": counterfactual, **BASELINES}
#: What each ranking's score is: the CLI's column and the web page's title.
SCORES = {"counterfactual": ("predicted_speedup_s", "Counterfactual replay: predicted speedup (s)"),
          "naive-overlap": ("naive_overlap_s", "Naive-Overlap (s)"), "deep-overlap": ("deep_overlap_s", "Deep-Overlap (s)"),
          "blocked-time": ("blocked_time_s", "Blocked time (s)")}


def protograph_scores(graph, victim_query: str) -> pd.Series:
    """The ProtoGraph's blame seconds per culprit query on one victim (its own query left out)."""
    blame = graph.blame[graph.blame["victim_query"] == victim_query]
    scores = blame[~blame["self"]].groupby("culprit_query")["blame_s"].sum()
    return scores.sort_values(ascending=False)

"""Build the ProtoGraph of a workload: seven levels with blame contributions in seconds.

L0 victim query <- L1 victim stage <- L2 resource (immediate explanation) <- L3 resource request
on a host (deep explanation) <- L4 blame <- L5 culprit stage <- L6 culprit query.

Blame contributions (BC) follow paper 001 Sec. 4.1: Level 3 holds the victim stage's blocked
seconds on one request and host, Level 4 splits them among culprit stages (Eq. 9-10), and
Levels 2, 1, 0 add them up. So the blame of every victim adds up to its measured blocked time.
Impact factors and degrees of responsibility are computed afterwards inside the database by the
stored Cypher of ``cypher/`` (paper 000 Eq. 3 and Sec. 4.1.3).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import Trace
from protoxplore.loader.model.blame import (
    EXECUTORS_SOURCE,
    GC_SOURCE,
    UNKNOWN_SOURCE,
    sweep_blame,
)
from protoxplore.loader.model.level_rows import SYNTHETIC, level_rows
from protoxplore.loader.model.slots import before_executors, fair_pools, resource_needs, slot_blame
from protoxplore.loader.model.units import cores_per_task, executors_alive, slots_over_time, task_owners, task_units
from protoxplore.loader.model.waits import measured_resources, task_waits
from protoxplore.loader.model.windows import clip, window_in_trace

CONTENTION_UNITS = ("host", "executor")
#: Who is blamed for a slot wait (docs/model.md, SLOTS): the tasks holding the slots (ours), or the
#: other tasks queued at the same time, by the slots they were offered (paper 000 Table 5).
SLOT_RULES = ("holders", "offered")


@dataclass
class Options:
    """What to analyse. ``window`` is (t0, t1) in seconds since the start of the workload."""

    unit: str = "host"
    victim_stages: str = "critical"
    window: tuple[float, float] | None = None
    slot_rule: str = "holders"


@dataclass
class ProtoGraph:
    """Rows for each level (``levels``); ``toward_victim`` columns hold the key of the node one level
    down, ``toward_culprit`` the key of the node one level up."""

    victim_queries: pd.DataFrame
    victim_stages: pd.DataFrame
    immediate: pd.DataFrame
    deep: pd.DataFrame
    blame: pd.DataFrame
    culprit_stages: pd.DataFrame
    culprit_queries: pd.DataFrame
    hosts: pd.DataFrame
    measured: list[str]
    not_measured: list[str]
    stats: dict = field(default_factory=dict)

    def node_count(self) -> int:
        return sum(len(f) for f in (self.victim_queries, self.victim_stages, self.immediate, self.deep,
                                    self.blame, self.culprit_stages, self.culprit_queries))


def critical_path(keys: list, ids: list, parents: list, submit: np.ndarray, complete: np.ndarray) -> list[str]:
    """Stage keys on one query's critical path, first stage first (its stages as columns: plain
    lists, as the walk reads a few rows per step and pandas rows cost more than the walk).

    Paper 000 Sec. 2.4 / 001 Sec. 4.1: the chain of stages whose runtimes make up the query's
    runtime. We walk back from the stage that completed last, each time to the stage it waited
    for: the parent (else, for a later job of the same query, any earlier stage) that completed
    last before it was submitted.
    """
    ran = np.flatnonzero(~np.isnan(submit) & ~np.isnan(complete))
    if not len(ran):
        return list(keys)
    done = ran[np.argsort(complete[ran], kind="quicksort")]  # in completion order, as sort_values puts them
    by_id = {ids[at]: at for at in done}
    path = []
    current = done[-1]
    visited = set()
    while current is not None and keys[current] not in visited:
        visited.add(keys[current])
        path.append(keys[current])
        before = submit[current] + 1e-9
        waited = [by_id[p] for p in parents[current] if p in by_id and complete[by_id[p]] <= before]
        if not waited:
            waited = [at for at in done if complete[at] <= before and keys[at] not in visited]
        current = max(waited, key=lambda at: complete[at]) if waited else None
    return path[::-1]


def build(trace: Trace, options: Options = Options()) -> ProtoGraph:
    """Compute blame for every query of the trace as a victim and return the ProtoGraph rows."""
    if options.unit not in CONTENTION_UNITS:
        raise ValueError(f"unknown contention unit {options.unit!r}; choose one of {', '.join(CONTENTION_UNITS)}")
    if options.slot_rule not in SLOT_RULES:
        raise ValueError(f"unknown slot rule {options.slot_rule!r}; choose one of {', '.join(SLOT_RULES)}")
    tasks = trace.tasks.dropna(subset=["launch", "finish"]).reset_index(drop=True)
    stages = trace.stages[trace.stages["stage_key"].isin(tasks["stage_key"].unique())].reset_index(drop=True)
    queries = trace.queries[trace.queries["query_key"].isin(stages["query_key"])].reset_index(drop=True)
    window = window_in_trace(trace, options.window)

    stage_query = dict(zip(stages["stage_key"], stages["query_key"]))
    victim_stage_keys = _victim_stages(stages, options.victim_stages)
    # Sorted stage keys, as np.unique gives them, by hashing: np.unique sorts every task's key.
    stage_index, stage_codes = pd.factorize(tasks["stage_key"].to_numpy(), sort=True)
    is_victim = tasks["stage_key"].isin(victim_stage_keys).to_numpy()  # hashing: np.isin sorts 1M strings

    owners = task_owners(trace, tasks)
    waits, units, app_units, slots = _waits(trace, tasks, options.unit, owners)
    plain_unit = dict(zip(app_units, units))
    unit_codes, unit_names = pd.factorize(units, sort=True)
    a_task_on = np.empty(len(unit_names), dtype=int)  # one task per unit: each carries its unit's capacity
    a_task_on[unit_codes] = np.arange(len(unit_codes))
    # Level 4 rows are categorical (a few bytes a row, not a string each): a dense workload has 2 M.
    # Sorted categories group and sort as the strings would.
    kinds = {"unit": pd.CategoricalDtype(sorted(set(units))),
             "victim_stage": pd.CategoricalDtype(sorted({*stage_codes, *SYNTHETIC})),
             "request": pd.CategoricalDtype(sorted(waits))}
    kinds["culprit"] = kinds["victim_stage"]
    victim_codes = np.unique(stage_index[is_victim])
    # Each task's unit and stage as one code, in the order of their sorted names: the sums per unit
    # and stage of every request (_known_cause, _served) group it, not the strings again each time.
    pair = unit_codes * len(stage_codes) + stage_index
    by_stage_key = (pair, pd.Index(unit_names), pd.Index(stage_codes))
    by_stage_code = (pair, pd.Index(unit_names), pd.RangeIndex(len(stage_codes)))
    rows = []
    slowed = []  # every stage's blocked seconds by culprit stage (CPU, network, IO)
    users, demand, caps = {}, {}, {}  # per request: its consumers, each task's service seconds on it, the capacities
    served = []  # per request: each victim stage's amount and service seconds on each unit
    for request in sorted(waits, key=lambda r: r == "slots"):  # slots last: they read the others' blame
        w = waits[request]
        consumers, victims, how = _contention(request, w, units, app_units, slots, window, options.slot_rule)
        consumers, victims = consumers.assign(stage=stage_index), victims.assign(stage=stage_index)
        known = [(GC_SOURCE, w["gc_s"].to_numpy(float) * victims["kept"].to_numpy())]
        if request == "slots":
            victims, before = before_executors(victims, owners.to_numpy(), executors_alive(trace))
            known.append((EXECUTORS_SOURCE, before))
        if request == "task_start":
            # No other task's use explains an executor loading a task: its start-up (docs/model.md, Executors).
            known = [(EXECUTORS_SOURCE, w["blocked_s"].to_numpy(float) * victims["kept"].to_numpy())]
            blame, unknown = sweep_blame(consumers.iloc[:0], victims.iloc[:0], **how)
        elif request != "slots":
            # Every stage is a victim here, not only the chosen victim stages: a slot holder that
            # others slowed down passes their share of its slot blame on to them (slot_blame).
            blame, unknown = sweep_blame(consumers, victims, **how)
            slowed.append(blame[blame["victim_stage"] != blame["culprit_stage"]])
            blame = blame[np.isin(blame["victim_stage"].to_numpy(int), victim_codes)]
            unknown = unknown[np.isin(unknown["victim_stage"].to_numpy(int), victim_codes)]
            users[request] = consumers
            demand[request] = np.nan_to_num(w["service_s"].to_numpy(float))
            # A unit's capacity is the whole trace's peak, whatever the window (waits.task_waits): a
            # window without the peak took a host half busy for a full one, moving slot waits from
            # the holders to the users (docs/model.md, "Time windows").
            caps[request] = pd.Series(w["capacity"].to_numpy(float)[a_task_on], index=unit_names)
        elif options.slot_rule == "holders":
            needs = resource_needs(demand)
            blame, unknown = slot_blame(consumers, victims[is_victim], how, users, caps,
                                         {r: f[is_victim] for r, f in needs.items()}, slowed, plain_unit,
                                         fair_pools(trace, consumers, victims, stage_codes))
        else:
            blame, unknown = sweep_blame(consumers, victims[is_victim], **how)
            blame["unit"], unknown["unit"] = blame["unit"].map(plain_unit), unknown["unit"].map(plain_unit)
        blame["culprit"] = stage_codes[blame["culprit_stage"].to_numpy(int)]
        unknown["culprit"] = UNKNOWN_SOURCE
        part = pd.concat([blame[["unit", "victim_stage", "culprit", "blame_s"]], unknown,
                          *(_known_cause(by_stage_code, seconds, is_victim, source) for source, seconds in known)],
                         ignore_index=True)
        # One row per unit, victim stage and culprit: a stage's tasks can wait for the slots of two
        # owners on one host (resource profiles: slot_owner), whose rows meet on the plain unit.
        part = part.groupby(["unit", "victim_stage", "culprit"], as_index=False, sort=False)["blame_s"].sum()
        part["victim_stage"] = stage_codes[part["victim_stage"].to_numpy(int)]
        part["request"] = request
        agg = _served(w, by_stage_key, is_victim, window)
        part = part.merge(agg, on=["unit", "victim_stage"], how="left")
        served.append(agg.assign(request=request))
        rows.append(part.astype(kinds))
    l4 = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["unit", "victim_stage", "culprit", "blame_s", "request", "amount", "service_s"])
    del rows
    # The same types when nothing at all was blocked (an empty frame would make them floats).
    l4 = l4.astype({**kinds, "blame_s": float})
    l4 = l4[l4["blame_s"] > 0].reset_index(drop=True)

    measured = measured_resources(waits)
    served = pd.concat(served, ignore_index=True) if served else pd.DataFrame(
        columns=["unit", "victim_stage", "amount", "service_s", "request"])
    return ProtoGraph(**level_rows(trace, queries, stages, tasks, l4, served, victim_stage_keys, stage_query, measured,
                                   window, options))


def _served(w: pd.DataFrame, pairs: tuple, is_victim: np.ndarray, window: tuple[float, float] | None) -> pd.DataFrame:
    """Per unit and victim stage, the amount its tasks acquired on one request (``w``, a frame of
    :func:`waits.task_waits`) and the seconds that amount takes at the unit's capacity: the amount
    and service time of Levels 3 and 2 (the bases of RATP and slowdown). Every task of the stage on
    the unit counts, whether it waited or not (paper 000 Eq. 6: ``RA_h`` is the stage's amount on
    host ``h``; paper 001 Eq. 3-4: the victim's whole amount). Inside a window, each task counts for
    the share of its run in it (a run of no length, where its instant is). ``pairs``: each task's unit
    and stage key (:func:`_unit_stage_sums`)."""
    start, end = w["run_start"].to_numpy(float), w["run_end"].to_numpy(float)
    run_len = np.clip(end - start, 0, None)
    kept_start, kept_end = clip(start, end, window)
    instant = np.ones(len(start)) if window is None else ((start >= window[0]) & (start <= window[1])).astype(float)
    in_window = np.where(run_len > 0, (kept_end - kept_start) / np.where(run_len > 0, run_len, 1), instant)
    return _unit_stage_sums(pairs, is_victim, {"amount": w["amount"].to_numpy(float) * in_window,
                                               "service_s": w["service_s"].to_numpy(float) * in_window}, min_count=1)


def _known_cause(pairs: tuple, seconds: np.ndarray, is_victim: np.ndarray, source: str) -> pd.DataFrame:
    """Level-4 rows of a known cause (JVM GC, Executors): its blocked seconds per task, summed per
    unit and victim stage (``pairs``: each task's unit and stage code, :func:`_unit_stage_sums`)."""
    return _unit_stage_sums(pairs, is_victim & (seconds > 0), {"blame_s": seconds}).assign(culprit=source)


def _unit_stage_sums(pairs: tuple[np.ndarray, pd.Index, pd.Index], rows: np.ndarray, values: dict[str, np.ndarray],
                     min_count: int = 0) -> pd.DataFrame:
    """Sums of ``values`` (arrays over the tasks) over the tasks ``rows``, as rows ``unit,
    victim_stage, *values`` sorted by unit and stage, as a groupby of those two columns gives them.
    ``pairs``: each task's unit and stage as one code, in the order of their names, and the names
    of the units and stages."""
    pair, units, stages = pairs
    sums = pd.DataFrame({k: v[rows] for k, v in values.items()}).groupby(pair[rows]).sum(min_count=min_count)
    at = sums.index.to_numpy()
    return pd.DataFrame({"unit": units.take(at // len(stages)), "victim_stage": stages.take(at % len(stages)),
                         **{k: sums[k].to_numpy() for k in values}})


def _waits(trace: Trace, tasks: pd.DataFrame, unit: str, owners: pd.Series):
    """Wait components of every task, with each task's contention unit, its ``app|unit`` and the
    task slots per ``app|unit``; ``owners``: each task's :func:`task_owners`."""
    units = task_units(tasks, unit).to_numpy()
    submit = trace.stages.drop_duplicates("stage_key").set_index("stage_key")["submit"]
    task_cpus = cores_per_task(trace, tasks).to_numpy(float)
    # Slots are per application (and resource profile): an executor runs the tasks of one
    # application only, so the holders of the slots a task waited for are tasks of its own
    # application on that unit.
    app_units = (owners + "|" + pd.Series(units, index=tasks.index)).to_numpy()
    return task_waits(tasks, submit, units, task_cpus), units, app_units, slots_over_time(trace, unit)


def _contention(request: str, w: pd.DataFrame, units, app_units, slots: dict, window, slot_rule: str = "holders"):
    """The sweep's inputs for one request, one row per task: consumers (``unit, start, end, rate``),
    victims (``unit, start, end, blocked_rate, own_rate``, and ``kept``: the share of the task's
    wait inside the window) and the keyword arguments of :func:`blame.sweep_blame`.

    Slot waits with ``slot_rule="offered"`` follow paper 000 Table 5: the culprits of a queued task
    are the other tasks queued at the same time on its unit, each weighted by the rate at which it
    was offered a slot (one slot over its own wait, the inverse of its RATP ``SWT / SLOTS_OFFERED``),
    so a stage whose tasks got slots quickly while the victim waited takes most of the blame."""
    run_start, run_end = clip(w["run_start"].to_numpy(), w["run_end"].to_numpy(), window)
    wait_start, wait_end = clip(w["wait_start"].to_numpy(), w["wait_end"].to_numpy(), window)
    run_len = np.clip(w["run_end"].to_numpy() - w["run_start"].to_numpy(), 0, None)
    wait_len = np.clip(w["wait_end"].to_numpy() - w["wait_start"].to_numpy(), 0, None)
    rate = np.where(run_len > 0, w["amount"].to_numpy() / np.where(run_len > 0, run_len, 1), 0.0)
    if request == "slots":
        rate = np.where(run_len > 0, 1.0, 0.0)  # a running task holds one slot (its task_cpus cores)
    if request == "slots" and slot_rule == "offered":
        run_start, run_end = wait_start, wait_end
        rate = np.where(wait_len > 0, 1.0 / np.where(wait_len > 0, wait_len, 1), 0.0)
    blocked = w["blocked_s"].to_numpy(float) - w["gc_s"].to_numpy(float)  # GC is a known cause of its own
    sweep_units = app_units if request == "slots" else units
    consumers = pd.DataFrame({"unit": sweep_units, "start": run_start, "end": run_end, "rate": rate})
    # A task blocked while it runs also consumes then; while it waits for a slot it holds none (but
    # under the offered rule it is one of the queued tasks, so it must not be its own culprit).
    victims = pd.DataFrame({
        "unit": sweep_units, "start": wait_start, "end": wait_end,
        "blocked_rate": np.where(wait_len > 0, blocked / np.where(wait_len > 0, wait_len, 1), 0.0),
        "own_rate": 0.0 if request == "slots" and slot_rule == "holders" else rate,
        "kept": np.where(wait_len > 0, (wait_end - wait_start) / np.where(wait_len > 0, wait_len, 1), 0.0)})
    how = {"capacity": slots if request == "slots" and slot_rule == "holders" else None,
           "alone": "service" if request == "cpu" else "unknown"}
    return consumers, victims, how


def run_contention(trace: Trace, options: Options | None = None) -> tuple[pd.DataFrame, list]:
    """The trace's tasks (those with a launch and finish) and, per CPU, network and IO request,
    the sweep's consumers and victims over them: the inputs of the what-if's replay
    (``replay.Replay``), with rows in the order of the returned tasks."""
    options = options or Options()
    tasks = trace.tasks.dropna(subset=["launch", "finish"]).reset_index(drop=True)
    waits, units, app_units, slots = _waits(trace, tasks, options.unit, task_owners(trace, tasks))
    # Slot waits are the scheduler's, replayed by ``replay``; a task's loading stays in its work.
    parts = [_contention(request, w, units, app_units, slots, None)[:2] for request, w in waits.items()
             if request not in ("slots", "task_start")]
    return tasks, parts


def _victim_stages(stages: pd.DataFrame, mode: str) -> set[str]:
    """The victim stages (issue 2): each query's critical path (``critical``), every stage (``all``)
    or one stage key."""
    if mode == "all":
        return set(stages["stage_key"])
    if mode == "critical":
        keys, ids, parents = stages["stage_key"].tolist(), stages["stage_id"].tolist(), stages["parents"].tolist()
        submit, complete = stages["submit"].to_numpy(float), stages["complete"].to_numpy(float)
        return {key for rows in stages.groupby("query_key").indices.values()
                for key in critical_path([keys[i] for i in rows], [ids[i] for i in rows], [parents[i] for i in rows],
                                      submit[rows], complete[rows])}
    if mode in set(stages["stage_key"]):
        return {mode}
    raise ValueError(f"unknown victim stage selection {mode!r}: use 'critical', 'all' or a stage key "
                     f"such as {stages['stage_key'].iloc[0]!r}")



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

import functools
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import Trace, waiting_for_slot
from protoxplore.loader.model.blame import (
    EXECUTORS_SOURCE,
    GC_SOURCE,
    UNKNOWN_SOURCE,
    expand,
    load_steps,
    ratp,
    rounding_floor,
    slowdown,
    step_at,
    step_sums,
    sweep_blame,
)
from protoxplore.loader.model.levels import (
    BLAME,
    CULPRIT_QUERY,
    CULPRIT_STAGE,
    DEEP,
    IMMEDIATE,
    VICTIM_QUERY,
    VICTIM_STAGE,
)
from protoxplore.loader.model.waits import REQUEST_BY_NAME, RESOURCES, measured_resources, task_waits

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
            victims, before = _before_executors(victims, owners.to_numpy(), _executors_alive(trace))
            known.append((EXECUTORS_SOURCE, before))
        if request == "task_start":
            # No other task's use explains an executor loading a task: its start-up (docs/model.md, Executors).
            known = [(EXECUTORS_SOURCE, w["blocked_s"].to_numpy(float) * victims["kept"].to_numpy())]
            blame, unknown = sweep_blame(consumers.iloc[:0], victims.iloc[:0], **how)
        elif request != "slots":
            # Every stage is a victim here, not only the chosen victim stages: a slot holder that
            # others slowed down passes their share of its slot blame on to them (_slot_blame).
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
            needs = _needs(demand)
            blame, unknown = _slot_blame(consumers, victims[is_victim], how, users, caps,
                                         {r: f[is_victim] for r, f in needs.items()}, slowed, plain_unit,
                                         _fair_pools(trace, consumers, victims, stage_codes))
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
    return _levels(trace, queries, stages, tasks, l4, served, victim_stage_keys, stage_query, measured, window, options)


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


def _needs(demand: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per request, each task's share of its service seconds (docs/model.md, SLOTS): what a slot
    would have bought it. A task with no measured service needs nothing contended (all zero)."""
    total = sum(demand.values(), 0.0)
    return {r: np.where(total > 0, d / np.where(total > 0, total, 1), 0.0) for r, d in demand.items()}


def _slot_blame(holders: pd.DataFrame, waiting: pd.DataFrame, how: dict, users: dict[str, pd.DataFrame],
                caps: dict[str, pd.Series], needs: dict[str, np.ndarray], slowed: list[pd.DataFrame],
                plain_unit: dict, pools: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Blame of slot waits by the holder rule, refined three ways (docs/model.md, SLOTS): delay
    scheduling, the users of what the victim needs (1), and the blame passed on (2).

    ``holders`` and ``waiting`` are the sweep's slot consumers and victims (units ``app|unit``),
    ``users`` each other request's consumers (plain units) and ``caps`` their units' capacities
    (:func:`blame.capacity` over the whole trace), ``needs`` per request the share
    ``f_r`` of each waiting task's service time spent on it (:func:`_needs`), ``slowed`` every
    stage's blame on CPU, network and IO by other stages. A wait while a slot was free goes to the
    holders of the application's full units (delay scheduling, :func:`_locality_waits`), else to
    Unknown. While all slots were held:

    1. A slot would only have bought the victim task shares of the resources it needs, which were
       busy: of its wait, ``f_r x u_r`` (``u_r``: the share of the unit's capacity for ``r`` in use,
       by tasks of any application) is contention on ``r`` in disguise and goes to the tasks using
       ``r``, each by its share of the capacity.
    2. The rest, ``1 - sum_r f_r x u_r``, goes to the slot holders, one share per slot (in a FAIR
       application, by the pools: ``pools``, :func:`_fair_split`); a holder stage
       that other stages slowed down held its slots longer because of them, so the fraction of its
       slot time that their blame on it explains passes on to them (:func:`_pass_on`).

    Returns ``(blame, unknown)`` with plain units."""
    requests = [r for r in needs if r in users and (needs[r] > 0).any()]
    all_held = _all_held(holders, how["capacity"] or {})  # once: the same for every request and delay scheduling
    busy = {r: _full_and_busy(all_held, users[r], caps[r], plain_unit) for r in requests}
    # One holders' sweep: each waiting task keeps 1 - sum_r f_r x u_r of its wait for the holders.
    steps = {}
    for app_unit in {a for full, used in busy.values() for a in used}:
        times = np.unique(np.concatenate([busy[r][1][app_unit][0] for r in requests if app_unit in busy[r][1]]))
        steps[app_unit] = (times, np.column_stack([step_at(busy[r][1].get(app_unit), times) for r in requests]))
    mine = waiting.assign(**{f"need_{k}": needs[r] for k, r in enumerate(requests)})
    blame, unknown = sweep_blame(holders, mine, **how, keep=steps, split=pools)
    # One users' sweep: the users of each resource on each application's units (of any
    # application), each taking f_r x the blocked seconds x its share of the capacity while slots were full.
    users_on, waiting_on, full_on, unit_of = [], [], {}, {}
    for r in requests:
        full, used = busy[r]
        if not used:
            continue
        on = users[r].assign(rate=users[r]["rate"] / users[r]["unit"].map(caps[r]))
        on = on.merge(pd.DataFrame({"app_unit": list(used), "unit": [plain_unit[a] for a in used]}), on="unit")
        users_on.append(on.assign(unit=on["app_unit"] + "|" + r))
        waiting_on.append(waiting.assign(unit=waiting["unit"] + "|" + r,
                                         blocked_rate=waiting["blocked_rate"].to_numpy() * needs[r]))
        full_on.update({f"{a}|{r}": step for a, step in full.items()})
        unit_of.update({f"{a}|{r}": plain_unit[a] for a in used})
    by_use = (sweep_blame(pd.concat(users_on, ignore_index=True), pd.concat(waiting_on, ignore_index=True),
                          normalize=False, keep=full_on)[0] if users_on else blame.iloc[:0])
    by_use["unit"] = by_use["unit"].map(unit_of)
    # A wait while a slot was free on the task's own unit but all were held on another unit of its
    # application: delay scheduling (it waited for its preferred executor), the holders there.
    elsewhere = _locality_waits(waiting, all_held)
    if not elsewhere.empty:
        moved = sweep_blame(holders, elsewhere, capacity=how["capacity"], split=pools)[0]
        blame = pd.concat([blame, moved], ignore_index=True)
        taken = (elsewhere["blocked_rate"] * (elsewhere["end"] - elsewhere["start"])).groupby(
            [elsewhere["from_unit"], elsewhere["stage"]]).sum()
        left = unknown["blame_s"] - taken.reindex(pd.MultiIndex.from_arrays(
            [unknown["unit"], unknown["victim_stage"]])).fillna(0.0).to_numpy()
        unknown = unknown.assign(blame_s=left.clip(lower=0.0))
    blame["unit"], unknown["unit"] = blame["unit"].map(plain_unit), unknown["unit"].map(plain_unit)
    # One row per unit, victim and holder (a holder can have direct and delay-scheduling rows):
    # _pass_on's shares are per row.
    blame = blame.groupby(["unit", "victim_stage", "culprit_stage"], as_index=False)["blame_s"].sum()
    holder_units = holders["unit"].map(plain_unit)
    held = (holders["end"] - holders["start"]).clip(lower=0).groupby([holder_units, holders["stage"]]).sum()
    # A delay-scheduling wait is blamed on the full unit's holders: it counts as a wait there.
    # (Added only when there is one: no copy of every wait for nothing.)
    waited = pd.concat([waiting, elsewhere], ignore_index=True) if not elsewhere.empty else waiting
    spans = {"waited": _stage_spans([waited.assign(unit=waited["unit"].map(plain_unit))]),
             "held": _stage_spans([holders.assign(unit=holder_units)]),
             "used": _stage_spans([f[f["rate"] > 0] for f in users.values()])}
    blame = _pass_on(blame, pd.concat(slowed, ignore_index=True) if slowed else None, held, spans)
    return (pd.concat([blame, by_use], ignore_index=True)
            .groupby(["unit", "victim_stage", "culprit_stage"], as_index=False)["blame_s"].sum()), unknown


def _fair_pools(trace: Trace, holders: pd.DataFrame, queued: pd.DataFrame, stage_codes: np.ndarray) -> dict:
    """The ``split`` of :func:`blame.sweep_blame` for the slot holders of every FAIR application
    with more than one pool: per ``app|unit``, the times its pools' counts change and
    :func:`_fair_split` bound to them. ``holders`` and ``queued`` are the slot sweep's consumers
    (tasks running) and victims (tasks waiting for a slot), one row per task, ``stage`` a code of
    ``stage_codes``."""
    apps = trace.apps.set_index("app_key")
    if "scheduler_mode" not in apps or "pool" not in trace.queries:  # a trace saved before they were read
        return {}
    mode = apps["scheduler_mode"]
    stages = trace.stages.drop_duplicates("stage_key").set_index("stage_key")
    query_key = stages["query_key"].reindex(stage_codes).to_numpy(object)
    pool_name = pd.Series(query_key).map(trace.queries.drop_duplicates("query_key").set_index("query_key")["pool"])
    query = pd.factorize(query_key)[0]
    pool = pd.factorize(pool_name.fillna("default").to_numpy(object))[0]
    out = {}
    codes, units = pd.factorize(holders["unit"])  # split each unit once, not each of 24,000 rows: 0.09 s
    for app, mine in holders.groupby(np.array([u.split("|", 1)[0] for u in units], dtype=object)[codes], sort=False):
        if str(mode.get(owner_app(app), "FIFO")).upper() != "FAIR" or len(np.unique(pool[mine["stage"].to_numpy(int)])) < 2:
            continue  # FIFO, or one pool (FIFO inside it): the holders keep their shares
        waiting = queued[queued["unit"].str.startswith(app + "|") & (queued["end"] > queued["start"])]
        running = mine[(mine["rate"] > 0) & (mine["end"] > mine["start"])]
        counts = {"running": _spans(running, query), "queued": _spans(waiting, query),
                  "queued_in_pool": _spans(waiting, pool)}
        times = np.unique(np.concatenate([running["start"], running["end"], waiting["start"], waiting["end"]]))
        bound = functools.partial(_fair_split, query=query, pool=pool, **counts)
        out.update({unit: (times, bound) for unit in mine["unit"].unique()})
    return out


def _spans(rows: pd.DataFrame, group: np.ndarray) -> dict:
    """Sorted starts and ends of ``rows`` per ``group[stage]`` (query or pool code): how many run
    at t is the starts up to t less the ends up to t."""
    return {k: (np.sort(g["start"].to_numpy(float)), np.sort(g["end"].to_numpy(float)))
            for k, g in rows.groupby(group[rows["stage"].to_numpy(int)], sort=False)}


def _fair_split(starts: np.ndarray, v_codes: np.ndarray, c_codes: np.ndarray, weights: np.ndarray,
                rates: np.ndarray, query: np.ndarray, pool: np.ndarray, running: dict, queued: dict,
                queued_in_pool: dict) -> np.ndarray:
    """Slot waits in a FAIR application, blamed on the holders the way its scheduler hands out
    slots (docs/model.md, SLOTS, step 2; paper 000 Table 5 blames the stages the scheduler served
    first, and this is our reading of Spark's ``FairSchedulingAlgorithm``).

    Spark gives a freed slot to the pool with the fewest running tasks for its weight that has
    tasks queued (FIFO inside a pool). So a pool at its share that still has tasks queued takes
    back the slots its tasks free: removing a holder query ``H`` of another pool ``P_H`` than the
    victim's ``P`` gives the victim nothing as long as other queries of ``P_H`` have tasks queued
    to refill its slots. Of the share of each slot ``H`` holds at time ``t``, the fraction
    ``phi_H = min(1, queued_others(P_H, t) / running(H, t))`` (counted over the application: pools
    are the application's) would be refilled that way; it passes to the holders of the victim's
    pool on the unit, by their slots: the tasks the scheduler serves before the victim in the
    slots its pool keeps (FIFO inside the pool). Where the victim's pool holds no slot on the
    unit, it is the pool furthest below its share and takes the next slot anyone frees: every
    holder keeps its share. Holders of the victim's own pool always keep theirs (whatever its
    pool frees goes to its pool's queue, the victim's or ahead of it).

    Weights and ``minShare`` (the allocation file) are not in event logs; the rule needs neither:
    a pool's share is taken to be the slots it holds at that moment (what its weight and the
    others' demand gave it), so no weight is assumed.

    ``starts``: the sweep's interval start times; ``weights`` (intervals x victim stages) their
    seconds per slot; ``rates`` (intervals x holder stages) the slots each holds; ``query`` and
    ``pool`` codes per stage code; ``running``, ``queued`` (per query) and ``queued_in_pool`` (per
    pool): sorted starts and ends of the application's tasks running and waiting for a slot.
    Returns the victims x holders blame."""
    def count(spans: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        if spans is None:
            return np.zeros(len(starts))
        return np.searchsorted(spans[0], starts, "right") - np.searchsorted(spans[1], starts, "right")

    c_query, c_pool, v_pool = query[c_codes], pool[c_codes], pool[v_codes]
    refilled = np.zeros_like(rates)  # phi of each holder stage's query, per interval
    for q, p in set(zip(c_query.tolist(), c_pool.tolist())):
        own = count(running.get(q))
        others = count(queued_in_pool.get(p)) - count(queued.get(q))
        refilled[:, c_query == q] = np.where(own > 0, np.minimum(1.0, others / np.maximum(own, 1)), 0.0)[:, None]
    matrix = np.empty((len(v_codes), len(c_codes)))
    for p in np.unique(v_pool):
        ours = c_pool == p
        held = rates[:, ours].sum(axis=1)
        moved = rates * refilled * ~ours * (held > 0)[:, None]
        shared = rates - moved
        shared[:, ours] += rates[:, ours] * (moved.sum(axis=1) / np.where(held > 0, held, 1.0))[:, None]
        victims = v_pool == p
        matrix[victims] = weights[:, victims].T @ shared
    return matrix


def _locality_waits(waiting: pd.DataFrame, full: dict) -> pd.DataFrame:
    """The parts of slot waits that Spark's delay scheduling explains (docs/model.md, SLOTS),
    as sweep victims on the units waited for (``unit, start, end, stage, blocked_rate`` and
    ``from_unit``: the unit the tasks waited on).

    Spark offers every free slot of the application to its pending tasks; a task stays pending
    beside a free slot only while ``spark.locality.wait`` holds it for a preferred executor that is
    busy. So a task waiting while its own unit (where it finally ran) had a free slot but every
    slot of another unit of its application was held waited for those: its wait there goes to
    the holders of the full units, split evenly among them. Where no unit was full it stays Unknown.
    ``full``: per ``app|unit``, when all its slots were held (:func:`_all_held`)."""
    columns = ["unit", "start", "end", "stage", "from_unit", "blocked_rate"]
    waits = _stage_waits(waiting[waiting["unit"].isin(list(full))])
    parts = []
    for app, mine in waits.groupby(waits["unit"].str.split("|", n=1).str[0], sort=False):
        units = sorted(u for u in full if u.split("|", 1)[0] == app)
        if len(units) < 2:
            continue
        # Each stage's wait on a unit, cut to the spans when that unit had a free slot ...
        pieces = []
        for unit, on in mine.groupby("unit", sort=False):
            times, held = full[unit]
            edges = np.r_[-np.inf, times, np.inf]
            free = ~np.r_[False, held > 0]  # per span between edges; no slot is held before the first
            lo, hi = edges[:-1][free], edges[1:][free]
            a = np.searchsorted(hi, on["start"].to_numpy(float), "right")
            n = np.clip(np.searchsorted(lo, on["end"].to_numpy(float), "left") - a, 0, None)
            who, at = expand(a, n)
            piece = on.iloc[who].assign(start=np.maximum(on["start"].to_numpy(float)[who], lo[at]),
                                        end=np.minimum(on["end"].to_numpy(float)[who], hi[at]))
            pieces.append(piece[piece["end"] > piece["start"]])
        free_waits = pd.concat(pieces, ignore_index=True)
        # ... and those spans cut where another unit fills or frees up: the holders of the full ones.
        edges = np.r_[-np.inf, np.unique(np.concatenate([full[u][0] for u in units])), np.inf]
        state = np.column_stack([step_at(full[u], edges[:-1]) for u in units]) > 0
        start, end = free_waits["start"].to_numpy(float), free_waits["end"].to_numpy(float)
        a = np.searchsorted(edges, start, "right") - 1
        who, row = expand(a, np.searchsorted(edges, end, "left") - a)
        own = np.searchsorted(units, free_waits["unit"].to_numpy())[who]
        others = state[row].sum(axis=1) - state[row, own]
        for k, unit in enumerate(units):
            take = state[row, k] & (own != k)
            if take.any():
                parts.append(pd.DataFrame({
                    "unit": unit, "start": np.maximum(start[who[take]], edges[row[take]]),
                    "end": np.minimum(end[who[take]], edges[row[take] + 1]),
                    "stage": free_waits["stage"].to_numpy()[who[take]],
                    "from_unit": free_waits["unit"].to_numpy()[who[take]],
                    "blocked_rate": free_waits["blocked_rate"].to_numpy(float)[who[take]] / others[take]}))
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def _stage_waits(waiting: pd.DataFrame) -> pd.DataFrame:
    """The summed blocked rate of each stage's waiting tasks per unit, as rows ``unit, stage,
    start, end, blocked_rate`` over the spans where it is constant and positive (one row per span,
    not per task: a stage's tasks often wait together)."""
    waiting = waiting[(waiting["blocked_rate"] > 0) & (waiting["end"] > waiting["start"])]
    steps = pd.DataFrame({"unit": np.r_[waiting["unit"].to_numpy(), waiting["unit"].to_numpy()],
                          "stage": np.r_[waiting["stage"].to_numpy(), waiting["stage"].to_numpy()],
                          "t": np.r_[waiting["start"].to_numpy(float), waiting["end"].to_numpy(float)],
                          "d": np.r_[waiting["blocked_rate"].to_numpy(float), -waiting["blocked_rate"].to_numpy(float)]})
    steps = steps.groupby(["unit", "stage", "t"], as_index=False)["d"].sum()  # sorted by unit, stage, time
    group = steps.groupby(["unit", "stage"], sort=False)
    spans = steps.assign(blocked_rate=group["d"].cumsum(), end=group["t"].shift(-1)).rename(columns={"t": "start"})
    kept = (spans["blocked_rate"] > rounding_floor(waiting["blocked_rate"].to_numpy(float))) & spans["end"].notna()
    return spans[kept][["unit", "stage", "start", "end", "blocked_rate"]]


def _full_and_busy(all_held: dict, users: pd.DataFrame | None, caps: pd.Series,
                   plain_unit: dict) -> tuple[dict, dict]:
    """Per ``app|unit``, two step functions ``(times, values)``: 1 while all the application's
    slots there were held (else 0; ``all_held``: :func:`_all_held`), and that times the share of
    the unit's capacity (``caps``) for a resource that its ``users`` had in use."""
    if users is None:
        return {}, {}
    used = load_steps(users, caps)
    full, busy = {}, {}
    for app_unit, all_of_it in all_held.items():
        if plain_unit[app_unit] not in used:
            continue
        t_use, u = used[plain_unit[app_unit]]
        # Before the first of these times no task used the resource here, so the users' sweep (the
        # only one reading ``full``) finds no one to blame there, whatever the step function says.
        times = np.union1d(all_of_it[0], t_use)
        held = step_at(all_of_it, times) > 0
        full[app_unit] = (times, held.astype(float))
        busy[app_unit] = (times, np.where(held, step_at((t_use, u), times), 0.0))
    return full, busy


def _pass_on(blame: pd.DataFrame, slowed: pd.DataFrame | None, held: pd.Series, spans: dict) -> pd.DataFrame:
    """Slot blame on holder stages that were slowed down themselves, passed on one step.

    ``blame``: slot blame rows ``unit, victim_stage, culprit_stage, blame_s`` (the culprits are
    holders); ``slowed``: the same rows for every stage's CPU, network and IO blame by other
    stages; ``held``: seconds each stage held slots per unit; ``spans`` (:func:`_stage_spans`, per
    unit and stage): when the victims waited (``waited``), the holders held slots (``held``) and
    the culprits used a resource (``used``). A holder ``h`` blocked ``b_h`` seconds by others out of
    ``held_h`` keeps ``1 - b_h / held_h`` of its slot blame, and each of its culprits ``c`` takes
    ``b_hc / held_h`` of it (paper 000 App. D(b): a source that was itself a victim deserves less
    blame; the papers leave indirect effects open, 001 Sec. 5.4), both counted inside the victim's
    wait span on the unit (:func:`_while_waiting`): a culprit that slowed the holder only before
    or after the victim waited takes none of the wait."""
    if slowed is None or slowed.empty or blame.empty:
        return blame
    slowed = slowed.groupby(["unit", "victim_stage", "culprit_stage"], as_index=False)["blame_s"].sum()
    ran = held.reindex(pd.MultiIndex.from_arrays([slowed["unit"], slowed["victim_stage"]])).to_numpy(float)
    blocked = slowed.groupby(["unit", "victim_stage"])["blame_s"].transform("sum").to_numpy(float)
    # Shares of the holder's slot time: capped where rounding makes its blocked time exceed it.
    over = np.where(ran > 0, np.maximum(blocked / np.where(ran > 0, ran, 1), 1.0), np.inf)
    passing = pd.DataFrame({"unit": slowed["unit"], "holder": slowed["victim_stage"], "to": slowed["culprit_stage"],
                            "fraction": np.where(ran > 0, slowed["blame_s"] / np.where(ran > 0, ran, 1) / over, 0.0)})
    # Units in batches of a bounded merge: the merge pairs each victim of a holder with each stage
    # that slowed the holder, which on a dense workload (400 queries at once) was 2.6 GB for all
    # units together; one unit at a time, pandas' fixed cost was most of a small trace's build.
    batch = _batches(blame, passing)
    return pd.concat([_pass_on_unit(blame[batch == b], passing[passing["unit"].isin(blame.loc[batch == b, "unit"])],
                                    spans) for b in np.unique(batch)], ignore_index=True)


def _batches(blame: pd.DataFrame, passing: pd.DataFrame, rows: int = 500_000) -> np.ndarray:
    """A batch number per row of ``blame``: consecutive units (in sorted order) whose merge in
    :func:`_pass_on_unit` (a blame row per stage that slowed its holder) stays within about
    ``rows`` rows; a unit is never split."""
    pairs = (blame.groupby(["unit", "culprit_stage"], observed=True).size()
             * passing.groupby(["unit", "holder"]).size().rename_axis(["unit", "culprit_stage"]))
    merged = pairs.groupby(level="unit", observed=True).sum()
    units = np.sort(blame["unit"].unique())
    size = merged.reindex(units).fillna(0).to_numpy() + 1
    # A new batch starts at a unit that would take the batch past ``rows``.
    starts, total = np.zeros(len(units), int), 0
    for i, n in enumerate(size):
        if total and total + n > rows:
            starts[i], total = 1, 0
        total += n
    return pd.Series(np.cumsum(starts), index=units).reindex(blame["unit"]).to_numpy()


def _pass_on_unit(blame: pd.DataFrame, passing: pd.DataFrame, spans: dict) -> pd.DataFrame:
    """:func:`_pass_on` on the rows of some units: ``passing`` holds, per holder stage, the stages
    ``to`` that slowed it and the ``fraction`` of its slot blame each takes."""
    moved = blame.merge(passing, left_on=["unit", "culprit_stage"], right_on=["unit", "holder"])
    moved["fraction"] *= _while_waiting(moved, spans)
    # Inside the wait the culprits' shares can add up past the holder's whole slot time: capped.
    total = moved.groupby(["unit", "victim_stage", "holder"])["fraction"].transform("sum").to_numpy(float)
    moved["fraction"] /= np.maximum(total, 1.0)
    moved["blame_s"] *= moved["fraction"]
    kept = blame.join(1 - moved.groupby(["unit", "victim_stage", "holder"])["fraction"].sum().rename("keep"),
                      on=["unit", "victim_stage", "culprit_stage"])
    kept["blame_s"] *= kept["keep"].fillna(1.0)
    return (pd.concat([kept[["unit", "victim_stage", "culprit_stage", "blame_s"]],
                       moved.assign(culprit_stage=moved["to"])[["unit", "victim_stage", "culprit_stage", "blame_s"]]],
                      ignore_index=True)
            .groupby(["unit", "victim_stage", "culprit_stage"], as_index=False)["blame_s"].sum())


def _stage_spans(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Per ``unit, stage``: the first start and last end of the frames' rows with a positive
    length (each frame reduced on its own: no copy of all rows at once)."""
    parts = [(np.array([], dtype=object), np.array([], dtype=int), np.array([]), np.array([]))]
    for f in frames:
        kept = (f["end"] > f["start"]).to_numpy()
        parts.append(_extremes(f["unit"].to_numpy()[kept], f["stage"].to_numpy(int)[kept],
                               f["start"].to_numpy(float)[kept], f["end"].to_numpy(float)[kept]))
    unit, stage, first, last = _extremes(*(np.concatenate(column) for column in zip(*parts)))
    return pd.DataFrame({"first": first, "last": last},
                        index=pd.MultiIndex.from_arrays([unit, stage], names=["unit", "stage"]))


def _extremes(unit: np.ndarray, stage: np.ndarray, first: np.ndarray, last: np.ndarray) -> tuple:
    """The least ``first`` and greatest ``last`` per distinct ``unit, stage``, as arrays ``unit,
    stage, first, last`` (NumPy: a pandas groupby of each frame cost more than the rest of the spans)."""
    codes, names = pd.factorize(unit)
    width = int(stage.max()) + 1 if len(stage) else 1
    keys, at = np.unique(codes * width + stage, return_inverse=True)
    lo, hi = np.full(len(keys), np.inf), np.full(len(keys), -np.inf)
    np.minimum.at(lo, at, first)
    np.maximum.at(hi, at, last)
    return names[keys // width], keys % width, lo, hi


def _while_waiting(moved: pd.DataFrame, spans: dict) -> np.ndarray:
    """For rows ``unit, victim_stage, holder, to`` (:func:`_pass_on_unit`): the factor that moves
    the culprit's share of the holder's slot time inside the victim's wait span on the unit. The
    culprit's blame on the holder is taken as spread evenly over the span in which both ran there,
    the holder's slot time over its own span (spans are first start to last end), so the factor is
    (share of the first span inside the wait) / (share of the second): 0 for a culprit that ran
    beside the holder only before or after the wait, 1 when the wait covers both spans, and above 1
    when the culprit ran beside the holder mostly during the wait (the shares are capped by the
    caller). A wait or culprit span not found (no rows of that stage on the unit) leaves the
    factor at 1: the holder's whole slot time."""
    def at(kind: str, stage: str) -> tuple[np.ndarray, np.ndarray]:
        found = spans[kind].reindex(pd.MultiIndex.from_arrays([moved["unit"], moved[stage]]))
        return found["first"].to_numpy(float), found["last"].to_numpy(float)

    def inside(first: np.ndarray, last: np.ndarray) -> np.ndarray:
        length = last - first  # NaN where a span is missing: fmin and fmax then keep the other end
        kept = np.clip(np.fmin(last, w1) - np.fmax(first, w0), 0, None)
        return np.where(length > 0, kept / np.where(length > 0, length, 1), np.where(np.isnan(length), 1.0, 0.0))

    (w0, w1), (h0, h1), (c0, c1) = at("waited", "victim_stage"), at("held", "holder"), at("used", "to")
    both, held = inside(np.fmax(h0, c0), np.fmin(h1, c1)), inside(h0, h1)
    return np.where(held > 0, both / np.where(held > 0, held, 1), 0.0)


def _waits(trace: Trace, tasks: pd.DataFrame, unit: str, owners: pd.Series):
    """Wait components of every task, with each task's contention unit, its ``app|unit`` and the
    task slots per ``app|unit``; ``owners``: each task's :func:`task_owners`."""
    units = task_units(tasks, unit).to_numpy()
    submit = trace.stages.drop_duplicates("stage_key").set_index("stage_key")["submit"]
    task_cpus = _task_cpus(trace, tasks).to_numpy(float)
    # Slots are per application (and resource profile): an executor runs the tasks of one
    # application only, so the holders of the slots a task waited for are tasks of its own
    # application on that unit.
    app_units = (owners + "|" + pd.Series(units, index=tasks.index)).to_numpy()
    return task_waits(tasks, submit, units, task_cpus), units, app_units, _slots(trace, unit)


def task_units(tasks: pd.DataFrame, unit: str) -> pd.Series:
    """Each task's contention unit (option ``unit``: its host, or its executor): ``unknown-host``
    for a task no executor ran yet (a live application's tasks waiting before any executor came)."""
    units = tasks["host"] if unit == "host" else tasks["executor_key"].where(ran_on_executor(tasks))
    return units.fillna("unknown-host").astype(str)


def ran_on_executor(tasks: pd.DataFrame) -> pd.Series:
    """Whether an executor ran each task (the trace writes a missing Executor ID as "None")."""
    return tasks["executor"].notna() & tasks["executor"].astype(str).ne("None")


def task_owners(trace: Trace, tasks: pd.DataFrame) -> pd.Series:
    """:func:`slot_owner` of each task: the resource profile of the executor it ran on, else (a task
    still waiting, in a live trace, or run on an executor the log never added) of the executors its
    stage runs on (the trace's stage ``profile``: a task-only profile's stages run on the default
    profile's executors, Spark 3.4+)."""
    executors = executor_spans(trace)
    ran_on = pd.Series(executors.get("profile", 0), index=executors.index)
    ran_on.index = executors["app_key"].astype(str) + "/executor-" + executors["executor"].astype(str)
    profile = tasks["executor_key"].map(ran_on[~ran_on.index.duplicated(keep="last")])
    stages = trace.stages.drop_duplicates("stage_key").set_index("stage_key")
    if "profile" in stages:
        profile = profile.fillna(tasks["stage_key"].map(stages["profile"]))
    return slot_owner(tasks["app_key"], profile)


def slot_owner(app_key: pd.Series, profile) -> pd.Series:
    """Whose slots a task can take, or an executor offers: its application's, of its resource
    profile (Spark 3.1+ stage-level scheduling: a stage of profile P runs on executors of profile P
    only; docs/model.md, SLOTS). ``app`` for the default profile 0 (and traces saved before
    profiles were read), ``app#rpP`` for another."""
    profile = pd.Series(profile, index=app_key.index).fillna(0).astype(int)
    return app_key.astype(str) + np.where(profile != 0, "#rp" + profile.astype(str), "")


def owner_app(owner: str) -> str:
    """The application of a :func:`slot_owner`."""
    return owner.split("#rp", 1)[0]


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


def executor_spans(trace: Trace) -> pd.DataFrame:
    """The executors, ``added`` and ``removed`` as seconds (NaN: never removed; an executor added
    at no known time was there from the start). With dynamic allocation on, an executor idle for
    ``spark.dynamicAllocation.executorIdleTimeout`` after its last task (after its addition if it
    ran none) is removed then, when its ExecutorRemoved comes later: that event waits for the
    cluster manager's answer, often many seconds, and Spark offered its slots no more meanwhile
    (docs/model.md, SLOTS)."""
    executors = trace.executors
    added = executors["added"].astype(float).fillna(-np.inf)
    removed = pd.to_numeric(executors.get("removed", np.nan), errors="coerce")  # traces saved before removals were read
    idle = _idle_timeouts(trace)
    if idle and len(executors):
        key = executors["app_key"].astype(str) + "/executor-" + executors["executor"].astype(str)
        busy_until = key.map(trace.tasks.groupby("executor_key")["finish"].max()).astype(float)
        released = np.fmax(busy_until, added) + executors["app_key"].map(idle).astype(float)
        removed = pd.Series(np.where(released < removed, released, removed), index=executors.index)
    return executors.assign(added=added, removed=removed)


def _idle_timeouts(trace: Trace) -> dict[str, float]:
    """Per application with dynamic allocation on, ``spark.dynamicAllocation.executorIdleTimeout``
    in seconds (Spark's default 60 s where the log does not set it, or sets no time Spark reads)."""
    apps = trace.apps.set_index("app_key")
    if "dynamic_allocation" not in apps:
        return {}
    timeouts = apps["executor_idle_timeout"] if "executor_idle_timeout" in apps else pd.Series(None, index=apps.index)
    return {app: _spark_seconds(timeouts.get(app), 60.0) for app, on in apps["dynamic_allocation"].items()
            if str(on).strip().lower() == "true"}


#: Spark's time suffixes (``JavaUtils.timeStringAs``), in seconds.
_TIME_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def _spark_seconds(text, default: float) -> float:
    """A Spark time setting ("10s", "2min", "60": seconds) in seconds; ``default`` when unset or unread."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", str(text).lower()) if text is not None else None
    if match is None or match[2] not in {"", *_TIME_UNITS}:
        return default
    return float(match[1]) * _TIME_UNITS.get(match[2] or "s")


def _slots(trace: Trace, unit: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Task slots per application and contention unit (``app|unit``) over time, as a step function
    ``(times, slots)``: the slots of the application's executors there (:func:`executor_slots`)
    over their spans (:func:`executor_spans`: dynamic allocation adds and removes them)."""
    executors = executor_spans(trace).dropna(subset=["host"])
    if executors.empty:  # a log without ExecutorAdded events (pandas gives its empty columns a text type)
        return {}
    app = executors["app_key"].astype(str)
    where = (executors["host"].astype(str) if unit == "host"
             else app + "/executor-" + executors["executor"].astype(str))
    return step_sums((executor_owner(executors) + "|" + where).to_numpy(), executors["added"], executors["removed"],
                     executor_slots(trace, executors))


def executor_slots(trace: Trace, executors: pd.DataFrame) -> pd.Series:
    """The task slots each of ``executors`` offers (read from the log: ``trace._AppReader.slots``);
    for traces saved before those were read, its cores over ``spark.task.cpus``."""
    # Numbers whatever the saved table's types (a log without ExecutorAdded saves an empty one of text).
    cores = pd.to_numeric(executors["cores"], errors="coerce")
    by_cores = cores // executors["app_key"].map(_app_task_cpus(trace)).fillna(1).astype(float)
    return pd.to_numeric(executors["slots"], errors="coerce").fillna(by_cores) if "slots" in executors else by_cores


def executor_owner(executors: pd.DataFrame) -> pd.Series:
    """:func:`slot_owner` of each executor (by its resource profile)."""
    return slot_owner(executors["app_key"], executors["profile"] if "profile" in executors else 0)


def _all_held(holders: pd.DataFrame, slots: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per ``app|unit``, 1 while every slot the application had there was held (half a slot of
    rounding) and 0 while one was free or it had none, as a step function ``(times, values)``
    changing only where that flips. ``holders``: the slot sweep's consumers, ``slots``: :func:`_slots`."""
    live = holders[(holders["rate"] > 0) & (holders["end"] > holders["start"])]
    out = {}
    for u, held in step_sums(live["unit"].to_numpy(), live["start"], live["end"], live["rate"]).items():
        if u not in slots:
            continue
        times = np.union1d(held[0], slots[u][0])
        have = step_at(slots[u], times)
        full = (have > 0) & (step_at(held, times) >= have - 0.5)
        flips = np.r_[full[0], full[1:] != full[:-1]]  # only the times the unit fills or frees up
        out[u] = (times[flips], full[flips].astype(float))
    return out


def _executors_alive(trace: Trace) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per application (and resource profile: :func:`slot_owner`), how many executors it had over
    time (:func:`executor_spans`), as a step function. An application whose log names no executor
    and none of whose tasks ran on one (a live application still starting) has had none so far;
    one whose tasks ran on executors its log never added is not in it (nothing is known)."""
    executors = executor_spans(trace)
    alive = {} if executors.empty else step_sums(executor_owner(executors).to_numpy(), executors["added"],
                                                  executors["removed"], np.ones(len(executors)))
    ran = ran_on_executor(trace.tasks)
    starting = set(trace.tasks["app_key"].astype(str)) - set(trace.tasks.loc[ran, "app_key"].astype(str))
    starting -= {owner_app(owner) for owner in alive}
    return alive | {app: (np.array([-np.inf]), np.array([0.0])) for app in starting}


def _before_executors(victims: pd.DataFrame, owners: np.ndarray, alive: dict) -> tuple[pd.DataFrame, np.ndarray]:
    """The part of each slot wait from its start while its application had no executor (start-up,
    dynamic allocation; docs/model.md, "Executors"): there was no slot to hold. Once it has one, a
    wait is contention or delay scheduling by the rules of the slot sweep, whatever unit the task
    ran on. ``owners``: each victim's :func:`slot_owner` (an application of a resource profile has
    no executor while it has only executors of other profiles); ``alive``: :func:`_executors_alive`.
    Returns the victims with that part cut off, and its blocked seconds per task."""
    start, end = victims["start"].to_numpy(float), victims["end"].to_numpy(float)
    cut = start.copy()
    logged = {owner_app(owner) for owner in alive}  # applications whose logs tell their executors
    for owner, rows in pd.Series(np.arange(len(owners))).groupby(owners, sort=False).indices.items():
        if owner_app(owner) not in logged:  # no ExecutorAdded in its log: nothing is known
            continue
        times, count = alive.get(owner, (np.array([-np.inf]), np.array([0.0])))  # none of its profile yet
        none = step_at((times, count), start[rows]) <= 0
        back = times[count > 0]  # when it has an executor again
        at = np.searchsorted(back, start[rows], "right")
        again = np.full(len(rows), np.inf)  # none again (or never one of this profile)
        again[at < len(back)] = back[at[at < len(back)]]
        cut[rows] = np.where(none, np.clip(again, start[rows], np.maximum(start[rows], end[rows])), start[rows])
    return victims.assign(start=cut), (cut - start) * victims["blocked_rate"].to_numpy(float)


def _app_task_cpus(trace: Trace) -> pd.Series:
    """``spark.task.cpus`` per application (1 for traces read before it was recorded)."""
    apps = trace.apps.set_index("app_key")
    return apps["task_cpus"] if "task_cpus" in apps else pd.Series(1, index=apps.index)


def _task_cpus(trace: Trace, tasks: pd.DataFrame) -> pd.Series:
    """The cores each task holds: the cpus its stage's resource profile asks a task
    (``trace._AppReader.task_cpus``), else, for traces saved before those were read,
    ``spark.task.cpus``."""
    by_app = tasks["app_key"].map(_app_task_cpus(trace)).fillna(1)
    stages = trace.stages.drop_duplicates("stage_key").set_index("stage_key")
    if "task_cpus" not in stages:
        return by_app
    return tasks["stage_key"].map(stages["task_cpus"]).fillna(by_app)


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


def _span(start: pd.Series, end: pd.Series, window) -> pd.Series:
    """Seconds from ``start`` to ``end``, counting only the part inside ``window``."""
    s, e = clip(start.to_numpy(), end.to_numpy(), window)
    return pd.Series(np.clip(e - s, 0, None), index=start.index)


def window_in_trace(trace: Trace, window: tuple[float, float] | None) -> tuple[float, float] | None:
    """A window given in seconds since the trace start (``Options.window``) in the trace's own time."""
    if window is None:
        return None
    t0, t1 = window
    if not t1 > t0:
        raise ValueError(f"window end {t1} must be after its start {t0}")
    if t0 >= trace.end - trace.start:  # nothing ran in it: an analysis of it would be all zeros
        raise ValueError(f"the window [{t0:g} s, {t1:g} s] starts after the trace ends: it spans 0 s to "
                         f"{trace.end - trace.start:.1f} s (seconds since its first event)")
    return trace.start + t0, trace.start + t1


def clip(start: np.ndarray, end: np.ndarray, window) -> tuple[np.ndarray, np.ndarray]:
    """``[start, end)`` clipped to ``window`` (the trace's time; None: unclipped): outside it, empty."""
    if window is None:
        return start.astype(float), end.astype(float)
    s = np.clip(start.astype(float), window[0], window[1])
    e = np.clip(end.astype(float), window[0], window[1])
    return s, e


SYNTHETIC = {GC_SOURCE: "known cause: JVM garbage collection pauses (paper 001 Sec. 5.1)",
             UNKNOWN_SOURCE: "blocked time that nothing in the trace explains: external processes, "
                             "hardware limits or tasks outside the loaded logs",
             EXECUTORS_SOURCE: "known cause: waiting for executors while the application had none its "
                               "stage could run on (start-up, dynamic allocation, resource profiles), or "
                               "for its executor to load the task (deserialization off the CPU)"}


def _levels(trace, queries, stages, tasks, l4, served, victim_stage_keys, stage_query, measured, window,
            options) -> ProtoGraph:
    """The seven levels from the blame rows ``l4`` (and ``served``: :func:`_served` of every request),
    one function per level (levels.LEVELS), from the blame rows down to the victim queries, then up
    to the culprit queries."""
    stage_rows = stages.set_index("stage_key")
    query_rows = queries.set_index("query_key")
    _link_blame(l4, stage_query)
    deep = _deep_explanations(l4)
    imm = _immediate_explanations(deep, served, sorted(victim_stage_keys & set(stage_query)), measured, stage_query)
    vst = _victim_stage_level(imm, stages, stage_rows, query_rows, stage_query, window)
    vq = _victim_query_level(trace, queries, stages, tasks, l4, vst, victim_stage_keys, stage_query, window)
    ran, stage_ran = np.ones(len(tasks), dtype=bool), np.ones(len(stages), dtype=bool)
    if window is not None:
        # A window's victims are the queries that ran in it (one that did not has nothing to explain
        # there, and was listed at 0 s), and its counts are of what ran in it.
        vq = vq[~((vq["end"] <= window[0]) | (vq["start"] >= window[1]))]
        vst, imm = vst[vst["victim_query"].isin(vq["query_key"])], imm[imm["victim_query"].isin(vq["query_key"])]
        deep, l4 = deep[deep["victim_query"].isin(vq["query_key"])], l4[l4["victim_query"].isin(vq["query_key"])]
        ran = ((tasks["finish"] > window[0]) & (tasks["launch"] < window[1])).to_numpy()
        stage_ran = ~((stages["complete"] <= window[0]) | (stages["submit"] >= window[1])).to_numpy()
    cs = _culprit_stage_level(l4, stage_rows, query_rows)
    cq = _culprit_query_level(cs, queries, query_rows)
    return ProtoGraph(
        victim_queries=vq, victim_stages=vst, immediate=imm, deep=deep, blame=l4,
        culprit_stages=cs, culprit_queries=cq, hosts=_hosts(trace, tasks, ran, options.unit), measured=measured,
        not_measured=[r for r in RESOURCES if r not in measured],
        stats={"tasks": int((~waiting_for_slot(tasks) & ran).sum()), "stages": int(stage_ran.sum()),
               "queries": len(vq) if window is not None else len(queries), "apps": len(trace.apps),
               "window": list(window) if window else None})


def _link_blame(l4: pd.DataFrame, stage_query: dict) -> None:
    """Level 4: add to each blame row (``unit, victim_stage, culprit, request, blame_s``) the keys of
    the nodes it links, toward the victim (its deep and immediate explanation) and toward the culprit
    (its culprit stage and query). Its own key is made when it is written (:func:`blame_keys`)."""
    l4["victim_query"] = _per_distinct(l4, ["victim_stage"], lambda f: f["victim_stage"].map(stage_query))
    l4["resource"] = _per_distinct(l4, ["request"], lambda f: f["request"].map(lambda r: REQUEST_BY_NAME[r].resource))
    l4["is_synthetic"] = l4["culprit"].isin(list(SYNTHETIC)).to_numpy()
    l4["culprit_query"] = _per_distinct(l4, ["culprit"], lambda f: np.where(
        f["culprit"].isin(list(SYNTHETIC)), f["culprit"], f["culprit"].map(stage_query)))
    l4["self"] = _per_distinct(l4, ["victim_stage", "culprit"], lambda f: (
        f["culprit"].map(stage_query) == f["victim_stage"].map(stage_query)).to_numpy())
    l4["deep_key"] = _per_distinct(l4, ["victim_stage", "request", "unit"], _deep_keys)
    l4["immediate_key"] = _per_distinct(l4, ["victim_stage", "resource"],
                                        lambda f: IMMEDIATE.key(f["victim_stage"] + "/" + f["resource"]))
    l4["culprit_key"] = _per_distinct(l4, ["culprit", "is_synthetic"], lambda f: CULPRIT_STAGE.key(
        np.where(f["is_synthetic"], "synthetic/" + f["culprit"], f["culprit"])))
    l4["culprit_query_key"] = _per_distinct(l4, ["culprit_query"], lambda f: CULPRIT_QUERY.key(f["culprit_query"]))


def _deep_keys(rows: pd.DataFrame) -> pd.Series:
    """Level 3 keys of rows ``victim_stage, request, unit``."""
    return DEEP.key(rows["victim_stage"] + "/" + rows["request"] + "@" + rows["unit"])


def blame_keys(rows: pd.DataFrame) -> pd.Series:
    """Level 4 keys of blame rows (the deep explanation's and the culprit stage): made by the writer
    one batch at a time, since a dense workload's 2 M distinct keys held at once were 250 MB."""
    rows = _plain(rows[["victim_stage", "request", "unit", "culprit"]])
    return BLAME.key(rows["victim_stage"] + "/" + rows["request"] + "@" + rows["unit"] + "<-" + rows["culprit"])


def _deep_explanations(l4: pd.DataFrame) -> pd.DataFrame:
    """Level 3: one node per victim stage, request and unit, the sum of its blame rows, with the
    stage's RATP and slowdown there (paper 001 Eq. 4, 7)."""
    deep = _plain(l4.groupby("deep_key", as_index=False).agg(
        victim_stage=("victim_stage", "first"), victim_query=("victim_query", "first"), request=("request", "first"),
        resource=("resource", "first"), unit=("unit", "first"), blame_s=("blame_s", "sum"),
        amount=("amount", "first"), service_s=("service_s", "first"), toward_victim=("immediate_key", "first")))
    deep = deep.rename(columns={"deep_key": "key"})
    deep["ratp"] = ratp(deep["blame_s"], deep["amount"])  # RATP-blocked of the victim stage (paper 001 Eq. 7)
    deep["slowdown"] = slowdown(deep["blame_s"], deep["service_s"])
    return deep


def _immediate_explanations(deep: pd.DataFrame, served: pd.DataFrame, victim_stages: list[str], measured: list[str],
                            stage_query: dict) -> pd.DataFrame:
    """Level 2: every measured resource of every victim stage (zero when it never waited): the sum
    of its deep explanations' blame, and the service time of all its tasks' amounts on the resource
    (on every host, blocked there or not: paper 001 Eq. 3-4 take the victim's whole amount)."""
    grid = pd.MultiIndex.from_product([victim_stages, measured], names=["victim_stage", "resource"]).to_frame(index=False)
    service = served.assign(resource=served["request"].map(lambda r: REQUEST_BY_NAME[r].resource)).groupby(
        ["victim_stage", "resource"], as_index=False)["service_s"].sum(min_count=1)
    imm = grid.merge(deep.groupby(["victim_stage", "resource"], as_index=False)["blame_s"].sum(),
                     on=["victim_stage", "resource"], how="left").fillna({"blame_s": 0.0})
    imm = imm.merge(service, on=["victim_stage", "resource"], how="left")
    imm["slowdown"] = slowdown(imm["blame_s"], imm["service_s"])
    imm["key"] = IMMEDIATE.key(imm["victim_stage"] + "/" + imm["resource"])
    imm["victim_query"] = imm["victim_stage"].map(stage_query)
    imm["toward_victim"] = VICTIM_STAGE.key(imm["victim_stage"])
    return imm


def _victim_stage_level(imm, stages, stage_rows, query_rows, stage_query, window) -> pd.DataFrame:
    """Level 1: the victim stages, the sum of their immediate explanations."""
    vst = imm.groupby("victim_stage", as_index=False)["blame_s"].sum()
    vst["key"] = VICTIM_STAGE.key(vst["victim_stage"])
    vst["victim_query"] = vst["victim_stage"].map(stage_query)
    vst["toward_victim"] = VICTIM_QUERY.key(vst["victim_query"])
    vst["stage_id"] = vst["victim_stage"].map(stage_rows["stage_id"]).astype(int)
    vst["name"] = vst["victim_query"].map(query_rows["name"]) + " stage " + vst["stage_id"].astype(str)
    vst["stage_name"] = vst["victim_stage"].map(stage_rows["name"])
    vst["runtime_s"] = _span(vst["victim_stage"].map(stage_rows["submit"]), vst["victim_stage"].map(stage_rows["complete"]),
                             window)
    vst["running"] = vst["victim_stage"].map(_running(stages, "stage_key"))
    return vst


def _victim_query_level(trace, queries, stages, tasks, l4, vst, victim_stage_keys, stage_query, window) -> pd.DataFrame:
    """Level 0: the victim queries, the sum of their victim stages, with their slowdown."""
    # Query runtime: SQL execution bounds where the log has them, else its stages' bounds.
    bounds = stages.groupby("query_key").agg(first=("submit", "min"), last=("complete", "max"))
    vq = queries.copy()
    vq["start"] = vq["start"].fillna(vq["query_key"].map(bounds["first"]))
    vq["end"] = vq["end"].fillna(vq["query_key"].map(bounds["last"]))
    vq["blame_s"] = vq["query_key"].map(vst.groupby("victim_query")["blame_s"].sum()).fillna(0.0)
    vq = vq[vq["query_key"].isin(set(vst["victim_query"]))].copy()
    vq["key"] = VICTIM_QUERY.key(vq["query_key"])
    vq["runtime_s"] = _span(vq["start"], vq["end"], window)  # inside a window, the part in it
    # Task time on the victim stages (queue wait + run), and the part of it other queries, JVM GC
    # and Unknown causes blocked: the query's slowdown against running alone (docs/model.md).
    vt = tasks[tasks["stage_key"].isin(victim_stage_keys)]
    s, e = clip(vt["launch"].to_numpy(), vt["finish"].to_numpy(), window)
    busy = pd.Series(e - s, index=vt.index).groupby(vt["stage_key"].map(stage_query)).sum()
    slot_wait = _plain_index(l4[l4["request"] == "slots"].groupby("victim_query")["blame_s"].sum())
    vq["task_time_s"] = vq["query_key"].map(busy).fillna(0.0) + vq["query_key"].map(slot_wait).fillna(0.0)
    vq["own_s"] = vq["query_key"].map(_plain_index(l4[l4["self"]].groupby("victim_query")["blame_s"].sum())).fillna(0.0)
    vq["slowdown"] = query_slowdown(vq["task_time_s"], vq["blame_s"] - vq["own_s"])
    apps = trace.apps.set_index("app_key")
    vq["app_name"] = vq["app_key"].map(apps["name"])
    # PySpark: its tasks' Python time is not in the JVM's CPU time (a trace saved before it was read: not known)
    vq["python"] = vq["app_key"].map(apps["python"]).fillna(False).astype(bool) if "python" in apps else False
    # A query of a running application that has not ended: a victim so far, its times up to the last event.
    vq["running"] = vq["query_key"].map(_running(queries, "query_key"))
    return vq


def _culprit_stage_level(l4, stage_rows, query_rows) -> pd.DataFrame:
    """Level 5, shared by all victims of the analysis: the stages blamed, and the synthetic sources."""
    real = l4[~l4["is_synthetic"]]
    cs = _plain(real.drop_duplicates("culprit_key")[["culprit_key", "culprit", "culprit_query"]]).rename(
        columns={"culprit_key": "key", "culprit": "stage_key", "culprit_query": "query_key"})
    cs["stage_id"] = cs["stage_key"].map(stage_rows["stage_id"]).astype(int)
    cs["name"] = cs["query_key"].map(query_rows["name"]) + " stage " + cs["stage_id"].astype(str)
    cs["stage_name"] = cs["stage_key"].map(stage_rows["name"])
    cs["running"] = cs["stage_key"].map(_running(stage_rows.reset_index(), "stage_key"))
    cs["synthetic"] = False
    syn = _plain(l4[l4["is_synthetic"]].drop_duplicates("culprit_key")[["culprit_key", "culprit"]])
    cs = pd.concat([cs, pd.DataFrame({"key": syn["culprit_key"], "stage_key": syn["culprit"], "query_key": syn["culprit"],
                                      "stage_id": -1, "name": syn["culprit"], "stage_name": syn["culprit"],
                                      "synthetic": True})], ignore_index=True)
    cs["running"] = cs["running"].fillna(False).astype(bool)  # a synthetic source never runs
    cs["toward_culprit"] = CULPRIT_QUERY.key(cs["query_key"])
    return cs


def _culprit_query_level(cs, queries, query_rows) -> pd.DataFrame:
    """Level 6, shared by all victims of the analysis: the queries of the culprit stages."""
    cq_keys = sorted(set(cs["query_key"]))
    cq = pd.DataFrame({"query_key": pd.Series(cq_keys, dtype=object)})
    cq["key"] = CULPRIT_QUERY.key(cq["query_key"])
    cq["synthetic"] = cq["query_key"].isin(list(SYNTHETIC))
    cq["name"] = np.where(cq["synthetic"], cq["query_key"], cq["query_key"].map(query_rows["name"]))
    cq["description"] = np.where(cq["synthetic"], cq["query_key"].map(SYNTHETIC),
                                 cq["query_key"].map(query_rows["description"]))
    cq["app_key"] = cq["query_key"].map(query_rows["app_key"])
    cq["running"] = cq["query_key"].map(_running(queries, "query_key")).fillna(False).astype(bool)
    return cq


def _hosts(trace, tasks, ran: np.ndarray, unit_option: str) -> pd.DataFrame:
    """The contention units, with their tasks (launched, and running inside the window: ``ran``) and
    memory peaks."""
    unit = "host" if unit_option == "host" else "executor_key"
    # The units the blame is on (:func:`task_units`): a unit of tasks still waiting for an executor too.
    hosts = pd.DataFrame({"name": task_units(tasks, unit_option), "tasks": ~waiting_for_slot(tasks) & ran})
    hosts = hosts.groupby("name")["tasks"].sum().reset_index()
    # Memory is context, not blame: the largest peak any executor of the host reported (NaN: not measured).
    peaks = trace.memory.groupby(unit)[["heap_bytes", "execution_bytes", "storage_bytes"]].max().astype(float)
    # Of the hosts' type: no host known for any peak (an application without executors yet) leaves a
    # float index, which pandas refuses to join on names.
    peaks.index = peaks.index.astype(hosts["name"].dtype)
    return hosts.join(peaks.add_prefix("peak_"), on="name")


def _per_distinct(frame: pd.DataFrame, columns: list[str], make) -> pd.Series:
    """``make(rows)`` for every row of ``frame``, computed once per distinct value of ``columns``, as
    a categorical when it makes strings (a dense workload's 2 M blame rows have 60 k deep keys,
    and a string per row was most of the loader's peak memory)."""
    # Each row's values as one integer (a categorical's codes, else factorized), its distinct values
    # numbered in order of first appearance, as drop_duplicates keeps them: a groupby cost 3x more.
    key = np.zeros(len(frame), dtype=np.int64)
    for column in columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            code, size = values.cat.codes.to_numpy(np.int64) + 1, len(values.cat.categories) + 1  # NaN: 0
        else:
            code, uniques = pd.factorize(values, use_na_sentinel=False)
            size = len(uniques)
        key = key * size + code
    codes, _ = pd.factorize(key)
    first = np.unique(codes, return_index=True)[1]
    distinct = _plain(frame[columns].iloc[first])  # only the columns ``make`` reads made plain
    made = pd.Series(make(distinct), index=distinct.index)
    if made.dtype.kind in "biuf":
        return pd.Series(made.to_numpy()[codes], index=frame.index)
    kinds = pd.Index(made.dropna().unique()).sort_values()
    return pd.Series(pd.Categorical.from_codes(kinds.get_indexer(made)[codes], categories=kinds), index=frame.index)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its categorical columns as plain strings (for the few rows of a level)."""
    kinds = {c: object for c, t in frame.dtypes.items() if isinstance(t, pd.CategoricalDtype)}
    return frame.astype(kinds).infer_objects() if kinds else frame


def _plain_index(series: pd.Series) -> pd.Series:
    """``series`` indexed by plain strings rather than a categorical index."""
    return series.set_axis(series.index.astype(object))


def _running(frame: pd.DataFrame, key: str) -> pd.Series:
    """Whether each row (by ``key``) is still running; False for traces saved before this was recorded."""
    flags = frame["running"] if "running" in frame else pd.Series(False, index=frame.index)
    return pd.Series(flags.fillna(False).astype(bool).to_numpy(), index=frame[key].to_numpy())


def query_slowdown(task_time_s, blocked_by_others_s):
    """Slowdown of a victim query against running alone: paper 001 Eq. 4 over its task time.

    Our definition for the query as a whole: its critical-path task time (slot wait + run) is
    the time it took, and that time less the blocked seconds caused by anything but its own other
    tasks (other queries, JVM GC, Executors, Unknown) is what it would have taken unblocked, so
    ``S = blocked / (task time - blocked)``: 0 for a query nothing slowed, 6 for paper 001
    Example 3.3. NaN where it was blocked for all its task time (no estimate).
    """
    blocked = np.asarray(blocked_by_others_s, dtype=float)
    return slowdown(blocked, np.asarray(task_time_s, dtype=float) - blocked)

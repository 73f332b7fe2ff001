"""Blame for slot waits (docs/model.md, SLOTS): the holder rule, refined by delay scheduling, by the
users of what the waiting task needed, by FAIR pools, and by passing blame on to whoever slowed the
holders; and the part of a wait spent with no executor at all."""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import Trace
from protoxplore.loader.model.blame import expand, load_steps, rounding_floor, step_at, step_sums, sweep_blame
from protoxplore.loader.model.units import owner_app


def resource_needs(demand: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per request, each task's share of its service seconds (docs/model.md, SLOTS): what a slot
    would have bought it. A task with no measured service needs nothing contended (all zero)."""
    total = sum(demand.values(), 0.0)
    return {r: np.where(total > 0, d / np.where(total > 0, total, 1), 0.0) for r, d in demand.items()}


def slot_blame(holders: pd.DataFrame, waiting: pd.DataFrame, how: dict, users: dict[str, pd.DataFrame],
                caps: dict[str, pd.Series], needs: dict[str, np.ndarray], slowed: list[pd.DataFrame],
                plain_unit: dict, pools: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Blame of slot waits by the holder rule, refined three ways (docs/model.md, SLOTS): delay
    scheduling, the users of what the victim needs (1), and the blame passed on (2).

    ``holders`` and ``waiting`` are the sweep's slot consumers and victims (units ``app|unit``),
    ``users`` each other request's consumers (plain units) and ``caps`` their units' capacities
    (:func:`blame.capacity` over the whole trace), ``needs`` per request the share
    ``f_r`` of each waiting task's service time spent on it (:func:`needs`), ``slowed`` every
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


def fair_pools(trace: Trace, holders: pd.DataFrame, queued: pd.DataFrame, stage_codes: np.ndarray) -> dict:
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


def _all_held(holders: pd.DataFrame, slots: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per ``app|unit``, 1 while every slot the application had there was held (half a slot of
    rounding) and 0 while one was free or it had none, as a step function ``(times, values)``
    changing only where that flips. ``holders``: the slot sweep's consumers, ``slots``: :func:`slots_over_time`."""
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


def before_executors(victims: pd.DataFrame, owners: np.ndarray, alive: dict) -> tuple[pd.DataFrame, np.ndarray]:
    """The part of each slot wait from its start while its application had no executor (start-up,
    dynamic allocation; docs/model.md, "Executors"): there was no slot to hold. Once it has one, a
    wait is contention or delay scheduling by the rules of the slot sweep, whatever unit the task
    ran on. ``owners``: each victim's :func:`slot_owner` (an application of a resource profile has
    no executor while it has only executors of other profiles); ``alive``: :func:`executors_alive`.
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

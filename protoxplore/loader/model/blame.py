"""RATP, capacity, slowdown and blame: how much of a victim's blocked time each concurrent culprit
stage caused.

The formulas of the papers live here, one function each; ``sweep_blame`` applies paper 001's
blame (Eq. 8-10) to a whole workload with a time-ordered sweep per host (no comparison of all
task pairs).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from threadpoolctl import ThreadpoolController

#: Culprit names for the synthetic sources of paper 001 Sec. 5.1.
GC_SOURCE = "JVM GC"
UNKNOWN_SOURCE = "Unknown"
EXECUTORS_SOURCE = "Executors"  # a slot wait while the application had no executor its stage could run on


def ratp(wait_s, amount):
    """Resource Acquire Time Penalty: seconds per unit of resource acquired.

    Paper 000 Def. 3.3 / Eq. 1 (``RATP = WT / RA``) and paper 001 Eq. 2; with the blocked time as
    ``wait_s`` this is paper 001 Eq. 7 (RATP-blocked). Works on scalars and NumPy arrays; an
    amount of zero gives ``inf`` (nothing acquired).
    """
    wait_s = np.asarray(wait_s, dtype=float)
    amount = np.asarray(amount, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(amount > 0, wait_s / np.where(amount > 0, amount, 1.0), np.inf)


def slowdown(blocked_s, service_s):
    """Slowdown of a victim on a resource: ``S = (RATP_vt - RATP*) / RATP*`` (paper 001 Eq. 3-4).

    Written with times: a victim that acquired its amount in ``service_s + blocked_s`` seconds,
    where ``service_s`` is the time it needs at the capacity (``amount x RATP*``, Eq. 3), has
    ``RATP_vt / RATP* = (service_s + blocked_s) / service_s``, so ``S = blocked_s / service_s``.
    Example 3.3: 30 bytes read in 1 s on a 210 bytes/s disk: service 1/7 s, blocked 6/7 s, S = 6.
    ``NaN`` where the service time is under :data:`RESOLUTION_S`: the slowdown cannot be estimated
    there (docs/model.md, "Slowdown").
    """
    blocked_s = np.asarray(blocked_s, dtype=float)
    service_s = np.asarray(service_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(service_s >= RESOLUTION_S, blocked_s / np.where(service_s > 0, service_s, 1.0), np.nan)


#: The resolution of Spark's task times (ms): a slowdown over a service time below it divides a
#: measured time by rounding noise (59 bytes written in 0.2-9.8 ms against 1.9e-5 s at capacity: 776).
RESOLUTION_S = 1e-3


def capacity(consumers: pd.DataFrame) -> pd.Series:
    """Capacity ``C`` of each unit for a resource (paper 001 Eq. 3), estimated from the trace.

    The logs hold no hardware figures, so ``C`` is the largest aggregate rate the unit reached:
    the peak over time of the summed rates of the tasks consuming there (``consumers``: rows
    ``unit, start, end, rate``, rates uniform over [start, end)). Example 3.3: three tasks
    reading 30, 60 and 120 bytes/s at once give 210 bytes/s.
    """
    live = consumers[(consumers["rate"] > 0) & (consumers["end"] > consumers["start"])]
    codes, names = pd.factorize(live["unit"], sort=True)  # NumPy from here: pandas' sort was most of a build's
    rate = live["rate"].to_numpy(float)
    unit = np.concatenate([codes, codes])
    t = np.concatenate([live["start"].to_numpy(float), live["end"].to_numpy(float)])
    d = np.concatenate([rate, -rate])
    # Ends sort before starts at the same instant: a task that ends as another starts never adds up with it.
    # By unit, time and step, as np.lexsort((d, t, unit)) puts them, 4x faster: complex numbers sort
    # by their real part, then their imaginary part (set, not added: 1j x inf would make a NaN).
    time_step = t.astype(complex)
    time_step.imag = d
    order = np.argsort(time_step, kind="stable")
    order = order[np.argsort(unit[order], kind="stable")]
    unit, d = unit[order], d[order]
    bounds = np.flatnonzero(np.diff(unit, prepend=-1, append=len(names)))  # where each unit's steps begin
    peaks = [np.cumsum(d[a:b]).max() for a, b in zip(bounds[:-1], bounds[1:])]
    return pd.Series(peaks, index=pd.Index(names, name="unit"), name="level", dtype=float)


def sweep_blame(consumers: pd.DataFrame, victims: pd.DataFrame, chunk: int = 1024, normalize: bool = True,
                capacity: dict | None = None, alone: str = "unknown",
                keep: dict | None = None, split: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Blame seconds of every culprit stage on every victim stage, per contention unit (host).

    ``consumers``: one row per task using the resource: ``unit, start, end, stage, rate`` (units
    acquired per second, uniform over [start, end)). ``victims``: one row per victim task:
    ``unit, start, end, stage, blocked_rate`` (blocked seconds per second over [start, end)) and
    ``own_rate``: the victim task's own rate as a consumer over that span (0 when it consumes
    nothing then, as a task waiting for a slot; a victim task either consumes over exactly its
    blocked span or not at all).

    Paper 001 Eq. 8: in an interval ``dt`` a concurrent task ``ct`` gets the blame
    ``RATP-blocked_vt / RATP_ct``, which under uniform rates is the victim's blocked seconds in
    ``dt`` times ``rate_ct`` (over the victim's own rate, common to all culprits). Eq. 9 sums it
    over the tasks of a culprit stage and Eq. 10 splits the victim's blocked seconds in
    proportion, so in each interval every *other* task consuming the resource on the unit gets
    ``blocked x rate_ct / (sum of rates - rate_vt)``: the victim task itself has no share (Eq. 5:
    its slowdown is caused by the others). Sibling tasks of the victim's own stage or query are
    other tasks and take their share (intra-query contention). The time on each unit is cut into
    elementary intervals at every start and end, so rates are constant within each.

    Blocked time in intervals where no other task used the resource is not the doing of any
    task: with ``alone="unknown"`` it goes to the Unknown source (paper 001 Sec. 5.1), with
    ``alone="service"`` it is dropped as the victim's own service time (see docs/model.md: the CPU
    residual). ``capacity`` (unit -> a step function ``(times, values)`` of its units over time) is
    known for task slots: a victim that waited while slots were free on its unit, or while it had
    none, was not held back by their holders, so that part goes to Unknown too (scheduler delay,
    pool limits; a locality wait is moved to the holders of the full units by the caller,
    ``protograph.slot_blame``).

    ``keep`` (unit -> ``(times, values)``, a step function: ``values[i]`` from ``times[i]`` on,
    1 before the first time) keeps only that share of the blocked seconds of victims that consume
    nothing while blocked (slot waits) in each interval: the rest is another sweep's to split. With
    2-D ``values`` (one column ``k`` per victims' column ``need_k``, 0 before the first time) each
    victim keeps ``1 - sum_k need_k x values[:, k]`` of its seconds instead.

    ``split`` (unit -> ``(times, function)``) replaces the plain split among the culprits by their
    rates where the split depends on more than the rates (the FAIR pools of slot holders,
    ``slots._fair_split``): the time is also cut at ``times``, and ``function(starts,
    victim_codes, culprit_codes, weights, rates)`` returns the victims x culprits blame of a run of
    intervals from their start times, each victim's seconds per unit of rate and each culprit's rate.

    Returns ``(blame, unknown)``: rows ``unit, victim_stage, culprit_stage, blame_s`` and rows
    ``unit, victim_stage, blame_s``. With ``normalize=False`` nothing is split: each culprit gets
    ``blocked seconds x its rate`` summed over the overlap (the overlap baselines of ``baselines``).
    """
    if alone not in ("unknown", "service"):
        raise ValueError(f"alone must be 'unknown' or 'service', not {alone!r}")
    consumers = consumers[(consumers["rate"] > 0) & (consumers["end"] > consumers["start"])]
    if "own_rate" not in victims:
        victims = victims.assign(own_rate=0.0)
    victims = victims[(victims["blocked_rate"] > 0) & (victims["end"] > victims["start"])]
    # Each unit's rows as arrays, not frames: a frame per unit cost a third of a sweep.
    c_columns = {c: consumers[c].to_numpy() for c in ("start", "end", "rate", "stage")}
    v_columns = {c: victims[c].to_numpy() for c in victims
                 if c in ("start", "end", "blocked_rate", "stage", "own_rate") or c.startswith("need_")}
    c_rows, units, blame_parts, unknown_parts = _rows_by_unit(consumers["unit"]), [], [], []
    # The products of a chunk are small: BLAS threads cost more than they bring (15x slower on a
    # busy machine), and one thread gives the same sums whatever the machine.
    with _thread_pools().limit(limits=1, user_api="blas"):
        for unit, rows in _rows_by_unit(victims["unit"]).items():
            con = {c: a[c_rows.get(unit, rows[:0])] for c, a in c_columns.items()}
            b, u = _sweep_unit(con, {c: a[rows] for c, a in v_columns.items()}, chunk, normalize,
                               (capacity or {}).get(unit), alone == "unknown", (keep or {}).get(unit),
                               (split or {}).get(unit))
            units.append(unit)
            blame_parts.append(b)
            unknown_parts.append(u)
    return (_per_unit(units, blame_parts, ["victim_stage", "culprit_stage", "blame_s"]),
            _per_unit(units, unknown_parts, ["victim_stage", "blame_s"]))


def _rows_by_unit(units: pd.Series) -> dict:
    """The positions of each unit's rows, units in order of first appearance (as a groupby of
    ``unit`` without sorting gives them; a NaN unit has none)."""
    codes, names = pd.factorize(units)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
    return {names[k]: order[bounds[k]:bounds[k + 1]] for k in range(len(names))}


def _per_unit(units: list, parts: list[tuple[np.ndarray, ...]], columns: list[str]) -> pd.DataFrame:
    """The rows of every unit's part (arrays of the ``columns``) as one frame, ``unit`` first, as
    concatenating a frame per unit made them: a unit with no rows gave an empty frame, whose object
    columns make the concatenated ones objects (and so their sums later Python's: kept to the bit)."""
    full = [k for k, part in enumerate(parts) if len(part[0])]
    frames = []
    if full:
        named = np.repeat(np.array([units[k] for k in full], dtype=object), [len(parts[k][0]) for k in full])
        frames.append(pd.DataFrame({"unit": named, **{c: np.concatenate([parts[k][i] for k in full])
                                                      for i, c in enumerate(columns)}}))
    if len(full) < len(parts):
        empty = pd.DataFrame(columns=columns)
        empty.insert(0, "unit", units[0])
        frames.append(empty)
    if not frames:
        return pd.DataFrame(columns=["unit", *columns])
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


@functools.cache
def _thread_pools() -> ThreadpoolController:
    """The process's thread pools (its BLAS), found once: looking through every loaded library took
    0.4 ms a sweep, 8 sweeps a build."""
    return ThreadpoolController()


def _sweep_unit(con: dict[str, np.ndarray], vic: dict[str, np.ndarray], chunk: int, normalize: bool,
                capacity: tuple[np.ndarray, np.ndarray] | None, alone_is_unknown: bool,
                keep: tuple[np.ndarray, np.ndarray] | None = None, split=None) -> tuple[tuple, tuple]:
    """:func:`sweep_blame` on one unit (its consumers' and victims' columns); see there. Returns the
    blame and unknown rows as arrays, ``(victim_stage, culprit_stage, blame_s)`` and ``(victim_stage,
    blame_s)``."""
    c_start, c_end = np.asarray(con["start"], float), np.asarray(con["end"], float)
    c_rate, c_stage = np.asarray(con["rate"], float), con["stage"]
    v_start, v_end = np.asarray(vic["start"], float), np.asarray(vic["end"], float)
    v_rate, v_stage = np.asarray(vic["blocked_rate"], float), vic["stage"]
    v_own = np.asarray(vic["own_rate"], float) if normalize else np.zeros(len(v_start))

    grid = np.unique(np.concatenate([c_start, c_end, v_start, v_end] + ([keep[0]] if keep is not None else [])))
    for cuts in (split[0] if split is not None else None, capacity[0] if capacity is not None else None):
        if cuts is not None and len(grid):
            grid = np.union1d(grid, cuts[(cuts > grid[0]) & (cuts < grid[-1])])
    lengths = np.diff(grid)
    n_int = len(lengths)
    needs: list[np.ndarray] = []
    if keep is not None:
        step = np.searchsorted(keep[0], grid[:-1], side="right") - 1
        taken = keep[1].ndim == 2  # shares taken away per need, else the share kept
        kept_share = (np.where((step >= 0)[:, None], keep[1][np.maximum(step, 0)], 0.0) if taken else
                      np.where(step >= 0, keep[1][np.maximum(step, 0)], 1.0))
        needs = [np.asarray(vic[f"need_{k}"], float) for k in range(keep[1].shape[1])] if taken else []
    ci0, ci1 = np.searchsorted(grid, c_start), np.searchsorted(grid, c_end)
    vi0, vi1 = np.searchsorted(grid, v_start), np.searchsorted(grid, v_end)
    total_rate = np.cumsum(np.bincount(ci0, c_rate, n_int + 1) - np.bincount(ci1, c_rate, n_int + 1))[:n_int]
    # Rates are summed and subtracted in floating point; anything this small is "nobody".
    tolerance, v_tolerance = rounding_floor(c_rate), rounding_floor(v_rate)
    # Other consumers needed to explain a wait in each interval: all the unit's slots held (half a
    # slot of rounding); no one can where it has no slot (a holder there ran on a lost executor:
    # slots._all_held takes the unit as free too); anyone at all where capacity is not known.
    slots = step_at(capacity, grid[:-1])
    needed = np.where(slots > 0, slots - 0.5, np.inf) if capacity is not None else np.full(n_int, tolerance)

    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (victim, culprit, seconds) per chunk
    unknown: dict = {}
    for c0 in range(0, n_int, chunk):
        c1 = min(n_int, c0 + chunk)
        rows = c1 - c0
        vm = (vi0 < c1) & (vi1 > c0)
        if not vm.any():
            continue
        v_codes, v_col = np.unique(v_stage[vm], return_inverse=True)
        busy = total_rate[c0:c1] if normalize else np.ones(rows)
        a, b = np.clip(vi0[vm], c0, c1) - c0, np.clip(vi1[vm], c0, c1) - c0
        own = v_own[vm]
        # Victims that consume nothing while blocked (slot waits): the others are all consumers, the
        # same in every interval, so blocked seconds are summed per stage from rate steps (a task
        # that waited long spans many intervals; its rate is added at its start, removed at its end).
        apart = own <= 0
        seconds = _stepwise(a[apart], b[apart], v_col[apart], v_rate[vm][apart], rows, len(v_codes))
        seconds[seconds < v_tolerance] = 0.0
        seconds *= lengths[c0:c1, None]
        if keep is not None and not needs:
            seconds *= kept_share[c0:c1, None]
        for k, need in enumerate(needs):
            given = _stepwise(a[apart], b[apart], v_col[apart], (v_rate * need)[vm][apart], rows, len(v_codes))
            seconds -= given * lengths[c0:c1, None] * kept_share[c0:c1, k][:, None]
        if needs:
            np.clip(seconds, 0.0, None, out=seconds)
        explained = busy > needed[c0:c1]
        weights = np.where(explained[:, None], seconds / np.where(explained, busy, 1.0)[:, None], 0.0)
        lost = seconds[~explained].sum(axis=0)
        # Victims that consume while blocked: the others' rate is the total less the victim's own,
        # which differs per task, so these are expanded into (task, interval) pairs. Their spans
        # are their runs, a few intervals each.
        self_share = np.zeros(len(v_codes))
        if not apart.all():
            j = np.nonzero(~apart)[0]
            n = b[j] - a[j]
            row = np.repeat(a[j], n) + np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
            who = np.repeat(j, n)
            sec = v_rate[vm][who] * lengths[c0:c1][row]
            w, ok = _per_unit_of_others(sec, busy[row] - own[who], needed[c0:c1][row])
            weights += np.bincount(row * len(v_codes) + v_col[who], w, rows * len(v_codes)).reshape(rows, -1)
            self_share += np.bincount(v_col[who], w * own[who], len(v_codes))
            lost = lost + np.bincount(v_col[who], np.where(ok, 0.0, sec), len(v_codes))
        if alone_is_unknown:
            for code, sec in zip(v_codes, lost):
                if sec > 0:
                    unknown[code] = unknown.get(code, 0.0) + sec
        cm = (ci0 < c1) & (ci1 > c0)
        if not weights.any() or not cm.any():  # unnormalized, a wait can meet no consumer at all
            continue
        c_codes, c_col = np.unique(c_stage[cm], return_inverse=True)
        rates = _stepwise(np.clip(ci0[cm], c0, c1) - c0, np.clip(ci1[cm], c0, c1) - c0, c_col, c_rate[cm],
                          rows, len(c_codes))
        matrix = split[1](grid[c0:c1], v_codes, c_codes, weights, rates) if split is not None else weights.T @ rates
        # Take each victim task's own consumption back out: it is no culprit of its own wait.
        at = np.searchsorted(c_codes, v_codes)
        mine = (at < len(c_codes)) & (c_codes[np.minimum(at, len(c_codes) - 1)] == v_codes) & (self_share > 0)
        matrix[np.nonzero(mine)[0], at[mine]] -= self_share[mine]
        scale = 1e-12 * max(1.0, float(np.abs(matrix).max()))
        i, k = np.nonzero(matrix > scale)
        found.append((v_codes[i], c_codes[k], matrix[i, k]))
    return _summed(found), (np.array(list(unknown), dtype=v_stage.dtype), np.array(list(unknown.values()), dtype=float))


def step_at(step: tuple[np.ndarray, np.ndarray] | None, times: np.ndarray) -> np.ndarray:
    """The step function ``(times, values)`` read at ``times`` (0 before its first time, or if None
    or empty)."""
    if step is None or not len(step[0]):
        return np.zeros(len(times))
    at = np.searchsorted(step[0], times, "right") - 1
    return np.where(at >= 0, step[1][np.maximum(at, 0)], 0.0)


def _summed(found: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``victim_stage, culprit_stage, blame_s`` (as arrays): the chunks' seconds summed per pair,
    in the order each pair first appears and adding in chunk order (so the same sums to the last bit)."""
    victim, culprit, seconds = (np.concatenate(part) for part in zip(*found)) if found else ([], [], [])
    if not len(seconds):
        return np.array([]), np.array([]), np.array([])
    victim_code, culprit_code = pd.factorize(victim)[0], pd.factorize(culprit)[0]
    _, first, which = np.unique(victim_code * (culprit_code.max() + 1) + culprit_code, return_index=True,
                                return_inverse=True)
    sums = np.zeros(len(first))
    np.add.at(sums, which, seconds)  # unbuffered: one addition at a time, in row order
    order = np.argsort(first)
    return victim[first[order]], culprit[first[order]], sums[order]


def rounding_floor(rates: np.ndarray) -> float:
    """Below this, a sum of ``rates`` kept in floating point (each added as its span starts and
    subtracted as it ends) is zero: "nobody", 1e-9 of the largest rate."""
    return 1e-9 * (float(np.max(rates)) if len(rates) else 1.0)


def expand(first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows each covering ``count`` consecutive spans from span ``first``: the row and the span
    of every (row, span) pair."""
    who = np.repeat(np.arange(len(first)), count)
    return who, np.repeat(first, count) + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)


def _per_unit_of_others(blocked_s: np.ndarray, others_rate: np.ndarray, needed: float):
    """Eq. 10's split in an interval: blocked seconds per unit of the *other* consumers' rate
    (times a culprit's rate, its blame), and whether any other consumer was there at all."""
    ok = others_rate > needed
    return np.where(ok, blocked_s / np.where(ok, others_rate, 1.0), 0.0), ok


def contention_on_tasks(consumers: pd.DataFrame, victims: pd.DataFrame, caps: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """What the counterfactual replay needs of each task on one resource (rows of ``consumers``
    and ``victims`` are the same tasks): the seconds of its blocked time that fell in intervals
    where *other* tasks consumed the resource on its unit (what Eq. 10 splits among them; the rest
    is service or Unknown), and the load of those others over its blocked span, as the integral of
    their summed rate over the unit's capacity (``caps``: :func:`capacity`), in seconds. Their ratio is the
    task's contention coefficient: blocked seconds per second of the others' full-capacity load
    (docs/model.md, "What-if")."""
    blocked = np.zeros(len(victims))
    load = np.zeros(len(victims))
    c_unit, v_unit = consumers["unit"].to_numpy(), victims["unit"].to_numpy()
    rate = consumers["rate"].to_numpy(float)
    c_start, c_end = consumers["start"].to_numpy(float), consumers["end"].to_numpy(float)
    live = (rate > 0) & (c_end > c_start)
    v_start, v_end = victims["start"].to_numpy(float), victims["end"].to_numpy(float)
    v_rate, own_rate = victims["blocked_rate"].to_numpy(float), victims["own_rate"].to_numpy(float)
    waiting = (v_end > v_start)
    for unit in np.unique(c_unit[live]):
        c = live & (c_unit == unit)
        v = np.nonzero(waiting & (v_unit == unit))[0]
        if not len(v) or not caps.get(unit, 0) > 0:
            continue
        grid = np.unique(np.concatenate([c_start[c], c_end[c], v_start[v], v_end[v]]))
        n_int = len(grid) - 1
        ci0, ci1 = np.searchsorted(grid, c_start[c]), np.searchsorted(grid, c_end[c])
        total = np.cumsum(np.bincount(ci0, rate[c], n_int + 1) - np.bincount(ci1, rate[c], n_int + 1))[:n_int]
        a, b = np.searchsorted(grid, v_start[v]), np.searchsorted(grid, v_end[v])
        who, row = expand(a, b - a)
        others = np.clip(total[row] - own_rate[v][who], 0, None)
        present = others > rounding_floor(rate[c])
        length = np.diff(grid)[row]
        blocked[v] += np.bincount(who, np.where(present, v_rate[v][who] * length, 0.0), len(v))
        load[v] += np.bincount(who, others * length / caps[unit], len(v))
    return blocked, load


def step_sums(units, starts, ends, amounts) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per unit, the sum of ``amounts`` over the spans [start, end) that cover each time, as a step
    function ``(times, values)``: ``values[i]`` from ``times[i]`` on, 0 before the first. An end
    that is NaN never comes (the amount stays)."""
    units, amounts = np.asarray(units), np.asarray(amounts, dtype=float)
    starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
    ending = ~np.isnan(ends)
    t = np.concatenate([starts, ends[ending]])
    d = np.concatenate([amounts, -amounts[ending]])
    u = np.concatenate([units, units[ending]])
    out = {}
    for unit, rows in pd.Series(np.arange(len(u))).groupby(u, sort=False).indices.items():
        order = rows[np.argsort(t[rows], kind="stable")]
        times, at = np.unique(t[order], return_index=True)
        level = np.cumsum(d[order])
        out[unit] = (times, level[np.r_[at[1:], len(order)] - 1])  # the level after the last event at each time
    return out


def capacity_share(consumers: pd.DataFrame, caps: pd.Series) -> np.ndarray:
    """Each consumer's rate over its unit's capacity (``caps``: :func:`capacity`, paper 001 Eq. 3's
    ``C``): the share of the unit it uses; 0 where the unit has no capacity."""
    cap = consumers["unit"].map(caps).fillna(0.0).to_numpy(float)
    return np.where(cap > 0, consumers["rate"].to_numpy(float) / np.where(cap > 0, cap, 1), 0.0)


def load_steps(consumers: pd.DataFrame, caps: pd.Series) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per unit, the summed rate of ``consumers`` (``unit, start, end, rate``) over the unit's
    capacity ``caps`` (:func:`capacity`), as a step function ``(times, values)``: the share of the
    unit's capacity in use from each time on, in [0, 1]."""
    live = consumers[(consumers["rate"] > 0) & (consumers["end"] > consumers["start"])]
    live = live[live["unit"].map(caps).fillna(0.0).to_numpy(float) > 0]
    shares = step_sums(live["unit"].to_numpy(), live["start"], live["end"], capacity_share(live, caps))
    return {unit: (times, np.clip(level, 0.0, 1.0)) for unit, (times, level) in shares.items()}


def _stepwise(starts: np.ndarray, ends: np.ndarray, column: np.ndarray, rate: np.ndarray,
              rows: int, columns: int) -> np.ndarray:
    """``rows x columns`` sums of ``rate`` of the spans [start, end) covering each row, per column."""
    size = (rows + 1) * columns
    rate = np.asarray(rate, dtype=float)  # bincount of no spans would give integers
    steps = (np.bincount(starts * columns + column, rate, size).astype(float)
             - np.bincount(ends * columns + column, rate, size))
    return np.cumsum(steps.reshape(rows + 1, columns), axis=0)[:rows]

"""RATP and blame: how much of a victim's blocked time each concurrent culprit stage caused.

The formulas of the papers live here, one function each; ``sweep_blame`` applies them to a whole
workload with a time-ordered sweep per host (no comparison of all task pairs).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

#: Culprit names for the synthetic sources of paper 001 Sec. 5.1.
GC_SOURCE = "JVM GC"
UNKNOWN_SOURCE = "Unknown"


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


def slowdown(ratp_victim, capacity):
    """Slowdown of a victim against the host's capacity for the resource.

    Paper 001 Eq. 3-4: ``RATP* = 1 / C`` and ``S = (RATP_vt - RATP*) / RATP*``. Example 3.3 of that
    paper: 30 bytes read in 1 s on a 210 bytes/s disk gives a slowdown of 6.
    """
    ideal = 1.0 / np.asarray(capacity, dtype=float)
    return (np.asarray(ratp_victim, dtype=float) - ideal) / ideal


def blame_ratio(overlap_fraction, ratp_victim, ratp_culprit):
    """Blame of a culprit task on a victim task for one resource on one host.

    Paper 000 Eq. 2 / Eq. 7: ``beta = FC_h * RATP_ts / RATP_ss``, which is paper 001 Eq. 8 when
    rates are uniform within each task (``FC_h`` is the fraction of the victim's time that the two
    overlap, ``RATP_ts`` the victim's blocked RATP, ``RATP_ss`` the culprit's RATP over its whole
    run, as paper 003 Eq. 11 prescribes). Example 3.4 of paper 001: blames 2 and 4.
    """
    return np.asarray(overlap_fraction, dtype=float) * np.asarray(ratp_victim, dtype=float) / np.asarray(
        ratp_culprit, dtype=float)


def distribute(blocked_s, betas):
    """Split a victim's blocked seconds among culprits in proportion to their blames.

    Paper 001 Eq. 10: ``BC_l4 = beta_cs / sum(beta) * BC_l3``. Figure 6 of that paper: 500 s with
    blames 4:1 gives 400 s and 100 s. With no blame at all, nothing is distributed (all zeros).
    """
    betas = np.asarray(betas, dtype=float)
    total = betas.sum()
    if total <= 0:
        return np.zeros_like(betas)
    return float(blocked_s) * betas / total


def sweep_blame(consumers: pd.DataFrame, victims: pd.DataFrame, chunk: int = 1024,
                normalize: bool = True, capacity: dict | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Blame seconds of every culprit stage on every victim stage, per contention unit (host).

    ``consumers``: one row per task using the resource: ``unit, start, end, stage, rate`` (units
    acquired per second, uniform over [start, end)). ``victims``: one row per victim task:
    ``unit, start, end, stage, blocked_rate`` (blocked seconds per second over [start, end)).

    The time on each unit is cut into elementary intervals at every start and end. Within an
    interval all rates are constant, so ``FC_h`` and ``RATP_ts`` are common to all culprits and
    :func:`blame_ratio` is proportional to the culprit's rate ``1 / RATP_ss``. A victim is blocked
    only while the resource is busy, so we take its capacity as the sum of the rates of the tasks
    using it; paper 001 Eq. 12-13 then give every consumer, the victim task itself included, the
    share ``rate / sum of rates`` of the victim's blocked seconds in the interval, and
    :func:`distribute` (Eq. 10) splits them so. The victim's own share goes to its own stage: the
    query waited behind itself. Blocked time in intervals where no task used the resource goes
    to the Unknown source (paper 001 Sec. 5.1): nothing in the trace can explain it.

    Returns ``(blame, unknown)``: rows ``unit, victim_stage, culprit_stage, blame_s`` and rows
    ``unit, victim_stage, blame_s``. With ``normalize=False`` nothing is split: each culprit gets
    ``blocked seconds x its rate`` summed over the overlap (the overlap baselines of ``baselines``).
    ``capacity`` (unit -> units) is known for task slots (the cores of the unit's executors): a
    victim that waited while slots were free on its unit was not held back by their holders, so
    that part of its wait goes to Unknown too (scheduler delay, locality wait, pool limits).
    """
    blame_parts: list[pd.DataFrame] = []
    unknown_parts: list[pd.DataFrame] = []
    consumers = consumers[(consumers["rate"] > 0) & (consumers["end"] > consumers["start"])]
    victims = victims[(victims["blocked_rate"] > 0) & (victims["end"] > victims["start"])]
    by_unit = dict(tuple(consumers.groupby("unit", sort=False)))
    for unit, vic in victims.groupby("unit", sort=False):
        con = by_unit.get(unit, consumers.iloc[:0])
        b, u = _sweep_unit(con, vic, chunk, normalize, (capacity or {}).get(unit))
        b.insert(0, "unit", unit)
        u.insert(0, "unit", unit)
        blame_parts.append(b)
        unknown_parts.append(u)
    blame = (pd.concat(blame_parts, ignore_index=True) if blame_parts else
             pd.DataFrame(columns=["unit", "victim_stage", "culprit_stage", "blame_s"]))
    unknown = (pd.concat(unknown_parts, ignore_index=True) if unknown_parts else
               pd.DataFrame(columns=["unit", "victim_stage", "blame_s"]))
    return blame, unknown


def _sweep_unit(con: pd.DataFrame, vic: pd.DataFrame, chunk: int, normalize: bool,
                capacity: float | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`sweep_blame` on one unit; see there."""
    c_start, c_end = con["start"].to_numpy(float), con["end"].to_numpy(float)
    c_rate, c_stage = con["rate"].to_numpy(float), con["stage"].to_numpy()
    v_start, v_end = vic["start"].to_numpy(float), vic["end"].to_numpy(float)
    v_rate, v_stage = vic["blocked_rate"].to_numpy(float), vic["stage"].to_numpy()

    grid = np.unique(np.concatenate([c_start, c_end, v_start, v_end]))
    lengths = np.diff(grid)
    n_int = len(lengths)
    ci0, ci1 = np.searchsorted(grid, c_start), np.searchsorted(grid, c_end)
    vi0, vi1 = np.searchsorted(grid, v_start), np.searchsorted(grid, v_end)
    total_rate = np.cumsum(np.bincount(ci0, c_rate, n_int + 1) - np.bincount(ci1, c_rate, n_int + 1))[:n_int]
    # Rates are summed and subtracted in floating point; anything this small is "nobody".
    tolerance = 1e-9 * (c_rate.max() if len(c_rate) else 1.0)
    v_tolerance = 1e-9 * (v_rate.max() if len(v_rate) else 1.0)

    blame: dict[tuple, float] = {}
    unknown: dict = {}
    for c0 in range(0, n_int, chunk):
        c1 = min(n_int, c0 + chunk)
        rows = c1 - c0
        vm = (vi0 < c1) & (vi1 > c0)
        if not vm.any():
            continue
        # Blocked seconds per interval and victim stage, from per-stage rate steps (a task that
        # waited long spans many intervals; its rate is added once at its start, removed at its end).
        v_codes, v_col = np.unique(v_stage[vm], return_inverse=True)
        seconds = _stepwise(np.clip(vi0[vm], c0, c1) - c0, np.clip(vi1[vm], c0, c1) - c0, v_col, v_rate[vm],
                            rows, len(v_codes))
        seconds[seconds < v_tolerance] = 0.0
        seconds *= lengths[c0:c1, None]
        busy = total_rate[c0:c1] if normalize else np.ones(rows)
        explained = busy > (capacity - 0.5 if capacity else tolerance)
        for code, sec in zip(v_codes, seconds[~explained].sum(axis=0)):
            if sec > 0:
                unknown[code] = unknown.get(code, 0.0) + sec
        if not explained.any():
            continue
        weights = np.where(explained[:, None], seconds / np.where(explained, busy, 1.0)[:, None], 0.0)
        cm = (ci0 < c1) & (ci1 > c0)
        c_codes, c_col = np.unique(c_stage[cm], return_inverse=True)
        rates = _stepwise(np.clip(ci0[cm], c0, c1) - c0, np.clip(ci1[cm], c0, c1) - c0, c_col, c_rate[cm],
                          rows, len(c_codes))
        matrix = weights.T @ rates
        for i, j in zip(*np.nonzero(matrix > 1e-12)):
            key = (v_codes[i], c_codes[j])
            blame[key] = blame.get(key, 0.0) + matrix[i, j]
    blame_frame = pd.DataFrame([(v, c, s) for (v, c), s in blame.items()],
                               columns=["victim_stage", "culprit_stage", "blame_s"])
    unknown_frame = pd.DataFrame(list(unknown.items()), columns=["victim_stage", "blame_s"])
    return blame_frame, unknown_frame


def _stepwise(starts: np.ndarray, ends: np.ndarray, column: np.ndarray, rate: np.ndarray,
              rows: int, columns: int) -> np.ndarray:
    """``rows x columns`` sums of ``rate`` of the spans [start, end) covering each row, per column."""
    size = (rows + 1) * columns
    steps = np.bincount(starts * columns + column, rate, size) - np.bincount(ends * columns + column, rate, size)
    return np.cumsum(steps.reshape(rows + 1, columns), axis=0)[:rows]

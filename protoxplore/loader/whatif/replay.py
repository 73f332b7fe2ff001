"""What-if by counterfactual replay: how the observed schedule would have run after a change.

The replay is a small discrete-event model of Spark's task scheduler run over the trace:
- each application's executors offer their slots (``units.executor_slots``) from the time they were added
  until they were removed (dynamic allocation: a task running there then goes on to its end, none
  starts there; the executor removed last stays), to the stages of their resource profile
  (stage-level scheduling);
- a stage becomes ready when the stage it waited for in the log completes, plus the gap the log
  shows between the two (the driver's own time); a stage that waited for nothing keeps its
  submission time (a query's first job is submitted by the driver, not by the cluster);
- free slots go to ready stages as Spark's FIFO (the stage's first job, then stage id: ``_priority``) or FAIR scheduler
  (the pool with the fewest running tasks per weight, FIFO inside a pool) would give them; a task
  goes back to the executor it ran on when that one has a free slot, else to the freest one;
- each task has its work (its observed duration less the blocked seconds other tasks' use of CPU,
  network and disk explains) and advances through it at a speed set by the load of the other tasks
  running on its host at that moment, so a change re-shares the hosts among the tasks that remain
  (``Replay._contention``, docs/model.md "What-if").

A prediction is the difference of two replays, the trace as it was and the trace changed, so the
model's own error on the unchanged trace cancels out (docs/model.md, "What-if").
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import Trace
from protoxplore.loader.model import protograph, units
from protoxplore.loader.model.blame import capacity, capacity_share, contention_on_tasks
from protoxplore.loader.model.waits import failed_attempt, ready_for_a_slot
from protoxplore.loader.whatif.simulation import Change, ReplayStage, Simulation

#: A task's contention coefficient is capped: a task blocked while the others' load was tiny
#: would otherwise be predicted to crawl beside any real load. In a fluid share it is about 1; the
#: traces' capacity estimates run low, so the real scenarios show up to 4 (docs/model.md, "What-if").
MAX_COEFFICIENT = 8.0


class Replay:
    """The replay model of one trace; :meth:`run` replays it under a change."""

    def __init__(self, trace: Trace, options: protograph.Options | None = None):
        self.trace = trace
        self.options = options or protograph.Options()
        self.tasks = trace.tasks.dropna(subset=["launch", "finish"]).reset_index(drop=True)
        stages = trace.stages.drop_duplicates("stage_key")
        ran = set(self.tasks["stage_key"].unique())
        self.stages = stages[[k in ran for k in stages["stage_key"].tolist()]].set_index("stage_key")
        self.queries = trace.queries.set_index("query_key")
        self.stage_query = self.stages["query_key"].to_dict()
        apps = trace.apps.set_index("app_key")
        self.fair = {a: str(apps.get("scheduler_mode", pd.Series(dtype=object)).get(a, "FIFO")).upper() == "FAIR"
                     for a in apps.index}
        self.query_start = {q: (r["start"] if r["start"] == r["start"] else np.nan) for q, r in
                            self.queries[["start"]].to_dict("index").items()}
        self.layout = self._layout()
        self.slots = self._executor_slots()
        self.weights = self._pool_weights()
        self.pred, self.gap = self._predecessors()
        self.observed = (self.tasks["finish"] - self.tasks["launch"]).to_numpy()
        self.task_query = self.tasks["stage_key"].map(self.stage_query).to_numpy(object)
        self.unit_of = self._units()
        work, rho, coefficient = self._contention()
        self.work = work.tolist()
        self.loads = (list(map(tuple, rho.tolist())), list(map(tuple, coefficient.tolist())))  # per task and resource
        self.resources = rho.shape[1]

    def _units(self) -> dict[str, str]:
        """The contention unit (host, or the executor itself) of every executor."""
        if self.options.unit == "executor":
            keys = set(self.tasks["executor_key"]) | {k for execs in self.slots.values() for _, k, _, _ in execs}
            return {k: k for k in keys}
        hosts = dict(zip(self.tasks["executor_key"], self.tasks["host"].fillna("unknown-host").astype(str)))
        executors = self.trace.executors.dropna(subset=["host"])
        hosts |= dict(zip(executors["app_key"].astype(str) + "/executor-" + executors["executor"].astype(str),
                          executors["host"].astype(str)))
        return {k: hosts.get(k, "unknown-host") for execs in self.slots.values() for _, k, _, _ in execs} | hosts

    def _contention(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per task: its work (the observed duration less the blocked seconds that others' use of
        CPU, network and disk explains: what it would take alone) and, per resource, its load (rate
        over the unit's capacity) and its contention coefficient (blocked seconds per second of the
        others' load, :func:`blame.contention_on_tasks`). Slot waits are not in a task's duration:
        the replay's scheduler re-creates them."""
        _, parts = protograph.run_contention(self.trace, self.options)
        n = len(self.tasks)
        blocked, load = np.zeros((len(parts), n)), np.zeros((len(parts), n))
        rho = np.zeros((len(parts), n))
        for r, (consumers, victims) in enumerate(parts):
            by_unit = capacity(consumers)
            blocked[r], load[r] = contention_on_tasks(consumers, victims, by_unit)
            rho[r] = capacity_share(consumers, by_unit)
        # Work advanced uniformly over the observed run, so the others' load integrated over the
        # task's work (not over wall time) is mean load x work; the coefficient is the blocked
        # seconds per unit of it, which makes the replay as observed give the observed durations.
        # Blocked time beyond what a capped coefficient explains stays in the work, as Unknown does.
        duration = np.where(self.observed > 0, self.observed, 1.0)
        mean_load = load / duration
        work = np.clip(self.observed - blocked.sum(axis=0), 0.0, None)
        coefficient = np.zeros((len(parts), n))  # a log that measures no resource: no contention to replay
        for _ in range(len(parts)):  # capping one resource's coefficient adds to the work all use
            per_work = mean_load * work
            coefficient = np.minimum(np.where(per_work > 0, blocked / np.where(per_work > 0, per_work, 1), 0.0),
                                     MAX_COEFFICIENT)
            work = self.observed / (1.0 + (coefficient * mean_load).sum(axis=0))
        return work, np.clip(rho, 0.0, None).T.copy(), coefficient.T.copy()

    def _layout(self) -> dict[str, dict]:
        """Per stage, what every replay starts from: its query, application, order, pool, submission,
        tasks (indexes and executors in launch order) and the tail after its last task."""
        layout = {}
        groups = self.tasks.groupby("stage_key", sort=False)
        launch, finish = self.tasks["launch"].to_numpy(float), self.tasks["finish"].to_numpy(float)
        executors = self.tasks["executor_key"].to_numpy(object)
        earlier = failed_attempt(self.tasks)
        # A stage runs on the executors of its resource profile (units.task_owners): those are its "application".
        owner = units.task_owners(self.trace, self.tasks).groupby(self.tasks["stage_key"]).first().to_dict()
        for key, row in self.stages.to_dict("index").items():
            q = row["query_key"]
            index = groups.indices[key]
            index = index[np.argsort(launch[index], kind="stable")]
            start = self.query_start.get(q, np.nan)
            layout[key] = {
                "query": q, "app": owner[key], "submit": row["submit"],
                "order": _priority(row, start),
                "pool": self.queries.at[q, "pool"] if q in self.queries.index else "default",
                "index": index, "executors": executors[index], "after": earlier[index],
                "tail": max(0.0, row["complete"] - finish[index].max()) if row["complete"] == row["complete"] else 0.0}
        return layout

    def _pool_weights(self) -> dict[tuple[str, str], float]:
        """Per (application, pool) of a FAIR application, the pool's weight as the observed schedule
        shows it (docs/model.md, "What-if", pool weights). Weights live in the allocation file, not
        in event logs. Spark's ``FairSchedulingAlgorithm`` gives a freed slot to the waiting pool
        with the fewest running tasks for its weight, so every launch that chose pool ``P`` while
        pool ``Q`` also had tasks waiting says ``r_P / w_P <= r_Q / w_Q`` (running tasks just
        before). Per pair of pools those launches bound ``log(w_P / w_Q)`` from both sides; its
        value is the point of that interval nearest 0 (equal weights unless the log contradicts
        them; the middle where the bounds cross), and the pools' weights fit those pairwise values
        by least squares. A pool with no such launch keeps weight 1."""
        weights: dict[tuple[str, str], float] = {}
        pool_of = self.stages["query_key"].map(self.queries["pool"]).fillna("default").to_dict()
        for app, tasks in self.tasks.groupby("app_key"):
            pool = tasks["stage_key"].map(pool_of).to_numpy(object)
            names = sorted(set(pool))
            if not self.fair.get(app) or len(names) < 2:
                continue
            launch, finish = tasks["launch"].to_numpy(float), tasks["finish"].to_numpy(float)
            # A retry could not run before its failed attempt ended: it waited from then (waits.ready_for_a_slot).
            submit = np.minimum(ready_for_a_slot(tasks, tasks["stage_key"].map(self.stages["submit"]).to_numpy(float)),
                                launch)
            running = np.empty((len(names), len(launch)))
            waiting = np.empty((len(names), len(launch)), bool)
            for k, name in enumerate(names):
                mine = pool == name
                ends = np.sort(finish[mine])
                starts = np.sort(launch[mine])
                running[k] = np.searchsorted(starts, launch, "left") - np.searchsorted(ends, launch, "right")
                waiting[k] = np.searchsorted(np.sort(submit[mine]), launch, "right") > np.searchsorted(starts, launch, "left")
            chosen = np.searchsorted(names, pool)
            low = np.full((len(names), len(names)), -np.inf)  # low[p, q] <= log(w_p / w_q)
            with np.errstate(divide="ignore"):
                log_running = np.log(running)
            for p, q in itertools.permutations(range(len(names)), 2):
                told = (chosen == p) & waiting[q] & (running[p] > 0) & (running[q] > 0)
                if told.any():
                    low[p, q] = float((log_running[p, told] - log_running[q, told]).max())
            logs = _fit_log_weights(low)
            if logs is None:
                continue
            weights.update({(app, name): float(np.exp(x)) for name, x in zip(names, logs)})
        return weights

    def _executor_slots(self) -> dict[str, list[tuple[float, str, int, float]]]:
        """Per application and resource profile (:func:`units.slot_owner`, as a stage's ``app``):
        (time added, executor key, slots, time removed), from ExecutorAdded and ExecutorRemoved, else
        from the tasks (never removed)."""
        out: dict[str, dict[str, tuple[float, int, float]]] = {}
        executors = units.executor_spans(self.trace)
        slots = units.executor_slots(self.trace, executors).tolist()
        for owner, row, n in zip(units.executor_owner(executors), executors.itertuples(), slots):
            key = f"{row.app_key}/executor-{row.executor}"
            out.setdefault(owner, {})[key] = (row.added, max(1, int(n)), row.removed if row.removed == row.removed else np.inf)
        # Dynamic allocation asks for executors again when tasks wait, which the replay does not model:
        # each application (and profile) keeps the executor removed last, so that a stage a change
        # makes ready after every removal still runs.
        for execs in out.values():
            if execs and all(gone < np.inf for _, _, gone in execs.values()):
                last = max(execs, key=lambda k: execs[k][2])
                execs[last] = (*execs[last][:2], np.inf)
        stage_owner = {key: lay["app"] for key, lay in self.layout.items()}
        ran = self.tasks[units.ran_on_executor(self.tasks)]  # a live task waiting before any executor came: none
        for (app, executor), group in ran.groupby([ran["stage_key"].map(stage_owner), "executor_key"]):
            if executor not in out.get(app, {}):  # a log without its ExecutorAdded: the most it ran at once
                times = np.concatenate([group["launch"], group["finish"]])
                steps = np.concatenate([np.ones(len(group)), -np.ones(len(group))])
                busy = np.cumsum(steps[np.lexsort((steps, times))]).max()
                out.setdefault(app, {})[executor] = (group["launch"].min(), max(1, int(busy)), np.inf)
        return {app: sorted((t, k, s, gone) for k, (t, s, gone) in execs.items()) for app, execs in out.items()}

    def _predecessors(self) -> tuple[dict[str, str | None], dict[str, float]]:
        """The stage each stage waited for (as ``protograph.critical_path`` steps back) and the gap after it."""
        pred: dict[str, str | None] = {}
        gap: dict[str, float] = {}
        by_query: dict[str, list[dict]] = {}
        for row in self.stages.reset_index().to_dict("records"):
            by_query.setdefault(row["query_key"], []).append(row)
        for rows in by_query.values():
            done = sorted((r for r in rows if r["complete"] == r["complete"]), key=lambda r: r["complete"])
            by_id = {r["stage_id"]: r for r in done}
            for row in rows:
                before = [by_id[p] for p in row["parents"] if p in by_id and by_id[p]["complete"] <= row["submit"] + 1e-9]
                if not before:
                    before = [r for r in done if r["complete"] <= row["submit"] + 1e-9 and r["stage_key"] != row["stage_key"]]
                chosen = max(before, key=lambda r: r["complete"]) if before else None
                pred[row["stage_key"]] = chosen["stage_key"] if chosen is not None else None
                gap[row["stage_key"]] = max(0.0, row["submit"] - chosen["complete"]) if chosen is not None else 0.0
        return pred, gap

    def run(self, change: Change = Change(), until: str | None = None) -> dict[str, float]:
        """Finish time of every query under ``change`` (queries removed are absent), only until
        query ``until`` finished when given. Every application is replayed: they share no slots
        but they share the hosts' CPU, network and disks."""
        return self.simulation(change, until).finish()

    def simulation(self, change: Change = Change(), until: str | None = None) -> Simulation:
        """A replay under ``change`` at its start, to run (:meth:`Simulation.finish`), or to pause
        and copy (:meth:`Simulation.pause`, :meth:`Simulation.changed`)."""
        delay = dict(change.delay)
        pools = dict(change.pool)
        stages: dict[str, ReplayStage] = {}
        for key, lay in self.layout.items():
            q = lay["query"]
            if q in change.remove:
                continue
            pred = self.pred.get(key)
            st = ReplayStage(key=key, query=q, app=lay["app"], order=lay["order"], pool=pools.get(q, lay["pool"]),
                        ready=lay["submit"] + delay.get(q, 0.0), gap=self.gap.get(key, 0.0), tail=lay["tail"],
                        pred=pred if pred in self.layout else None)
            # A retry runs once its failed attempt has ended in the replay (waits.failed_attempt).
            rows = set(lay["index"].tolist())
            for i, home, after in zip(lay["index"].tolist()[::-1], lay["executors"].tolist()[::-1], lay["after"].tolist()[::-1]):
                if after in rows:
                    st.held.setdefault(after, []).append((i, home))
                else:
                    st.tasks.append((i, home))
            st.pending = len(lay["index"])
            stages[key] = st
        return Simulation(self, stages, *self._loads(change), until)

    def _loads(self, change: Change) -> tuple[list[tuple], list[tuple]]:
        """Each task's load and contention coefficient per resource under ``change``: a query on
        hosts of its own loads nobody here and nobody slows it."""
        if not change.elsewhere:
            return self.loads
        rho, coefficient = list(self.loads[0]), list(self.loads[1])
        zero = (0.0,) * self.resources
        for i in np.flatnonzero(np.isin(self.task_query, list(change.elsewhere))).tolist():
            rho[i], coefficient[i] = zero, zero
        return rho, coefficient

    def effect_time(self, change: Change) -> float:
        """Before this time a replay under ``change`` is the replay as observed: the changed
        queries' first stage is submitted then (removed, delayed, moved and elsewhere alike)."""
        queries = set(change.remove) | {q for q, _ in change.delay} | {q for q, _ in change.pool} | set(change.elsewhere)
        return min((lay["submit"] for lay in self.layout.values() if lay["query"] in queries), default=np.inf)

    def bounds(self, query: str) -> tuple[float, float]:
        """When a query started and ended: its SQL execution's times, else its stages' (submission
        of the first, completion of the last)."""
        q = self.queries.loc[query]
        stages = self.stages[self.stages["query_key"] == query]
        return (q["start"] if q["start"] == q["start"] else stages["submit"].min(),
                q["end"] if q["end"] == q["end"] else stages["complete"].max())


def _fit_log_weights(low: np.ndarray) -> np.ndarray | None:
    """Log weights of pools from pairwise bounds ``low[p, q] <= log(w_p / w_q)`` (``-inf``: none):
    per pair, the point of ``[low[p, q], -low[q, p]]`` nearest 0 (the middle where the bounds
    cross), then a least-squares fit of all pairs; None when no pair is bounded."""
    rows, values = [], []
    for p, q in itertools.combinations(range(len(low)), 2):
        lo, hi = low[p, q], -low[q, p]
        if np.isfinite(lo) or np.isfinite(hi):
            row = np.zeros(len(low))
            row[p], row[q] = 1.0, -1.0
            rows.append(row)
            values.append(float(np.clip(0.0, lo, hi)) if lo <= hi else (lo + hi) / 2)
    return np.linalg.lstsq(np.array(rows), np.array(values), rcond=None)[0] if rows else None


def _priority(stage: dict, query_start: float) -> tuple:
    """A stage's place in its application's queue (FIFO, and FIFO inside a FAIR pool): Spark's
    ``FIFOSchedulingAlgorithm`` serves task sets by priority, the stage's first job id, then by
    stage id. With adaptive execution each query stage is a job of its own, submitted when it is
    ready, so a query's later stage queues behind stages of other queries submitted before it;
    without it a query's stages share its one job. A stage that no job of the log names (a log cut
    short) goes last, by its query's start."""
    job = stage.get("job", np.nan)
    known = job is not None and job == job
    return (0 if known else 1, job if known else query_start if query_start == query_start else stage["submit"],
            stage["stage_id"], stage["attempt"])


@dataclass
class WhatIf:
    """A prediction for one victim under one change."""

    victim: str
    change: str
    runtime_s: float
    predicted_runtime_s: float
    predicted_speedup_s: float

    def as_dict(self) -> dict:
        return {"victim": self.victim, "change": self.change, "runtime_s": self.runtime_s,
                "predicted_runtime_s": self.predicted_runtime_s, "predicted_speedup_s": self.predicted_speedup_s}


def predict(model: Replay, victim: str, change: Change) -> WhatIf:
    """Predicted runtime of query ``victim`` under ``change``: its observed runtime less the
    difference between the replay as observed and the replay changed."""
    return predict_many(model, victim, [change])[0]


def predict_many(model: Replay, victim: str, changes: list[Change]) -> list[WhatIf]:
    """:func:`predict` for each change, replaying the trace as observed once: each changed replay
    starts from a copy of it paused before the change's first effect (:meth:`Replay.effect_time`).
    A change that delays the victim itself is measured from its delayed submission."""
    q = model.queries.loc[victim]
    start, end = model.bounds(victim)
    runtime = float(end - start)
    names = model.queries["name"].to_dict()
    observed = model.simulation(until=victim)
    changed: dict[int, float] = {}
    for k in sorted(range(len(changes)), key=lambda k: model.effect_time(changes[k])):
        observed.pause(model.effect_time(changes[k]))
        changed[k] = observed.changed(changes[k]).finish()[victim]
    base = observed.finish()[victim]
    out = []
    for k, change in enumerate(changes):
        # A victim submitted later runs from then: its runtime is its end less its own delay.
        speedup = float(base - (changed[k] - dict(change.delay).get(victim, 0.0)))
        out.append(WhatIf(victim=str(q["name"]), change=change.describe(names), runtime_s=runtime,
                          predicted_runtime_s=runtime - speedup, predicted_speedup_s=speedup))
    return out


def candidates(model: Replay, victim: str) -> list[str]:
    """Queries whose lifetime overlapped the victim's: the ones whose removal can change it."""
    life = model.stages.groupby("query_key").agg(start=("submit", "min"), end=("complete", "max"))
    v = life.loc[victim]
    overlap = (life["start"] < v["end"]) & (life["end"] > v["start"])
    return [q for q in life.index[overlap] if q != victim]


def rank_by_removal(model: Replay, victim: str) -> pd.Series:
    """Predicted speedup of ``victim`` (seconds) without each overlapping query, largest first."""
    others = candidates(model, victim)
    predicted = predict_many(model, victim, [Change(remove=frozenset([q])) for q in others])
    return pd.Series({q: w.predicted_speedup_s for q, w in zip(others, predicted)}, dtype=float).sort_values(ascending=False)


def remedies(model: Replay, victim: str, culprits: list[str], top: int = 3) -> list[dict]:
    """The changes with the largest predicted gain for ``victim`` among, for each culprit query:
    delaying it until the victim ends, moving it to a pool of its own (FAIR applications), and
    running it on hosts of its own (paper 000 Sec. 4.2's motivation: act on the culprit, not the victim)."""
    q = model.queries
    v_end = model.bounds(victim)[1]
    options = []
    for c in culprits:
        c_start = model.bounds(c)[0]
        if v_end > c_start:
            options.append((c, "delay", Change(delay=((c, float(v_end - c_start)),))))
        if model.fair.get(q.at[c, "app_key"]):
            options.append((c, "pool", Change(pool=((c, f"isolated-{q.at[c, 'name']}"),))))
        options.append((c, "hosts of its own", Change(elsewhere=frozenset([c]))))
    out = []
    for (culprit, kind, _), w in zip(options, predict_many(model, victim, [change for _, _, change in options])):
        if w.predicted_speedup_s > 0:
            out.append(dict(w.as_dict(), kind=kind, culprit=str(q.at[culprit, "name"]),
                            description=str(q.at[culprit, "description"])))
    return sorted(out, key=lambda r: -r["predicted_speedup_s"])[:top]


def counterfactual(trace: Trace, victim_query: str, options: protograph.Options | None = None) -> pd.Series:
    """The counterfactual method's culprit ranking: predicted speedup (s) without each query."""
    return rank_by_removal(Replay(trace, options), victim_query)

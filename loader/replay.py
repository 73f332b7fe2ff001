"""What-if by counterfactual replay: how the observed schedule would have run after a change.

The replay is a small discrete-event model of Spark's task scheduler run over the trace:
- each application's executors offer ``cores // spark.task.cpus`` slots from the time they were added;
- a stage becomes ready when the stage it waited for in the log completes, plus the gap the log
  shows between the two (the driver's own time); a stage that waited for nothing keeps its
  submission time (a query's first job is submitted by the driver, not by the cluster);
- free slots go to ready stages as Spark's FIFO (query, then stage order) or FAIR scheduler
  (the pool with the fewest running tasks per weight, FIFO inside a pool) would give them; a task
  goes back to the executor it ran on when that one has a free slot, else to the freest one;
- each task runs for its observed duration, less the seconds of it that the blame model puts on
  the queries the change takes away (``protograph.task_blame``).

A prediction is the difference of two replays, the trace as it was and the trace changed, so the
model's own error on the unchanged trace cancels out (docs/model.md, "What-if").
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import protograph
from .trace import Trace


@dataclass(frozen=True)
class Change:
    """A change to the workload: queries removed, delayed (seconds), moved to another pool, or run
    on other hosts (so that they no longer contend with anyone, while holding their own slots)."""

    remove: frozenset[str] = frozenset()
    delay: tuple[tuple[str, float], ...] = ()
    pool: tuple[tuple[str, str], ...] = ()
    elsewhere: frozenset[str] = frozenset()

    def describe(self, names: dict[str, str]) -> str:
        parts = [f"without {names.get(q, q)}" for q in sorted(self.remove)]
        parts += [f"with {names.get(q, q)} delayed {d:.1f} s" for q, d in self.delay]
        parts += [f"with {names.get(q, q)} in pool {p!r}" for q, p in self.pool]
        parts += [f"with {names.get(q, q)} on other hosts" for q in sorted(self.elsewhere)]
        return ", ".join(parts) or "as observed"


@dataclass
class _Stage:
    key: str
    query: str
    app: str
    order: tuple
    pool: str
    ready: float
    gap: float
    tail: float
    pred: str | None
    tasks: list = field(default_factory=list)  # (duration, home executor), in launch order
    pending: int = 0
    running: int = 0
    done_at: float = -np.inf


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
        self._blame: dict[frozenset, pd.Series] = {}
        self._contention = None  # protograph.run_contention, computed at the first blame asked for
        apps = trace.apps.set_index("app_key")
        self.fair = {a: str(apps.get("scheduler_mode", pd.Series(dtype=object)).get(a, "FIFO")).upper() == "FAIR"
                     for a in apps.index}
        self.slots = self._executor_slots()
        self.pred, self.gap = self._predecessors()
        self.query_start = {q: (r["start"] if r["start"] == r["start"] else np.nan) for q, r in
                            self.queries[["start"]].to_dict("index").items()}
        self.observed = (self.tasks["finish"] - self.tasks["launch"]).to_numpy()
        self.layout = self._layout()

    def _layout(self) -> dict[str, dict]:
        """Per stage, what every replay starts from: its query, application, order, pool, submission,
        tasks (indexes and executors in launch order) and the tail after its last task."""
        layout = {}
        groups = self.tasks.groupby("stage_key", sort=False)
        launch, finish = self.tasks["launch"].to_numpy(float), self.tasks["finish"].to_numpy(float)
        executors = self.tasks["executor_key"].to_numpy(object)
        for key, row in self.stages.to_dict("index").items():
            q = row["query_key"]
            index = groups.indices[key]
            index = index[np.argsort(launch[index], kind="stable")]
            start = self.query_start.get(q, np.nan)
            layout[key] = {
                "query": q, "app": row["app_key"], "submit": row["submit"],
                "order": (start if start == start else row["submit"], row["stage_id"], row["attempt"]),
                "pool": self.queries.at[q, "pool"] if q in self.queries.index else "default",
                "index": index, "executors": executors[index],
                "tail": max(0.0, row["complete"] - finish[index].max()) if row["complete"] == row["complete"] else 0.0}
        return layout

    def _executor_slots(self) -> dict[str, list[tuple[float, str, int]]]:
        """Per application: (time added, executor key, slots), from ExecutorAdded and else the tasks."""
        cpus = protograph._task_cpus(self.trace)
        out: dict[str, dict[str, tuple[float, int]]] = {}
        for row in self.trace.executors.itertuples():
            key = f"{row.app_key}/executor-{row.executor}"
            slots = max(1, int(row.cores // max(1, cpus.get(row.app_key, 1))))
            added = row.added if row.added == row.added else -np.inf
            out.setdefault(row.app_key, {})[key] = (added, slots)
        for (app, executor), group in self.tasks.groupby(["app_key", "executor_key"]):
            if executor not in out.get(app, {}):  # a log without its ExecutorAdded: the most it ran at once
                times = np.concatenate([group["launch"], group["finish"]])
                steps = np.concatenate([np.ones(len(group)), -np.ones(len(group))])
                busy = np.cumsum(steps[np.lexsort((steps, times))]).max()
                out.setdefault(app, {})[executor] = (group["launch"].min(), max(1, int(busy)))
        return {app: sorted((t, k, s) for k, (t, s) in execs.items()) for app, execs in out.items()}

    def _predecessors(self) -> tuple[dict[str, str | None], dict[str, float]]:
        """The stage each stage waited for (as ``protograph.critical_path`` walks) and the gap after it."""
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

    def bounds(self, query: str) -> tuple[float, float]:
        """When a query started and ended: its SQL execution's times, else its stages' (submission
        of the first, completion of the last)."""
        q = self.queries.loc[query]
        stages = self.stages[self.stages["query_key"] == query]
        return (q["start"] if q["start"] == q["start"] else stages["submit"].min(),
                q["end"] if q["end"] == q["end"] else stages["complete"].max())

    def blame_of(self, queries: frozenset[str]) -> pd.Series:
        """Per task, the seconds of its run blamed on ``queries`` (cached: the trace does not change)."""
        if queries not in self._blame:
            if queries and self._contention is None:
                self._contention = protograph.run_contention(self.trace, self.options)
            self._blame[queries] = (protograph.task_blame(self.trace, set(queries), contention=self._contention)
                                    if queries else pd.Series(0.0, index=self.tasks.index))
        return self._blame[queries]

    def run(self, change: Change = Change(), app: str | None = None, until: str | None = None) -> dict[str, float]:
        """Finish time of every query under ``change`` (queries removed are absent); only of
        application ``app`` (applications share no slots: another one acts through the blame its
        tasks shed), and only until query ``until`` finished, when given. A task sheds
        the blame of a delayed query when it finished (as observed) before that query's new start:
        we cannot know what the delayed query will contend with later, so nothing else changes."""
        delay = dict(change.delay)
        shed = self.blame_of(frozenset(change.remove | change.elsewhere)).to_numpy(copy=True)
        if delay:
            delayed_blame = self.blame_of(frozenset(delay)).to_numpy()
            new_start = min(self.bounds(q)[0] + d for q, d in delay.items())
            shed += np.where(self.tasks["finish"].to_numpy() < new_start, delayed_blame, 0.0)
        durations = np.clip(self.observed - shed, 0.0, None)
        pools = dict(change.pool)
        stages: dict[str, _Stage] = {}
        for key, lay in self.layout.items():
            q = lay["query"]
            if q in change.remove or (app is not None and lay["app"] != app):
                continue
            pred = self.pred.get(key)
            st = _Stage(key=key, query=q, app=lay["app"], order=lay["order"], pool=pools.get(q, lay["pool"]),
                        ready=lay["submit"] + delay.get(q, 0.0), gap=self.gap.get(key, 0.0), tail=lay["tail"],
                        pred=pred if pred in self.layout else None)
            st.tasks = list(zip(durations[lay["index"]].tolist(), lay["executors"].tolist()))[::-1]
            st.pending = len(st.tasks)
            stages[key] = st
        finished = self._simulate(stages, until)
        ends: dict[str, float] = {}
        for key, st in stages.items():
            ends[st.query] = max(ends.get(st.query, -np.inf), finished.get(key, np.nan))
        return ends

    def _simulate(self, stages: dict[str, _Stage], until: str | None = None) -> dict[str, float]:
        """Discrete-event run of every application's scheduler; returns each stage's completion
        (stopping when every stage of query ``until`` completed, if given)."""
        waiting_for = sum(1 for st in stages.values() if st.query == until)
        events: list[tuple] = []  # (time, kind, seq, payload): kind 0 executor, 1 task end, 2 stage ready
        seq = 0
        followers: dict[str, list[str]] = {}
        for key, st in stages.items():
            if st.pred is not None and st.pred in stages:
                followers.setdefault(st.pred, []).append(key)
            else:
                events.append((st.ready, 2, seq, key))
                seq += 1
        free: dict[str, dict[str, int]] = {}
        apps = {st.app for st in stages.values()}
        for app, execs in self.slots.items():
            if app not in apps:
                continue
            for added, key, slots in execs:
                events.append((added, 0, seq, (app, key, slots)))
                seq += 1
        heapq.heapify(events)
        ready: dict[str, list[_Stage]] = {}
        running_by_pool: dict[tuple[str, str], int] = {}
        completed: dict[str, float] = {}

        def pick(app: str) -> _Stage | None:
            candidates = [s for s in ready.get(app, ()) if s.pending]
            if not candidates:
                return None
            if self.fair.get(app):
                pools = {s.pool for s in candidates}
                pool = min(pools, key=lambda p: (running_by_pool.get((app, p), 0), p))
                candidates = [s for s in candidates if s.pool == pool]
            return min(candidates, key=lambda s: s.order)

        def schedule(app: str, now: float) -> None:
            nonlocal seq
            slots = free.get(app, {})
            while any(slots.values()):
                st = pick(app)
                if st is None:
                    return
                duration, home = st.tasks.pop()
                executor = home if slots.get(home, 0) > 0 else max(slots, key=lambda k: (slots[k], k))
                slots[executor] -= 1
                st.pending -= 1
                st.running += 1
                running_by_pool[(app, st.pool)] = running_by_pool.get((app, st.pool), 0) + 1
                heapq.heappush(events, (now + duration, 1, seq, (st.key, executor)))
                seq += 1

        while events:
            now, kind, _, payload = heapq.heappop(events)
            if kind == 0:
                app, key, slots = payload
                free.setdefault(app, {})[key] = free.get(app, {}).get(key, 0) + slots
                schedule(app, now)
                continue
            if kind == 2:
                st = stages[payload]
                if st.pending == 0:  # nothing to run (every task filtered out): completes at once
                    seq = self._complete(st, now, stages, followers, completed, events, seq)
                    continue
                ready.setdefault(st.app, []).append(st)
                schedule(st.app, now)
                continue
            key, executor = payload
            st = stages[key]
            free[st.app][executor] += 1
            st.running -= 1
            running_by_pool[(st.app, st.pool)] -= 1
            if st.pending == 0 and st.running == 0:
                ready[st.app].remove(st)
                seq = self._complete(st, now, stages, followers, completed, events, seq)
                waiting_for -= st.query == until
                if until is not None and waiting_for == 0:
                    break
            schedule(st.app, now)
        return completed

    @staticmethod
    def _complete(st: _Stage, now: float, stages, followers, completed, events, seq) -> int:
        completed[st.key] = now + st.tail
        for follower in followers.get(st.key, ()):
            nxt = stages[follower]
            heapq.heappush(events, (completed[st.key] + nxt.gap, 2, seq, follower))
            seq += 1
        return seq


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


def baseline(model: Replay, victim: str) -> dict[str, float]:
    """The replay as observed, as far as ``victim`` needs (its application, until it finished)."""
    return model.run(app=model.queries.at[victim, "app_key"], until=victim)


def predict(model: Replay, victim: str, change: Change, base: dict[str, float] | None = None) -> WhatIf:
    """Predicted runtime of query ``victim`` under ``change``: its observed runtime less the
    difference between the replay as observed and the replay changed."""
    q = model.queries.loc[victim]
    base = base if base is not None else baseline(model, victim)
    changed = model.run(change, app=q["app_key"], until=victim)
    start, end = model.bounds(victim)
    speedup = float(base[victim] - changed[victim])
    runtime = float(end - start)
    names = model.queries["name"].to_dict()
    return WhatIf(victim=str(q["name"]), change=change.describe(names), runtime_s=runtime,
                  predicted_runtime_s=runtime - speedup, predicted_speedup_s=speedup)


def candidates(model: Replay, victim: str) -> list[str]:
    """Queries whose lifetime overlapped the victim's: the ones whose removal can change it."""
    life = model.stages.groupby("query_key").agg(start=("submit", "min"), end=("complete", "max"))
    v = life.loc[victim]
    overlap = (life["start"] < v["end"]) & (life["end"] > v["start"])
    return [q for q in life.index[overlap] if q != victim]


def rank_by_removal(model: Replay, victim: str) -> pd.Series:
    """Predicted speedup of ``victim`` (seconds) without each overlapping query, largest first."""
    base = baseline(model, victim)
    scores = {q: predict(model, victim, Change(remove=frozenset([q])), base).predicted_speedup_s
              for q in candidates(model, victim)}
    return pd.Series(scores, dtype=float).sort_values(ascending=False)


def remedies(model: Replay, victim: str, culprits: list[str], top: int = 3) -> list[dict]:
    """The changes with the largest predicted gain for ``victim`` among, for each culprit query:
    delaying it until the victim ends, moving it to a pool of its own (FAIR applications), and
    running it on other hosts (paper 000 Sec. 4.2's motivation: act on the culprit, not the victim)."""
    base = baseline(model, victim)
    q = model.queries
    v_end = model.bounds(victim)[1]
    options = []
    for c in culprits:
        c_start = model.bounds(c)[0]
        if v_end > c_start:
            options.append((c, "delay", Change(delay=((c, float(v_end - c_start)),))))
        if model.fair.get(q.at[c, "app_key"]):
            options.append((c, "pool", Change(pool=((c, f"isolated-{q.at[c, 'name']}"),))))
        options.append((c, "other hosts", Change(elsewhere=frozenset([c]))))
    out = []
    for culprit, kind, change in options:
        w = predict(model, victim, change, base)
        if w.predicted_speedup_s > 0:
            out.append(dict(w.as_dict(), kind=kind, culprit=str(q.at[culprit, "name"]),
                            description=str(q.at[culprit, "description"])))
    return sorted(out, key=lambda r: -r["predicted_speedup_s"])[:top]


def counterfactual(trace: Trace, victim_query: str, options: protograph.Options | None = None) -> pd.Series:
    """The counterfactual method's culprit ranking: predicted speedup (s) without each query."""
    return rank_by_removal(Replay(trace, options), victim_query)

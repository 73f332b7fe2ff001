"""One discrete-event run of Spark's schedulers over the trace's hosts (the what-if replay's engine,
``replay.Replay.simulation``): stages become ready, free slots go to them as FIFO or FAIR would give
them, and each running task advances through its work at a speed set by the others' load on its unit."""
from __future__ import annotations

import copy
import heapq
import operator
from dataclasses import dataclass, field

import numpy as np

from protoxplore.loader.model import units


@dataclass(frozen=True)
class Change:
    """A change to the workload: queries removed, delayed (seconds), moved to another pool, or run
    on hosts of their own (so that they no longer contend with anyone, while holding their own slots)."""

    remove: frozenset[str] = frozenset()
    delay: tuple[tuple[str, float], ...] = ()
    pool: tuple[tuple[str, str], ...] = ()
    elsewhere: frozenset[str] = frozenset()

    def describe(self, names: dict[str, str]) -> str:
        parts = [f"without {names.get(q, q)}" for q in sorted(self.remove)]
        parts += [f"with {names.get(q, q)} delayed {d:.1f} s" for q, d in self.delay]
        parts += [f"with {names.get(q, q)} in pool {p!r}" for q, p in self.pool]
        parts += [f"with {names.get(q, q)} on hosts of its own" for q in sorted(self.elsewhere)]
        return ", ".join(parts) or "as observed"


@dataclass
class ReplayStage:
    key: str
    query: str
    app: str
    order: tuple
    pool: str
    ready: float
    gap: float
    tail: float
    pred: str | None
    tasks: list = field(default_factory=list)  # (task index, home executor) that can run, last launched first
    held: dict = field(default_factory=dict)  # a failed attempt's task index -> its retries, runnable once it ends
    pending: int = 0
    running: int = 0


@dataclass
class ReplayUnit:
    """A host (or executor) in a replay: its running tasks, the work each has left and the speed
    at which each advances (set by the others' load, recomputed whenever the tasks change)."""

    since: float
    tasks: list = field(default_factory=list)  # (task index, stage key, executor), in start order
    index: list = field(default_factory=list)  # their task indexes
    # Plain lists: a unit runs a handful of tasks at once, where NumPy's per-call cost is most of
    # the time (the replay's arithmetic is the same, in the same order).
    left: list = field(default_factory=list)
    speed: list = field(default_factory=list)
    version: int = 0


class Simulation:
    """One discrete-event run of every application's scheduler over shared units.

    A running task advances through its work at ``1 / (1 + sum over resources of coefficient x
    the others' load on its unit)`` seconds of work per second: the rate changes whenever a task
    starts or ends on the unit, and the unit's next completion is recomputed then. A run can pause
    before a time and be copied there: a change whose queries start later gives the same replay up
    to then (:meth:`Replay.effect_time`), so a prediction replays only what comes after. ``model`` is the
    ``replay.Replay`` it runs (read only)."""

    def __init__(self, model, stages: dict[str, ReplayStage], rho: list[tuple], coefficient: list[tuple],
                 until: str | None):
        self.model, self.stages, self.rho, self.coefficient, self.until = model, stages, rho, coefficient, until
        self.waiting_for = sum(1 for st in stages.values() if st.query == until)
        self.events: list[tuple] = []  # (time, kind, seq, payload): kind 0 executor, 1 unit's next end, 2 stage ready
        self.seq = 0
        self.followers: dict[str, list[str]] = {}
        for key, st in stages.items():
            if st.pred is not None and st.pred in stages:
                self.followers.setdefault(st.pred, []).append(key)
            else:
                self._push(st.ready, 2, key)
        apps = {st.app for st in stages.values()}
        for app, execs in model.slots.items():
            if app in apps:
                for added, key, slots, removed in execs:
                    self._push(added, 0, (app, key, slots))
                    if removed < np.inf:
                        self._push(removed, 0, (app, key, -slots))
        heapq.heapify(self.events)
        self.free: dict[str, dict[str, int]] = {}
        self.ready: dict[str, list[ReplayStage]] = {}
        self.running_by_pool: dict[tuple[str, str], int] = {}  # per (application, pool), as Spark's pools count
        self.completed: dict[str, float] = {}
        self.units: dict[str, ReplayUnit] = {}
        self.touched: set[str] = set()
        self.began: dict[int, float] = {}  # the replay's schedule: each task's start and end, by position
        self.ended: dict[int, float] = {}

    def _push(self, time: float, kind: int, payload) -> None:
        heapq.heappush(self.events, (time, kind, self.seq, payload))
        self.seq += 1

    def finish(self) -> dict[str, float]:
        """Run to the end (or until query ``until`` finished); each query's finish time, ``inf`` for
        one with a stage that did not complete (its tasks found no slot, or the run stopped first)."""
        self.pause(np.inf)
        ends: dict[str, float] = {}
        for key, st in self.stages.items():
            ends[st.query] = max(ends.get(st.query, -np.inf), self.completed.get(key, np.inf))
        return ends

    def changed(self, change: Change) -> Simulation:
        """A copy of this paused run with ``change`` made, as if it had been there from the start
        (exact when the run paused before :meth:`Replay.effect_time` of the change)."""
        shared = {id(x): x for x in (self.model, self.rho, self.coefficient)}  # read only: not copied
        other = copy.deepcopy(self, memo=shared)
        other.rho, other.coefficient = self.model._loads(change)
        delay, pools = dict(change.delay), dict(change.pool)
        events = []
        for time, kind, seq, payload in other.events:
            if kind == 2 and other.stages[payload].query in change.remove:
                continue
            if kind == 2 and other.stages[payload].query in delay:
                time += delay[other.stages[payload].query]
            events.append((time, kind, seq, payload))
        heapq.heapify(events)
        other.events = events
        for key in [k for k, st in other.stages.items() if st.query in change.remove]:
            del other.stages[key]
        other.followers = {k: [f for f in fs if f in other.stages] for k, fs in other.followers.items() if k in other.stages}
        for st in other.stages.values():
            st.pool = pools.get(st.query, st.pool)
        return other

    def pause(self, stop: float) -> None:
        """Process every event before time ``stop`` (all of them with ``inf``), or until query
        ``until`` finished."""
        events, units = self.events, self.units
        while events and events[0][0] < stop:
            now, kind, _, payload = heapq.heappop(events)
            if kind == 0:
                app, key, slots = payload
                self.free.setdefault(app, {})[key] = self.free.get(app, {}).get(key, 0) + slots
                self._schedule(app, now)
            elif kind == 2:
                st = self.stages[payload]
                if st.pending == 0:  # nothing to run (every task filtered out): completes at once
                    self._complete(st, now)
                else:
                    self.ready.setdefault(st.app, []).append(st)
                    self._schedule(st.app, now)
            else:
                name, version = payload
                unit = units[name]
                if version != unit.version:
                    continue  # the unit's running tasks changed since this end was foreseen
                self._advance(name, now)
                # The task this end was foreseen for is done (rounding can leave it a few ulps
                # short), with any other that ends at the same instant.
                due = [left / speed for left, speed in zip(unit.left, unit.speed)]
                first = due.index(min(due))
                done = [d <= 1e-9 or j == first for j, d in enumerate(due)]
                apps_freed = set()
                for (i, key, executor), over in zip(list(unit.tasks), done):
                    if over:
                        self._finish(i, key, executor, now)
                        apps_freed.add(self.stages[key].app)
                unit.tasks = [t for t, over in zip(unit.tasks, done) if not over]
                unit.index = [i for i, _, _ in unit.tasks]
                unit.left = [left for left, over in zip(unit.left, done) if not over]
                self.touched.add(name)
                if self.until is not None and self.waiting_for == 0:
                    events.clear()
                    break
                for app in sorted(apps_freed):
                    self._schedule(app, now)
            for name in sorted(self.touched):  # the next end on every unit whose tasks changed (sorted: runs repeat exactly)
                self._foresee(name, now)
            self.touched.clear()

    def _advance(self, name: str, now: float) -> ReplayUnit:
        unit = self.units.get(name)
        if unit is None:
            unit = self.units[name] = ReplayUnit(since=now)
        elif now > unit.since:
            elapsed = now - unit.since
            unit.left = [left - elapsed * speed for left, speed in zip(unit.left, unit.speed)]
            unit.since = now
        return unit

    def _foresee(self, name: str, now: float) -> None:
        """New speeds of the unit's tasks, and an event at the first of their ends."""
        unit = self.units[name]
        unit.version += 1
        if not unit.tasks:
            unit.speed = []  # an idle unit: nothing advances until a task starts
            return
        loads = [self.rho[i] for i in unit.index]
        total = [sum(column) for column in zip(*loads)]
        # The others' load is the total less the task's own (never below 0: loads are >= 0 and
        # a rounded sum is at least each of its terms).
        unit.speed = [1.0 / (1.0 + sum(map(operator.mul, self.coefficient[i], map(operator.sub, total, load))))
                      for i, load in zip(unit.index, loads)]
        wait = min(left / speed for left, speed in zip(unit.left, unit.speed))
        self._push(now + max(0.0, wait), 1, (name, unit.version))

    def _pick(self, app: str) -> ReplayStage | None:
        candidates = [s for s in self.ready.get(app, ()) if s.tasks]
        if not candidates:
            return None
        if self.model.fair.get(units.owner_app(app)):
            pools = {s.pool for s in candidates}
            weights, running, named = self.model.weights, self.running_by_pool, units.owner_app(app)
            # Rounded: weights read from the schedule make exact ties, which Spark breaks by name.
            share = lambda p: round(running.get((named, p), 0) / max(weights.get((named, p), 1.0), 1e-3), 9)  # noqa: E731
            pool = min(pools, key=lambda p: (share(p), p))
            candidates = [s for s in candidates if s.pool == pool]
        return min(candidates, key=lambda s: s.order)

    def _schedule(self, app: str, now: float) -> None:
        slots = self.free.get(app, {})
        named = units.owner_app(app)  # a pool's running tasks are its application's, on every profile
        while any(n > 0 for n in slots.values()):
            st = self._pick(app)
            if st is None:
                return
            i, home = st.tasks.pop()
            self.began[i] = now
            executor = home if slots.get(home, 0) > 0 else max(slots, key=lambda k: (slots[k], k))
            slots[executor] -= 1
            st.pending -= 1
            st.running += 1
            self.running_by_pool[(named, st.pool)] = self.running_by_pool.get((named, st.pool), 0) + 1
            name = self.model.unit_of.get(executor, "unknown-host")
            unit = self._advance(name, now)
            unit.tasks.append((i, st.key, executor))
            unit.index.append(i)
            unit.left.append(self.model.work[i])
            self.touched.add(name)

    def _finish(self, i: int, key: str, executor: str, now: float) -> None:
        st = self.stages[key]
        self.ended[i] = now
        st.tasks.extend(st.held.pop(i, ()))  # its retries, next to run (Spark re-adds a failed task last, takes it first)
        self.free[st.app][executor] += 1
        st.running -= 1
        self.running_by_pool[(units.owner_app(st.app), st.pool)] -= 1
        if st.pending == 0 and st.running == 0:
            self.ready[st.app].remove(st)
            self._complete(st, now)
            self.waiting_for -= st.query == self.until

    def _complete(self, st: ReplayStage, now: float) -> None:
        self.completed[st.key] = now + st.tail
        for follower in self.followers.get(st.key, ()):
            self._push(self.completed[st.key] + self.stages[follower].gap, 2, follower)

"""Follow growing event logs (``protoxplore watch``): a live analysis of the running applications.

Each pass reads only the bytes every followed log gained since the last pass (plain files, and
zstd frames through a decoder kept between passes), folds the new events into the application's
reader, and, when something changed, publishes a new *generation* of the live analysis: its last
N minutes (paper 001 Sec. 6.2's "live" window, first: its cost is bounded) and the whole workload
so far (the "total" window), as two complete analyses, before the generation they replace is
deleted. Loads are all or nothing (``lifecycle``), so what a user can list is always whole; a watch
killed at any moment leaves at most an unfinished analysis that is never listed and, killed
between a window and its total, that window, both of which the next command removes
(docs/reliability.md, "Live analyses").

The live workload holds the applications still running and those finished ones that ran beside
one of them (a finished application can still be a culprit of a query that runs). A finished
application (its log renamed from ``.inprogress``) is also published as an ordinary analysis,
the one ``protoxplore load`` of its log gives; one that overlaps no running application leaves
the live workload. Applications that leave it together (they ran side by side) are published
together too, as ``load`` of their logs would (the culprits of one stay culprits of the others'
queries), and when none runs the live analysis is deleted, its last workload's analysis marked as
its end (``ended_live``: the web app sends the live pages there).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Callable

import numpy as np

from protoxplore import show
from protoxplore.errors import AnalysisBusy, EventLogError
from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs import trace as trace_mod
from protoxplore.loader.logs.apps import AppReader
from protoxplore.loader.logs.follow import FollowedLog, app_start, log_identity
from protoxplore.loader.model import protograph
from protoxplore.service import catalog, pipeline
from protoxplore.service.catalog import generation
from protoxplore.storage import lifecycle, locks, traces

Say = Callable[[str], None]

#: Share of a core that a watch's passes (its work and the engine's for it) may take on average
#: (issue 13.1), and how many seconds of that work may run ahead of the average.
CORE_SHARE = 0.5
BURST_S = 10.0
#: Publishing passes in a row that must rest for the budget before the watch says it cannot follow
#: the logs' pace (one alone is the first build of a large log, or a forced total).
BEHIND_AFTER = 3

#: Longest time a watch leaves its generations unsaved (seconds). A save dumps the whole store: for
#: the paper-scale workload 0.2 s of the engine's CPU, and 0.1 s more per such analysis in the home
#: (docs/benchmarks.md), most of a window pass's engine work if every pass saved. A server killed
#: before the next save restarts with the generation saved last, whole, with its saved trace.
SAVE_EVERY = 30.0


def live_key(paths: list[str], options: protograph.Options) -> str:
    """The id prefix of the live analysis of these paths and options: generations are ``KEY-N``."""
    text = json.dumps([sorted(str(Path(p).resolve()) for p in paths), asdict(options)], sort_keys=True)
    return "w" + hashlib.sha256(text.encode()).hexdigest()[:11]


class Watch:
    """The state of ``protoxplore watch``: the logs followed, the live analysis' generations."""

    def __init__(self, store, request: pipeline.LoadRequest, home: Path, last_minutes: float = 5.0, every: float = 2.0,
                 progress: pipeline.Progress = pipeline.Progress(), save_every: float = SAVE_EVERY):
        self.store, self.request, self.home = store, request, Path(home)
        self.paths, self.options, self.strict = list(request.paths), request.options, request.strict
        self.last_minutes, self.every = last_minutes, every
        self.say, self.warn = progress.say, progress.warn
        self.key = live_key(self.paths, self.options)
        self.name = request.name or "live: " + show.short(", ".join(Path(p).name for p in self.paths), 200)
        self.followed: dict[str, FollowedLog] = {}
        self.done: dict[str, str | None] = {}  # logs published as ordinary analyses: their analysis
        self.ended: str | None = None  # the analysis of the applications that last left the live workload
        self.unfollowed: set[str] = set()  # running logs that cannot be followed: loaded when they end
        self.app_keys: set[str] = set()
        self.warnings: list[str] = []
        self.generation = self._next_generation()
        self.current: list[str] = []  # ids of what is published (the total, then its newest window)
        self.total_behind = False  # the newest window is newer than the total beside it
        # Neo4j keeps each transaction: saved traces go at once, as without a save to wait for.
        self.save_every = save_every if store.engine == "falkordb" else 0.0
        self.unsaved = lifecycle.unsaved_notes(store, home, self.key)  # see :meth:`_unsaved`
        self.saved_at = time.monotonic()
        self.claimed, self.claimed_before = False, False
        self.said_behind = False  # whether the watch said it cannot follow the logs' pace (:meth:`_run`)

    @contextlib.contextmanager
    def claim(self):
        """Hold this live analysis's lock (in this home and store) while the watch runs or publishes:
        a second watch of the same paths and options would delete its generations, and a command's
        ``lifecycle.recover`` the saved trace of the one it writes. The first time, remove what one
        killed before left (:meth:`save`). :class:`AnalysisBusy` when another watch holds
        it. Held already by this watch: nothing more."""
        if self.claimed:
            yield self
            return
        lock = lifecycle.watch_lock(self.store, self.key)
        with locks.unless_written(self.home, lock) as free:
            if not free:
                raise AnalysisBusy(
                    f"process {locks.holder(self.home, lock)} holds the watch of {', '.join(self.paths)} with "
                    f"these options (live analysis {self.key}): another watch (stop it first), or a command "
                    "saving what one left (try again)")
            self.claimed = True
            try:
                if not self.claimed_before:
                    self.claimed_before = True
                    self.generation = max(self.generation, self._next_generation())
                    if self.unsaved.exists():
                        self.save()
                yield self
            finally:
                self.claimed = False

    def _next_generation(self) -> int:
        """The number after the last generation of this live analysis listed now."""
        return 1 + max((self._generation_of(r["id"])[1] for r in self._generations()), default=0)

    def _generation_of(self, analysis: str) -> tuple[str, int, bool] | None:
        """The generation of ``analysis`` when it is one of this live analysis's, else None."""
        found = generation(analysis)
        return found if found is not None and found[0] == self.key else None

    def _generations(self, listed: list[dict] | None = None) -> list[dict]:
        """The rows of this live analysis's generations among ``listed`` (default: the store's analyses)."""
        listed = catalog.analyses(self.store) if listed is None else listed
        return [r for r in listed if self._generation_of(r["id"]) is not None]

    def note(self, message: str) -> None:
        """A warning, said once (a pass meets the same notes in a directory again)."""
        if message not in self.warnings:
            self.warnings.append(message)
            self.warn(message)

    def poll(self) -> bool:
        """One pass: read what every log gained, publish finished applications; whether anything changed."""
        changed = False
        ended_unfollowed = []  # logs that ended while no watch followed them
        for source in self._discover():
            ident = log_identity(Path(source.name))
            if ident in self.done or ident in self.unfollowed and source.in_progress:
                continue
            followed = self.followed.get(ident)
            if followed is None and not source.in_progress:
                self._publish_finished(source, ident)
                ended_unfollowed.append(ident)
                continue
            try:
                if followed is None:
                    followed = self.followed[ident] = FollowedLog(
                        source, eventlog.Lines(self.strict, self.note, self.request.max_line), AppReader(source))
                    followed.reader.followed = True
                    self.say(f"following {source.name}")
                changed |= followed.poll(source, self.strict, self.note) > 0
            except EventLogError as exc:  # another codec, or damage: `load` reads it when it ends
                self.note(f"{exc}; it is loaded when its application ends")
                changed |= self.followed.pop(ident).reader.last_ms > 0  # it was in the live workload
                self.unfollowed.add(ident)
                continue
            if followed.finished:
                self._publish_finished(source, ident)
                changed = True
        changed |= self._drop_finished()
        return self._end_stopped(ended_unfollowed) or changed

    def _end_stopped(self, ended: list[str]) -> bool:
        """Whether generations left by a watch stopped before their applications ended (those of
        ``ended``, published now) are to end too: with nothing followed, their pages then go to the
        analysis of the last of them (``ended``), as when a watch sees its applications end."""
        if self.followed or not ended:
            return False
        sources = {log_identity(Path(s)) for row in self._generations() for s in row.get("sources") or []}
        mine = [ident for ident in ended if ident in sources and self.done.get(ident)]
        if mine:
            self.ended = self.done[mine[-1]]
        return bool(mine)

    def _discover(self) -> list[eventlog.LogSource]:
        """The logs under the paths now: a directory without logs yet is waited for, and a log given
        by its ``.inprogress`` name is found under its final name once its application ended."""
        found = []
        for path in self.paths:
            if not Path(path).exists() and Path(path.removesuffix(".inprogress")).exists():
                path = path.removesuffix(".inprogress")
            try:
                found += eventlog.discover([path], warn=self.note)
            except EventLogError:
                if not Path(path).is_dir():
                    raise
        return found

    def _publish_finished(self, source: eventlog.LogSource, ident: str) -> None:
        """A finished application's log as an ordinary analysis (the one ``protoxplore load`` gives)."""
        self.done[ident] = self._load([source.name], "has ended")

    def _load(self, paths: list[str], what: str) -> str | None:
        """``protoxplore load`` of ``paths``, quietly; the analysis id, or None when they cannot be read."""
        try:
            request = replace(self.request, paths=tuple(paths), name=None)
            analysis, _ = pipeline.load_paths(self.store, request, self.home, pipeline.Progress(_quiet, self.note))
        except EventLogError as exc:
            self.note(f"{exc}")
            return None
        self.say(f"{', '.join(paths)} {what}: published as analysis {analysis}")
        return analysis

    def _drop_finished(self) -> bool:
        """Finished applications leave the live workload once no running application overlaps them;
        those leaving together ran side by side, and are published together (``ended``)."""
        running = [f for f in self.followed.values() if not f.finished]
        first_running = min((app_start(f.reader) for f in running), default=np.inf)
        gone = [k for k, f in self.followed.items() if f.finished and f.reader.last_ms / 1e3 < first_running]
        if len(gone) > 1:
            self.ended = self._load([self.followed[k].source.name for k in gone], "ran together")
        elif gone:
            self.ended = self.done.get(gone[0])
        for k in gone:
            del self.followed[k]
        return bool(gone)

    def trace(self) -> trace_mod.Trace | None:
        """The live workload's trace as it stands (None when nothing is followed or nothing ran yet)."""
        readers = []
        for followed in self.followed.values():
            if followed.reader.app["app_id"] is None and not followed.reader.tasks and not followed.reader.started:
                continue  # nothing read yet
            if not followed.app_key:
                followed.app_key = trace_mod._app_key(dict(followed.reader.app, app_id=followed.reader.app["app_id"]
                                                           or followed.source.name), self.app_keys)
            readers.append((followed.app_key, followed.reader))
        if not readers:
            return None
        try:
            return trace_mod.assemble(readers, list(self.warnings), self.note)
        except EventLogError:
            return None  # no task has started yet

    def publish(self, total: bool = True) -> list[str]:
        """:meth:`_publish` holding this live analysis's lock (:meth:`claim`)."""
        with self.claim():
            return self._publish(total)

    def _publish(self, total: bool = True) -> list[str]:
        """Publish the live workload as a new generation, its last N minutes and then its total, and
        delete the generations before it; with nothing live, delete them. With ``total`` False (the
        watch's CPU budget has no room for a total now: :meth:`run`) and a total standing whose last
        event falls inside the new window, only the last N minutes are published, beside that total.
        Returns the new ids, the total first.

        The store is saved after all of that when ``save_every`` seconds have passed since the last
        save, or when nothing is live any more (:meth:`save_when_due`: a save dumps the whole store),
        and the saved traces of the generations deleted are removed after that save."""
        trace = self.trace()
        new: list[str] = []
        standing = self._standing_total()
        if trace is not None:
            number = self.generation
            fingerprint = hashlib.sha256(f"{self.key}-{number} {time.time()}".encode()).hexdigest()  # names its saved trace
            self._unsaved([fingerprint])
            traces.save_trace(trace, traces.trace_path(self.home, fingerprint))
            try:
                new, standing = self._publish_trace(trace, fingerprint, number, standing, total)
            except BaseException:  # Ctrl-C or a failure: what it began is removed, its saved trace too
                with contextlib.suppress(Exception):  # not in place of the error that stopped it
                    lifecycle.forget_trace(self.store, self.home, fingerprint)
                raise
            self.generation += 1
        elif self.ended:  # nothing runs: the live pages go to the analysis of its last workload
            if self.store.run("analysis_mark_live_ended", {"analysis": self.ended, "live": self.key}, write=True):
                self._unsaved([])  # marked now: saved below, at once, also with no generation deleted
            if self._generations():
                self.say(f"nothing runs any more: the live analysis ended; its last workload is analysis {self.ended}")
        self.total_behind = bool(new) and standing["id"] not in new
        self.current = [standing["id"]] + [i for i in new if i != standing["id"]] if new else []
        self._delete_older(self.current)
        self.save_when_due(at_once=not new)
        return new

    def save_when_due(self, at_once: bool = False) -> None:
        """:meth:`save` when something is unsaved and, unless ``at_once``, ``save_every`` seconds
        have passed since the last save."""
        if self.unsaved.exists() and (at_once or time.monotonic() - self.saved_at >= self.save_every):
            self.save()

    def save(self) -> None:
        """Save the store, then remove the saved traces that no analysis names any more among those of
        :meth:`_unsaved` (the generations deleted since the last save, and any a killed watch left)."""
        lifecycle.forget_unsaved(self.store, self.home, self.unsaved)
        self.saved_at = time.monotonic()

    def _unsaved(self, fingerprints: list[str]) -> None:
        """Note saved traces that the store as last saved may not match: one about to be saved for a
        new generation, or those of generations about to be deleted. Each stays on disk until a save
        has made the store on disk agree with the one in memory (:meth:`save`), so a server killed
        meanwhile restarts with the generations saved last and their traces; the file of notes
        (``<home>/live/<store>/<key>.unsaved``, one line each) lets the next command remove those a watch
        killed left (``lifecycle.recover``, once the watch's lock is free)."""
        self.unsaved.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(self.unsaved, "a") as out:
            out.write("".join(f"{f}\n" for f in fingerprints))

    def _publish_trace(self, trace: trace_mod.Trace, fingerprint: str, number: int, standing: dict | None,
                       total: bool) -> tuple[list[str], dict]:
        """Write generation ``number`` of ``trace`` (saved as ``fingerprint``): its window alone beside
        the total ``standing``, or a whole generation, as :meth:`publish` says. Returns the new ids,
        the total first, and the total standing now (a row with its ``id``)."""
        new: list[str] = []
        meta = {"live": self.key, "every": self.every, "last_minutes": self.last_minutes}
        sources = [f.source.name for f in self.followed.values()]
        span = trace.end - trace.start
        window = (span - self.last_minutes * 60, span) if span > self.last_minutes * 60 else None

        def write_window(parent: str) -> None:
            new.append(f"{self.key}-{number}w")
            self._write_window(trace, new[-1], fingerprint, sources, meta, window, parent)

        # A total is published even without room when the one standing ends before the new window
        # begins: the two together then always hold every event of the workload.
        if not total and standing and window and standing["trace_end"] >= trace.start + window[0]:
            write_window(standing["id"])
            return new, standing
        standing = {"id": f"{self.key}-{number}"}
        # The window first: its cost is bounded by --last minutes of events ("in a live scenario the
        # window of analysis is much smaller", paper 001 Sec. 6.4.1), so what is happening now is up
        # to date soonest; the total, which grows with the workload, follows. The total's lock is held
        # from the start: a window whose total is not listed while that lock is free was left by a
        # watch that died between the two, and the next command removes it.
        with locks.writing(self.home, standing["id"], self.say):
            if window:
                write_window(standing["id"])
            try:
                # No stragglers: Hound takes most of a generation's time (the ordinary analysis of a
                # finished application has them; `protoxplore stragglers` reads the saved trace).
                target = pipeline.Target(standing["id"], fingerprint, self.options, self.name, tuple(sources), extra=meta)
                pipeline.analyse(self.store, trace, target, _quiet, with_stragglers=False, save=False)
            except BaseException:  # Ctrl-C or a failure: no window stays listed without its total
                if new:
                    with locks.writing(self.home, new[0], self.say):
                        lifecycle.delete(self.store, new[0])
                raise
        return [standing["id"], *new], standing

    def _standing_total(self) -> dict | None:
        """The row of the total this watch published last, while it is listed."""
        return catalog.analysis_row(catalog.analyses(self.store), self.current[0]) if self.current else None

    def _write_window(self, trace: trace_mod.Trace, analysis: str, fingerprint: str, sources: list[str], meta: dict,
                      window: tuple[float, float], total: str) -> None:
        """Write the live window ``analysis`` of ``trace`` (its last N minutes), derived from ``total``."""
        options = protograph.Options(**{**asdict(self.options), "window": window})
        with locks.writing(self.home, analysis, self.say):
            target = pipeline.Target(analysis, fingerprint, options, f"{self.name} [last {self.last_minutes:g} min]",
                                     tuple(sources), parent=total, extra=meta)
            pipeline.analyse(self.store, trace, target, _quiet, save=False)

    def stop(self) -> list[str]:
        """Mark the generations listed (the last published; with one stopped while it replaced the
        one before, both) as no longer updated: the watch is stopping. They stay listed as they
        were, and their pages stop looking for new generations. Returns their ids."""
        listed = [r["id"] for r in self._generations()]
        if listed:
            self.store.run("analysis_mark_watch_stopped", {"analyses": listed, "time": time.time()}, write=True)
        if listed or self.unsaved.exists():
            self.save()
        return listed

    def _delete_older(self, keep: list[str]) -> None:
        """Delete every other generation of this live analysis, with the windows derived from one
        (``explain --window``, the web app's windows page): windows first, then totals. A window
        derived meanwhile holds its generation's lock until it is published
        (``pipeline.window_analysis``), so it is listed by the time its generation is deleted:
        the analyses are listed again until none of them is left. Their saved traces (a window
        published alone has one of its own) are removed by the next :meth:`save`."""
        gone = set(keep)  # and, once deleted, never again (an analysis a delete left listed)
        while True:
            listed = catalog.analyses(self.store)
            old = {r["id"]: r for r in self._generations(listed) if r["id"] not in gone}
            old.update({w["id"]: w for w in listed if catalog.is_window(w) and w["id"] not in gone
                        and w.get("parent") not in keep and self._generation_of(w.get("parent") or "") is not None})
            if not old:
                return
            self._unsaved(sorted({r["fingerprint"] for r in old.values()}))
            for row in sorted(old.values(), key=lambda r: not catalog.is_window(r)):
                with locks.writing(self.home, row["id"], self.say):
                    lifecycle.delete(self.store, row["id"], save=False)
            gone.update(old)

    def run(self) -> None:
        """Pass after pass until interrupted: as soon as a followed log changes (:func:`_changes`),
        else every ``every`` seconds, within the CPU budget of :class:`_Budget`. A pass that read
        something publishes the last N minutes at once, and the total too when the budget has room
        for a whole generation (as much work as publishing the last one took, at most
        :data:`BURST_S`); else the total waits, beside the newer window, for a pass with room: one
        that reads something, or one while the logs have been quiet for twice the time between their
        last two changes (a total started then is unlikely to hold up the next window). So a window
        waits behind a total the budget cannot pay for only when :meth:`publish` must publish the
        total to cover every event (once per ``last_minutes`` at most). A rest after every pass of as long as
        it took (before 2026-11-26) waited even when the passes before had been short, and on a busy
        machine, where a pass's wall time is mostly waiting, kept the CPU at a fifth of a core."""
        with self.claim():
            self._run()

    def _run(self) -> None:
        budget = _Budget(_cpu_clock(self.store))
        changed = _changes(self.paths)
        generation_cost = 0.0  # the work of the last whole generation (window and total)
        last_change, gap = time.monotonic(), 0.0  # when a pass last read something; the time before that
        resting = 0  # publishing passes in a row after which the budget made the watch rest
        while True:
            started = time.monotonic()
            if changed is not None:
                changed.clear()  # a flush during the pass wakes the next one at once
            room = budget.start() >= min(generation_cost, BURST_S)
            whole = None  # whether this pass publishes a whole generation; None: it publishes nothing
            if self.poll():
                last_change, gap, whole = started, started - last_change, room
            elif room and self.total_behind and started - last_change >= max(self.every, 2 * gap):
                whole = True
            if whole is not None:
                before = budget.worked()
                if ids := self.publish(total=whole):
                    self.say(self._published(ids, time.monotonic() - started))
                if ids and not self.total_behind:  # the publishing alone: not finished logs loaded by poll
                    generation_cost = budget.worked() - before
            self.save_when_due()  # also while the logs are quiet
            cost = budget.end()
            if whole is not None:  # publishing passes in a row that had to rest after (not the first's build)
                resting = resting + 1 if budget.rest() > 0 else 0
            if resting == BEHIND_AFTER and not self.said_behind:
                self.said_behind = True  # whoever watches a page that lags wants to know why, once
                self.warn(f"the logs grow faster than passes can follow within {CORE_SHARE:g} of a core (a "
                          f"pass costs about {cost:.1f} s of work): one comes about every {cost / CORE_SHARE:.1f} s "
                          f"and takes in what came meanwhile; a shorter --last makes each pass cheaper")
            if _rest(budget.rest(), changed, max(self.every, gap)):
                continue
            if (left := self.every - (time.monotonic() - started)) > 0:
                changed.wait(left) if changed is not None else time.sleep(left)

    def _published(self, ids: list[str], seconds: float) -> str:
        """The line a pass says: the generation it published (its total, then its window), or the
        window it published alone beside the total standing."""
        total, window = self.current[0], self.current[1:]
        also = f"; its last {self.last_minutes:g} minutes: {window[0]}" if window else ""
        if total in ids:
            return f"live analysis {total}: {self._summary(total)} (pass of {seconds:.1f} s{also})"
        return (f"live analysis {total}: its last {self.last_minutes:g} minutes {window[0]}: {self._summary(window[0])} "
                f"(pass of {seconds:.1f} s; the total waits for room in the CPU budget)")

    def _summary(self, analysis: str) -> str:
        row = next((r for r in catalog.analyses(self.store) if r["id"] == analysis), {})
        return (f"{row.get('queries')} queries ({row.get('running')} running), {row.get('tasks')} tasks, "
                f"last event at {time.strftime('%H:%M:%S', time.localtime(row.get('trace_end') or 0))}")


class _Budget:
    """The CPU budget of a watch (issue 13.1): it earns :data:`CORE_SHARE` seconds of work per second,
    at most :data:`BURST_S` seconds ahead, and spends what each pass cost on ``clock`` (CPU seconds
    of the watch and of the embedded engine's server: :func:`_cpu_clock`; None: a pass counts as
    long as it took). So short passes leave room for a longer one to start as soon as its piece of
    log comes, and the work stays at most that share of a core on average."""

    def __init__(self, clock: Callable[[], float] | None):
        self.clock = clock
        self.credit = 0.0  # seconds of work allowed now
        self.last = self.began = time.monotonic()
        self.work = clock() if clock else 0.0

    def _earn(self) -> None:
        now = time.monotonic()
        self.credit = min(BURST_S, self.credit + (now - self.last) * CORE_SHARE)
        self.last = now

    def start(self) -> float:
        """A pass begins: the work it may do without going over the budget (seconds)."""
        self._earn()
        self.began = self.last
        return self.credit

    def end(self) -> float:
        """The pass has ended: what it cost (seconds of work) is spent, and returned."""
        self._earn()
        worked = self.clock() if self.clock else self.work + self.last - self.began
        cost = max(0.0, worked - self.work)
        self.credit -= cost
        self.work = worked
        return cost

    def worked(self) -> float:
        """The work clock now (seconds): of CPU, or without a clock, of wall time."""
        return self.clock() if self.clock else time.monotonic()

    def rest(self) -> float:
        """How long to wait before the next pass so that the work so far stays within the budget."""
        return max(0.0, -self.credit / CORE_SHARE)


def _rest(seconds: float, changed: threading.Event | None, interval: float) -> bool:
    """Rest ``seconds`` for the CPU budget, then whether the next pass is due at once. A log written
    to during a rest shorter than ``interval`` (the time between its last two changes) waits for
    the next change instead, at most ``interval``: a pass begun at the rest's end would start late
    after that flush, and so would each pass after it, drifting against the flushes until every
    piece of log waits on average half a pass period before its pass begins (a median of 2.3-2.6 s
    at Spark's 2 s flushes for passes of 1.1-1.3 s; docs/model.md, "Live analyses"). Waiting lets
    the budget earn a whole flush interval at once: the passes after start as their pieces come."""
    pending = changed is not None and changed.is_set()  # written during the pass: taken in after the rest
    time.sleep(seconds)
    if 0 < seconds < interval and changed is not None and not pending and changed.is_set():
        changed.clear()
        changed.wait(interval)
        return True
    return False


def _changes(paths: list[str]) -> threading.Event | None:
    """An event set whenever a file is written, created, moved or deleted where ``paths`` are (a
    directory and what is under it; a file's directory), told by the kernel (inotify, through
    watchdog): a pass then starts as soon as Spark flushes its log, not at the next ``every``
    seconds, which stay the longest rest. None where that cannot be watched: passes poll."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    changed = threading.Event()

    class Handler(FileSystemEventHandler):
        # Not on_any_event: each pass opens and closes the logs, and would wake the next at once.
        def on_modified(self, event):
            changed.set()

        on_created = on_moved = on_deleted = on_closed = on_modified

    observer = Observer()
    observer.daemon = True
    try:
        for path in map(Path, paths):
            folder = path if path.is_dir() else path.parent
            if folder.is_dir():
                observer.schedule(Handler(), str(folder), recursive=path.is_dir())
        observer.start()
    except OSError:  # no inotify (or its limits reached): polling every ``every`` seconds still works
        return None
    return changed


def _cpu_clock(store) -> Callable[[], float] | None:
    """A clock of the work done for a watch: CPU seconds of this process and of the embedded
    engine's server (with its background saves), read from /proc. None with a Neo4j server, whose
    CPU is not this process's to read (or without /proc): a pass then counts as long as it took."""
    pid = store.server.pid() if store.engine == "falkordb" else None
    stat = Path(f"/proc/{pid}/stat")
    if pid is None or not stat.exists():
        return None

    def cpu_seconds() -> float:
        try:
            server = sum(int(x) for x in stat.read_text().rsplit(")", 1)[1].split()[11:15]) / os.sysconf("SC_CLK_TCK")
        except OSError:  # the server was restarted: its work from now on is not known
            server = 0.0
        return time.process_time() + server
    return cpu_seconds


def _quiet(_message: str) -> None:
    """Progress of each generation's write: a watch says one line per generation instead."""



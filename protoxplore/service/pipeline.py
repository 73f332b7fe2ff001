"""From event-log paths to a published analysis: discover, read, build, write.

An analysis id is a hash of the logs' bytes and the options, so loading the same trace twice
finds the analysis already there instead of writing a duplicate. Each load and window derivation
holds its id's writer lock (``locks.writing``) from the check to the publish, so two processes
asking for the same analysis write it once: the second waits, then finds it.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from protoxplore import budget, show
from protoxplore.errors import NotFound
from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs import trace as trace_mod
from protoxplore.loader.model import levels, protograph
from protoxplore.service import catalog
from protoxplore.settings import MAX_LINE_BYTES, Settings
from protoxplore.storage import lifecycle, locks, traces
from protoxplore.storage.store import open_store
from protoxplore.storage.traces import save_trace, trace_path
from protoxplore.storage.writer import write_analysis

Say = Callable[[str], None]

#: What a load analyses (``protograph.Options``), and the units of contention it can take (``--unit``).
Options, CONTENTION_UNITS = protograph.Options, protograph.CONTENTION_UNITS


@dataclass(frozen=True)
class Progress:
    """Where long work says how it goes: ``say`` for progress, ``warn`` for what is wrong with the
    input (a skipped line, units that look wrong)."""

    say: Say = print
    warn: Say = print


#: Progress that says nothing (a watch's inner loads, tests).
QUIET = Progress(lambda _message: None, lambda _message: None)


@dataclass(frozen=True)
class LoadRequest:
    """What a load (or a watch) reads, and how: the event-log files or directories, the analysis
    options, a name for the analysis, whether a malformed line fails the load (``strict``), the
    longest line read, and the straggler threshold of the Hound nodes stored with it (None: Hound's
    default)."""

    paths: tuple[str, ...]
    options: protograph.Options = field(default_factory=protograph.Options)
    name: str | None = None
    strict: bool = False
    max_line: int = MAX_LINE_BYTES
    straggler_threshold: float | None = None

    @classmethod
    def of(cls, paths, settings: Settings, **fields) -> LoadRequest:
        """A request for ``paths`` with the limits of ``settings`` (the longest line, the threshold)."""
        return cls(tuple(str(p) for p in paths), max_line=settings.max_line_bytes,
                   straggler_threshold=settings.straggler_threshold, **fields)


@dataclass(frozen=True)
class Target:
    """An analysis to write: its id, the logs it is of (their fingerprint and names), the options it
    is built with, its name, for a time window the full analysis it is part of (``parent``), and
    ``extra`` fields for its Analysis node (a live analysis's)."""

    id: str
    fingerprint: str
    options: protograph.Options
    name: str
    sources: tuple[str, ...] = ()
    parent: str | None = None
    extra: dict | None = None


def load(settings: Settings, request: LoadRequest, progress: Progress = Progress()) -> tuple[dict, bool]:
    """Load event logs into the configured store, under the load's memory budget (``budget``):
    the published analysis, and whether it was written now (False: these logs were loaded before)."""
    limit = budget.budget_mib(settings.load_memory_mib, [Path(p) for p in request.paths])
    with open_store(settings) as store:
        store.apply_schema()
        with budget.bounded(limit, ", ".join(request.paths)[:300]):
            analysis, new = load_paths(store, request, settings.home, progress)
        return catalog.resolve_analysis(store, analysis), new


def analysis_id(fingerprint: str, options: protograph.Options) -> str:
    """Deterministic id of an analysis: same logs and options, same id."""
    digest = hashlib.sha256((fingerprint + json.dumps(asdict(options), sort_keys=True)).encode()).hexdigest()
    return "a" + digest[:11]


def existing(store, analysis: str) -> dict | None:
    for row in store.run("analyses", {"status": "complete"}):
        if row["id"] == analysis:
            return row
    return None


def load_paths(store, request: LoadRequest, home: Path, progress: Progress = Progress()) -> tuple[str, bool]:
    """Load event logs as one workload into ``store``; return ``(analysis_id, newly_written)``."""
    say, warn = progress.say, progress.warn
    sources = eventlog.discover(list(request.paths), warn=warn)
    fingerprint = trace_mod.fingerprint(sources)
    analysis = analysis_id(fingerprint, request.options)
    with locks.writing(home, analysis, say):
        if existing(store, analysis):
            say(f"analysis {analysis} of these logs is already loaded")
            if not trace_path(home, fingerprint).exists():
                # Loaded from another home sharing the Neo4j server: what reads the trace (what-if,
                # windows, stragglers, PerfXplain's log of runs) needs it in this one too.
                say("saving its trace in this home too")
                save_trace(trace_mod.read_trace(sources, strict=request.strict, warn=warn, max_line=request.max_line),
                           trace_path(home, fingerprint))
            store.run("analysis_touch", {"analysis": analysis, "time": time.time()}, write=True)
            return analysis, False
        started = time.perf_counter()
        trace = trace_mod.read_trace(sources, strict=request.strict, warn=warn, progress=say, max_line=request.max_line)
        waiting = int(trace_mod.waiting_for_slot(trace.tasks).sum())
        say(f"read {len(trace.tasks) - waiting} tasks" + (f" (and {waiting} waiting for a slot)" if waiting else "")
            + f" of {len(trace.stages)} stages, {len(trace.queries)} queries, "
            f"{len(trace.apps)} application(s) in {time.perf_counter() - started:.1f} s")
        save_trace(trace, trace_path(home, fingerprint))
        label = request.name or show.short(", ".join(Path(s.name).name for s in sources), 200)
        target = Target(analysis, fingerprint, request.options, label, tuple(s.name for s in sources))
        try:
            return analyse(store, trace, target, say, straggler_threshold=request.straggler_threshold), True
        except BaseException:
            lifecycle.forget_trace(store, home, fingerprint)  # the writer removed what it began
            raise


def analyse(store, trace: trace_mod.Trace, target: Target, say: Say = print, graph: protograph.ProtoGraph | None = None,
            straggler_threshold: float | None = None, with_stragglers: bool = True, save: bool = True) -> str:
    """Build the ProtoGraph of ``trace`` (unless ``graph`` is that, already built) and write it as
    ``target``, with Hound's stragglers at ``straggler_threshold`` unless ``with_stragglers`` is false
    (a time window's are its parent's); the store is saved after it unless ``save`` is false."""
    analysis, options, parent = target.id, target.options, target.parent
    if graph is None:
        started = time.perf_counter()
        graph = protograph.build(trace, options)
        say(f"computed blame: {graph.node_count()} ProtoGraph nodes in {time.perf_counter() - started:.1f} s")
    # A window's stragglers are its parent's (the whole trace): not learned again for every window.
    # Hound is CPU in this process while the writes below mostly wait for the database: run at once.
    learn = parent is None and with_stragglers
    threshold = (straggler_threshold or Settings.straggler_threshold) if learn else None
    found = in_background(lambda: stragglers(trace, threshold, say)) if learn else None
    started = time.perf_counter()
    apps = trace.apps.assign(uid=lambda f: levels.app_uid(analysis, f["app_key"]))
    meta = {
        "name": target.name, "created": time.time(), "loaded": time.time(), "sources": list(target.sources),
        "fingerprint": target.fingerprint,
        "options": json.dumps(asdict(options)), "window": list(options.window) if options.window else None,
        "parent": parent, "unit": options.unit, "victim_stages": options.victim_stages,
        "straggler_threshold": threshold,
        "tasks": int(graph.stats["tasks"]), "stages": int(graph.stats["stages"]),
        "failed_tasks": int(trace.tasks["failed"].sum()),
        "killed_tasks": int(trace.tasks.get("killed", pd.Series(dtype=bool)).sum()),  # older saved traces: none
        "queries": int(graph.stats["queries"]), "running": int(graph.victim_queries["running"].sum()),
        "apps": int(graph.stats["apps"]), "nodes": graph.node_count(),
        "measured": graph.measured, "not_measured": graph.not_measured,
        "trace_start": trace.start, "trace_end": trace.end,
        "_apps": [{k: (None if v != v else v) for k, v in row.items()} for row in apps[
            ["uid", "app_key", "app_id", "name", "spark_version", "source", "complete"]].to_dict("records")],
    }
    meta = {k: v for k, v in {**meta, **(target.extra or {})}.items() if v is not None}
    write_analysis(store, graph, analysis, meta, progress=say, stragglers=found, save=save)
    say(f"wrote analysis {analysis} in {time.perf_counter() - started:.1f} s")
    return analysis


def stragglers(trace: trace_mod.Trace, threshold: float | None = None, say: Say = print) -> dict:
    """Hound's stragglers (at ``threshold`` x the stage median; None: its default) and causes of the
    whole trace, without the topics: the graph holds the stages' causes, and the topic models were
    most of the time (57 of 69 s at paper scale)."""
    from protoxplore.loader.stragglers import hound  # scikit-learn: imported by loads only
    started = time.perf_counter()
    result = hound.analyse(trace, threshold=threshold or Settings.straggler_threshold, learn_topics=False)
    say(f"found stragglers in {len(result['stages'])} stages in {time.perf_counter() - started:.1f} s")
    return result


def in_background(compute: Callable[[], object]) -> Future:
    """``compute()`` in a daemon thread (an interrupted load must not wait for it to end)."""
    future: Future = Future()

    def run() -> None:
        try:
            future.set_result(compute())
        except BaseException as exc:  # handed to whoever asks for the result
            future.set_exception(exc)
    threading.Thread(target=run, daemon=True).start()
    return future


def window_analysis(store, base: dict, window: tuple[float, float], home: Path, say: Say = print) -> str:
    """The analysis of ``base``'s trace clipped to ``window`` (seconds since the trace start), made once.
    ``base`` is a whole run: a window of a window would be one of the whole run's, listed under the
    window (and left behind when the run is deleted)."""
    if base.get("window"):
        raise ValueError(f"analysis {base['id']} is a time window: windows are derived from its full analysis "
                         f"{base.get('parent')}")
    options = protograph.Options(**{**json.loads(base["options"]), "window": tuple(window)})
    fingerprint = base["fingerprint"]
    analysis = analysis_id(fingerprint, options)
    _still_listed(store, base)
    if existing(store, analysis):
        return analysis
    # The base's lock too, for the whole write: what deletes the base (a watch replacing its
    # generation, `protoxplore delete`) takes that lock, lists the windows again once the base is
    # gone, and so never leaves this window behind. Deleters hold one lock at a time: no cycle.
    with locks.writing(home, analysis, say), locks.writing(home, base["id"], say):
        if existing(store, analysis):  # made by another process while we waited for the lock
            return analysis
        _still_listed(store, base)
        trace = traces.saved_trace(home, base)
        name = f"{base['name']} [{window[0]:,.1f}–{window[1]:,.1f} s]"  # not 2.12224e+08 s on a store of years
        target = Target(analysis, fingerprint, options, name, tuple(base.get("sources") or ()), parent=base["id"])
        return analyse(store, trace, target, say)


def _still_listed(store, base: dict) -> None:
    """:class:`NotFound` when ``base`` is no longer published: a live analysis's generation is
    deleted once a newer one replaces it (``live.Watch``), whose saved trace goes with the next save."""
    if existing(store, base["id"]) is None:
        raise NotFound(f"analysis {base['id']} is no longer in the store (a newer generation of its live "
                               "analysis replaced it, or it was deleted): derive the window from the one listed now")

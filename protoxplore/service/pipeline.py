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
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import pandas as pd

from protoxplore import show
from protoxplore.errors import NotFound
from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs import trace as trace_mod
from protoxplore.loader.model import levels, protograph
from protoxplore.settings import Settings
from protoxplore.storage import lifecycle, locks, traces
from protoxplore.storage.traces import save_trace, trace_path
from protoxplore.storage.writer import write_analysis

Say = Callable[[str], None]


def analysis_id(fingerprint: str, options: protograph.Options) -> str:
    """Deterministic id of an analysis: same logs and options, same id."""
    digest = hashlib.sha256((fingerprint + json.dumps(asdict(options), sort_keys=True)).encode()).hexdigest()
    return "a" + digest[:11]


def existing(store, analysis: str) -> dict | None:
    for row in store.run("analyses", {"status": "complete"}):
        if row["id"] == analysis:
            return row
    return None


def load_paths(store, paths: list[str], home: Path, options: protograph.Options = protograph.Options(),
               name: str | None = None, strict: bool = False, say: Say = print, warn: Say = print,
               max_line: int = eventlog.MAX_LINE_BYTES, straggler_threshold: float | None = None) -> tuple[str, bool]:
    """Load event logs as one workload; return ``(analysis_id, newly_written)``. The graph's straggler
    nodes are those at ``straggler_threshold`` x the stage median (None: Hound's default)."""
    sources = eventlog.discover(paths, warn=warn)
    fingerprint = trace_mod.fingerprint(sources)
    analysis = analysis_id(fingerprint, options)
    with locks.writing(home, analysis, say):
        if existing(store, analysis):
            say(f"analysis {analysis} of these logs is already loaded")
            if not trace_path(home, fingerprint).exists():
                # Loaded from another home sharing the Neo4j server: what reads the trace (what-if,
                # windows, stragglers, PerfXplain's log of runs) needs it in this one too.
                say("saving its trace in this home too")
                save_trace(trace_mod.read_trace(sources, strict=strict, warn=warn, max_line=max_line),
                           trace_path(home, fingerprint))
            store.run("analysis_touch", {"analysis": analysis, "time": time.time()}, write=True)
            return analysis, False
        started = time.perf_counter()
        trace = trace_mod.read_trace(sources, strict=strict, warn=warn, progress=say, max_line=max_line)
        waiting = int(trace_mod.waiting_for_slot(trace.tasks).sum())
        say(f"read {len(trace.tasks) - waiting} tasks" + (f" (and {waiting} waiting for a slot)" if waiting else "")
            + f" of {len(trace.stages)} stages, {len(trace.queries)} queries, "
            f"{len(trace.apps)} application(s) in {time.perf_counter() - started:.1f} s")
        save_trace(trace, trace_path(home, fingerprint))
        label = name or show.short(", ".join(Path(s.name).name for s in sources), 200)
        try:
            return analyse(store, trace, analysis, fingerprint, options, label, [s.name for s in sources], say,
                           straggler_threshold=straggler_threshold), True
        except BaseException:
            lifecycle.forget_trace(store, home, fingerprint)  # the writer removed what it began
            raise


def analyse(store, trace: trace_mod.Trace, analysis: str, fingerprint: str, options: protograph.Options,
            name: str, sources: list[str], say: Say = print, parent: str | None = None,
            graph: protograph.ProtoGraph | None = None, straggler_threshold: float | None = None,
            extra: dict | None = None, with_stragglers: bool = True, save: bool = True) -> str:
    """Build the ProtoGraph of ``trace`` (unless ``graph`` is that, already built) and write it as
    ``analysis``, with ``extra`` fields on its Analysis node (a live analysis's, ``live``), and
    Hound's stragglers at ``straggler_threshold`` unless ``with_stragglers`` is false; the store is
    saved after it unless ``save`` is false."""
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
        "name": name, "created": time.time(), "loaded": time.time(), "sources": sources, "fingerprint": fingerprint,
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
    meta = {k: v for k, v in {**meta, **(extra or {})}.items() if v is not None}
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
        return analyse(store, trace, analysis, fingerprint, options, name, list(base.get("sources") or []), say,
                       parent=base["id"])


def _still_listed(store, base: dict) -> None:
    """:class:`NotFound` when ``base`` is no longer published: a live analysis's generation is
    deleted once a newer one replaces it (``live.Watch``), whose saved trace goes with the next save."""
    if existing(store, base["id"]) is None:
        raise NotFound(f"analysis {base['id']} is no longer in the store (a newer generation of its live "
                               "analysis replaced it, or it was deleted): derive the window from the one listed now")

"""From event-log paths to a published analysis: discover, read, build, write.

An analysis id is a hash of the logs' bytes and the options, so loading the same trace twice
finds the analysis already there instead of writing a duplicate. Each load and window derivation
holds its id's writer lock (``lifecycle.writing``) from the check to the publish, so two processes
asking for the same analysis write it once: the second waits, then finds it.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import pickle
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from . import eventlog, lifecycle, protograph, trace as trace_mod
from .writer import write_analysis

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


def trace_path(home: Path, fingerprint: str) -> Path:
    return Path(home) / "traces" / f"{fingerprint[:16]}.pkl.gz"


def load_paths(store, paths: list[str], home: Path, options: protograph.Options = protograph.Options(),
               name: str | None = None, strict: bool = False, say: Say = print, warn: Say = print) -> tuple[str, bool]:
    """Load event logs as one workload; return ``(analysis_id, newly_written)``."""
    sources = eventlog.discover(paths, warn=warn)
    fingerprint = trace_mod.fingerprint(sources)
    analysis = analysis_id(fingerprint, options)
    with lifecycle.writing(home, analysis, say):
        if existing(store, analysis):
            say(f"analysis {analysis} of these logs is already loaded")
            store.run("analysis_touch", {"analysis": analysis, "time": time.time()}, write=True)
            return analysis, False
        started = time.perf_counter()
        trace = trace_mod.read_trace(sources, strict=strict, warn=warn, progress=say)
        say(f"read {len(trace.tasks)} tasks of {len(trace.stages)} stages, {len(trace.queries)} queries, "
            f"{len(trace.apps)} application(s) in {time.perf_counter() - started:.1f} s")
        save_trace(trace, trace_path(home, fingerprint))
        label = name or ", ".join(Path(s.name).name for s in sources)[:200]
        return analyse(store, trace, analysis, fingerprint, options, label, [s.name for s in sources], say), True


def analyse(store, trace: trace_mod.Trace, analysis: str, fingerprint: str, options: protograph.Options,
            name: str, sources: list[str], say: Say = print, parent: str | None = None,
            graph: protograph.ProtoGraph | None = None) -> str:
    """Build the ProtoGraph of ``trace`` (unless ``graph`` is that, already built) and write it as ``analysis``."""
    if graph is None:
        started = time.perf_counter()
        graph = protograph.build(trace, options)
        say(f"computed blame: {graph.node_count()} ProtoGraph nodes in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    apps = trace.apps.assign(uid=lambda f: analysis + "|app/" + f["app_key"])
    meta = {
        "name": name, "created": time.time(), "loaded": time.time(), "sources": sources, "fingerprint": fingerprint,
        "options": json.dumps(asdict(options)), "window": list(options.window) if options.window else None,
        "parent": parent, "unit": options.unit, "victim_stages": options.victim_stages,
        "tasks": int(graph.stats["tasks"]), "stages": int(graph.stats["stages"]),
        "queries": int(graph.stats["queries"]), "apps": int(graph.stats["apps"]), "nodes": graph.node_count(),
        "measured": graph.measured, "not_measured": graph.not_measured,
        "trace_start": trace.start, "trace_end": trace.end,
        "_apps": [{k: (None if v != v else v) for k, v in row.items()} for row in apps[
            ["uid", "app_key", "app_id", "name", "spark_version", "source", "complete"]].to_dict("records")],
    }
    meta = {k: v for k, v in meta.items() if v is not None}
    write_analysis(store, graph, analysis, meta, progress=say)
    say(f"wrote analysis {analysis} in {time.perf_counter() - started:.1f} s")
    return analysis


def save_trace(trace: trace_mod.Trace, path: Path) -> None:
    """Keep the trace next to the store so that windowed analyses can be derived later."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wb", compresslevel=1) as handle:
        pickle.dump(trace, handle, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(path)


@functools.lru_cache(maxsize=2)
def load_trace(path: Path) -> trace_mod.Trace:
    """A saved trace (kept in memory for the next call: saved traces never change)."""
    with gzip.open(path, "rb") as handle:
        return pickle.load(handle)


def window_analysis(store, base: dict, window: tuple[float, float], home: Path, say: Say = print) -> str:
    """The analysis of ``base``'s trace clipped to ``window`` (seconds since the trace start), made once."""
    options = protograph.Options(**{**json.loads(base["options"]), "window": tuple(window)})
    fingerprint = base["fingerprint"]
    analysis = analysis_id(fingerprint, options)
    if existing(store, analysis):
        return analysis
    with lifecycle.writing(home, analysis, say):
        if existing(store, analysis):  # made by another process while we waited for the lock
            return analysis
        path = trace_path(home, fingerprint)
        if not path.exists():
            raise FileNotFoundError(f"the trace of analysis {base['id']} is not saved at {path}; load its logs again")
        trace = load_trace(path)
        name = f"{base['name']} [{window[0]:g} s, {window[1]:g} s]"
        return analyse(store, trace, analysis, fingerprint, options, name, list(base.get("sources") or []), say,
                       parent=base["id"])

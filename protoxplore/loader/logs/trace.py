"""The trace model: what a set of Spark event logs says about applications, queries, stages and tasks.

A *query* is a Spark SQL execution; jobs outside SQL belong to their job group, else each job is its
own query (issue #2). Times are seconds since the Unix epoch (floats); Spark writes milliseconds.
Several applications that ran on the same hosts form one workload, so every key carries its
application key.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from protoxplore.errors import EventLogError, ImplausibleTime
from protoxplore.loader.logs.apps import AppReader
from protoxplore.loader.logs.eventlog import LogSource, read_events
from protoxplore.loader.logs.events import MEMORY_COLUMNS
from protoxplore.settings import MAX_LINE_BYTES


@dataclass
class Trace:
    """Everything the blame model needs, as pandas DataFrames (one row per entity)."""

    apps: pd.DataFrame
    executors: pd.DataFrame
    queries: pd.DataFrame
    stages: pd.DataFrame
    tasks: pd.DataFrame
    #: Memory peaks per executor (and stage, when Spark says): context only, no blame (docs/model.md).
    memory: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=MEMORY_COLUMNS))
    warnings: list[str] = field(default_factory=list)

    @property
    def start(self) -> float:
        """Earliest time seen in the trace: a query's start, a stage's submission or a task's launch
        (time 0 of analysis windows, of the timeline and of "ran from T s"; a query starts before its
        first stage is submitted, and was shown starting at a negative time)."""
        return float(np.nanmin([self.queries["start"].min(), self.stages["submit"].min(), self.tasks["launch"].min()]))

    @property
    def end(self) -> float:
        return float(max(self.tasks["finish"].max(), self.stages["complete"].max()))


def waiting_for_slot(tasks: pd.DataFrame) -> np.ndarray:
    """Which rows of ``tasks`` stand for tasks of a running application not launched yet: those of
    its submitted stages still waiting for a slot (``AppReader._running_tasks``; no task id). They
    count as waits, not as tasks."""
    running = tasks["running"].to_numpy(bool) if "running" in tasks else np.zeros(len(tasks), bool)
    return running & (tasks["task_id"].to_numpy() < 0)


def read_trace(sources: Iterable[LogSource], strict: bool = False,
               warn: Callable[[str], None] | None = None,
               progress: Callable[[str], None] | None = None, max_line: int = MAX_LINE_BYTES) -> Trace:
    """Read event logs into one workload :class:`Trace` (lines longer than ``max_line`` bytes are skipped).

    Raises :class:`EventLogError` when a log holds no application or no task.
    """
    warnings: list[str] = []

    def note(message: str) -> None:
        warnings.append(message)
        if warn:
            warn(message)

    readers: list[tuple[str, AppReader]] = []
    seen: set[str] = set()
    for source in sources:
        reader = AppReader(source)
        if fold(reader, read_events(source, strict=strict, warn=note, max_line=max_line), strict, note) == 0:
            raise EventLogError("holds no Spark events", source.name)
        if reader.app["app_id"] is None:
            reader.app["app_id"] = source.name
        if not reader.app["complete"]:
            note(f"{source.name}: no application end event (still running?); queries, stages and tasks that have "
                 f"not ended are kept as running, up to its last event")
        readers.append((_app_key(reader.app, seen), reader))
        if progress:
            running = f" (and {len(reader.started)} running)" if reader.started and not reader.app["complete"] else ""
            progress(f"read {source.name}: {len(reader.tasks)} ended tasks{running}, {len(reader.stages)} stages")
    if not readers:
        raise EventLogError("no event logs given")
    return assemble(readers, warnings, note)


def assemble(readers: list[tuple[str, AppReader]], warnings: list[str], note: Callable[[str], None]) -> Trace:
    """The workload :class:`Trace` of the applications read so far (``(app_key, reader)``)."""
    # Query names say which application a query is from: its name (else its id). A name never depends
    # on the other logs loaded with it; applications of the same name are told apart by their keys.
    parts: dict[str, list[pd.DataFrame]] = {k: [] for k in ("apps", "executors", "queries", "stages", "tasks", "memory")}
    for app_key, reader in readers:
        for part, frame in reader.frames(app_key, reader.app["name"] or reader.app["app_id"] or app_key).items():
            parts[part].append(frame)
    frames = {name: pd.concat(chunks, ignore_index=True) for name, chunks in parts.items()}
    tasks = frames["tasks"]
    unusable = tasks["launch"].isna() | tasks["finish"].isna() | (tasks["finish"] < tasks["launch"])
    if unusable.any():
        note(f"{int(unusable.sum())} task(s) without a valid launch and finish time were left out")
        frames["tasks"] = tasks[~unusable].reset_index(drop=True)
    stages = frames["stages"]
    first = frames["tasks"].groupby("stage_key").agg(first=("launch", "min"), last=("finish", "max"))
    stages["submit"] = stages["submit"].fillna(stages["stage_key"].map(first["first"]))
    stages["complete"] = stages["complete"].fillna(stages["stage_key"].map(first["last"]))
    if frames["tasks"].empty:
        raise EventLogError("the event logs hold no task (finished, running or waiting for a slot): nothing to analyse",
                            ", ".join(str(a) for a in frames["apps"]["source"]))
    for message in _implausible_times(frames["tasks"], frames["apps"]):
        note(message)
    return Trace(warnings=warnings, **frames)


def _implausible_times(tasks: pd.DataFrame, apps: pd.DataFrame) -> Iterable[str]:
    """Warnings for logs whose CPU or shuffle-write times cannot be in Spark's units: a task's CPU
    time and shuffle-write time fit inside its run time, so most tasks exceeding it means the log
    (or a converter that wrote it) used other units, and every blocked time derived would be wrong."""
    sources = dict(zip(apps["app_key"], apps["source"]))
    for column, what in (("cpu_s", "Executor CPU Time"), ("write_s", "Shuffle Write Time")):
        # the three columns read, not whole task rows (a copy of every column was most of the cost)
        timed = tasks.loc[(tasks["run_s"] > 0.05) & tasks[column].notna(), ["app_key", "run_s", column]]
        for app_key, group in timed.groupby("app_key"):
            over = int((group[column] > 1.5 * group["run_s"] + 0.01).sum())
            if len(group) >= 3 and over > len(group) / 2:
                yield (f"{sources.get(app_key, app_key)}: {what} exceeds Executor Run Time in {over} of {len(group)} "
                       f"tasks; Spark writes it in nanoseconds, so these units look wrong and the blocked times "
                       f"derived from them are not to be trusted")


def _app_key(app: dict, seen: set[str]) -> str:
    """A short key unique within the workload: application id plus attempt."""
    key = str(app["app_id"]) + (f"-{app['attempt']}" if app["attempt"] else "")
    base, n = key, 1
    while key in seen:
        n += 1
        key = f"{base}~{n}"
    seen.add(key)
    return key


#: Bumped whenever the reader or the model changes what a load of the same logs gives (git log
#: says what each bump was for). The fingerprint holds it, so such logs are read and computed anew,
#: into a new trace and analysis, instead of being found "already loaded" with what an older version
#: stored (whose analyses stay listed until deleted).
LOAD_VERSION = 7


def fingerprint(sources: Iterable[LogSource]) -> str:
    """Hash of the logs' bytes (and of :data:`LOAD_VERSION`), so that loading the same trace twice
    gives the same analysis id."""
    digest = hashlib.sha256(f"protoxplore load {LOAD_VERSION}\n".encode())
    for source in sorted(sources, key=lambda s: s.name):
        for part in source.parts:
            digest.update(part.name.encode())
            with open(part, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()


def fold(reader: AppReader, events: Iterable[tuple[str, int, dict]], strict: bool,
         note: Callable[[str], None]) -> int:
    """Fold ``(file, line, event)`` into ``reader``; return how many events were read. An event of an
    unexpected shape or with an implausible time is skipped with a note (an error when ``strict``)."""
    count = 0
    for _file, _line, event in events:
        try:
            reader.on_event(event)
        except ImplausibleTime as exc:
            error = EventLogError(f"{event.get('Event')} has an implausible time: {exc}", _file, _line)
            if strict:
                raise error from None
            note(f"{error}; event skipped")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            message = f"{_file}:{_line}: {event.get('Event')} has an unexpected shape ({exc!r})"
            if strict:
                raise EventLogError(message) from exc
            note(message + "; event skipped")
        count += 1
    return count

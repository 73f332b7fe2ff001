"""The trace model: what a set of Spark event logs says about applications, queries, stages and tasks.

A *query* is a Spark SQL execution; jobs outside SQL belong to their job group, else each job is its
own query (issue #2). Times are seconds since the Unix epoch (floats); Spark writes milliseconds.
Several applications that ran on the same hosts form one workload, so every key carries its
application key.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from protoxplore.loader.logs.eventlog import MAX_LINE_BYTES, EventLogError, LogSource, read_events

#: SQL metric names whose task updates hold the time spent scanning input (ms), newest first.
SCAN_TIME_METRICS = ("scan time", "scan time total (min, med, max)")

#: Task columns taken from TaskEnd events, with the factor that turns Spark's unit into ours
#: (times in seconds: Spark writes CPU and shuffle-write times in ns, the others in ms).
TASK_METRICS = {
    "launch": 1e-3, "finish": 1e-3, "run_s": 1e-3, "cpu_s": 1e-9, "gc_s": 1e-3, "fetch_wait_s": 1e-3, "remote_bytes": 1,
    "write_s": 1e-9, "written_bytes": 1, "scan_s": 1e-3, "read_bytes": 1,
    # records a task read from its input and from shuffles (PerfXplain's data skew, loader/perfxplain_runs.py)
    "input_records": 1, "shuffle_records": 1,
    # shuffle bytes read from the task's own executor's blocks: with remote_bytes, the whole shuffle read
    "local_bytes": 1,
    # Hound's per-task features (loader/hound.py, docs/model.md "Stragglers"): deserialization (ms),
    # the serialized result sent to the driver, bytes written to output and spilled to disk, shuffle
    # records written, and the locality level as Spark's TaskLocality ordinal (LOCALITY)
    "deserialize_s": 1e-3, "result_bytes": 1, "output_bytes": 1, "spill_bytes": 1, "written_records": 1,
    "output_records": 1, "locality": 1,
    # the CPU part of the deserialization (ns, Spark 2.1+): the rest is the executor loading the task
    "deserialize_cpu_s": 1e-9,
    # TaskInfo's Index (the task's place in its stage attempt) and Attempt (0, then 1 for its first
    # retry or speculative copy...): a retry waits for its previous attempt, not for a slot
    "task_index": 1, "task_attempt": 1,
}
#: Task Info.Locality -> Spark's TaskLocality ordinal (its enumeration order: the farther from the data,
#: the higher); an unknown or missing level stays missing.
LOCALITY = {"PROCESS_LOCAL": 0, "NODE_LOCAL": 1, "NO_PREF": 2, "RACK_LOCAL": 3, "ANY": 4}

#: Memory peaks read from stage executor metrics and executor metric updates (Spark 2.4+), bytes:
#: our column -> the metric names Spark has used for it (3.x names first, then 2.4's).
MEMORY_METRICS = {
    "heap_bytes": (("JVMHeapMemory",), ("JVM Used Heap Memory",)),
    "execution_bytes": (("OnHeapExecutionMemory", "OffHeapExecutionMemory"),
                        ("Onheap Execution Memory", "Offheap Execution Memory")),
    "storage_bytes": (("OnHeapStorageMemory", "OffHeapStorageMemory"),
                      ("Onheap Storage Memory", "Offheap Storage Memory")),
}
MEMORY_COLUMNS = ["app_key", "executor", "executor_key", "host", "stage_key", *MEMORY_METRICS, "source"]

#: The times (ms since the epoch) of each event read: the object holding them (None: the event
#: itself) and their fields. A time outside [1970, 2200) marks a damaged or forged event.
EVENT_TIMES = {
    "SparkListenerApplicationStart": (None, ("Timestamp",)),
    "SparkListenerApplicationEnd": (None, ("Timestamp",)),
    "SparkListenerExecutorAdded": (None, ("Timestamp",)),
    "SparkListenerExecutorRemoved": (None, ("Timestamp",)),
    "SparkListenerSQLExecutionStart": (None, ("time",)),
    "SparkListenerSQLExecutionEnd": (None, ("time",)),
    "SparkListenerJobStart": (None, ("Submission Time",)),
    "SparkListenerJobEnd": (None, ("Completion Time",)),
    "SparkListenerStageSubmitted": ("Stage Info", ("Submission Time", "Completion Time")),
    "SparkListenerStageCompleted": ("Stage Info", ("Submission Time", "Completion Time")),
    "SparkListenerTaskStart": ("Task Info", ("Launch Time",)),
    "SparkListenerTaskEnd": ("Task Info", ("Launch Time", "Finish Time")),
}
YEAR_2200_MS = 7_258_118_400_000

#: Configuration kept per application from the EnvironmentUpdate event (PerfXplain's run features):
#: our column -> Spark property. A property the log does not set stays None (Spark's default applied).
CONFIG_PROPERTIES = {
    "shuffle_partitions": "spark.sql.shuffle.partitions", "executor_cores": "spark.executor.cores",
    "executor_memory": "spark.executor.memory", "aqe": "spark.sql.adaptive.enabled",
    "dynamic_allocation": "spark.dynamicAllocation.enabled", "master": "spark.master",
    "executor_idle_timeout": "spark.dynamicAllocation.executorIdleTimeout",
}


class ImplausibleTime(ValueError):
    """An event's time is not a date between 1970 and 2200 (the message names the field and value)."""


def _check_times(kind: str, event: dict) -> float:
    """The latest time (ms) the event carries (0 when none); ImplausibleTime when one is no date."""
    holder, names = EVENT_TIMES.get(kind, (None, ()))
    values = event.get(holder) if holder else event
    latest = 0
    for name in names if isinstance(values, dict) else ():
        value = values.get(name)
        # `not 0 <= value < limit` also catches NaN; wrong types are left to the handlers
        if isinstance(value, (int, float)):
            if not 0 <= value < YEAR_2200_MS:
                raise ImplausibleTime(f"{name} {value!r} ms is not a date between 1970 and 2200")
            latest = max(latest, value)
    return latest


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


class _AppReader:
    """Folds the events of one application attempt into rows."""

    def __init__(self, source: LogSource):
        self.source = source
        self.app = {"app_key": None, "app_id": None, "attempt": None, "name": None, "start": np.nan,
                    "end": np.nan, "spark_version": None, "source": source.name, "complete": False,
                    "task_cpus": 1, "scheduler_mode": "FIFO", "python": False,
                    **dict.fromkeys(CONFIG_PROPERTIES)}
        self.executors: list[dict] = []
        self.task_only: set[int] = set()  # resource profiles without executor requests (Spark 3.4+)
        self.task_requests: dict[int, dict[str, float]] = {}  # per resource profile: what one task asks
        self.sql: dict[int, dict] = {}
        self.jobs: dict[int, dict] = {}
        self.stage_job: dict[int, int] = {}
        self.stage_parents: dict[int, list[int]] = {}
        self.stages: dict[tuple[int, int], dict] = {}
        self.tasks: list[tuple] = []
        self.started: dict = {}  # Task ID -> its TaskStart row, until its TaskEnd
        self.ended: set[int] = set()  # Task IDs whose TaskEnd was read (an application numbers its tasks once)
        self.memory: list[tuple] = []
        self.last_ms = 0  # the latest time any event carried: "now" for a running application
        # A log followed pass after pass (live.Watch) keeps its ended tasks' frame: each pass converts
        # only the TaskEnd rows read since (0.1 s of a pass at 24,000 tasks). (app key, rows, frame)
        self.followed = False
        self._ended_frame: tuple[str, int, pd.DataFrame] | None = None

    # -- event handlers -------------------------------------------------------------------------
    def on_event(self, event: dict) -> None:
        # Some Spark versions write full class names (org.apache.spark.scheduler.SparkListener...).
        kind = str(event["Event"]).rsplit(".", 1)[-1]
        handler = self.HANDLERS.get(kind)
        if handler is not None:
            latest = _check_times(kind, event)
            handler(self, event)
            if latest > self.last_ms:
                self.last_ms = latest

    def log_start(self, e):
        self.app["spark_version"] = e.get("Spark Version")

    def app_start(self, e):
        self.app["app_id"] = e.get("App ID") or self.source.name
        self.app["attempt"] = e.get("App Attempt ID")
        self.app["name"] = e.get("App Name")
        self.app["start"] = _sec(e.get("Timestamp"))

    def app_end(self, e):
        self.app["end"] = _sec(e.get("Timestamp"))
        self.app["complete"] = True

    def environment_update(self, e):
        props = e.get("Spark Properties") or {}
        if isinstance(props, list):  # some versions write [[name, value], ...]
            props = dict(p for p in props if isinstance(p, (list, tuple)) and len(p) == 2)
        cpus = _num(props.get("spark.task.cpus"))
        if 1 <= cpus <= 1024:  # cores one task holds: a slot (NaN and nonsense keep the default 1)
            self.app["task_cpus"] = int(cpus)
        if str(props.get("spark.scheduler.mode", "")).upper() in ("FIFO", "FAIR"):
            self.app["scheduler_mode"] = str(props["spark.scheduler.mode"]).upper()
        for column, name in CONFIG_PROPERTIES.items():
            if props.get(name) is not None:
                self.app[column] = str(props[name])[:200]
        system = e.get("System Properties") if isinstance(e.get("System Properties"), dict) else {}
        if props.get("spark.pyspark.python") or PYTHON_COMMAND.search(str(system.get("sun.java.command", ""))):
            self.app["python"] = True

    def executor_added(self, e):
        info = e.get("Executor Info") or {}
        resources = info.get("Resources") if isinstance(info.get("Resources"), dict) else {}
        self.executors.append({"executor": str(e.get("Executor ID")), "host": info.get("Host"),
                               "cores": int(info.get("Total Cores") or 1), "added": _sec(e.get("Timestamp")),
                               "removed": np.nan, "profile": int(info.get("Resource Profile Id") or 0),
                               "addresses": {str(name): len(r["addresses"]) for name, r in resources.items()
                                             if isinstance(r, dict) and isinstance(r.get("addresses"), list)}})

    def resource_profile_added(self, e):
        """A profile asking nothing of executors (a TaskResourceProfile) runs on the default profile's.
        What one task of the profile asks (cores, GPUs...) sets the slots of its executors."""
        profile = int(e.get("Resource Profile Id") or 0)
        if not e.get("Executor Resource Requests"):
            self.task_only.add(profile)
        asked = e.get("Task Resource Requests") if isinstance(e.get("Task Resource Requests"), dict) else {}
        self.task_requests[profile] = {str(name): _num(r.get("Amount")) for name, r in asked.items() if isinstance(r, dict)}

    def slots(self, executor: dict) -> int:
        """Tasks an executor runs at once, as Spark's scheduler counts them (docs/model.md, SLOTS): its
        cores over the cores one task of its resource profile asks (``spark.task.cpus`` without a
        profile), and no more than each other resource a task asks (GPUs...) allows of the executor's
        addresses of it (an amount below 1 shares an address among ``1 / amount`` tasks)."""
        asked = self.task_requests.get(executor["profile"], {})
        slots = executor["cores"] // self.task_cpus(executor["profile"])
        for name, amount in asked.items():
            have = executor["addresses"].get(name)
            # Spark takes amounts below 1 as 1/n of an address; a smaller one than a millionth is no real request.
            if name != "cpus" and have is not None and 1e-6 <= amount <= 1e6:
                slots = min(slots, have * int(1 / amount) if amount < 1 else int(have // amount))
        return int(slots)

    def task_cpus(self, profile) -> int:
        """The cores one task of resource ``profile`` holds: the cpus its profile asks a task, else
        ``spark.task.cpus``."""
        cpus = self.task_requests.get(profile, {}).get("cpus")
        return int(cpus if cpus is not None and 1 <= cpus <= 1024 else self.app["task_cpus"])

    def runs_on(self, profile) -> int:
        """The resource profile of the executors a stage of ``profile`` runs on."""
        return 0 if profile in self.task_only else int(profile or 0)

    def executor_removed(self, e):
        """Dynamic allocation (or a lost executor): its slots are gone from then on."""
        executor = str(e.get("Executor ID"))
        alive = [x for x in self.executors if x["executor"] == executor and x["removed"] != x["removed"]]
        if alive:
            alive[-1]["removed"] = _sec(e.get("Timestamp"))

    def stage_executor_metrics(self, e):
        self._memory(e.get("Executor ID"), e.get("Stage ID"), e.get("Stage Attempt ID"), e.get("Executor Metrics"),
                     "stage executor metrics")

    def executor_metrics_update(self, e):
        updated = e.get("Executor Metrics Updated")
        if isinstance(updated, dict):  # Spark 2.4: one set of peaks for the executor
            self._memory(e.get("Executor ID"), None, None, updated, "executor metric update")
        for item in updated if isinstance(updated, list) else ():  # Spark 3+: peaks per stage
            self._memory(e.get("Executor ID"), item.get("Stage ID"), item.get("Stage Attempt ID"),
                         item.get("Executor Metrics"), "executor metric update")

    def _memory(self, executor, stage_id, attempt, metrics, source: str) -> None:
        if not isinstance(metrics, dict):
            return
        peaks = []
        for names in MEMORY_METRICS.values():
            present = next((group for group in names if any(n in metrics for n in group)), None)
            peaks.append(np.nansum([_num(metrics.get(n)) for n in present]) if present else np.nan)
        if not all(np.isnan(peaks)):
            self.memory.append((str(executor), stage_id, attempt, *peaks, source))

    def sql_start(self, e):
        self.sql[int(e["executionId"])] = {"description": e.get("description") or "",
                                           "details": e.get("details") or "", "start": _sec(e.get("time"))}

    def sql_end(self, e):
        entry = self.sql.setdefault(int(e["executionId"]), {"description": "", "details": "", "start": np.nan})
        entry["end"] = _sec(e.get("time"))

    def job_start(self, e):
        props = e.get("Properties") or {}
        job_id = int(e["Job ID"])
        infos = e.get("Stage Infos") or []
        for info in infos:
            stage_id = int(info["Stage ID"])
            self.stage_job.setdefault(stage_id, job_id)
            self.stage_parents[stage_id] = [int(p) for p in info.get("Parent IDs") or []]
        # A job without SQL is named after its final stage (the highest id), as Spark's UI names it.
        final_name = _stage_name(max(infos, key=lambda i: int(i["Stage ID"]))) if infos else ""
        self.jobs[job_id] = {"submit": _sec(e.get("Submission Time")), "end": np.nan,
                             "sql": props.get("spark.sql.execution.id"),
                             "group": props.get("spark.jobGroup.id"),
                             "description": props.get("spark.job.description") or final_name,
                             "pool": props.get("spark.scheduler.pool") or "default",
                             "stages": [(int(i["Stage ID"]), _stage_name(i), int(i.get("Number of Tasks") or 0))
                                        for i in infos]}

    def job_end(self, e):
        job = self.jobs.get(int(e["Job ID"]))
        if job is not None:
            job["end"] = _sec(e.get("Completion Time"))

    def stage_submitted(self, e):
        self._stage_row(e["Stage Info"])

    def stage_completed(self, e):
        info = e["Stage Info"]
        row = self._stage_row(info)
        row["complete"] = _sec(info.get("Completion Time"))
        row["failed"] = bool(info.get("Failure Reason"))

    def _stage_row(self, info: dict) -> dict:
        key = (int(info["Stage ID"]), int(info.get("Stage Attempt ID", info.get("Attempt ID", 0)) or 0))
        row = self.stages.setdefault(key, {"stage_id": key[0], "attempt": key[1], "name": _stage_name(info),
                                           "num_tasks": int(info.get("Number of Tasks") or 0),
                                           "submit": np.nan, "complete": np.nan, "failed": False,
                                           "profile": int(info.get("Resource Profile Id") or 0)})
        if info.get("Submission Time") is not None:
            row["submit"] = _sec(info["Submission Time"])
        return row

    def task_start(self, e):
        info = e.get("Task Info") or {}
        _check_task(e, info)
        self.started[info.get("Task ID")] = (e.get("Stage ID"), e.get("Stage Attempt ID"), info.get("Task ID"),
                                             info.get("Executor ID"), info.get("Host"), False, None,
                                             info.get("Speculative"), info.get("Launch Time"),
                                             info.get("Index"), info.get("Attempt"))

    def task_end(self, e):
        # Hot path (one call per task): take the raw values only; types and units are converted
        # column by column in `frames` (TASK_METRICS), where a wrong-typed value becomes NaN.
        info = e.get("Task Info") or {}
        _check_task(e, info)
        launch, finish = info.get("Launch Time"), info.get("Finish Time")
        if type(launch) not in (int, float) or type(finish) not in (int, float) or not finish >= launch:
            raise ValueError(f"Launch Time {launch!r} and Finish Time {finish!r} are no task times")
        if info["Task ID"] in self.ended:
            raise ValueError(f"a second TaskEnd of task {info['Task ID']}")
        self.ended.add(info["Task ID"])
        self.started.pop(info.get("Task ID"), None)
        metrics = e.get("Task Metrics") or {}
        shuffle_read = metrics.get("Shuffle Read Metrics") or {}
        shuffle_write = metrics.get("Shuffle Write Metrics") or {}
        read = metrics.get("Input Metrics") or {}
        output = metrics.get("Output Metrics") or {}
        scan = None
        for acc in info.get("Accumulables") or ():
            if acc.get("Name") in SCAN_TIME_METRICS and acc.get("Update") is not None:
                scan = (scan or 0.0) + _num(acc["Update"])  # SQL metric updates may be strings
        self.tasks.append((
            e.get("Stage ID"), e.get("Stage Attempt ID"), info.get("Task ID"), info.get("Executor ID"),
            info.get("Host"), info.get("Failed"), (e.get("Task End Reason") or {}).get("Reason"),
            info.get("Speculative"), info.get("Launch Time"), info.get("Finish Time"),
            metrics.get("Executor Run Time"), metrics.get("Executor CPU Time"), metrics.get("JVM GC Time"),
            shuffle_read.get("Fetch Wait Time"), shuffle_read.get("Remote Bytes Read"),
            shuffle_write.get("Shuffle Write Time"), shuffle_write.get("Shuffle Bytes Written"), scan,
            read.get("Bytes Read"), read.get("Records Read"), shuffle_read.get("Total Records Read"),
            shuffle_read.get("Local Bytes Read"), metrics.get("Executor Deserialize Time"), metrics.get("Result Size"),
            output.get("Bytes Written"), metrics.get("Disk Bytes Spilled"), shuffle_write.get("Shuffle Records Written"),
            output.get("Records Written"),
            LOCALITY.get(locality) if isinstance(locality := info.get("Locality"), str) else None,
            metrics.get("Executor Deserialize CPU Time"), info.get("Index"), info.get("Attempt"),
        ))

    def _submitted_unlogged(self) -> dict[tuple[int, int], dict]:
        """Stages of a running application's running jobs that Spark has submitted but not yet
        logged: a job submits at once the stages of its that wait for no stage, and Spark writes
        StageSubmitted without flushing its log (JobStart flushes), so a live log often shows a job
        whose first stages wait for slots without saying so. Taken as submitted with their job."""
        done = {sid for (sid, _), row in self.stages.items() if row["complete"] == row["complete"]}
        logged = {sid for sid, _ in self.stages}
        out = {}
        for job in self.jobs.values():
            if job["end"] != job["end"]:
                for stage_id, name, num_tasks in job.get("stages", ()):
                    if stage_id not in logged and all(p in done for p in self.stage_parents.get(stage_id, [])):
                        out[(stage_id, 0)] = {"stage_id": stage_id, "attempt": 0, "name": name, "num_tasks": num_tasks,
                                              "submit": job["submit"], "complete": np.nan, "failed": False, "profile": 0}
        return out

    def _running_tasks(self, stages: dict) -> list[tuple]:
        """Rows for the tasks of a running application that have not ended, up to its last event
        (``last_ms``, its "now"): those running (from their TaskStart), and those of running stage
        attempts still waiting for a slot (launch = finish = now: they waited from the stage's
        submission on and hold no slot yet). Their metrics are not known yet (None)."""
        if self.app["complete"]:
            return []
        now = self.last_ms
        # launch, finish = now, metrics not known yet, then its index and attempt (the last TASK_METRICS)
        rows = [(*start[:9], now) + (None,) * (len(TASK_METRICS) - 4) + start[9:] for start in self.started.values()]
        seen: dict[tuple, int] = {}
        for row in self.tasks:
            if row[6] in ("Success", None):  # a failed or killed task is tried again: still to run
                seen[(row[0], row[1])] = seen.get((row[0], row[1]), 0) + 1
        for row in rows:
            seen[(row[0], row[1])] = seen.get((row[0], row[1]), 0) + 1
        # A waiting task will run on one of its application's executors alive now, of the resource
        # profile its stage runs on: it is counted on each in turn (on none while there is none).
        alive = [x for x in self.executors if x["removed"] != x["removed"]]
        for (stage_id, attempt), stage in stages.items():
            if stage["complete"] != stage["complete"] and stage["submit"] == stage["submit"]:  # submitted, not done
                waiting = stage["num_tasks"] - seen.get((stage_id, attempt), 0)
                profile = self.runs_on(stage.get("profile", 0))
                executors = [(x["executor"], x["host"]) for x in alive if x["profile"] == profile] or [(None, None)]
                rows += [(stage_id, attempt, None, *executors[i % len(executors)], False, None, False, now, now)
                         + (None,) * (len(TASK_METRICS) - 2) for i in range(max(0, waiting))]
        return rows

    def _task_frame(self, app_key: str, stages: dict) -> pd.DataFrame:
        """The TaskEnd rows, then the tasks still running in ``stages`` (``_running_tasks``), as a
        frame with types and units (TASK_METRICS) converted per column."""
        ended = self._ended_tasks(app_key)
        running = self._running_tasks(stages)
        if not running:
            return ended.copy() if self.followed else ended  # the kept frame is never handed out
        now = self._rows_frame(app_key, running, running=True)
        return pd.concat([ended, now], ignore_index=True) if len(ended) else now

    def _ended_tasks(self, app_key: str) -> pd.DataFrame:
        """The TaskEnd rows as a frame (:meth:`_rows_frame`); a followed log's kept for the next call."""
        if not self.followed:
            return self._rows_frame(app_key, self.tasks, running=False)
        key, count, frame = self._ended_frame or (app_key, 0, None)
        if key != app_key or frame is None:
            count, frame = 0, None
        if frame is None or count < len(self.tasks):
            new = self._rows_frame(app_key, self.tasks[count:], running=False)
            frame = new if frame is None or not len(frame) else pd.concat([frame, new], ignore_index=True)
        self._ended_frame = (app_key, len(self.tasks), frame)
        return frame

    def _rows_frame(self, app_key: str, rows: list[tuple], running: bool) -> pd.DataFrame:
        """Task rows (of TaskEnd, or of tasks ``running``) as a frame with types and units."""
        names = ["stage_id", "stage_attempt", "task_id", "executor", "host", "failed_flag", "reason", "speculative",
                 *TASK_METRICS]
        raw = dict(zip(names, zip(*rows))) if rows else {name: () for name in names}
        tasks = pd.DataFrame({
            "app_key": app_key,
            "task_id": _numbers(raw["task_id"], -1).astype(int),
            "stage_id": _numbers(raw["stage_id"], -1).astype(int),
            "stage_attempt": _numbers(raw["stage_attempt"], 0).astype(int),
            "executor": pd.Series([str(x) for x in raw["executor"]], dtype=object),
            "host": pd.Series([_host(h, app_key) if isinstance(h, str) else None for h in raw["host"]], dtype=object),
            # A task was killed when Spark ended it on purpose (a speculative copy whose original won,
            # a cancelled job): counted apart from the tasks that failed, flagged so or ended for any
            # other reason but Success. Both used resources, so both stay culprits.
            "killed": pd.Series([r == "TaskKilled" for r in raw["reason"]], dtype=bool),
            "failed": pd.Series([r != "TaskKilled" and (f is True or r not in ("Success", None))
                                 for f, r in zip(raw["failed_flag"], raw["reason"])], dtype=bool),
            "speculative": pd.Series([x is True for x in raw["speculative"]], dtype=bool),
            "running": np.full(len(rows), running),
        })
        for column, scale in TASK_METRICS.items():
            tasks[column] = _numbers(raw[column]) * scale
        # Spark's executor sets a failed or killed task's run and GC times, never its CPU time: a 0
        # there is "not measured" (docs/model.md, CPU), not a task that waited for a core all its run.
        tasks.loc[(tasks["failed"] | tasks["killed"]) & (tasks["cpu_s"] == 0), "cpu_s"] = np.nan
        tasks["stage_key"] = app_key + "/stage-" + tasks["stage_id"].astype(str) + "." + tasks["stage_attempt"].astype(str)
        tasks["executor_key"] = app_key + "/executor-" + tasks["executor"]
        return tasks

    HANDLERS: dict[str, Callable] = {
        "SparkListenerLogStart": log_start,
        "SparkListenerApplicationStart": app_start,
        "SparkListenerApplicationEnd": app_end,
        "SparkListenerEnvironmentUpdate": environment_update,
        "SparkListenerExecutorAdded": executor_added,
        "SparkListenerExecutorRemoved": executor_removed,
        "SparkListenerResourceProfileAdded": resource_profile_added,
        "SparkListenerSQLExecutionStart": sql_start,
        "SparkListenerSQLExecutionEnd": sql_end,
        "SparkListenerJobStart": job_start,
        "SparkListenerJobEnd": job_end,
        "SparkListenerStageSubmitted": stage_submitted,
        "SparkListenerStageCompleted": stage_completed,
        "SparkListenerTaskStart": task_start,
        "SparkListenerTaskEnd": task_end,
        "SparkListenerStageExecutorMetrics": stage_executor_metrics,
        "SparkListenerExecutorMetricsUpdate": executor_metrics_update,
    }

    # -- rows -------------------------------------------------------------------------------------
    def frames(self, app_key: str, label: str) -> dict[str, pd.DataFrame]:
        """Return this application's rows with workload-wide keys; query names start with ``label``."""
        app = dict(self.app, app_key=app_key, jobs=len(self.jobs), sql_executions=len(self.sql))
        app["python"] = app["python"] or any(PYTHON_STAGE.search(str(row["name"])) for row in self.stages.values())
        queries: dict[str, dict] = {}

        def query_of(job_id: int | None) -> str:
            job = self.jobs.get(job_id) if job_id is not None else None
            if job is None:
                kind, local, description = "job", str(job_id), ""
            elif job["sql"] is not None:
                local = str(job["sql"])
                kind, description = "sql", self.sql.get(int(local), {}).get("description", "")
            elif job["group"]:
                kind, local, description = "group", str(job["group"]), job["description"]
            else:
                kind, local, description = "job", str(job_id), job["description"]
            key = f"{app_key}/{kind}-{local}"
            if key not in queries:
                sql = self.sql.get(int(local), {}) if kind == "sql" else {}
                queries[key] = {"query_key": key, "app_key": app_key, "kind": kind, "local_id": local,
                                "name": f"{label}:{kind}-{local}", "description": description or "",
                                "pool": job["pool"] if job else "default",
                                "start": sql.get("start", np.nan), "end": sql.get("end", np.nan),
                                "running": live and kind == "sql" and sql.get("end", np.nan) != sql.get("end", np.nan)}
            # A query of a running application runs until its SQL execution ends; one without SQL while
            # one of its jobs has not ended (a running stage also marks its query, below).
            queries[key]["running"] |= live and kind != "sql" and job is not None and job["end"] != job["end"]
            return key

        live = not self.app["complete"]

        known = dict(self.stages)  # a copy: a followed log is read on after this (``live``)
        if live:
            known.update(self._submitted_unlogged())
        tasks = self._task_frame(app_key, known)
        for key in set(zip(tasks["stage_id"], tasks["stage_attempt"])):
            if key not in known:  # a log cut before StageSubmitted, or a stage never reported
                known[key] = {"stage_id": key[0], "attempt": key[1], "name": "", "num_tasks": 0,
                              "submit": np.nan, "complete": np.nan, "failed": False, "profile": 0}
        stage_rows = []
        for (stage_id, attempt), row in known.items():
            stage_rows.append(dict(row, app_key=app_key, stage_key=f"{app_key}/stage-{stage_id}.{attempt}",
                                   profile=self.runs_on(row.get("profile", 0)),
                                   task_cpus=self.task_cpus(row.get("profile", 0)),
                                   query_key=query_of(self.stage_job.get(stage_id)), job=self.stage_job.get(stage_id, np.nan),
                                   parents=list(self.stage_parents.get(stage_id, [])),
                                   running=live and row["complete"] != row["complete"]))
        stages = pd.DataFrame(stage_rows, columns=["stage_key", "app_key", "query_key", "stage_id", "attempt", "name",
                                                   "num_tasks", "submit", "complete", "failed", "parents", "running",
                                                   "job", "profile", "task_cpus"])
        for query in stages.loc[stages["running"].astype(bool), "query_key"]:
            queries[query]["running"] = True
        executors = pd.DataFrame([dict(x, slots=self.slots(x)) for x in self.executors],
                                 columns=["executor", "host", "cores", "slots", "added", "removed", "profile"])
        executors["host"] = [_host(h, app_key) if isinstance(h, str) else h for h in executors["host"]]
        executors.insert(0, "app_key", app_key)
        query_frame = pd.DataFrame(list(queries.values()), columns=[
            "query_key", "app_key", "kind", "local_id", "name", "description", "pool", "start", "end", "running"])
        return {"apps": pd.DataFrame([app]), "executors": executors, "queries": query_frame,
                "stages": stages, "tasks": tasks, "memory": self._memory_frame(app_key, executors, tasks)}

    def _memory_frame(self, app_key: str, executors: pd.DataFrame, tasks: pd.DataFrame) -> pd.DataFrame:
        """Memory peaks with workload-wide keys; the host comes from ExecutorAdded, else from the tasks."""
        memory = pd.DataFrame(self.memory, columns=["executor", "stage_id", "attempt", *MEMORY_METRICS, "source"])
        # Peaks are sampled at heartbeats; a stage that ran between two reports all zeros. A JVM
        # heap is never empty, so a zero heap means "not sampled", not "no memory".
        memory.loc[memory["heap_bytes"] == 0, "heap_bytes"] = np.nan
        hosts = dict(zip(tasks["executor"], tasks["host"])) | dict(zip(executors["executor"], executors["host"]))
        stage_id = _numbers(memory["stage_id"], -1).astype(int)
        attempt = _numbers(memory["attempt"], 0).astype(int)
        memory["stage_key"] = [f"{app_key}/stage-{s}.{a}" if s >= 0 else None for s, a in zip(stage_id, attempt)]
        memory["app_key"] = app_key
        memory["executor_key"] = app_key + "/executor-" + memory["executor"]
        memory["host"] = [hosts.get(executor) for executor in memory["executor"]]  # None where unknown, as saved
        return memory[MEMORY_COLUMNS]


#: Host names that only say "this machine": every application in local mode reports them.
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def waiting_for_slot(tasks: pd.DataFrame) -> np.ndarray:
    """Which rows of ``tasks`` stand for tasks of a running application not launched yet: those of
    its submitted stages still waiting for a slot (``_AppReader._running_tasks``; no task id). They
    count as waits, not as tasks."""
    running = tasks["running"].to_numpy(bool) if "running" in tasks else np.zeros(len(tasks), bool)
    return running & (tasks["task_id"].to_numpy() < 0)


def _host(name: str, app_key: str) -> str:
    """The workload-wide name of a host an application reported: a loopback name is the machine of
    that application only (unrelated local-mode applications, e.g. on two laptops, all say
    ``localhost``), so it is qualified by the application's key; other names are shared."""
    return f"{name} ({app_key})" if name in LOOPBACK else name


def _stage_name(info: dict) -> str:
    """A stage's name as text: "" where the log has none or null (names are sorted and joined later)."""
    name = info.get("Stage Name")
    return "" if name is None else str(name)


def _sec(ms) -> float:
    return float(ms) / 1e3 if ms is not None else np.nan


def _numbers(values, missing: float = np.nan) -> np.ndarray:
    """A column of metric values as floats: None and wrong-typed values become ``missing``."""
    try:
        out = np.array(values, dtype=float)  # fast path: numbers, None (NaN) and numeric strings
    except (TypeError, ValueError):
        out = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float, copy=True)
    out[~np.isfinite(out)] = missing
    return out


def _num(value) -> float:
    """A metric value, or NaN when the log does not record it (so 'not measured' stays visible)."""
    if value is None:
        return np.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.nan


#: A PySpark application: launched for Python (``pyspark-shell``, a ``.py`` file), or a stage
#: named after a line of Python (``collect at report.py:12``, ``<stdin>:1``). Its tasks' time in
#: Python workers is not in the JVM's CPU time (docs/model.md, CPU).
PYTHON_COMMAND = re.compile(r"pyspark-shell|\.py(\s|$)")
PYTHON_STAGE = re.compile(r"\.py:\d+|<stdin>:\d+")


def _check_task(event: dict, info: dict) -> None:
    """Refuse (ValueError: the event is skipped with a note naming its line, ``fold``) a task event
    whose stage, task id or host is not what Spark writes: a text or negative stage id made a
    query of its own, a host that is no text blamed seconds on a host no command lists, a task id
    past 64 bits was stored as garbage."""
    stage, task = event.get("Stage ID"), info.get("Task ID")
    if type(stage) is not int or stage < 0:
        raise ValueError(f"Stage ID {stage!r} is no stage id")
    if type(task) is not int or not 0 <= task < 2**63:
        raise ValueError(f"Task ID {task!r} is no task id")
    if not isinstance(info.get("Host"), str):
        raise ValueError(f"Host {info.get('Host')!r} is no host name")


def fold(reader: _AppReader, events: Iterable[tuple[str, int, dict]], strict: bool,
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

    readers: list[tuple[str, _AppReader]] = []
    seen: set[str] = set()
    for source in sources:
        reader = _AppReader(source)
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


def assemble(readers: list[tuple[str, _AppReader]], warnings: list[str], note: Callable[[str], None]) -> Trace:
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

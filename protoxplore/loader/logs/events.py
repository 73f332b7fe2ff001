"""What is read from Spark's listener events: the fields, the units Spark writes them in, and the checks
that refuse values no Spark writes (a time that is no date, a stage id that is no id)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from protoxplore.errors import ImplausibleTime

#: SQL metric names whose task updates hold the time spent scanning input (ms), newest first.
SCAN_TIME_METRICS = ("scan time", "scan time total (min, med, max)")


#: Task columns taken from TaskEnd events, with the factor that turns Spark's unit into ours
#: (times in seconds: Spark writes CPU and shuffle-write times in ns, the others in ms).
TASK_METRICS = {
    "launch": 1e-3, "finish": 1e-3, "run_s": 1e-3, "cpu_s": 1e-9, "gc_s": 1e-3, "fetch_wait_s": 1e-3, "remote_bytes": 1,
    "write_s": 1e-9, "written_bytes": 1, "scan_s": 1e-3, "read_bytes": 1,
    # records a task read from its input and from shuffles (PerfXplain's data skew, protoxplore/loader/compare/runs.py)
    "input_records": 1, "shuffle_records": 1,
    # shuffle bytes read from the task's own executor's blocks: with remote_bytes, the whole shuffle read
    "local_bytes": 1,
    # Hound's per-task features (protoxplore/loader/stragglers/hound.py, docs/model.md "Stragglers"): deserialization (ms),
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


#: A PySpark application: launched for Python (``pyspark-shell``, a ``.py`` file), or a stage
#: named after a line of Python (``collect at report.py:12``, ``<stdin>:1``). Its tasks' time in
#: Python workers is not in the JVM's CPU time (docs/model.md, CPU).
PYTHON_COMMAND = re.compile(r"pyspark-shell|\.py(\s|$)")


PYTHON_STAGE = re.compile(r"\.py:\d+|<stdin>:\d+")


def check_times(kind: str, event: dict) -> float:
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


def check_task(event: dict, info: dict) -> None:
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


def seconds(ms) -> float:
    return float(ms) / 1e3 if ms is not None else np.nan


def numbers(values, missing: float = np.nan) -> np.ndarray:
    """A column of metric values as floats: None and wrong-typed values become ``missing``."""
    try:
        out = np.array(values, dtype=float)  # fast path: numbers, None (NaN) and numeric strings
    except (TypeError, ValueError):
        out = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float, copy=True)
    out[~np.isfinite(out)] = missing
    return out


def number(value) -> float:
    """A metric value, or NaN when the log does not record it (so 'not measured' stays visible)."""
    if value is None:
        return np.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.nan

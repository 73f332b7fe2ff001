"""Wait components per task: how long each task was blocked on each resource, and how much it got.

Paper 000 Table 1 and paper 001 Sec. 5.2 define the components; this module maps them onto the
metrics a Spark event log holds. Each *request* below is one Level-3 resource request of paper 000
Sec. 3.3 (for example IO splits into io_read and io_write); each belongs to one Level-2 resource.

Within a task we assume uniform rates (the log holds per-task totals only): a task that was
blocked B seconds out of a run of T seconds is blocked B/T of every second of its run, and
consumes its amount A at A/T per second. With this assumption paper 001's interval blame reduces
to paper 000's FC_h x RATP_ts / RATP_ss (see ``blame``).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from protoxplore.loader.model.blame import capacity

#: Level-2 resources in display order. MEMORY has no metric in Spark event logs.
RESOURCES = ("SLOTS", "CPU", "MEMORY", "NETWORK", "IO")


@dataclass(frozen=True)
class Request:
    """A Level-3 resource request: what a task waits for and what it acquires."""

    name: str
    resource: str
    unit: str
    description: str


REQUESTS = (
    Request("slots", "SLOTS", "slot", "waiting in the scheduler queue for a task slot"),
    Request("task_start", "SLOTS", "task", "waiting for its executor to load the task (deserialization off the CPU)"),
    Request("cpu", "CPU", "CPU-second", "runnable but not running on a CPU"),
    Request("memory", "MEMORY", "byte", "waiting for execution or storage memory"),
    Request("network_read", "NETWORK", "byte", "waiting for remote shuffle blocks"),
    Request("io_read", "IO", "byte", "scanning input"),
    Request("io_write", "IO", "byte", "writing shuffle output"),
)
REQUEST_BY_NAME = {r.name: r for r in REQUESTS}


def _speculative(tasks: pd.DataFrame) -> np.ndarray:
    """Whether each task is a speculative copy: a later attempt Spark launched beside its running
    original when it chose to (it waited for no failure)."""
    return (tasks["speculative"].to_numpy(bool) if "speculative" in tasks else False) & (
        tasks["task_attempt"].to_numpy(float) > 0)


def failed_attempt(tasks: pd.DataFrame) -> np.ndarray:
    """For each task (by position), the position of the attempt of its task it could not run before:
    for a retry (TaskInfo ``Attempt`` > 0, not speculative), the last earlier attempt of its task
    that had ended by its launch (the one that failed); -1 for any other task, for a speculative copy
    (Spark launches it beside its running original when it chooses to) and for every task of a
    trace saved before attempts were read (no ``task_attempt``)."""
    earlier = np.full(len(tasks), -1)
    if "task_attempt" not in tasks:
        return earlier
    attempt = tasks["task_attempt"].to_numpy(float)
    retry = (attempt > 0) & ~_speculative(tasks)
    if not retry.any():
        return earlier
    attempts = pd.DataFrame({"stage": tasks["stage_key"].to_numpy(), "index": tasks["task_index"].to_numpy(float),
                             "attempt": attempt, "launch": tasks["launch"].to_numpy(float),
                             "finish": tasks["finish"].to_numpy(float)})
    pairs = attempts[retry].reset_index(names="row").merge(attempts.reset_index(names="row"), on=["stage", "index"],
                                                           suffixes=("", "_earlier"))
    pairs = pairs[(pairs["attempt_earlier"] < pairs["attempt"]) & (pairs["finish_earlier"] <= pairs["launch"])]
    last = pairs.sort_values(["row", "finish_earlier", "row_earlier"]).drop_duplicates("row", keep="last")
    earlier[last["row"].to_numpy(int)] = last["row_earlier"].to_numpy(int)
    return earlier


def ready_for_a_slot(tasks: pd.DataFrame, submit: np.ndarray) -> np.ndarray:
    """When each task began to wait for a slot (docs/model.md, SLOTS): its stage attempt's
    submission ``submit``; for a retry, the end of its :func:`failed_attempt`, before which it could
    not run however many slots were free; a speculative copy waited for none (launched when Spark
    chose to)."""
    if "task_attempt" not in tasks:
        return submit
    earlier = failed_attempt(tasks)
    ended = tasks["finish"].to_numpy(float)[np.maximum(earlier, 0)]
    ready = np.where(earlier >= 0, np.fmax(submit, ended), submit)
    return np.where(_speculative(tasks), tasks["launch"].to_numpy(float), ready)


def task_waits(tasks: pd.DataFrame, stage_submit: pd.Series, units: np.ndarray,
               task_cpus: np.ndarray | float = 1.0) -> dict[str, pd.DataFrame]:
    """Per request, one row per task: blocked seconds, amount acquired and the intervals involved.

    ``stage_submit`` maps stage_key to the stage attempt's submission time (for SLOTS); ``units``
    gives each task's contention unit (host or executor), over which capacities are estimated;
    ``task_cpus`` is the cores each task holds (``spark.task.cpus``, or its resource profile's cpus).
    Returns only measured requests; each frame has columns ``wait_start, wait_end, blocked_s``
    (the interval over which the blocked time is spread), ``run_start, run_end, amount`` (the
    interval over which the amount is consumed), ``service_s`` (the time the amount takes at the
    unit's capacity, NaN where no capacity applies), for CPU, network and IO ``capacity`` (the
    task's unit's, :func:`blame.capacity` over all ``tasks``) and ``gc_s`` (the part of CPU blocked time
    spent in JVM garbage collection, a known cause of paper 001 Sec. 5.1).
    """
    launch = tasks["launch"].to_numpy(float)
    finish = tasks["finish"].to_numpy(float)
    duration = np.clip(finish - launch, 0, None)
    base = pd.DataFrame({"run_start": launch, "run_end": finish}, index=tasks.index)
    out: dict[str, pd.DataFrame] = {}

    submit = tasks["stage_key"].map(stage_submit).to_numpy(float)
    submit = ready_for_a_slot(tasks, np.where(np.isnan(submit), launch, submit))
    out["slots"] = base.assign(wait_start=submit, wait_end=launch, blocked_s=np.clip(launch - submit, 0, None),
                               amount=np.broadcast_to(np.asarray(task_cpus, dtype=float), launch.shape).copy(),
                               service_s=np.nan, gc_s=0.0)

    def col(name: str) -> np.ndarray:
        return tasks[name].to_numpy(float)

    unit_codes, unit_names = pd.factorize(units, use_na_sentinel=False)  # hashed once, not for each request

    @functools.cache
    def unit_capacity(amount_column: str) -> np.ndarray:
        """Each task's unit's capacity for that amount (paper 001 Eq. 3: :func:`blame.capacity`, the
        peak aggregate rate over all ``tasks``, whatever window the caller clips them to later)."""
        amount = np.nan_to_num(col(amount_column))
        rate = np.where(duration > 0, amount / np.where(duration > 0, duration, 1), 0.0)
        peaks = capacity(pd.DataFrame({"unit": unit_codes, "start": launch, "end": finish, "rate": rate}))
        return peaks.reindex(np.arange(len(unit_names))).to_numpy(float)[unit_codes]  # NaN: no use on the unit

    def at_capacity(amount_column: str) -> np.ndarray:
        """Seconds the amount takes at the unit's capacity (``amount x RATP*``, paper 001 Eq. 3)."""
        c = unit_capacity(amount_column)
        return np.where(c > 0, np.nan_to_num(col(amount_column)) / np.where(c > 0, c, 1), 0.0)

    def run_request(blocked: np.ndarray, amount_column: str, service: np.ndarray, gc=0.0) -> pd.DataFrame:
        return base.assign(wait_start=launch, wait_end=finish, blocked_s=np.clip(np.nan_to_num(blocked), 0, duration),
                           amount=np.nan_to_num(col(amount_column)), service_s=service, gc_s=gc,
                           capacity=unit_capacity(amount_column))

    if _measured(tasks, "cpu_s"):
        cpu_blocked, gc = cpu_wait(tasks)
        out["cpu"] = run_request(cpu_blocked, "cpu_s", np.nan_to_num(col("cpu_s")), gc)
    if _measured(tasks, "fetch_wait_s"):
        # Fetch wait is wait by Spark's definition: the task had nothing else to do (no service part).
        out["network_read"] = run_request(col("fetch_wait_s"), "remote_bytes", at_capacity("remote_bytes"))
    if _measured(tasks, "deserialize_s") and _measured(tasks, "deserialize_cpu_s"):
        # Executor Deserialize Time is wall time before the run: off the CPU, the executor was
        # loading the task (its classes, the task's broadcast), most of it on a fresh executor.
        loading = np.clip(np.nan_to_num(col("deserialize_s") - col("deserialize_cpu_s")), 0, duration)
        out["task_start"] = base.assign(wait_start=launch, wait_end=launch + loading, blocked_s=loading, amount=1.0,
                                        service_s=np.nan, gc_s=0.0)
    off_cpu = off_cpu_times(tasks)
    for request, measured, amount in (("io_read", "scan_s", "read_bytes"), ("io_write", "write_s", "written_bytes")):
        if _measured(tasks, measured):
            # Scan and shuffle-write times include the task's own reading or writing: only the time
            # beyond what its bytes take at the unit's capacity is blocked (paper 001 Eq. 3-4).
            service = at_capacity(amount)
            out[request] = run_request(off_cpu[measured] - service, amount, service)
    return out


def off_cpu_times(tasks: pd.DataFrame) -> dict[str, np.ndarray]:
    """A task's shuffle-write and scan times (``write_s``, ``scan_s``) as far as they fit in the part
    of its run spent off the CPU (run - CPU - fetch wait), shuffle writes first (Spark times them
    around the blocking writes), the scan in what is left. Spark's scan time is wall time of the
    scan, its CPU decoding included (kubeflow's ``sql-1``: scan 14.511 s and CPU 5.945 s in 15.716 s
    of run): the time spent on the CPU is no IO wait (docs/model.md, IO). Where the CPU time is not
    measured, both as measured."""
    def col(name: str) -> np.ndarray:
        return tasks[name].to_numpy(float)
    budget = np.clip(col("run_s") - col("cpu_s") - np.nan_to_num(col("fetch_wait_s")), 0, None)
    budget = np.where(np.isnan(budget), np.inf, budget)
    write = np.minimum(col("write_s"), budget)
    return {"write_s": write, "scan_s": np.minimum(col("scan_s"), budget - np.nan_to_num(write))}


def cpu_wait(tasks: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Seconds each task was runnable but not running on a CPU, and the part of them in JVM GC pauses.

    Paper 001 Sec. 5.2: the OS-scheduling wait is what remains of the run once the CPU time and the
    other measured times (fetch wait, scan, shuffle write) are taken out. GC pauses fall inside it.
    The residual also holds work of the task's own (Python workers, spills): blame.sweep_blame
    counts it as service where no other task used the CPU (docs/model.md). Where the CPU time is
    not measured (a failed or killed task: ``trace``) but the GC time is, the GC pauses are the part
    of the wait that is known; NaN where neither is."""
    def col(name: str) -> np.ndarray:
        return tasks[name].to_numpy(float)
    io_times = np.nan_to_num(col("fetch_wait_s")) + np.nan_to_num(col("scan_s")) + np.nan_to_num(col("write_s"))
    blocked = np.clip(col("run_s") - col("cpu_s") - io_times, 0, None)
    blocked = np.where(np.isnan(col("cpu_s")), np.clip(col("gc_s"), 0, col("run_s")), blocked)
    return blocked, np.minimum(np.nan_to_num(col("gc_s")), np.nan_to_num(blocked))


def _measured(tasks: pd.DataFrame, column: str) -> bool:
    """Whether any task has ``column`` measured (a trace made by hand, as the benchmarks' workload,
    may lack the column: bench/bench_core.py's build failed on the task start-up times)."""
    return column in tasks and bool(tasks[column].notna().any())


def measured_resources(waits: dict[str, pd.DataFrame]) -> list[str]:
    """Level-2 resources with at least one measured request."""
    return [r for r in RESOURCES if any(REQUEST_BY_NAME[q].resource == r for q in waits)]

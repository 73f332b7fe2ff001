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

from dataclasses import dataclass

import numpy as np
import pandas as pd

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
    Request("cpu", "CPU", "CPU-second", "runnable but not running on a CPU"),
    Request("memory", "MEMORY", "byte", "waiting for execution or storage memory"),
    Request("network_read", "NETWORK", "byte", "waiting for remote shuffle blocks"),
    Request("io_read", "IO", "byte", "scanning input"),
    Request("io_write", "IO", "byte", "writing shuffle output"),
)
REQUEST_BY_NAME = {r.name: r for r in REQUESTS}


def task_waits(tasks: pd.DataFrame, stage_submit: pd.Series) -> dict[str, pd.DataFrame]:
    """Per request, one row per task: blocked seconds, amount acquired and the intervals involved.

    ``stage_submit`` maps stage_key to the stage attempt's submission time (for SLOTS).
    Returns only measured requests; each frame has columns ``wait_start, wait_end, blocked_s``
    (the interval over which the blocked time is spread), ``run_start, run_end, amount`` (the
    interval over which the amount is consumed) and ``gc_s`` (the part of CPU blocked time spent
    in JVM garbage collection, a known cause of paper 001 Sec. 5.1).
    """
    launch = tasks["launch"].to_numpy(float)
    finish = tasks["finish"].to_numpy(float)
    base = pd.DataFrame({"run_start": launch, "run_end": finish}, index=tasks.index)
    out: dict[str, pd.DataFrame] = {}

    submit = tasks["stage_key"].map(stage_submit).to_numpy(float)
    submit = np.where(np.isnan(submit), launch, submit)
    out["slots"] = base.assign(wait_start=submit, wait_end=launch,
                               blocked_s=np.clip(launch - submit, 0, None), amount=1.0, gc_s=0.0)

    def run_request(blocked: np.ndarray, amount: np.ndarray, gc: float | np.ndarray = 0.0) -> pd.DataFrame:
        duration = np.clip(finish - launch, 0, None)
        blocked = np.clip(np.nan_to_num(blocked), 0, duration)
        return base.assign(wait_start=launch, wait_end=finish, blocked_s=blocked,
                           amount=np.nan_to_num(amount), gc_s=gc)

    def col(name: str) -> np.ndarray:
        return tasks[name].to_numpy(float)

    io_times = np.nan_to_num(col("fetch_wait_s")) + np.nan_to_num(col("scan_s")) + np.nan_to_num(col("write_s"))
    if _measured(tasks, "cpu_s"):
        # Paper 001 Sec. 5.2: the OS-scheduling wait is what remains of the run once the CPU time
        # and the other blocked times are taken out. GC pauses fall inside it.
        cpu_blocked = np.clip(col("run_s") - col("cpu_s") - io_times, 0, None)
        gc = np.minimum(np.nan_to_num(col("gc_s")), np.nan_to_num(cpu_blocked))
        out["cpu"] = run_request(cpu_blocked, col("cpu_s"), gc)
    if _measured(tasks, "fetch_wait_s"):
        out["network_read"] = run_request(col("fetch_wait_s"), col("remote_bytes"))
    if _measured(tasks, "scan_s"):
        out["io_read"] = run_request(col("scan_s"), col("read_bytes"))
    if _measured(tasks, "write_s"):
        out["io_write"] = run_request(col("write_s"), col("written_bytes"))
    return out


def _measured(tasks: pd.DataFrame, column: str) -> bool:
    return bool(tasks[column].notna().any())


def measured_resources(waits: dict[str, pd.DataFrame]) -> list[str]:
    """Level-2 resources with at least one measured request."""
    return [r for r in RESOURCES if any(REQUEST_BY_NAME[q].resource == r for q in waits)]

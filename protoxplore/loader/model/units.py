"""Who holds what where: each task's contention unit (host or executor), the application and resource
profile that owns its slot, the executors' spans (dynamic allocation) and the task slots each offers."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import Trace
from protoxplore.loader.model.blame import step_sums


def task_units(tasks: pd.DataFrame, unit: str) -> pd.Series:
    """Each task's contention unit (option ``unit``: its host, or its executor): ``unknown-host``
    for a task no executor ran yet (a live application's tasks waiting before any executor came)."""
    units = tasks["host"] if unit == "host" else tasks["executor_key"].where(ran_on_executor(tasks))
    return units.fillna("unknown-host").astype(str)


def ran_on_executor(tasks: pd.DataFrame) -> pd.Series:
    """Whether an executor ran each task (the trace writes a missing Executor ID as "None")."""
    return tasks["executor"].notna() & tasks["executor"].astype(str).ne("None")


def task_owners(trace: Trace, tasks: pd.DataFrame) -> pd.Series:
    """:func:`slot_owner` of each task: the resource profile of the executor it ran on, else (a task
    still waiting, in a live trace, or run on an executor the log never added) of the executors its
    stage runs on (the trace's stage ``profile``: a task-only profile's stages run on the default
    profile's executors, Spark 3.4+)."""
    executors = executor_spans(trace)
    ran_on = pd.Series(executors.get("profile", 0), index=executors.index)
    ran_on.index = executors["app_key"].astype(str) + "/executor-" + executors["executor"].astype(str)
    profile = tasks["executor_key"].map(ran_on[~ran_on.index.duplicated(keep="last")])
    stages = trace.stages.drop_duplicates("stage_key").set_index("stage_key")
    if "profile" in stages:
        profile = profile.fillna(tasks["stage_key"].map(stages["profile"]))
    return slot_owner(tasks["app_key"], profile)


def slot_owner(app_key: pd.Series, profile) -> pd.Series:
    """Whose slots a task can take, or an executor offers: its application's, of its resource
    profile (Spark 3.1+ stage-level scheduling: a stage of profile P runs on executors of profile P
    only; docs/model.md, SLOTS). ``app`` for the default profile 0 (and traces saved before
    profiles were read), ``app#rpP`` for another."""
    profile = pd.Series(profile, index=app_key.index).fillna(0).astype(int)
    return app_key.astype(str) + np.where(profile != 0, "#rp" + profile.astype(str), "")


def owner_app(owner: str) -> str:
    """The application of a :func:`slot_owner`."""
    return owner.split("#rp", 1)[0]


def executor_spans(trace: Trace) -> pd.DataFrame:
    """The executors, ``added`` and ``removed`` as seconds (NaN: never removed; an executor added
    at no known time was there from the start). With dynamic allocation on, an executor idle for
    ``spark.dynamicAllocation.executorIdleTimeout`` after its last task (after its addition if it
    ran none) is removed then, when its ExecutorRemoved comes later: that event waits for the
    cluster manager's answer, often many seconds, and Spark offered its slots no more meanwhile
    (docs/model.md, SLOTS)."""
    executors = trace.executors
    added = executors["added"].astype(float).fillna(-np.inf)
    removed = pd.to_numeric(executors.get("removed", np.nan), errors="coerce")  # traces saved before removals were read
    idle = _idle_timeouts(trace)
    if idle and len(executors):
        key = executors["app_key"].astype(str) + "/executor-" + executors["executor"].astype(str)
        busy_until = key.map(trace.tasks.groupby("executor_key")["finish"].max()).astype(float)
        released = np.fmax(busy_until, added) + executors["app_key"].map(idle).astype(float)
        removed = pd.Series(np.where(released < removed, released, removed), index=executors.index)
    return executors.assign(added=added, removed=removed)


def _idle_timeouts(trace: Trace) -> dict[str, float]:
    """Per application with dynamic allocation on, ``spark.dynamicAllocation.executorIdleTimeout``
    in seconds (Spark's default 60 s where the log does not set it, or sets no time Spark reads)."""
    apps = trace.apps.set_index("app_key")
    if "dynamic_allocation" not in apps:
        return {}
    timeouts = apps["executor_idle_timeout"] if "executor_idle_timeout" in apps else pd.Series(None, index=apps.index)
    return {app: _spark_seconds(timeouts.get(app), 60.0) for app, on in apps["dynamic_allocation"].items()
            if str(on).strip().lower() == "true"}


#: Spark's time suffixes (``JavaUtils.timeStringAs``), in seconds.
_TIME_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def _spark_seconds(text, default: float) -> float:
    """A Spark time setting ("10s", "2min", "60": seconds) in seconds; ``default`` when unset or unread."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", str(text).lower()) if text is not None else None
    if match is None or match[2] not in {"", *_TIME_UNITS}:
        return default
    return float(match[1]) * _TIME_UNITS.get(match[2] or "s")


def slots_over_time(trace: Trace, unit: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Task slots per application and contention unit (``app|unit``) over time, as a step function
    ``(times, slots)``: the slots of the application's executors there (:func:`executor_slots`)
    over their spans (:func:`executor_spans`: dynamic allocation adds and removes them)."""
    executors = executor_spans(trace).dropna(subset=["host"])
    if executors.empty:  # a log without ExecutorAdded events (pandas gives its empty columns a text type)
        return {}
    app = executors["app_key"].astype(str)
    where = (executors["host"].astype(str) if unit == "host"
             else app + "/executor-" + executors["executor"].astype(str))
    return step_sums((executor_owner(executors) + "|" + where).to_numpy(), executors["added"], executors["removed"],
                     executor_slots(trace, executors))


def executor_slots(trace: Trace, executors: pd.DataFrame) -> pd.Series:
    """The task slots each of ``executors`` offers (read from the log: ``apps.AppReader.slots``);
    for traces saved before those were read, its cores over ``spark.task.cpus``."""
    # Numbers whatever the saved table's types (a log without ExecutorAdded saves an empty one of text).
    cores = pd.to_numeric(executors["cores"], errors="coerce")
    by_cores = cores // executors["app_key"].map(_app_task_cpus(trace)).fillna(1).astype(float)
    return pd.to_numeric(executors["slots"], errors="coerce").fillna(by_cores) if "slots" in executors else by_cores


def executor_owner(executors: pd.DataFrame) -> pd.Series:
    """:func:`slot_owner` of each executor (by its resource profile)."""
    return slot_owner(executors["app_key"], executors["profile"] if "profile" in executors else 0)


def executors_alive(trace: Trace) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per application (and resource profile: :func:`slot_owner`), how many executors it had over
    time (:func:`executor_spans`), as a step function. An application whose log names no executor
    and none of whose tasks ran on one (a live application still starting) has had none so far;
    one whose tasks ran on executors its log never added is not in it (nothing is known)."""
    executors = executor_spans(trace)
    alive = {} if executors.empty else step_sums(executor_owner(executors).to_numpy(), executors["added"],
                                                  executors["removed"], np.ones(len(executors)))
    ran = ran_on_executor(trace.tasks)
    starting = set(trace.tasks["app_key"].astype(str)) - set(trace.tasks.loc[ran, "app_key"].astype(str))
    starting -= {owner_app(owner) for owner in alive}
    return alive | {app: (np.array([-np.inf]), np.array([0.0])) for app in starting}


def _app_task_cpus(trace: Trace) -> pd.Series:
    """``spark.task.cpus`` per application (1 for traces read before it was recorded)."""
    apps = trace.apps.set_index("app_key")
    return apps["task_cpus"] if "task_cpus" in apps else pd.Series(1, index=apps.index)


def cores_per_task(trace: Trace, tasks: pd.DataFrame) -> pd.Series:
    """The cores each task holds: the cpus its stage's resource profile asks a task
    (``apps.AppReader.task_cpus``), else, for traces saved before those were read,
    ``spark.task.cpus``."""
    by_app = tasks["app_key"].map(_app_task_cpus(trace)).fillna(1)
    stages = trace.stages.drop_duplicates("stage_key").set_index("stage_key")
    if "task_cpus" not in stages:
        return by_app
    return tasks["stage_key"].map(stages["task_cpus"]).fillna(by_app)

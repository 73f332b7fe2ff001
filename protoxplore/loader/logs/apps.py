"""One application's events folded into rows: its executors, queries (SQL executions, else job groups,
else jobs), stages, tasks and memory peaks, with Spark's units turned into seconds and bytes.

:class:`AppReader` takes events one at a time (a whole log, or the lines a live watch adds), so a
running application's rows can be read at any moment (:meth:`AppReader.frames`)."""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from protoxplore.loader.logs.eventlog import LogSource
from protoxplore.loader.logs.events import (
    CONFIG_PROPERTIES,
    LOCALITY,
    MEMORY_COLUMNS,
    MEMORY_METRICS,
    PYTHON_COMMAND,
    PYTHON_STAGE,
    SCAN_TIME_METRICS,
    TASK_METRICS,
    check_task,
    check_times,
    number,
    numbers,
    seconds,
)


class AppReader:
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
            latest = check_times(kind, event)
            handler(self, event)
            if latest > self.last_ms:
                self.last_ms = latest

    def log_start(self, e):
        self.app["spark_version"] = e.get("Spark Version")

    def app_start(self, e):
        self.app["app_id"] = e.get("App ID") or self.source.name
        self.app["attempt"] = e.get("App Attempt ID")
        self.app["name"] = e.get("App Name")
        self.app["start"] = seconds(e.get("Timestamp"))

    def app_end(self, e):
        self.app["end"] = seconds(e.get("Timestamp"))
        self.app["complete"] = True

    def environment_update(self, e):
        props = e.get("Spark Properties") or {}
        if isinstance(props, list):  # some versions write [[name, value], ...]
            props = dict(p for p in props if isinstance(p, (list, tuple)) and len(p) == 2)
        cpus = number(props.get("spark.task.cpus"))
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
                               "cores": int(info.get("Total Cores") or 1), "added": seconds(e.get("Timestamp")),
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
        self.task_requests[profile] = {str(name): number(r.get("Amount")) for name, r in asked.items() if isinstance(r, dict)}

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
            alive[-1]["removed"] = seconds(e.get("Timestamp"))

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
            peaks.append(np.nansum([number(metrics.get(n)) for n in present]) if present else np.nan)
        if not all(np.isnan(peaks)):
            self.memory.append((str(executor), stage_id, attempt, *peaks, source))

    def sql_start(self, e):
        self.sql[int(e["executionId"])] = {"description": e.get("description") or "",
                                           "details": e.get("details") or "", "start": seconds(e.get("time"))}

    def sql_end(self, e):
        entry = self.sql.setdefault(int(e["executionId"]), {"description": "", "details": "", "start": np.nan})
        entry["end"] = seconds(e.get("time"))

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
        self.jobs[job_id] = {"submit": seconds(e.get("Submission Time")), "end": np.nan,
                             "sql": props.get("spark.sql.execution.id"),
                             "group": props.get("spark.jobGroup.id"),
                             "description": props.get("spark.job.description") or final_name,
                             "pool": props.get("spark.scheduler.pool") or "default",
                             "stages": [(int(i["Stage ID"]), _stage_name(i), int(i.get("Number of Tasks") or 0))
                                        for i in infos]}

    def job_end(self, e):
        job = self.jobs.get(int(e["Job ID"]))
        if job is not None:
            job["end"] = seconds(e.get("Completion Time"))

    def stage_submitted(self, e):
        self._stage_row(e["Stage Info"])

    def stage_completed(self, e):
        info = e["Stage Info"]
        row = self._stage_row(info)
        row["complete"] = seconds(info.get("Completion Time"))
        row["failed"] = bool(info.get("Failure Reason"))

    def _stage_row(self, info: dict) -> dict:
        key = (int(info["Stage ID"]), int(info.get("Stage Attempt ID", info.get("Attempt ID", 0)) or 0))
        row = self.stages.setdefault(key, {"stage_id": key[0], "attempt": key[1], "name": _stage_name(info),
                                           "num_tasks": int(info.get("Number of Tasks") or 0),
                                           "submit": np.nan, "complete": np.nan, "failed": False,
                                           "profile": int(info.get("Resource Profile Id") or 0)})
        if info.get("Submission Time") is not None:
            row["submit"] = seconds(info["Submission Time"])
        return row

    def task_start(self, e):
        info = e.get("Task Info") or {}
        check_task(e, info)
        self.started[info.get("Task ID")] = (e.get("Stage ID"), e.get("Stage Attempt ID"), info.get("Task ID"),
                                             info.get("Executor ID"), info.get("Host"), False, None,
                                             info.get("Speculative"), info.get("Launch Time"),
                                             info.get("Index"), info.get("Attempt"))

    def task_end(self, e):
        # Hot path (one call per task): take the raw values only; types and units are converted
        # column by column in `frames` (TASK_METRICS), where a wrong-typed value becomes NaN.
        info = e.get("Task Info") or {}
        check_task(e, info)
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
                scan = (scan or 0.0) + number(acc["Update"])  # SQL metric updates may be strings
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
            "task_id": numbers(raw["task_id"], -1).astype(int),
            "stage_id": numbers(raw["stage_id"], -1).astype(int),
            "stage_attempt": numbers(raw["stage_attempt"], 0).astype(int),
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
            tasks[column] = numbers(raw[column]) * scale
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
        stage_id = numbers(memory["stage_id"], -1).astype(int)
        attempt = numbers(memory["attempt"], 0).astype(int)
        memory["stage_key"] = [f"{app_key}/stage-{s}.{a}" if s >= 0 else None for s, a in zip(stage_id, attempt)]
        memory["app_key"] = app_key
        memory["executor_key"] = app_key + "/executor-" + memory["executor"]
        memory["host"] = [hosts.get(executor) for executor in memory["executor"]]  # None where unknown, as saved
        return memory[MEMORY_COLUMNS]


#: Host names that only say "this machine": every application in local mode reports them.
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def _host(name: str, app_key: str) -> str:
    """The workload-wide name of a host an application reported: a loopback name is the machine of
    that application only (unrelated local-mode applications, e.g. on two laptops, all say
    ``localhost``), so it is qualified by the application's key; other names are shared."""
    return f"{name} ({app_key})" if name in LOOPBACK else name


def _stage_name(info: dict) -> str:
    """A stage's name as text: "" where the log has none or null (names are sorted and joined later)."""
    name = info.get("Stage Name")
    return "" if name is None else str(name)



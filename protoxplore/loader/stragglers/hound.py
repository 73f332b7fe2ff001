"""Stragglers and their likely causes per stage attempt (Hound, paper 002), from a Trace.

A straggler is a successful task whose duration exceeds ``threshold`` x its stage attempt's median
(1.5, Ousterhout et al.'s, paper 002 ref. 46). Per stage with stragglers, three base learners
(Sec. 3.1) each turn the tasks' features into a causality profile: one signed weight per feature,
absolute sum 1 (or all 0 when the learner finds nothing). The stage's causes are the mean of the three profiles,
where at least two learners find the cause in that direction (the ensemble's majority rule).
docs/model.md "Stragglers (Hound)" lists the features with their event-log fields and units.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import zlib
from concurrent.futures import Executor, ProcessPoolExecutor

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import ElasticNet
from threadpoolctl import threadpool_limits

from protoxplore.loader.logs.trace import Trace
from protoxplore.loader.model import waits
from protoxplore.loader.stragglers import expert as hound_expert
from protoxplore.loader.stragglers.topics import topics
from protoxplore.settings import Settings
from protoxplore.text import natural_key

#: x the stage median: PROTOXPLORE_STRAGGLER_THRESHOLD's default (protoxplore/settings.py, docs/settings.md).
DEFAULT_THRESHOLD = Settings.straggler_threshold
#: Fewer successful tasks than this give the learners nothing to compare: stragglers are still listed.
MIN_TASKS = 5
#: Signed Schweizer-Wolff is O(N^2) per feature and boosting has a cost per round, so a larger stage
#: is learned on a sample of this many tasks (see learning_sample; bench/bench_hound.py).
SAMPLE = 200
#: Features per stage whose causal effect gets a boosted propensity model (see causal_profile).
BOOSTED = 2
BAGGING_REPLICAS = 20
#: Propensity scores are clipped to [e, 1-e] so that a few near-certain tasks cannot dominate IPW.
PROPENSITY_CLIP = 0.05
#: An amount of data whose spread over a stage's tasks is below this share of its median reads as
#: constant (see informative).
NEAR_CONSTANT = 0.1
#: From this many stages to learn, the stages are shared among worker processes, one per core.
PARALLEL_STAGES = 50
#: |L1 - L2| at or below this reads as independence in the SSW sign (paper 002 Sec. 3.1, epsilon).
SIGN_EPSILON = 1e-3

#: Trace.tasks columns the learners take as they are, then the features derived in task_features:
#: together the profile's entries, in order (docs/model.md lists them with their event-log fields).
MEASURED = ("scan_s", "read_bytes", "gc_s", "write_s", "written_bytes", "fetch_wait_s", "deserialize_s", "result_bytes",
            "output_bytes", "spill_bytes", "locality")
FEATURES = (*MEASURED, "shuffle_read_bytes", "scheduler_delay_s", "cpu_rate", "first_on_executor", "concurrent_on_host",
            "speculative")
#: The records behind each amount of data: taken from the log and shown beside their bytes (the page's
#: box plots), not learned: they restate the bytes of the same cause (docs/model.md, "records").
RECORDS = {"read_bytes": "input_records", "shuffle_read_bytes": "shuffle_records", "written_bytes": "written_records",
           "output_bytes": "output_records"}
LEARNERS = ("predictive", "dependence", "causal")


def task_features(trace: Trace) -> pd.DataFrame:
    """One row per task: identity, duration and the learner FEATURES (missing measurements read as 0)."""
    tasks = trace.tasks
    frame = tasks[["stage_key", "task_id", "host", "executor_key", "failed", "launch", "finish"]].copy()
    frame["failed"] |= tasks.get("killed", False)  # neither kind finished its work (older traces: no killed column)
    frame["failed"] |= tasks.get("running", False)  # nor has a task still running or waiting (live logs)
    frame["duration_s"] = tasks["finish"] - tasks["launch"]
    for column in (*MEASURED, *RECORDS.values()):
        frame[column] = _column(tasks, column).fillna(0.0)
    # The IO parts of the scan and shuffle-write times (waits.off_cpu_times): Spark's scan time
    # includes decoding on the CPU, which removing the scan would wrongly take away too.
    io = waits.off_cpu_times(tasks)
    frame["write_s"], frame["scan_s"] = np.nan_to_num(io["write_s"]), np.nan_to_num(io["scan_s"])
    frame["shuffle_read_bytes"] = shuffle_read_bytes(tasks).fillna(0.0)
    # What the executor did not spend running or deserializing the task: scheduling, result
    # serialization and fetching the result, which the log does not tell apart (Spark UI's "scheduler
    # delay" plus those two).
    frame["scheduler_delay_s"] = (frame["duration_s"] - tasks["run_s"] - frame["deserialize_s"]).clip(lower=0).fillna(0.0)
    frame["cpu_rate"] = cpu_rate(tasks)
    # The first task of an executor pays class loading and JIT warm-up (paper 002's Spark case study;
    # not Table 3's first task of a stage on a worker: docs/model.md, "first_on_executor").
    frame["first_on_executor"] = (tasks["launch"] == tasks.groupby("executor_key")["launch"].transform("min")).astype(float)
    frame["concurrent_on_host"] = concurrent_on_host(tasks)
    frame["speculative"] = tasks["speculative"].astype(float)
    return frame


def _column(tasks: pd.DataFrame, name: str) -> pd.Series:
    """A Trace column, all missing in a trace saved before it was kept."""
    return tasks[name] if name in tasks else pd.Series(np.nan, index=tasks.index)


def shuffle_read_bytes(tasks: pd.DataFrame) -> pd.Series:
    """The whole shuffle read of each task, in bytes: ``Remote Bytes Read`` + ``Local Bytes Read``
    (paper 002 Table 3's SHFL_READ_RBYTES and SHFL_READ_LBYTES together: skewed keys make a task read
    more, wherever its blocks are). A part the log lacks adds nothing (a trace saved before the local
    bytes were kept has no such column); both missing stays missing."""
    return tasks["remote_bytes"].add(_column(tasks, "local_bytes"), fill_value=0)


def cpu_rate(tasks: pd.DataFrame) -> np.ndarray:
    """Processor usage, in core-seconds per second of the task's computing time: CPU / (CPU + W), with
    W the ProtoGraph's CPU wait less its GC part (paper 001 Sec. 5.2: the run less CPU, scan, shuffle
    write, fetch wait and GC, the time the task was runnable but not on a CPU); 0 where not measured.

    Paper 002 Table 2's MEAN_CPU (Table 3's CPU usage), signed as the paper's topics read it:
    ``cpu_rate(+)`` computation skew, ``cpu_rate(-)`` a limited processor (hound_expert.WHEN_LOWER).
    A rate, not CPU seconds: a task given more rows spends more CPU seconds as it reads more bytes,
    so the seconds named data skew "cpu"; and on a busy machine every task waits for a CPU in
    proportion to its work. Over the computing time, not the run: a straggler whose extra time is GC
    or I/O (features of their own) would otherwise show a lower rate for no reason of the CPU."""
    blocked, gc = waits.cpu_wait(tasks)
    cpu = tasks["cpu_s"].to_numpy(float)
    computing = blocked - gc + cpu
    return np.nan_to_num(np.divide(cpu, computing, out=np.zeros_like(computing), where=computing > 0))


def concurrent_on_host(tasks: pd.DataFrame) -> np.ndarray:
    """Other tasks running on the task's host (any application) when it launched; one that finished
    at that very moment no longer counts."""
    out = np.zeros(len(tasks))
    for _, index in tasks.groupby(tasks["host"].fillna(""), sort=False).indices.items():
        launch, finish = tasks["launch"].to_numpy()[index], tasks["finish"].to_numpy()[index]
        started = np.searchsorted(np.sort(launch), launch, side="right")  # launched at or before, self included
        ended = np.searchsorted(np.sort(finish), launch, side="right")    # already finished by then
        out[index] = started - ended - 1
    return out


def stragglers(features: pd.DataFrame, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """Successful tasks with a ``straggler`` flag and their stage attempt's median duration."""
    if not threshold > 1:
        raise ValueError(f"straggler threshold must be above 1 (x the stage median), not {threshold!r}")
    done = features[~features["failed"] & features["duration_s"].notna()].copy()
    done["median_s"] = done.groupby("stage_key")["duration_s"].transform("median")
    # A stage whose median task took 0 ms (Spark's resolution) has no meaningful "x the median".
    done["straggler"] = (done["duration_s"] > threshold * done["median_s"]) & (done["median_s"] > 0)
    return done


def stage_slowdown(stage: pd.DataFrame) -> float:
    """Seconds the stage attempt would have ended sooner had its stragglers run at the median.

    A lower bound: tasks that waited for a straggler's slot are not moved earlier."""
    finish = np.where(stage["straggler"], stage["launch"] + stage["median_s"], stage["finish"])
    return float(stage["finish"].max() - finish.max())


def _profile(values: np.ndarray) -> np.ndarray:
    """Scale to absolute sum 1 (paper 002 Sec. 3.1: a causality profile in [-1,1]^P); all 0 stays 0."""
    values = np.nan_to_num(np.asarray(values, dtype=float))
    total = np.abs(values).sum()
    return values / total if total > 0 else values


def _standardize(x: np.ndarray) -> np.ndarray:
    """Zero mean, unit variance per column; a constant column becomes all 0 (it explains nothing)."""
    std = x.std(axis=0)
    return np.divide(x - x.mean(axis=0), std, out=np.zeros_like(x), where=std > 0)


def bagged_elasticnet(x: np.ndarray, y: np.ndarray, seed: int, replicas: int = BAGGING_REPLICAS) -> np.ndarray:
    """Predictive profile: paper 002 Algorithm 1 (Bagging Augmented ElasticNet), the mean of the
    ElasticNet coefficients fitted on ``replicas`` bootstrap replicas of standardized (x, y)."""
    x, y = _standardize(x), _standardize(y[:, None])[:, 0]
    rng = np.random.default_rng(seed)
    coefficients = np.zeros(x.shape[1])
    for _ in range(replicas):
        sample = rng.integers(0, len(y), len(y))
        model = ElasticNet(alpha=0.05, l1_ratio=0.5, max_iter=5000, precompute=True)
        # The arrays are already what fit's checks would make of them (float, Fortran order): skipping
        # the checks halves the cost of a fit on a few hundred rows, with the same coefficients.
        coefficients += model.fit(np.asfortranarray(x[sample]), y[sample], check_input=False).coef_
    return _profile(coefficients / replicas)


def _max_ranks(values: np.ndarray) -> np.ndarray:
    """rank[i] = #{k: values_k <= values_i}: ties share the highest rank, as the empirical CDF counts."""
    return np.searchsorted(np.sort(values), values, side="right")


def signed_schweizer_wolff(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Paper 002 Sec. 3.1, SSW(X, Y) = sign(X, Y) * SWD(X, Y) for each column X of ``x`` (N x P), with
    the empirical copula C(u_i, v_j) = #{k: x_k <= x_i, y_k <= y_j} / N and the Frechet-Hoeffding
    bounds for the sign.

    O(N^2) per feature, for all features at once: with the tasks sorted by x, a cumulative sum of
    "y_k <= y_j" down the sorted tasks gives C for every pair. Task i's row is the one at its rank
    #{k: x_k <= x_i} (ties share the highest), so the sums over i weight each row by its tasks."""
    n, features = x.shape
    v = _max_ranks(y) / n  # F_Y(y_j)
    order = np.argsort(x, axis=0, kind="stable").T  # P x N: the tasks sorted by each feature
    copula = (v[order][:, :, None] <= v).cumsum(axis=1, dtype=np.int32) / n  # P x N x N: C at (row, j)
    rows = np.stack([np.bincount(_max_ranks(x[:, p]) - 1, minlength=n) for p in range(features)]).astype(float)
    u = np.arange(1, n + 1) / n  # F_X of the tasks whose rank is the row's

    def pair_sum(values: np.ndarray) -> np.ndarray:
        """Sum over all pairs (i, j) of values given per (row, j): P x N x N, or N x N for every feature."""
        return (rows[:, None, :] @ values).sum(axis=(1, 2))
    swd = 12.0 / (n * n - 1) * pair_sum(np.abs(copula - np.outer(u, v)))
    total = pair_sum(copula)
    l1 = (pair_sum(np.minimum.outer(u, v)) - total) / (n * n)
    l2 = (total - pair_sum(np.maximum(np.add.outer(u, v) - 1, 0))) / (n * n)
    sign = np.where(l1 - l2 > SIGN_EPSILON, -1.0, np.where(l2 - l1 > SIGN_EPSILON, 1.0, 0.0))
    return sign * np.minimum(swd, 1.0)


def dependence_profile(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Dependence profile: SSW of each feature with the duration."""
    return _profile(signed_schweizer_wolff(x, y))


def ipw_effect(treated: np.ndarray, response: np.ndarray, propensity: np.ndarray) -> float:
    """Paper 002 Sec. 3.1, Delta = E[Z R / e(X)] - E[(1 - Z) R / (1 - e(X))]."""
    return float(np.mean(treated * response / propensity) - np.mean((1 - treated) * response / (1 - propensity)))


def causal_profile(x: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    """Causal profile: per feature, the IPW effect on duration (in stage medians) of the feature being
    above its stage median, with boosted propensity scores from the other features (paper 002
    Algorithm 2; scikit-learn's histogram gradient boosting in place of AdaBoost).

    A boosted model per feature is most of Hound's time, so only the BOOSTED features whose
    unadjusted effect is largest get one; the others keep their unadjusted effect, which is the IPW
    effect with the treated share as everyone's propensity."""
    response = y / np.median(y)
    treated = (x > np.median(x, axis=0)).astype(float)
    share = treated.mean(axis=0)
    varies = (share > 0) & (share < 1)  # else no task differs from the median: no treatment to compare
    effects = np.zeros(x.shape[1])
    for p in np.flatnonzero(varies):
        effects[p] = ipw_effect(treated[:, p], response, np.full(len(y), share[p]))
    for p in np.argsort(-np.abs(effects), kind="stable")[:BOOSTED]:
        if not varies[p]:
            continue
        others = np.delete(x, p, axis=1)
        model = HistGradientBoostingClassifier(max_iter=20, learning_rate=0.25, max_depth=2, early_stopping=False,
                                               random_state=seed)
        propensity = model.fit(others, treated[:, p]).predict_proba(others)[:, 1]
        effects[p] = ipw_effect(treated[:, p], response, np.clip(propensity, PROPENSITY_CLIP, 1 - PROPENSITY_CLIP))
    return _profile(effects)


def learning_sample(stage: pd.DataFrame, seed: int) -> pd.DataFrame:
    """At most SAMPLE tasks: random stragglers (up to half the sample), the rest random normal tasks,
    so that rare stragglers are not sampled away. Seeded by the stage key: a run is repeatable."""
    if len(stage) <= SAMPLE:
        return stage
    slow, normal = stage[stage["straggler"]], stage[~stage["straggler"]]
    slow = slow.sample(min(len(slow), SAMPLE // 2), random_state=seed)
    return pd.concat([slow, normal.sample(SAMPLE - len(slow), random_state=seed)])


#: The features that are amounts of data (bytes), for NEAR_CONSTANT.
BYTE_FEATURES = ("read_bytes", "written_bytes", "result_bytes", "output_bytes", "spill_bytes", "shuffle_read_bytes")


def informative(x: np.ndarray) -> np.ndarray:
    """Which columns of ``x`` (tasks x FEATURES) the learners take: those that vary over the stage's
    tasks, an amount of data only if its spread (max - min) is at least NEAR_CONSTANT x its median.

    A constant column gets 0 from every learner anyway (ElasticNet on standardized features, SSW,
    and no task above the median for IPW), so leaving it out changes no profile and saves its cost.
    A near-constant amount cannot make a straggler: were a task's time in proportion to it, 10 %
    more data would make it 10 % slower, where a straggler is 1.5 x the median (the expert's
    what-if scales an amount the same way). Yet when it happens to differ on the stragglers alone
    (a fresh executor's first task returns a result some bytes larger: Spark's result carries the
    task's metric and accumulator updates), the learners cannot tell it from the real cause, which
    ranks the tasks the same, and give both the same weight (docs/model.md "Near-constant amounts")."""
    spread = x.max(axis=0) - x.min(axis=0)
    amount = np.isin(np.array(FEATURES), BYTE_FEATURES)
    return (spread > 0) & ~(amount & (spread < NEAR_CONSTANT * np.abs(np.median(x, axis=0))))


def learn(x: np.ndarray, y: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """The three base learners' causality profiles (paper 002 Sec. 3.1) from a stage's features ``x``
    and durations ``y``; the columns not ``informative`` get 0."""
    kept = informative(x)
    profiles = {"predictive": bagged_elasticnet, "dependence": lambda x, y, _: dependence_profile(x, y),
                "causal": causal_profile}
    out = {}
    for name, learner in profiles.items():
        out[name] = np.zeros(x.shape[1])
        if kept.any():
            out[name][kept] = learner(x[:, kept], y, seed)
    return out


def learning_input(stage: pd.DataFrame, stage_key: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(features, durations, seed) that one stage attempt's successful tasks are learned from."""
    seed = zlib.crc32(stage_key.encode())
    stage = learning_sample(stage, seed)
    return at_processor_rate(stage[list(FEATURES)]).to_numpy(dtype=float), stage["duration_s"].to_numpy(dtype=float), seed


#: Features measured as wall-clock time of work done on the executor's processor (see at_processor_rate).
ON_PROCESSOR = ("gc_s", "deserialize_s")


def at_processor_rate(features: pd.DataFrame) -> pd.DataFrame:
    """The learners' features, with the seconds of processor work in ON_PROCESSOR times the task's
    ``cpu_rate`` (where measured): the time that work would have taken had the task had a processor
    of its own. Spark measures GC and deserialization in wall-clock time, so on a throttled executor
    they stretch with its CPU wait, which paper 001 Sec. 5.2 counts as the CPU's blocked time: a
    consequence of the limited processor (``cpu_rate(-)``), not a cause of their own (docs/model.md
    "GC and deserialization at the processor's rate")."""
    rate = features["cpu_rate"].where(features["cpu_rate"] > 0, 1.0)
    return features.assign(**{column: features[column] * rate for column in ON_PROCESSOR})


def _one_thread() -> None:
    """A worker's start: one thread for NumPy and OpenMP, as ``analyse`` has (see there)."""
    threadpool_limits(1)


def worker_count(stages: int) -> int:
    """Worker processes for ``stages`` stages to learn: one per core the process may use (issue 11
    allows both cores), none (all in this process) below PARALLEL_STAGES stages a worker, as starting
    one costs seconds; none in a daemonic process (the web app's background computations), which
    may not start children."""
    if multiprocessing.current_process().daemon:
        return 0
    workers = min(len(os.sched_getaffinity(0)), stages // PARALLEL_STAGES)
    return workers if workers >= 2 else 0


def worker_pool(stages: int) -> contextlib.AbstractContextManager[Executor | None]:
    """A pool of ``worker_count(stages)`` processes, or None for none. Spawned, not forked: a worker
    holds only the stages' samples it is given, not the trace, and forking a process with threads (a
    load's) may deadlock; a script that calls ``analyse`` on that many stages must therefore guard
    its main code (``if __name__ == "__main__"``)."""
    workers = worker_count(stages)
    if not workers:
        return contextlib.nullcontext()
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_one_thread)


def map_jobs(pool: Executor | None, function, jobs: list[tuple]) -> list:
    """``function(*job)`` for each job, in ``pool`` if there is one, in order."""
    if pool is None:
        return [function(*job) for job in jobs]
    return list(pool.map(function, *zip(*jobs), chunksize=max(1, len(jobs) // 16)))


def agrees(causes: list[dict], expert_cause: str | None) -> bool | None:
    """Whether Hound's strongest cause is of the kind the expert baseline names clearly (None when
    the expert is not clear or Hound found no cause)."""
    if expert_cause is None or not causes:
        return None
    return hound_expert.signed_kind(causes[0]["metric"], causes[0]["sign"])[0] == expert_cause


def expert_view(stage: pd.DataFrame, threshold: float, causes: list[dict]) -> dict:
    """The expert baseline's diagnosis of one stage, and whether Hound's strongest cause is of the
    kind the expert names."""
    diagnosis = hound_expert.diagnose(stage, threshold)
    diagnosis["agrees"] = agrees(causes, diagnosis["cause"])
    return diagnosis


def analyse(trace: Trace, threshold: float = DEFAULT_THRESHOLD, stage_key: str | None = None,
            learn_topics: bool = True) -> dict:
    """Stages with stragglers, slowdown and causes (the mean profile, strongest first), the expert
    baseline beside them, and (unless ``learn_topics`` is false) the ensemble topics over the stages
    with profiles, as plain data."""
    tasks = stragglers(task_features(trace), threshold)
    stages = trace.stages.set_index("stage_key")
    if stage_key is not None:
        if stage_key not in stages.index:
            raise ValueError(f"no stage {stage_key!r} in this analysis (keys look like APP/stage-ID.ATTEMPT)")
        tasks = tasks[tasks["stage_key"] == stage_key]
    # One thread: on a few hundred tasks, threads of the boosting (OpenMP) and of NumPy mostly wait
    # for each other, many times slower on a busy machine.
    with threadpool_limits(1):
        return _analyse_stages(tasks, stages, threshold, learn_topics)


def _analyse_stages(tasks: pd.DataFrame, stages: pd.DataFrame, threshold: float, learn_topics: bool) -> dict:
    """analyse for the successful tasks ``tasks`` of stages (``stages``: the trace's, by stage key)."""
    with_stragglers = [(key, stage) for key, stage in tasks.groupby("stage_key", sort=True) if stage["straggler"].any()]
    learned = [(key, stage) for key, stage in with_stragglers if len(stage) >= MIN_TASKS]
    with worker_pool(len(learned)) as pool:
        profiles = map_jobs(pool, learn, [learning_input(stage, key) for key, stage in learned])
        return workload(_entries(with_stragglers, stages, dict(zip([key for key, _ in learned], profiles)), threshold),
                        threshold, learn_topics, pool=pool)


def _entries(with_stragglers: list[tuple[str, pd.DataFrame]], stages: pd.DataFrame, profiles_of: dict,
             threshold: float) -> list[dict]:
    """The result's entry of each stage with stragglers, with its learners' profiles where learned."""
    result = []
    for key, stage in with_stragglers:
        slow = stage[stage["straggler"]]
        known = key in stages.index
        query = stages.at[key, "query_key"] if known else None
        entry = {"stage": key, "name": str(stages.at[key, "name"]) if known else "",
                 "query": query if isinstance(query, str) else "",
                 "tasks": len(stage), "stragglers": len(slow), "median_s": float(stage["median_s"].iloc[0]),
                 "slowdown_s": stage_slowdown(stage),
                 "straggler_hosts": {str(h): int(n) for h, n in slow["host"].value_counts().sort_index().items()},
                 "causes": [], "profiles": {}, "topics": []}
        if key in profiles_of:
            profiles = profiles_of[key]
            entry["profiles"] = {name: dict(zip(FEATURES, map(float, p))) for name, p in profiles.items()}
            entry["causes"] = stage_causes(list(profiles.values()))
        entry["expert"] = expert_view(stage, threshold, entry["causes"])
        result.append(entry)
    return result


def stage_causes(profiles: list[np.ndarray]) -> list[dict]:
    """A stage's causes, strongest first: the mean of the learners' profiles, for the features at
    least two learners find in the mean's direction (the ensemble's majority rule, paper 002 Sec. 2).
    A mean of learners that disagree (write_s at -0.12, +0.155 and 0) was listed as a small cause."""
    mean = np.mean(profiles, axis=0)
    agreed = (np.sign(profiles) == np.sign(mean)).sum(axis=0) >= 2
    return [{"metric": FEATURES[p], "sign": "+" if mean[p] > 0 else "-", "weight": float(abs(mean[p]))}
            for p in np.argsort(-np.abs(mean), kind="stable") if mean[p] != 0 and agreed[p]]


def workload(stages: list[dict], threshold: float, learn_topics: bool = True, stage_key: str | None = None,
             pool: Executor | None = None) -> dict:
    """The whole result from the stages' entries (as ``_analyse_stages`` makes them, or as the graph
    stores them): the expert agreement over them and, unless ``learn_topics`` is false, the ensemble
    topics over those with profiles and each one's topic mix. With ``stage_key``, only that stage is
    listed (the topics stay the workload's)."""
    learned = [entry for entry in stages if entry["profiles"]]
    found: list[dict] = []
    if learned and learn_topics:
        profiles = {name: np.array([[e["profiles"][name][f] for f in FEATURES] for e in learned]) for name in LEARNERS}
        with threadpool_limits(1), (contextlib.nullcontext(pool) if pool else worker_pool(len(learned))) as workers:
            found, mixtures = topics(profiles, FEATURES, lambda function, jobs: map_jobs(workers, function, jobs))
        for entry, mix in zip(learned, mixtures):
            entry["topics"] = [{"topic": int(i), "weight": float(mix[i])} for i in np.argsort(-mix, kind="stable") if mix[i] > 0]
    if stage_key is not None:
        stages = [entry for entry in stages if entry["stage"] == stage_key]
    stages = sorted(stages, key=lambda entry: natural_key(entry["stage"]))  # listed stage-2 before stage-11
    compared = [e["expert"]["agrees"] for e in stages if e["expert"]["agrees"] is not None]
    agreement = {"clear_stages": len(compared), "agreeing": sum(compared),
                 "share": sum(compared) / len(compared) if compared else None}
    return {"threshold": threshold, "stages": stages, "topics": found, "agreement": agreement}

"""The rows of the ProtoGraph's seven levels, from its Level-4 blame rows (paper 001 Sec. 4.1): the blame
added up toward the victim (L3 deep, L2 immediate, L1 victim stages, L0 victim queries) and gathered
toward the culprits (L5 culprit stages, L6 culprit queries), with the node keys that link them."""
from __future__ import annotations

import numpy as np
import pandas as pd

from protoxplore.loader.logs.trace import waiting_for_slot
from protoxplore.loader.model.blame import EXECUTORS_SOURCE, GC_SOURCE, UNKNOWN_SOURCE, ratp, slowdown
from protoxplore.loader.model.levels import BLAME, CULPRIT_QUERY, CULPRIT_STAGE, DEEP, IMMEDIATE, VICTIM_QUERY, VICTIM_STAGE
from protoxplore.loader.model.units import task_units
from protoxplore.loader.model.waits import REQUEST_BY_NAME, RESOURCES
from protoxplore.loader.model.windows import clip

SYNTHETIC = {GC_SOURCE: "known cause: JVM garbage collection pauses (paper 001 Sec. 5.1)",
             UNKNOWN_SOURCE: "blocked time that nothing in the trace explains: external processes, "
                             "hardware limits or tasks outside the loaded logs",
             EXECUTORS_SOURCE: "known cause: waiting for executors while the application had none its "
                               "stage could run on (start-up, dynamic allocation, resource profiles), or "
                               "for its executor to load the task (deserialization off the CPU)"}


def level_rows(trace, queries, stages, tasks, l4, served, victim_stage_keys, stage_query, measured, window,
               options) -> dict:
    """The seven levels from the blame rows ``l4`` (and ``served``: ``protograph._served`` of every
    request), one function per level (levels.LEVELS), from the blame rows down to the victim queries,
    then up to the culprit queries: the fields of a ``protograph.ProtoGraph``."""
    stage_rows = stages.set_index("stage_key")
    query_rows = queries.set_index("query_key")
    _link_blame(l4, stage_query)
    deep = _deep_explanations(l4)
    imm = _immediate_explanations(deep, served, sorted(victim_stage_keys & set(stage_query)), measured, stage_query)
    vst = _victim_stage_level(imm, stages, stage_rows, query_rows, stage_query, window)
    vq = _victim_query_level(trace, queries, stages, tasks, l4, vst, victim_stage_keys, stage_query, window)
    ran, stage_ran = np.ones(len(tasks), dtype=bool), np.ones(len(stages), dtype=bool)
    if window is not None:
        # A window's victims are the queries that ran in it (one that did not has nothing to explain
        # there, and was listed at 0 s), and its counts are of what ran in it.
        vq = vq[~((vq["end"] <= window[0]) | (vq["start"] >= window[1]))]
        vst, imm = vst[vst["victim_query"].isin(vq["query_key"])], imm[imm["victim_query"].isin(vq["query_key"])]
        deep, l4 = deep[deep["victim_query"].isin(vq["query_key"])], l4[l4["victim_query"].isin(vq["query_key"])]
        ran = ((tasks["finish"] > window[0]) & (tasks["launch"] < window[1])).to_numpy()
        stage_ran = ~((stages["complete"] <= window[0]) | (stages["submit"] >= window[1])).to_numpy()
    cs = _culprit_stage_level(l4, stage_rows, query_rows)
    cq = _culprit_query_level(cs, queries, query_rows)
    return dict(
        victim_queries=vq, victim_stages=vst, immediate=imm, deep=deep, blame=l4,
        culprit_stages=cs, culprit_queries=cq, hosts=_hosts(trace, tasks, ran, options.unit), measured=measured,
        not_measured=[r for r in RESOURCES if r not in measured],
        stats={"tasks": int((~waiting_for_slot(tasks) & ran).sum()), "stages": int(stage_ran.sum()),
               "queries": len(vq) if window is not None else len(queries), "apps": len(trace.apps),
               "window": list(window) if window else None})


def _link_blame(l4: pd.DataFrame, stage_query: dict) -> None:
    """Level 4: add to each blame row (``unit, victim_stage, culprit, request, blame_s``) the keys of
    the nodes it links, toward the victim (its deep and immediate explanation) and toward the culprit
    (its culprit stage and query). Its own key is made when it is written (:func:`blame_keys`)."""
    l4["victim_query"] = _per_distinct(l4, ["victim_stage"], lambda f: f["victim_stage"].map(stage_query))
    l4["resource"] = _per_distinct(l4, ["request"], lambda f: f["request"].map(lambda r: REQUEST_BY_NAME[r].resource))
    l4["is_synthetic"] = l4["culprit"].isin(list(SYNTHETIC)).to_numpy()
    l4["culprit_query"] = _per_distinct(l4, ["culprit"], lambda f: np.where(
        f["culprit"].isin(list(SYNTHETIC)), f["culprit"], f["culprit"].map(stage_query)))
    l4["self"] = _per_distinct(l4, ["victim_stage", "culprit"], lambda f: (
        f["culprit"].map(stage_query) == f["victim_stage"].map(stage_query)).to_numpy())
    l4["deep_key"] = _per_distinct(l4, ["victim_stage", "request", "unit"], _deep_keys)
    l4["immediate_key"] = _per_distinct(l4, ["victim_stage", "resource"],
                                        lambda f: IMMEDIATE.key(f["victim_stage"] + "/" + f["resource"]))
    l4["culprit_key"] = _per_distinct(l4, ["culprit", "is_synthetic"], lambda f: CULPRIT_STAGE.key(
        np.where(f["is_synthetic"], "synthetic/" + f["culprit"], f["culprit"])))
    l4["culprit_query_key"] = _per_distinct(l4, ["culprit_query"], lambda f: CULPRIT_QUERY.key(f["culprit_query"]))


def _deep_keys(rows: pd.DataFrame) -> pd.Series:
    """Level 3 keys of rows ``victim_stage, request, unit``."""
    return DEEP.key(rows["victim_stage"] + "/" + rows["request"] + "@" + rows["unit"])


def blame_keys(rows: pd.DataFrame) -> pd.Series:
    """Level 4 keys of blame rows (the deep explanation's and the culprit stage): made by the writer
    one batch at a time, since a dense workload's 2 M distinct keys held at once were 250 MB."""
    rows = _plain(rows[["victim_stage", "request", "unit", "culprit"]])
    return BLAME.key(rows["victim_stage"] + "/" + rows["request"] + "@" + rows["unit"] + "<-" + rows["culprit"])


def _deep_explanations(l4: pd.DataFrame) -> pd.DataFrame:
    """Level 3: one node per victim stage, request and unit, the sum of its blame rows, with the
    stage's RATP and slowdown there (paper 001 Eq. 4, 7)."""
    deep = _plain(l4.groupby("deep_key", as_index=False).agg(
        victim_stage=("victim_stage", "first"), victim_query=("victim_query", "first"), request=("request", "first"),
        resource=("resource", "first"), unit=("unit", "first"), blame_s=("blame_s", "sum"),
        amount=("amount", "first"), service_s=("service_s", "first"), toward_victim=("immediate_key", "first")))
    deep = deep.rename(columns={"deep_key": "key"})
    deep["ratp"] = ratp(deep["blame_s"], deep["amount"])  # RATP-blocked of the victim stage (paper 001 Eq. 7)
    deep["slowdown"] = slowdown(deep["blame_s"], deep["service_s"])
    return deep


def _immediate_explanations(deep: pd.DataFrame, served: pd.DataFrame, victim_stages: list[str], measured: list[str],
                            stage_query: dict) -> pd.DataFrame:
    """Level 2: every measured resource of every victim stage (zero when it never waited): the sum
    of its deep explanations' blame, and the service time of all its tasks' amounts on the resource
    (on every host, blocked there or not: paper 001 Eq. 3-4 take the victim's whole amount)."""
    grid = pd.MultiIndex.from_product([victim_stages, measured], names=["victim_stage", "resource"]).to_frame(index=False)
    service = served.assign(resource=served["request"].map(lambda r: REQUEST_BY_NAME[r].resource)).groupby(
        ["victim_stage", "resource"], as_index=False)["service_s"].sum(min_count=1)
    imm = grid.merge(deep.groupby(["victim_stage", "resource"], as_index=False)["blame_s"].sum(),
                     on=["victim_stage", "resource"], how="left").fillna({"blame_s": 0.0})
    imm = imm.merge(service, on=["victim_stage", "resource"], how="left")
    imm["slowdown"] = slowdown(imm["blame_s"], imm["service_s"])
    imm["key"] = IMMEDIATE.key(imm["victim_stage"] + "/" + imm["resource"])
    imm["victim_query"] = imm["victim_stage"].map(stage_query)
    imm["toward_victim"] = VICTIM_STAGE.key(imm["victim_stage"])
    return imm


def _victim_stage_level(imm, stages, stage_rows, query_rows, stage_query, window) -> pd.DataFrame:
    """Level 1: the victim stages, the sum of their immediate explanations."""
    vst = imm.groupby("victim_stage", as_index=False)["blame_s"].sum()
    vst["key"] = VICTIM_STAGE.key(vst["victim_stage"])
    vst["victim_query"] = vst["victim_stage"].map(stage_query)
    vst["toward_victim"] = VICTIM_QUERY.key(vst["victim_query"])
    vst["stage_id"] = vst["victim_stage"].map(stage_rows["stage_id"]).astype(int)
    vst["name"] = vst["victim_query"].map(query_rows["name"]) + " stage " + vst["stage_id"].astype(str)
    vst["stage_name"] = vst["victim_stage"].map(stage_rows["name"])
    vst["runtime_s"] = _span(vst["victim_stage"].map(stage_rows["submit"]), vst["victim_stage"].map(stage_rows["complete"]),
                             window)
    vst["running"] = vst["victim_stage"].map(_running(stages, "stage_key"))
    return vst


def _victim_query_level(trace, queries, stages, tasks, l4, vst, victim_stage_keys, stage_query, window) -> pd.DataFrame:
    """Level 0: the victim queries, the sum of their victim stages, with their slowdown."""
    # Query runtime: SQL execution bounds where the log has them, else its stages' bounds.
    bounds = stages.groupby("query_key").agg(first=("submit", "min"), last=("complete", "max"))
    vq = queries.copy()
    vq["start"] = vq["start"].fillna(vq["query_key"].map(bounds["first"]))
    vq["end"] = vq["end"].fillna(vq["query_key"].map(bounds["last"]))
    vq["blame_s"] = vq["query_key"].map(vst.groupby("victim_query")["blame_s"].sum()).fillna(0.0)
    vq = vq[vq["query_key"].isin(set(vst["victim_query"]))].copy()
    vq["key"] = VICTIM_QUERY.key(vq["query_key"])
    vq["runtime_s"] = _span(vq["start"], vq["end"], window)  # inside a window, the part in it
    # Task time on the victim stages (queue wait + run), and the part of it other queries, JVM GC
    # and Unknown causes blocked: the query's slowdown against running alone (docs/model.md).
    vt = tasks[tasks["stage_key"].isin(victim_stage_keys)]
    s, e = clip(vt["launch"].to_numpy(), vt["finish"].to_numpy(), window)
    busy = pd.Series(e - s, index=vt.index).groupby(vt["stage_key"].map(stage_query)).sum()
    slot_wait = _plain_index(l4[l4["request"] == "slots"].groupby("victim_query")["blame_s"].sum())
    vq["task_time_s"] = vq["query_key"].map(busy).fillna(0.0) + vq["query_key"].map(slot_wait).fillna(0.0)
    vq["own_s"] = vq["query_key"].map(_plain_index(l4[l4["self"]].groupby("victim_query")["blame_s"].sum())).fillna(0.0)
    vq["slowdown"] = query_slowdown(vq["task_time_s"], vq["blame_s"] - vq["own_s"])
    apps = trace.apps.set_index("app_key")
    vq["app_name"] = vq["app_key"].map(apps["name"])
    # PySpark: its tasks' Python time is not in the JVM's CPU time (a trace saved before it was read: not known)
    vq["python"] = vq["app_key"].map(apps["python"]).fillna(False).astype(bool) if "python" in apps else False
    # A query of a running application that has not ended: a victim so far, its times up to the last event.
    vq["running"] = vq["query_key"].map(_running(queries, "query_key"))
    return vq


def _culprit_stage_level(l4, stage_rows, query_rows) -> pd.DataFrame:
    """Level 5, shared by all victims of the analysis: the stages blamed, and the synthetic sources."""
    real = l4[~l4["is_synthetic"]]
    cs = _plain(real.drop_duplicates("culprit_key")[["culprit_key", "culprit", "culprit_query"]]).rename(
        columns={"culprit_key": "key", "culprit": "stage_key", "culprit_query": "query_key"})
    cs["stage_id"] = cs["stage_key"].map(stage_rows["stage_id"]).astype(int)
    cs["name"] = cs["query_key"].map(query_rows["name"]) + " stage " + cs["stage_id"].astype(str)
    cs["stage_name"] = cs["stage_key"].map(stage_rows["name"])
    cs["running"] = cs["stage_key"].map(_running(stage_rows.reset_index(), "stage_key"))
    cs["synthetic"] = False
    syn = _plain(l4[l4["is_synthetic"]].drop_duplicates("culprit_key")[["culprit_key", "culprit"]])
    cs = pd.concat([cs, pd.DataFrame({"key": syn["culprit_key"], "stage_key": syn["culprit"], "query_key": syn["culprit"],
                                      "stage_id": -1, "name": syn["culprit"], "stage_name": syn["culprit"],
                                      "synthetic": True})], ignore_index=True)
    cs["running"] = cs["running"].fillna(False).astype(bool)  # a synthetic source never runs
    cs["toward_culprit"] = CULPRIT_QUERY.key(cs["query_key"])
    return cs


def _culprit_query_level(cs, queries, query_rows) -> pd.DataFrame:
    """Level 6, shared by all victims of the analysis: the queries of the culprit stages."""
    cq_keys = sorted(set(cs["query_key"]))
    cq = pd.DataFrame({"query_key": pd.Series(cq_keys, dtype=object)})
    cq["key"] = CULPRIT_QUERY.key(cq["query_key"])
    cq["synthetic"] = cq["query_key"].isin(list(SYNTHETIC))
    cq["name"] = np.where(cq["synthetic"], cq["query_key"], cq["query_key"].map(query_rows["name"]))
    cq["description"] = np.where(cq["synthetic"], cq["query_key"].map(SYNTHETIC),
                                 cq["query_key"].map(query_rows["description"]))
    cq["app_key"] = cq["query_key"].map(query_rows["app_key"])
    cq["running"] = cq["query_key"].map(_running(queries, "query_key")).fillna(False).astype(bool)
    return cq


def _hosts(trace, tasks, ran: np.ndarray, unit_option: str) -> pd.DataFrame:
    """The contention units, with their tasks (launched, and running inside the window: ``ran``) and
    memory peaks."""
    unit = "host" if unit_option == "host" else "executor_key"
    # The units the blame is on (:func:`task_units`): a unit of tasks still waiting for an executor too.
    hosts = pd.DataFrame({"name": task_units(tasks, unit_option), "tasks": ~waiting_for_slot(tasks) & ran})
    hosts = hosts.groupby("name")["tasks"].sum().reset_index()
    # Memory is context, not blame: the largest peak any executor of the host reported (NaN: not measured).
    peaks = trace.memory.groupby(unit)[["heap_bytes", "execution_bytes", "storage_bytes"]].max().astype(float)
    # Of the hosts' type: no host known for any peak (an application without executors yet) leaves a
    # float index, which pandas refuses to join on names.
    peaks.index = peaks.index.astype(hosts["name"].dtype)
    return hosts.join(peaks.add_prefix("peak_"), on="name")


def _per_distinct(frame: pd.DataFrame, columns: list[str], make) -> pd.Series:
    """``make(rows)`` for every row of ``frame``, computed once per distinct value of ``columns``, as
    a categorical when it makes strings (a dense workload's 2 M blame rows have 60 k deep keys,
    and a string per row was most of the loader's peak memory)."""
    # Each row's values as one integer (a categorical's codes, else factorized), its distinct values
    # numbered in order of first appearance, as drop_duplicates keeps them: a groupby cost 3x more.
    key = np.zeros(len(frame), dtype=np.int64)
    for column in columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            code, size = values.cat.codes.to_numpy(np.int64) + 1, len(values.cat.categories) + 1  # NaN: 0
        else:
            code, uniques = pd.factorize(values, use_na_sentinel=False)
            size = len(uniques)
        key = key * size + code
    codes, _ = pd.factorize(key)
    first = np.unique(codes, return_index=True)[1]
    distinct = _plain(frame[columns].iloc[first])  # only the columns ``make`` reads made plain
    made = pd.Series(make(distinct), index=distinct.index)
    if made.dtype.kind in "biuf":
        return pd.Series(made.to_numpy()[codes], index=frame.index)
    kinds = pd.Index(made.dropna().unique()).sort_values()
    return pd.Series(pd.Categorical.from_codes(kinds.get_indexer(made)[codes], categories=kinds), index=frame.index)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its categorical columns as plain strings (for the few rows of a level)."""
    kinds = {c: object for c, t in frame.dtypes.items() if isinstance(t, pd.CategoricalDtype)}
    return frame.astype(kinds).infer_objects() if kinds else frame


def _plain_index(series: pd.Series) -> pd.Series:
    """``series`` indexed by plain strings rather than a categorical index."""
    return series.set_axis(series.index.astype(object))


def _running(frame: pd.DataFrame, key: str) -> pd.Series:
    """Whether each row (by ``key``) is still running; False for traces saved before this was recorded."""
    flags = frame["running"] if "running" in frame else pd.Series(False, index=frame.index)
    return pd.Series(flags.fillna(False).astype(bool).to_numpy(), index=frame[key].to_numpy())


def query_slowdown(task_time_s, blocked_by_others_s):
    """Slowdown of a victim query against running alone: paper 001 Eq. 4 over its task time.

    Our definition for the query as a whole: its critical-path task time (slot wait + run) is
    the time it took, and that time less the blocked seconds caused by anything but its own other
    tasks (other queries, JVM GC, Executors, Unknown) is what it would have taken unblocked, so
    ``S = blocked / (task time - blocked)``: 0 for a query nothing slowed, 6 for paper 001
    Example 3.3. NaN where it was blocked for all its task time (no estimate).
    """
    blocked = np.asarray(blocked_by_others_s, dtype=float)
    return slowdown(blocked, np.asarray(task_time_s, dtype=float) - blocked)


def _span(start: pd.Series, end: pd.Series, window) -> pd.Series:
    """Seconds from ``start`` to ``end``, counting only the part inside ``window``."""
    s, e = clip(start.to_numpy(), end.to_numpy(), window)
    return pd.Series(np.clip(e - s, 0, None), index=start.index)

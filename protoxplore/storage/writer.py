"""Write one analysis (a ProtoGraph) into the graph store, all or nothing.

The analysis is begun as 'loading', written level by level in UNWIND batches, given its IF and
DOR by the stored procedures of ``cypher/``, published, and saved. Readers see published analyses
only; a failed write is deleted again, and one killed mid-way is removed by the next command
(``lifecycle``), so nothing half-written is ever visible.
"""
from __future__ import annotations

from concurrent.futures import Future
from typing import Callable

import numpy as np
import pandas as pd

from protoxplore.loader.model.level_rows import blame_keys
from protoxplore.loader.model.levels import VICTIM_QUERY, host_uid, resource_uid, straggler_uid, uid
from protoxplore.loader.model.protograph import ProtoGraph
from protoxplore.loader.model.waits import RESOURCES
from protoxplore.loader.stragglers.expert import SKEWED_AMOUNTS, signed_kind
from protoxplore.storage import lifecycle

Progress = Callable[[str], None]


#: The fields of a Level-3 row and of a Level-4 row of ``write_deep_and_blame``, in the order of its
#: lists (the file names them in this order), each from the frame column it is read from.
DEEP_FIELDS = {"uid": "uid", "key": "key", "toward_victim": "toward_victim_uid", "victim": "victim", "host": "host",
               "host_uid": "host_uid", "resource": "resource", "request": "request", "ratp": "ratp",
               "amount": "amount", "service_s": "service_s", "slowdown": "slowdown", "blame_s": "blame_s"}
BLAME_FIELDS = {"uid": "uid", "key": "key", "culprit": "culprit_uid", "self": "self", "blame_s": "blame_s"}


def records(frame: pd.DataFrame, columns: dict[str, str]) -> list[dict]:
    """Rows for a write file: ``columns`` maps the file's field names to frame columns."""
    names = list(columns)
    return [dict(zip(names, row)) for row in row_lists(frame, columns)]


def row_lists(frame: pd.DataFrame, columns: dict[str, str]) -> list[list]:
    """Rows as lists of the values of ``columns`` (a write file's fields, in its order).

    NaN and infinite values (a RATP with nothing acquired) become null: neither engine stores them.
    """
    lists = []
    for column in columns.values():
        values = frame[column]
        if values.dtype.kind in "iub":
            lists.append(values.tolist())  # column-wise: ~3x faster than DataFrame.to_dict on 100k rows
            continue
        # NumPy, not pandas' astype and where: a third of a live window's rows' making
        if values.dtype.kind == "f":
            array = values.to_numpy(float)
            missing = ~np.isfinite(array)
        else:  # strings and objects: missing is NaN, null for the engines
            array = values.to_numpy(object)
            missing = pd.isna(array)
        column_list = array.tolist()
        for at in np.flatnonzero(missing).tolist():
            column_list[at] = None
        lists.append(column_list)
    return [list(row) for row in zip(*lists)]


def write_analysis(store, graph: ProtoGraph, analysis: str, meta: dict, progress: Progress | None = None,
                   stragglers: Future | None = None, save: bool = True) -> int:
    """Write ``graph`` as ``analysis`` (and ``stragglers``, the future of ``hound.analyse``'s result,
    when given: it is awaited once the levels are written, so Hound can run meanwhile);
    return the number of ProtoGraph nodes written. Saves the store after publishing unless ``save``
    is false (the caller saves once it has written what goes with it).

    The caller holds ``locks.writing(home, analysis)``: no other process writes this id meanwhile.
    """
    say = progress or (lambda _msg: None)
    meta = dict(meta)
    apps = meta.pop("_apps", [])
    writer = lifecycle.begin(store, analysis, meta, say)
    try:
        _write_entities(store, graph, analysis, apps)

        def batches(name: str, frame: pd.DataFrame, columns: dict[str, str]) -> None:
            store.write_batches(name, records(frame, columns), {"analysis": analysis},
                                progress=lambda done, total: say(f"  {name}: {done}/{total} rows"))

        for write_level in (_victim_queries, _victim_stages, _immediate, _culprit_queries, _culprit_stages):
            batches(*write_level(graph, analysis))
        _write_deep_and_blame(store, graph, analysis, say)
        if stragglers is not None:
            write_stragglers(store, analysis, stragglers.result())

        say("computing impact factors and degrees of responsibility in the database")
        store.run("compute_impact_and_dor", {"analysis": analysis})
        store.run("overview_totals", {"analysis": analysis})
        lifecycle.publish(store, analysis, writer)
    except BaseException:
        say(f"removing the unfinished analysis {analysis}")
        lifecycle.delete(store, analysis)
        raise
    if save:
        store.save()
    return graph.node_count()


def _write_entities(store, graph: ProtoGraph, analysis: str, apps: list[dict]) -> None:
    """The hosts, resources and applications that the levels link to."""
    hosts = graph.hosts.assign(uid=lambda f: host_uid(analysis, f["name"].astype(str)))
    resources = pd.DataFrame({"name": list(RESOURCES)})
    resources["uid"] = resource_uid(analysis, resources["name"])
    resources["measured"] = resources["name"].isin(graph.measured)
    store.run("write_entities", {
        "analysis": analysis,
        "hosts": records(hosts, {"uid": "uid", "name": "name", "tasks": "tasks", "peak_heap_bytes": "peak_heap_bytes",
                                 "peak_execution_bytes": "peak_execution_bytes",
                                 "peak_storage_bytes": "peak_storage_bytes"}),
        "resources": records(resources, {"uid": "uid", "name": "name", "measured": "measured"}),
        "apps": apps,
    }, write=True)


def _victim_uid(analysis: str):
    return lambda f: uid(analysis, VICTIM_QUERY.key(f["victim_query"]))


def _victim_queries(graph: ProtoGraph, analysis: str) -> tuple[str, pd.DataFrame, dict[str, str]]:
    """Level 0: the write file, the rows and their fields (as :func:`records` takes them)."""
    return "write_victim_queries", graph.victim_queries.assign(uid=lambda f: uid(analysis, f["key"])), {
        "uid": "uid", "key": "key", "query_key": "query_key", "name": "name", "description": "description",
        "app": "app_key", "app_name": "app_name", "kind": "kind", "pool": "pool", "start_time": "start",
        "end_time": "end", "runtime_s": "runtime_s", "blame_s": "blame_s", "task_time_s": "task_time_s",
        "own_s": "own_s", "slowdown": "slowdown", "running": "running", "python": "python"}


def _victim_stages(graph: ProtoGraph, analysis: str) -> tuple[str, pd.DataFrame, dict[str, str]]:
    """Level 1, linked to its victim query."""
    vs = graph.victim_stages.assign(uid=lambda f: uid(analysis, f["key"]),
                                    toward_victim_uid=lambda f: uid(analysis, f["toward_victim"]),
                                    victim=_victim_uid(analysis))
    return "write_victim_stages", vs, {
        "uid": "uid", "key": "key", "toward_victim": "toward_victim_uid", "victim": "victim", "stage_key": "victim_stage",
        "stage_id": "stage_id", "name": "name", "stage_name": "stage_name", "runtime_s": "runtime_s",
        "blame_s": "blame_s", "running": "running"}


def _immediate(graph: ProtoGraph, analysis: str) -> tuple[str, pd.DataFrame, dict[str, str]]:
    """Level 2, linked to its victim stage and its resource."""
    stage_names = graph.victim_stages.set_index("victim_stage")["name"]
    ie = graph.immediate.assign(uid=lambda f: uid(analysis, f["key"]),
                                toward_victim_uid=lambda f: uid(analysis, f["toward_victim"]), victim=_victim_uid(analysis),
                                resource_uid=lambda f: resource_uid(analysis, f["resource"]),
                                name=lambda f: f["resource"] + " of " + f["victim_stage"].map(stage_names))
    return "write_immediate", ie, {
        "uid": "uid", "key": "key", "toward_victim": "toward_victim_uid", "victim": "victim",
        "resource_uid": "resource_uid",
        "resource": "resource", "name": "name", "blame_s": "blame_s", "service_s": "service_s",
        "slowdown": "slowdown"}


def _culprit_queries(graph: ProtoGraph, analysis: str) -> tuple[str, pd.DataFrame, dict[str, str]]:
    """Level 6, with the blame seconds its stages caused."""
    blame_by_query = graph.blame.groupby("culprit_query_key")["blame_s"].sum()
    cq = graph.culprit_queries.assign(uid=lambda f: uid(analysis, f["key"]),
                                      blame_s=lambda f: f["key"].map(blame_by_query).fillna(0.0))
    return "write_culprit_queries", cq, {
        "uid": "uid", "key": "key", "query_key": "query_key", "name": "name", "description": "description",
        "app": "app_key", "synthetic": "synthetic", "blame_s": "blame_s", "running": "running"}


def _culprit_stages(graph: ProtoGraph, analysis: str) -> tuple[str, pd.DataFrame, dict[str, str]]:
    """Level 5, linked to its culprit query, with the blame seconds it caused."""
    blame_by_culprit = graph.blame.groupby("culprit_key")["blame_s"].sum()
    cs = graph.culprit_stages.assign(uid=lambda f: uid(analysis, f["key"]),
                                     toward_culprit=lambda f: uid(analysis, f["toward_culprit"]),
                                     blame_s=lambda f: f["key"].map(blame_by_culprit).fillna(0.0))
    return "write_culprit_stages", cs, {
        "uid": "uid", "key": "key", "toward_culprit": "toward_culprit", "query_key": "query_key", "stage_key": "stage_key",
        "stage_id": "stage_id", "name": "name", "stage_name": "stage_name", "synthetic": "synthetic",
        "blame_s": "blame_s", "running": "running"}


def _write_deep_and_blame(store, graph: ProtoGraph, analysis: str, say: Progress) -> None:
    """Levels 3 and 4 together: each deep explanation carries the blame explanations under it (the
    Cypher makes their names). Rows, and the blame keys and uids, are made one batch at a time: a
    dense workload's 2 M blame rows as dicts at once were over 1 GB."""
    de = graph.deep.assign(host=lambda f: f["unit"].astype(str))
    under = graph.blame.groupby("deep_key", sort=False).indices  # deep key -> its blame rows, in order
    no_rows = np.empty(0, dtype=np.intp)
    for start in range(0, len(de), store.batch_size):
        chunk = de.iloc[start:start + store.batch_size]
        chunk = chunk.assign(uid=uid(analysis, chunk["key"]), toward_victim_uid=uid(analysis, chunk["toward_victim"]),
                             victim=uid(analysis, VICTIM_QUERY.key(chunk["victim_query"])),
                             host_uid=host_uid(analysis, chunk["host"]))
        deep_rows = row_lists(chunk, DEEP_FIELDS)
        spans = [under.get(key, no_rows) for key in chunk["key"].tolist()]
        blame = graph.blame.iloc[np.concatenate([no_rows, *spans])]
        keys = blame_keys(blame)
        blame = blame.assign(key=keys, uid=uid(analysis, keys),
                             culprit_uid=uid(analysis, blame["culprit_key"].astype(str)))
        blame_rows = row_lists(blame, BLAME_FIELDS)
        ends = np.cumsum([len(span) for span in spans])
        for row, end, span in zip(deep_rows, ends, spans):
            row.append(blame_rows[end - len(span):end])
        store.write_batches("write_deep_and_blame", deep_rows, {"analysis": analysis})
        say(f"  write_deep_and_blame: {start + len(deep_rows)}/{len(de)} rows")


def write_stragglers(store, analysis: str, result: dict) -> None:
    """Hound's stages with stragglers, linked from their causes (signed features, weighted) and to
    the hosts their stragglers ran on (schema/README.md)."""
    def cause_uid(cause: dict) -> str:
        return straggler_uid(analysis, "straggler-cause", f"{cause['metric']}({cause['sign']})")

    causes = {cause_uid(c): c for s in result["stages"] for c in s["causes"]}
    cause_rows = [{"uid": uid, "name": f"{c['metric']}({c['sign']})", "metric": c["metric"], "sign": c["sign"],
                   **dict(zip(("cause", "direction"), signed_kind(c["metric"], c["sign"]))),
                   "skew": c["metric"] in SKEWED_AMOUNTS and c["sign"] == "+"}
                  for uid, c in sorted(causes.items())]
    def profiles(stage: dict) -> dict:
        """The learners' profiles as lists in the order of ``features`` (null when not learned)."""
        learned = stage["profiles"]
        features = list(next(iter(learned.values()))) if learned else None
        return {"features": features, **{learner: [profile[f] for f in features] if features else None
                                         for learner, profile in learned.items()}}

    stage_rows = [{"uid": straggler_uid(analysis, "straggler-stage", s["stage"]), "stage_key": s["stage"], "name": s["name"],
                   "query_key": s["query"], "tasks": s["tasks"], "stragglers": s["stragglers"], "median_s": s["median_s"],
                   "slowdown_s": s["slowdown_s"], "expert_cause": s["expert"]["cause"],
                   "expert_metrics": [c["metric"] for c in s["expert"]["causes"]] or None,
                   "expert_shares": [c["share"] for c in s["expert"]["causes"]] or None,
                   "predictive": None, "dependence": None, "causal": None, **profiles(s),
                   "causes": [{"uid": cause_uid(c), "weight": c["weight"]} for c in s["causes"]],
                   "hosts": [{"uid": host_uid(analysis, host), "stragglers": n} for host, n in s["straggler_hosts"].items()]}
                  for s in result["stages"]]
    store.write_batches("write_straggler_causes", cause_rows, {"analysis": analysis})
    store.write_batches("write_straggler_stages", stage_rows, {"analysis": analysis})

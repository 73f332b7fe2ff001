"""A prototype of 13.1's in-place window update, measured and checked (not how the watch works
today; docs/benchmarks.md, "What a pass changes"): the paper-scale workload cut as two passes of
``protoxplore watch --last 5`` see it (``--at``, ``--gap``), the first pass's window written whole,
then brought to the second pass's ProtoGraph by applying only what changed, per level and by key:
numbers set by node id, nodes gone deleted, new ones written by the write files of ``cypher/``
(a deep explanation whose blame nodes changed as a set is written again with them), then IF and DOR
computed again. Printed: the CPU of this process and of the FalkorDB server for that, against
writing the second window whole and deleting the first, and whether the updated window equals the
second one written whole, node by node and edge by edge (keys, labels, properties; ids aside).
Run: python bench/live_inplace_apply.py [--at 0.9] [--gap 2]
"""
from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_inplace import arguments, store_with_total, two_passes, write_window  # noqa: E402

from protoxplore.loader.model.level_rows import blame_keys  # noqa: E402
from protoxplore.loader.model.levels import VICTIM_QUERY, host_uid, uid  # noqa: E402
from protoxplore.storage import lifecycle, writer  # noqa: E402

#: Per level above Level 3: its write function of ``writer`` and the fields that only link it.
SMALL_LEVELS = {0: (writer._victim_queries, ()), 1: (writer._victim_stages, ("toward_victim",)),
                2: (writer._immediate, ("toward_victim", "resource_uid")), 6: (writer._culprit_queries, ()),
                5: (writer._culprit_stages, ("toward_culprit",))}
DEEP_NUMBERS = ("ratp", "amount", "service_s", "slowdown", "blame_s")  # the rest follows from the key
SET_BY_ID = ("UNWIND $rows AS r WITH r[0] AS at, r[1] AS values MATCH (n) WHERE id(n) = at AND n.analysis = $analysis "
             "SET n += values")
DELETE_BY_ID = "UNWIND $rows AS at MATCH (n) WHERE id(n) = at AND n.analysis = $analysis DETACH DELETE n"


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=0) or (a != a and b != b)
    return a == b


def small_rows(graph, analysis: str, level: int) -> tuple[str, dict[str, dict]]:
    """A level's write file and rows (by key) as the writer makes them."""
    make, _ = SMALL_LEVELS[level]
    name, frame, fields = make(graph, analysis)
    return name, {row["key"]: row for row in writer.records(frame, fields)}


def deep_rows(graph, analysis: str) -> dict[str, tuple[list, dict[str, list]]]:
    """Per deep key: its row as ``write_deep_and_blame`` takes it, and its blame rows by key."""
    de = graph.deep.assign(host=lambda f: f["unit"].astype(str))
    de = de.assign(uid=uid(analysis, de["key"]), toward_victim_uid=uid(analysis, de["toward_victim"]),
                   victim=uid(analysis, VICTIM_QUERY.key(de["victim_query"])), host_uid=host_uid(analysis, de["host"]))
    keys = blame_keys(graph.blame)
    blame = graph.blame.assign(key=keys, uid=uid(analysis, keys),
                               culprit_uid=uid(analysis, graph.blame["culprit_key"].astype(str)))
    under: dict[str, dict[str, list]] = {}
    for deep_key, row in zip(blame["deep_key"].astype(str), writer.row_lists(blame, writer.BLAME_FIELDS)):
        under.setdefault(deep_key, {})[row[1]] = row
    return {row[1]: (row, under.get(row[1], {})) for row in writer.row_lists(de, writer.DEEP_FIELDS)}


def apply_changes(store, analysis: str, before, after, ids: dict[str, int]) -> dict[str, int]:
    """Bring ``analysis`` (written from ``before``; ``ids``: its nodes' ids by key) to ``after``."""
    counts = {"set": 0, "deleted": 0, "written": 0}
    sets, gone = [], []
    for level in (0, 1, 2, 6, 5):  # parents before children: new nodes link to them
        name, old = small_rows(before, analysis, level)
        _, new = small_rows(after, analysis, level)
        links = SMALL_LEVELS[level][1]
        for key, row in new.items():
            if key in old and any(not same(row[f], old[key][f]) for f in row if f not in links):
                sets.append([ids[key], {f: v for f, v in row.items() if f not in links and f != "uid"}])
        gone += [ids[key] for key in old.keys() - new.keys()]
        fresh = [row for key, row in new.items() if key not in old]
        if fresh:
            store.write_batches(name, fresh, {"analysis": analysis})
            counts["written"] += len(fresh)
    old, new = deep_rows(before, analysis), deep_rows(after, analysis)
    index = {f: i for i, f in enumerate(writer.DEEP_FIELDS)}
    rewrite = []
    for key, (row, blame) in new.items():
        if key not in old:
            rewrite.append(row + [list(blame.values())])
            continue
        old_row, old_blame = old[key]
        if blame.keys() != old_blame.keys():  # written again, with its blame nodes
            gone += [ids[key], *(ids[k] for k in old_blame)]
            rewrite.append(row + [list(blame.values())])
            continue
        if any(not same(row[index[f]], old_row[index[f]]) for f in DEEP_NUMBERS):
            sets.append([ids[key], {f: row[index[f]] for f in DEEP_NUMBERS}])
        for k, b in blame.items():
            if not (same(b[3], old_blame[k][3]) and same(b[4], old_blame[k][4])):
                sets.append([ids[k], {"self": b[3], "blame_s": b[4]}])
    for key in old.keys() - new.keys():
        gone += [ids[key], *(ids[k] for k in old[key][1])]
    hosts_before = writer.records(before.hosts.assign(uid=lambda f: host_uid(analysis, f["name"].astype(str))),
                                  {"uid": "uid", "name": "name", "tasks": "tasks"})
    hosts_now = {r["name"]: r for r in writer.records(after.hosts.assign(uid=lambda f: host_uid(analysis, f["name"].astype(str))),
                                                      {"uid": "uid", "name": "name", "tasks": "tasks"})}
    assert {r["name"] for r in hosts_before} == set(hosts_now), "a host came or went: not in this prototype"
    store.run_text("UNWIND $rows AS r MATCH (h:Host {uid: r[0]}) SET h.tasks = r[1]",
                   {"rows": [[r["uid"], r["tasks"]] for r in hosts_now.values()]}, write=True)
    # Nulls leave a property unset when written, and remove it when set: the same node either way.
    store.run_text(SET_BY_ID, {"analysis": analysis, "rows": sets}, write=True)
    store.run_text(DELETE_BY_ID, {"analysis": analysis, "rows": gone}, write=True)
    if rewrite:
        store.write_batches("write_deep_and_blame", rewrite, {"analysis": analysis})
    # A host no deep explanation is on any more keeps the totals overview_totals set before: cleared.
    store.run_text("MATCH (h:Host {analysis: $analysis}) REMOVE h.impact, h.dor, h.blame_s, h.victims",
                   {"analysis": analysis}, write=True)
    store.run_text("MATCH (r:Resource {analysis: $analysis}) REMOVE r.impact, r.dor, r.blame_s, r.victims",
                   {"analysis": analysis}, write=True)
    for name in ("compute_impact_and_dor", "overview_totals"):
        store.run(name, {"analysis": analysis})
    counts.update(set=len(sets), deleted=len(gone), written=counts["written"] + len(rewrite)
                  + sum(len(r[-1]) for r in rewrite))
    return counts


def dump(store, analysis: str) -> tuple[dict, set]:
    """The analysis's nodes (by key and labels: their properties, without the analysis id) and edges."""
    def plain(props: dict) -> dict:
        return {k: (v.replace(analysis, "@") if isinstance(v, str) else v) for k, v in props.items() if k != "analysis"}

    nodes = {}
    for row in store.run_text("MATCH (n) WHERE n.analysis = $a RETURN labels(n) AS labels, properties(n) AS p", {"a": analysis}):
        p = plain(row["p"])
        nodes[(tuple(sorted(row["labels"])), p.get("key") or p.get("uid"))] = p
    edges = set()
    for row in store.run_text("MATCH (a)-[r]->(b) WHERE a.analysis = $a RETURN type(r) AS t, a.uid AS a, b.uid AS b, "
                              "properties(r) AS p", {"a": analysis}):
        p = plain(row["p"])
        edges.add((row["t"], row["a"].replace(analysis, "@"), (row["b"] or "").replace(analysis, "@"),
                   tuple(sorted((k, round(v, 9) if isinstance(v, float) else v) for k, v in p.items()))))
    return nodes, edges


def differences(a: tuple[dict, set], b: tuple[dict, set]) -> list[str]:
    out = [f"node only in one: {k}" for k in a[0].keys() ^ b[0].keys()]
    for k in a[0].keys() & b[0].keys():
        x, y = a[0][k], b[0][k]
        out += [f"{k} {f}: {x.get(f)!r} != {y.get(f)!r}" for f in x.keys() | y.keys() if not same_value(x.get(f), y.get(f))]
    out += [f"edge only in the updated: {e}" for e in list(a[1] - b[1])[:5]]
    out += [f"edge only in the fresh: {e}" for e in list(b[1] - a[1])[:5]]
    return out


def same_value(x, y) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    return x == y


def main() -> None:
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory(prefix="pxapply") as tmp:
        first, second, before, after = two_passes(args, Path(tmp))
        with store_with_total(Path(tmp), first) as (store, timed):
            write_window(store, "updated", first, before)
            write_window(store, "fresh", second, after)
            ids = timed("read the ids of the first window's nodes (once, after a whole write)", lambda: {
                r["key"]: r["id"] for r in store.run_text(
                    "MATCH (n:ProtoNode {analysis: 'updated'}) RETURN n.key AS key, id(n) AS id")})
            counts = timed("apply the second pass's changes to the first window",
                           lambda: apply_changes(store, "updated", before, after, ids))
            print(f"  {counts['set']} nodes set, {counts['deleted']} deleted, {counts['written']} written")
            timed("as a pass does now: write the second window whole", lambda: write_window(store, "whole", second, after))
            timed("as a pass does now: delete the first window", lambda: lifecycle.delete(store, "whole", save=False))
            found = differences(dump(store, "updated"), dump(store, "fresh"))
            print("the updated window equals the second one written whole" if not found else
                  f"the updated window differs from the second one written whole in {len(found)} places, "
                  f"such as:\n  " + "\n  ".join(found[:10]))


if __name__ == "__main__":
    main()

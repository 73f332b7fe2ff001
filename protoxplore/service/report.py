"""Explanations of one victim: the ProtoGraph read back level by level, as JSON and sentences.

The ProtoGraph is read through the Cypher files of ``cypher/``; the what-if and the other methods'
rankings (``whatif``, ``explain_baseline``) are computed from the saved trace.
"""
from __future__ import annotations

import functools

from protoxplore.errors import NotFound
from protoxplore.loader.model import baselines

# What the interfaces offer of this module's questions (re-exported: the pages and tables walk the
# levels, and ``explain --method`` ranks culprits by the ProtoGraph, the replay or a baseline).
from protoxplore.loader.model.baselines import METHODS as METHODS
from protoxplore.loader.model.baselines import RANKERS as RANKERS
from protoxplore.loader.model.baselines import SCORES as SCORES
from protoxplore.loader.model.blame import slowdown
from protoxplore.loader.model.levels import CULPRIT_QUERY
from protoxplore.loader.model.levels import LEVELS as LEVELS
from protoxplore.loader.model.levels import VICTIM_QUERY as VICTIM_QUERY
from protoxplore.loader.model.waits import RESOURCES
from protoxplore.loader.whatif import replay
from protoxplore.loader.whatif.simulation import Change
from protoxplore.service.catalog import analyses, is_window, live_status, saved_trace, victim_by_uid, whole_run_only
from protoxplore.show import seconds, short

#: Said of a PySpark query's CPU wait (docs/model.md, CPU): the JVM's CPU time leaves out its Python workers.
PYTHON_CPU = ("Its application runs Python (PySpark): time its tasks spent in Python workers (UDFs, pandas, "
              "sleeping) is not in the JVM's CPU time, so part of its CPU blocked time may be its own Python work, "
              "not waiting for a core.")

#: Why a running query gets no what-if: the replay needs the work of each of its tasks.
STILL_RUNNING = ("{name} is still running: a what-if replays the work of every task, and its tasks' work is not "
                 "known before they end; ask again once it has ended")

SYNTHETIC_HINT = {"JVM GC": "JVM garbage-collection pauses", "Unknown": "causes outside the loaded trace (Unknown)",
                  "Executors": "waiting for its application's executors (none it could run on, or one loading the task)"}


def explain(store, analysis: dict, victim: dict, top: int = 5, home=None) -> dict:
    """The explanation of one victim, with the fields the CLI's ``explain --json`` promises; given
    the data directory ``home`` (where the trace is saved), also what removing each of its top
    culprit queries would have saved (``whatif``, by counterfactual replay)."""
    a, v = analysis["id"], victim["uid"]
    row = victim_by_uid(store, a, v)
    measured = set(analysis.get("measured") or [])
    resources = [_with_slowdown(dict(r, measured=True)) for r in store.run("victim_resources", {"analysis": a, "victim": v})]
    resources += [{"resource": r, "dor": None, "blame_s": None, "service_s": None, "slowdown": None, "measured": False}
                  for r in RESOURCES if r not in measured]
    host_resources = store.run("victim_hosts", {"analysis": a, "victim": v})
    hosts: dict[str, dict] = {}
    for r in host_resources:
        h = hosts.setdefault(r["host"], {"host": r["host"], "dor": 0.0, "blame_s": 0.0, "resources": {}})
        h["dor"] += r["dor"]
        h["blame_s"] += r["blame_s"]
        h["resources"][r["resource"]] = r["blame_s"]
    report = {
        "analysis": {"id": a, "name": analysis.get("name"), "window": analysis.get("window"),
                     "live": live_status(analysis, analyses(store) if analysis.get("live") else None)},
        "method": "protograph",  # as the other methods' answers name theirs (explain --method)
        "victim": {"id": v, "name": row["name"], "description": row["description"], "app": row["app"],
                   "runtime_s": row["runtime_s"], "blocked_s": row["blocked_s"], "own_s": row["own_s"],
                   "slowdown": row["slowdown"], "running": row["running"], "python": row.get("python", False)},
        "resources": resources,
        "hosts": sorted(hosts.values(), key=lambda h: -h["dor"])[:top],
        "host_resources": host_resources,
    }
    # One row past ``top`` tells whether a level has more than it shows (``more``: the CLI says so).
    report["more"] = {"hosts": len(hosts) > top}  # host_resources: all of them (the CLI's text shows --top)
    for key, query in (("victim_stages", "victim_stages"), ("blame", "victim_blame"), ("culprit_stages", "victim_culprit_stages"),
                       ("culprit_queries", "victim_culprit_queries"), ("paths", "top_paths")):
        rows = store.run(query, {"analysis": a, "victim": v, "k": top + 1})
        # Level 6 lists the victim's own tasks last, even past k (victim_culprit_queries.cypher).
        ranked = [r for r in rows if not (key == "culprit_queries" and r.get("self"))]
        report[key] = ranked[:top] + [r for r in rows if r not in ranked]
        report["more"][key] = len(ranked) > top
    report["explanations"] = sentences(report)
    report["whatif"] = []
    if home is not None and not is_window(analysis) and not row["running"]:  # a replay needs its end
        report["whatif"] = without_top_culprits(analysis, row | {"query_key": victim["query_key"]},
                                                report["culprit_queries"][:3], home)
        report["explanations"] += report["whatif"]
    return report


def _with_slowdown(resource: dict) -> dict:
    """A Level-2 row with its slowdown (paper 001 Eq. 4); None where no capacity applies (SLOTS)."""
    value = slowdown(resource["blame_s"], resource["service_s"]) if resource["service_s"] is not None else float("nan")
    resource["slowdown"] = None if value != value else float(value)
    return resource


def _who(item: dict) -> str:
    if item.get("synthetic"):
        return SYNTHETIC_HINT.get(item["name"], item["name"])
    if item.get("self"):
        return f"its own other tasks ({item['name']}: intra-query contention)"
    desc = (item.get("description") or "").strip()
    return f"{item['name']}" + (f" (\"{short(desc, 70)}\")" if desc else "")


def sentences(report: dict) -> list[str]:
    """Plain sentences with numbers, level by level."""
    v = report["victim"]
    blocked = v["blocked_s"] or 0.0
    ran = (f"is still running: it has run {seconds(v['runtime_s'])} up to the last event, and so far" if v.get("running")
           else f"ran {seconds(v['runtime_s'])};")
    out = [f"{v['name']} (\"{short(v['description'], 80)}\") {ran} the tasks of its "
           f"critical path were blocked {seconds(blocked, 'task-seconds')} in all. {_slowdown_text(v)}"]
    if blocked <= 0:
        out.append("Nothing has blocked it so far." if v.get("running") else "It was never blocked: nothing slowed it down.")
        return out
    measured = [r for r in report["resources"] if r["measured"] and r["blame_s"]]
    if measured:
        out.append("Resources: " + ", ".join(
            f"{r['resource']} {seconds(r['blame_s'])} ({r['dor']:.0%}"
            + (f", slowdown {r['slowdown']:.2f}" if r.get("slowdown") is not None else "") + ")" for r in measured) + ".")
    missing = [r["resource"] for r in report["resources"] if not r["measured"]]
    if missing:
        out.append(f"Not measured in these logs: {', '.join(missing)}.")
    if v.get("python") and any(r["resource"] == "CPU" for r in measured):
        out.append(PYTHON_CPU)
    if report["hosts"]:
        h = report["hosts"][0]
        worst = max(h["resources"], key=h["resources"].get)
        out.append(f"Hosts: most of it on {h['host']} ({seconds(h['blame_s'])}, {h['dor']:.0%}), mainly {worst}.")
    # Its own tasks are no culprit, but may be most of the blocked time: said apart, never left out,
    # and before the culprits when they hold more than any of them.
    mine = [c for c in report["culprit_queries"] if c.get("self")]
    others = [c for c in report["culprit_queries"] if not c.get("self")]
    own = [f"Its own other tasks ({c['name']}: intra-query contention) caused {seconds(c['blame_s'])} ({c['dor']:.0%}) "
           "of the blocked time." for c in mine]
    first = bool(mine) and mine[0]["blame_s"] >= max((c["blame_s"] for c in others), default=0.0)
    out += own if first else []
    for rank, c in enumerate(others[:3], start=1):
        out.append(f"Culprit {rank}: {_who(c)} caused {seconds(c['blame_s'])} ({c['dor']:.0%}) of the blocked time.")
    out += [] if first else own
    for rank, p in enumerate(report["paths"][:3], start=1):
        own = " (its own other tasks)" if p["self"] else ""
        out.append(f"Path {rank} (weight {p['weight']:.3f}, {seconds(p['blame_s'])}): {p['culprit_query']}{own} -> "
                   f"{p['culprit_stage']} -> {p['request']} on {p['host']} -> {p['victim_stage']} -> {p['victim']}.")
    return out


def _slowdown_text(victim: dict) -> str:
    """The query's slowdown against running alone (``level_rows.query_slowdown``), in words."""
    s = victim.get("slowdown")
    if s is None:
        why = ("it was blocked for all of its task time" if (victim.get("blocked_s") or 0) > 0
               else "it has no task time yet" if victim.get("running") else "it has no task time here")
        return f"Its slowdown cannot be estimated: {why}."
    own = victim.get("own_s") or 0.0
    # "Alone" would be wrong where Unknown (waiting for executors, say) holds the blocked time.
    # Task-seconds, not wall time: a query's tasks run side by side, so "took 42.79x" of a 7.4 s job
    # would read as 0.17 s alone.
    text = (f"Slowdown {s:.2f} (paper 001 Eq. 4): the tasks of its critical path took {1 + s:.2f}x the "
            f"task-seconds (slot waits and runs) they would have taken unblocked (without the waits on other "
            f"queries, JVM GC, executors and Unknown causes)")
    return text + (f"; {seconds(own)} more were its own tasks competing with each other." if own > 0.05 else ".")


def explain_baseline(store, analysis: dict, victim: dict, method: str, home, top: int = 5) -> dict:
    """A ranking by another method (the baselines of paper 001 Sec. 6.1, or the counterfactual
    replay's predicted speedups) in the shape of ``explain``'s culprit_queries."""

    if method == "counterfactual":
        whole_run_only(analysis, "the counterfactual replay")
    trace, options = saved_trace(analysis, home)  # a window's options clip the overlaps to it
    scores = baselines.RANKERS[method](trace, victim["query_key"], options)
    scores = scores[scores > 0]  # a query that never ran beside the victim (naive overlap 0) is no culprit
    total = float(scores.sum())
    queries = trace.queries.set_index("query_key")
    items = [{"id": key, "name": queries.at[key, "name"], "description": queries.at[key, "description"],
              "dor": float(value) / total if total > 0 else 0.0, "blame_s": float(value), "synthetic": False,
              "self": False} for key, value in scores.head(top).items()]
    return {"analysis": {"id": analysis["id"], "name": analysis.get("name")}, "method": method,
            "score": baselines.SCORES[method][0],  # what blame_s holds: seconds of this method's score
            "victim": {"id": victim["uid"], "name": victim["name"], "description": victim["description"]},
            "culprit_queries": items}


def whatif(analysis: dict, victim: dict, home, remove=(), delay=(), pool=(), hints: bool = False) -> dict:
    """Predicted runtime of ``victim`` after a change (``replay``): queries (keys) removed, delayed
    ``(key, seconds)`` or moved ``(key, pool)``; with ``hints``, the best remedies for its top culprits."""

    if victim.get("running"):
        raise NotFound(STILL_RUNNING.format(name=victim["name"]))
    if victim["query_key"] in remove:
        raise ValueError(f"--remove {victim['name']}: that is the victim; a what-if predicts its runtime without others")
    model = replay_model(analysis, home)
    for key, _ in pool:  # a pool changes nothing under FIFO: say so rather than predict 0.0 s
        if not model.fair.get(model.queries.at[key, "app_key"]):
            raise ValueError(f"{model.queries.at[key, 'name']}'s application schedules FIFO (spark.scheduler.mode): "
                             f"pools change nothing there; try --delay or --remove")
    change = Change(remove=frozenset(remove), delay=tuple(delay), pool=tuple(pool))
    out = replay.predict(model, victim["query_key"], change).as_dict()
    if hints:
        ranking = replay.rank_by_removal(model, victim["query_key"])
        out["remedies"] = replay.remedies(model, victim["query_key"], list(ranking[ranking > 0].index[:3]))
    return out


def without_top_culprits(analysis: dict, victim: dict, culprits: list[dict], home) -> list[str]:
    """Sentences "without X, V would have finished about N s sooner" (or later: :func:`sooner`) for
    culprit queries (by uid)."""

    model = replay_model(analysis, home)
    keys = set(model.trace.queries["query_key"])
    # By key: names can repeat (applications of the same name), keys do not.
    named = [(c, CULPRIT_QUERY.about(c["uid"])) for c in culprits]
    named = [(c, key) for c, key in named if not (c.get("synthetic") or c.get("self") or key not in keys)]
    predicted = replay.predict_many(model, victim["query_key"], [Change(remove=frozenset([key])) for _, key in named])
    return [f"Without {c['name']}, {victim['name']} would have finished {sooner(w.predicted_speedup_s)} "
            f"({w.runtime_s:.1f} s -> {w.predicted_runtime_s:.1f} s; counterfactual replay)."
            for (c, _), w in zip(named, predicted)]


def sooner(seconds: float) -> str:
    """A predicted gain in words: "about 5.0 s sooner", "about 0.1 s later" (removing a query can
    let another take its place: docs/evaluation.md), or "at about the same time" under 0.05 s."""
    if abs(seconds) < 0.05:
        return "at about the same time"
    return f"about {abs(seconds):.1f} s {'sooner' if seconds > 0 else 'later'}"


def replay_model(analysis: dict, home):
    """The replay model of an analysis's saved trace (one per trace and options: traces never
    change, and the model caches the per-task blame it computes); NotFound for a time window."""
    whole_run_only(analysis, "the counterfactual replay")
    return _replay_model(analysis["id"], analysis["fingerprint"], analysis["options"], str(home))


@functools.lru_cache(maxsize=4)
def _replay_model(analysis_id: str, fingerprint: str, options: str, home: str):

    trace, opts = saved_trace({"id": analysis_id, "fingerprint": fingerprint, "options": options}, home)
    return replay.Replay(trace, opts)

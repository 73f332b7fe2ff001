"""Explanations of one victim: the ProtoGraph read back level by level, as JSON and sentences.

Everything here reads through the canned Cypher files of ``cypher/``.
"""
from __future__ import annotations

from .loader.waits import RESOURCES
from .queries import QueryError

SYNTHETIC_HINT = {"JVM GC": "JVM garbage-collection pauses", "Unknown": "causes outside the loaded trace (Unknown)"}


class NotFound(QueryError):
    """A victim, culprit or analysis that the store does not hold."""


def analyses(store) -> list[dict]:
    """Published analyses, the most recently loaded first."""
    return store.run("analyses", {"status": "complete"})


def resolve_analysis(store, analysis: str | None) -> dict:
    """The analysis row for an id, or the most recently loaded full (not windowed) analysis when None."""
    rows = analyses(store)
    if not rows:
        raise NotFound("no analysis is loaded yet: run `protoxplore load PATH...` or `protoxplore demo`")
    if analysis is None:
        full = [r for r in rows if not r.get("parent")]
        return (full or rows)[0]
    for row in rows:
        if row["id"] == analysis:
            return row
    raise NotFound(f"no analysis {analysis!r}; loaded: {', '.join(r['id'] for r in rows)}")


def resolve_victim(store, analysis: str, text: str) -> dict:
    """The one victim query matching ``text`` (uid, key, name or words of its description)."""
    rows = store.run("find_victim", {"analysis": analysis, "text": text})
    exact = [r for r in rows if r["exact"]]
    if len(exact) == 1:
        return exact[0]
    candidates = exact or rows
    if not candidates:
        raise NotFound(f"no query matches {text!r} in analysis {analysis}; see `protoxplore victims`")
    if len(candidates) > 1:
        listing = "\n".join(f"  {r['name']}  {r['description'][:80]!r}  ({r['uid']})" for r in candidates[:20])
        raise QueryError(f"{text!r} matches {len(candidates)} queries; give one of their names or ids:\n{listing}")
    return candidates[0]


def explain(store, analysis: dict, victim: dict, top: int = 5) -> dict:
    """The explanation of one victim, with the fields the CLI's ``explain --json`` promises."""
    a, v = analysis["id"], victim["uid"]
    row = next(r for r in store.run("find_victim", {"analysis": a, "text": v}) if r["uid"] == v)
    measured = set(analysis.get("measured") or [])
    resources = [dict(r, measured=True) for r in store.run("victim_resources", {"analysis": a, "victim": v})]
    resources += [{"resource": r, "dor": None, "blame_s": None, "measured": False}
                  for r in RESOURCES if r not in measured]
    host_resources = store.run("victim_hosts", {"analysis": a, "victim": v})
    hosts: dict[str, dict] = {}
    for r in host_resources:
        h = hosts.setdefault(r["host"], {"host": r["host"], "dor": 0.0, "blame_s": 0.0, "resources": {}})
        h["dor"] += r["dor"]
        h["blame_s"] += r["blame_s"]
        h["resources"][r["resource"]] = r["blame_s"]
    report = {
        "analysis": {"id": a, "name": analysis.get("name"), "window": analysis.get("window")},
        "victim": {"id": v, "name": row["name"], "description": row["description"], "app": row["app"],
                   "runtime_s": row["runtime_s"], "blocked_s": row["blocked_s"], "slowdown": row["slowdown"]},
        "resources": resources,
        "hosts": sorted(hosts.values(), key=lambda h: -h["dor"])[:top],
        "host_resources": host_resources,
        "culprit_stages": store.run("victim_culprit_stages", {"analysis": a, "victim": v, "k": top}),
        "culprit_queries": store.run("victim_culprit_queries", {"analysis": a, "victim": v, "k": top}),
        "paths": store.run("top_paths", {"analysis": a, "victim": v, "k": top}),
    }
    report["explanations"] = sentences(report)
    return report


def _who(item: dict) -> str:
    if item.get("synthetic"):
        return SYNTHETIC_HINT.get(item["name"], item["name"])
    if item.get("self"):
        return f"the query's own tasks ({item['name']})"
    desc = (item.get("description") or "").strip()
    return f"{item['name']}" + (f" (\"{desc[:70]}\")" if desc else "")


def sentences(report: dict) -> list[str]:
    """Plain sentences with numbers, level by level."""
    v = report["victim"]
    blocked = v["blocked_s"] or 0.0
    out = [f"{v['name']} (\"{(v['description'] or '')[:80]}\") ran {v['runtime_s']:.1f} s; the tasks of its "
           f"critical path were blocked {blocked:.1f} task-seconds in all (slowdown {v['slowdown']:.2f}x)."]
    if blocked <= 0:
        out.append("It was never blocked: nothing slowed it down.")
        return out
    measured = [r for r in report["resources"] if r["measured"] and r["blame_s"]]
    if measured:
        out.append("Resources: " + ", ".join(f"{r['resource']} {r['blame_s']:.1f} s ({r['dor']:.0%})" for r in measured)
                   + ".")
    missing = [r["resource"] for r in report["resources"] if not r["measured"]]
    if missing:
        out.append(f"Not measured in these logs: {', '.join(missing)}.")
    if report["hosts"]:
        h = report["hosts"][0]
        worst = max(h["resources"], key=h["resources"].get)
        out.append(f"Hosts: most of it on {h['host']} ({h['blame_s']:.1f} s, {h['dor']:.0%}), mainly {worst}.")
    for rank, c in enumerate(report["culprit_queries"][:3], start=1):
        out.append(f"Culprit {rank}: {_who(c)} caused {c['blame_s']:.1f} s ({c['dor']:.0%}) of the blocked time.")
    for rank, p in enumerate(report["paths"][:3], start=1):
        own = " (its own tasks)" if p["culprit_query"] == p["victim"] else ""
        out.append(f"Path {rank} (weight {p['weight']:.3f}, {p['blame_s']:.1f} s): {p['culprit_query']}{own} -> "
                   f"{p['culprit_stage']} -> {p['request']} on {p['host']} -> {p['victim_stage']} -> {p['victim']}.")
    return out


def explain_baseline(store, analysis: dict, victim: dict, method: str, home, top: int = 5) -> dict:
    """A baseline's culprit ranking (paper 001 Sec. 6.1) in the shape of ``explain``'s culprit_queries."""
    import json
    from pathlib import Path

    from .loader import baselines, pipeline
    from .loader.protograph import Options

    path = pipeline.trace_path(Path(home), analysis["fingerprint"])
    if not path.exists():
        raise NotFound(f"the trace of analysis {analysis['id']} is not saved at {path}; load its logs again")
    trace = pipeline.load_trace(path)
    options = Options(**{**json.loads(analysis["options"]), "window": None})
    scores = baselines.BASELINES[method](trace, victim["query_key"], options)
    total = float(scores.sum())
    queries = trace.queries.set_index("query_key")
    items = [{"id": key, "name": queries.at[key, "name"], "description": queries.at[key, "description"],
              "dor": float(value) / total if total > 0 else 0.0, "blame_s": float(value), "synthetic": False,
              "self": False} for key, value in scores.head(top).items()]
    return {"analysis": {"id": analysis["id"], "name": analysis.get("name")}, "method": method,
            "victim": {"id": victim["uid"], "name": victim["name"], "description": victim["description"]},
            "culprit_queries": items}

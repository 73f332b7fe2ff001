"""PerfXplain questions against the store: name two runs, read the log of past runs, explain, and
save an explanation in the graph. The CLI (``why-slower``, ``why-same``, ``pxql``) and the web app's
compare page both ask through ``ask`` and write through ``save``.

The algorithms live in ``protoxplore/loader/compare/perfxplain.py``; this module resolves run references the way
``explain --victim`` does and gathers every loaded analysis's runs (``protoxplore/loader/compare/runs.py``).
An explanation is written only when the user asks for it (``--save``, or the page's Save button,
a POST): see docs/model.md, "Why slower".
"""
from __future__ import annotations

import hashlib
import json
import re
import time

from protoxplore import show
from protoxplore.errors import NotFound
from protoxplore.loader.compare import perfxplain
from protoxplore.loader.compare import runs as perfxplain_runs

# What the compare page offers (re-exported): PerfXplain's methods, the features of a run, and how a
# clause's value reads in its sentence.
from protoxplore.loader.compare.perfxplain import METHODS as METHODS
from protoxplore.loader.compare.pxql import Predicate, Question, parse
from protoxplore.loader.compare.pxql import value_text as value_text
from protoxplore.loader.compare.runs import NOMINAL as NOMINAL
from protoxplore.loader.compare.runs import NUMERIC as NUMERIC
from protoxplore.loader.model.levels import VICTIM_QUERY, VICTIM_STAGE, task_uid, uid
from protoxplore.service import catalog
from protoxplore.text import natural_key

#: The two shortcut questions: observed and expected clauses, and the verb of the sentence.
SHORTCUTS = {
    "why-slower": ((Predicate("duration_s_compare", "=", "GT"),), (Predicate("duration_s_compare", "=", "SIM"),),
                   "was slower than"),
    "why-same": ((Predicate("duration_s_compare", "=", "SIM"),), (Predicate("duration_s_compare", "=", "GT"),),
                 "took about as long as"),
}


def shortcut(name: str, first: str, second: str) -> tuple[Question, str]:
    """The question and the sentence's verb of ``why-slower A B`` or ``why-same A B``."""
    observed, expected, verb = SHORTCUTS[name]
    return Question(first, second, (), observed, expected), verb


def natural_shortcut(first: dict, second: dict, similarity: float) -> tuple[str, dict, dict]:
    """The question a user comparing two runs (rows of the log) most likely has: why-slower with the
    slower run first, or why-same when their durations compare SIM (within ``similarity``)."""
    a, b = first["duration_s"], second["duration_s"]
    if perfxplain.similar(a, b, similarity):
        return "why-same", first, second
    return ("why-slower", first, second) if a > b else ("why-slower", second, first)


#: A stage run: its query as ``explain --victim`` names it, then ``/stage-<id>[.<attempt>]``; a task
#: run: then ``/task-<task id>``.
STAGE_RUN = re.compile(r"^(?P<query>.+)/stage-(?P<stage>\d+)(?:\.(?P<attempt>\d+))?(?:/task-(?P<task>\d+))?$")


def resolve_run(store, text: str, default: str | None = None) -> dict:
    """The run ``[analysis:]QUERY[/stage-ID[.ATTEMPT][/task-ID]]`` names, QUERY a name, uid or words of
    a query as ``explain --victim`` takes it (without a prefix, in analysis ``default``, else the
    latest): a query run, a stage of one (attempt 0 unless given) or a task of that stage. ``level``
    says which."""
    prefix, _, rest = text.partition(":")
    if rest and prefix in {a["id"] for a in catalog.analyses(store)}:
        analysis, text = catalog.resolve_analysis(store, prefix), rest
    else:
        analysis = catalog.resolve_analysis(store, default)
    stage = STAGE_RUN.match(text)
    query = catalog.resolve_victim(store, analysis["id"], stage["query"] if stage else text)
    run = query | {"analysis": analysis["id"], "level": "query"}
    if stage:
        app_key = query["query_key"].rsplit("/", 1)[0]
        suffix = f"/stage-{int(stage['stage'])}.{int(stage['attempt'] or 0)}"
        run |= {"uid": uid(analysis["id"], VICTIM_STAGE.key(app_key + suffix)), "name": query["name"] + suffix, "level": "stage"}
        if stage["task"]:
            task = f"/task-{int(stage['task'])}"
            run |= {"uid": task_uid(analysis["id"], f"{app_key}{suffix}{task}"), "name": run["name"] + task, "level": "task"}
    return run


def log_runs(store, settings, level: str = "query"):
    """The log of past runs: the query (or stage, or task) runs of every full analysis whose trace is saved in
    this home (a Neo4j server shared by several homes also holds analyses loaded elsewhere: those are
    left out)."""
    def saved(a: dict) -> bool:
        try:
            catalog.saved_trace(a, settings.home)
            return True
        except NotFound:
            return False

    analyses = [a for a in catalog.full_analyses(catalog.analyses(store)) if saved(a)]
    return perfxplain_runs.all_runs(store, analyses, lambda a: catalog.saved_trace(a, settings.home)[0], level)


def one_copy_per_run(runs, keep: list[str]):
    """The log of past runs with each run once. A run loaded in several analyses (its application
    loaded alone and with others) happened once: twice in the log, its pairs would weigh twice in
    what PerfXplain learns, and be paired with its own copy. A run is known by its ``run`` identity
    (``perfxplain_runs.run_identity``: its application's id, attempt and start time, and its query,
    stage or task). The copy kept is the one of ``keep`` (the question's runs, by uid), else the first
    in the log's order (docs/model.md, "Log of past runs")."""
    if runs.empty:
        return runs
    run = runs["run"]
    asked = runs["uid"].isin(keep).to_numpy()
    copy = ~asked & (run.isin(set(run[asked])).to_numpy() | run.duplicated().to_numpy())
    return runs[~copy].reset_index(drop=True)


def ask(store, settings, question: Question, method: str = "perfxplain", width: int = 3,
        verb: str | None = None, analysis: str | None = None) -> dict:
    """The explanation of a question (a Question, or PXQL text) over every loaded analysis's runs;
    runs named without an analysis prefix are those of ``analysis`` (else the latest)."""
    if isinstance(question, str):
        question = parse(question)
    first, second = resolve_run(store, question.first, analysis), resolve_run(store, question.second, analysis)
    if first["level"] != second["level"]:
        raise ValueError(f"{first['name']} is a {first['level']} run and {second['name']} a {second['level']} run: "
                         f"compare two queries, two stages or two tasks")
    logged = log_runs(store, settings, first["level"])
    runs = one_copy_per_run(logged, [first["uid"], second["uid"]])
    position = {uid: i for i, uid in enumerate(runs["uid"])}
    for run in (first, second):
        if run["uid"] not in position or runs.at[position[run["uid"]], "name"] != run["name"]:
            raise ValueError(_not_in_log(logged, run))
    result = perfxplain.explain(runs, position[first["uid"]], position[second["uid"]], question, method=method,
                                width=width, similarity=settings.perfxplain_similarity,
                                sample_size=settings.perfxplain_sample)
    result["runs"] = [{"id": r["uid"], "name": r["name"], "analysis": r["analysis"], "description": r["description"],
                       "level": r["level"]} for r in (first, second)]
    result["observed"] = [p.as_dict() for p in question.observed]
    result["expected"] = [p.as_dict() for p in question.expected]
    result["asked_despite"] = [p.as_dict() for p in question.despite]  # the user's part of "despite"
    result["width"] = width
    if verb is None:
        clause = lambda ps: " and ".join(map(str, ps))  # noqa: E731
        verb = f"showed {clause(question.observed)} instead of {clause(question.expected)} against"
    result["sentence"] = perfxplain.sentence(result, *run_labels(first, second), verb)
    result["caveats"] = caveats(result, runs.at[position[first["uid"]], "signature"],
                                runs.at[position[second["uid"]], "signature"])
    return result


def run_labels(first: dict, second: dict) -> tuple[str, str]:
    """How the sentence names the two runs: by name, and where the names are the same (the queries
    of applications of one name, as a nightly job's) by their descriptions too, or their analyses, or
    their applications: "perfxplain-corpus:sql-12 was slower than perfxplain-corpus:sql-12" named neither."""
    if first["name"] != second["name"]:
        return first["name"], second["name"]
    if (first.get("description") or "") != (second.get("description") or ""):
        return tuple(f'{r["name"]} ("{show.short(r.get("description") or "", 60)}")' for r in (first, second))
    if first["analysis"] != second["analysis"]:
        return tuple(f'{r["name"]} of analysis {r["analysis"]}' for r in (first, second))
    return tuple(f'{r["name"]} ({r["query_key"].rsplit("/", 1)[0]})' for r in (first, second))  # reruns of a job


def caveats(result: dict, first_signature: str, second_signature: str) -> list[str]:
    """What the reader of an explanation must know to weigh it: that the runs are of different
    queries, that the explanation is weak (a precision below one half: "most likely because" then
    overclaims), and over which pairs of the log the metrics were counted (PerfXplain's within its
    despite clause, the baselines' over all related pairs: their numbers do not compare one to one)."""
    notes = []
    if first_signature != second_signature:
        notes.append("A and B are runs of different queries (their descriptions or stages differ): the "
                     "explanation compares unlike work")
    precision = result["precision"]
    if result["because"] and precision is not None and round(precision, 2) < 0.5:  # as printed
        notes.append(f"a weak explanation: of the related pairs of the log the because clause holds for, "
                     f"fewer than half performed as observed (precision {precision:.2f})")
    within = " that agree with the despite clause" if result["despite"] else ""
    notes.append(f"relevance, precision and generality are shares of the {result['examples']} pairs of "
                 f"related runs in the log{within} (paper 004 Sec. 3.3)")
    return notes


def _not_in_log(runs, run: dict) -> str:
    """Why ``run`` is not in the log of past runs: its analysis is not there (a window, or no saved
    trace), or that analysis has no such stage or task (then the query's stages are named)."""
    mine = runs[runs["uid"].str.startswith(run["analysis"] + "|")] if len(runs) else runs
    if mine.empty:
        return (f"{run['name']} of analysis {run['analysis']} is not in the log of {run['level']} runs: name it in a "
                f"full (not windowed) analysis whose trace is saved in this home")
    parent, kind = (run["name"].rsplit("/task-", 1)[0], "task") if run["level"] == "task" else \
        (run["name"].split("/stage-", 1)[0], "stage")
    found = sorted({n[len(parent) + 1:] for n in mine["name"] if n.startswith(f"{parent}/{kind}-")}, key=natural_key)
    return (f"{run['name']}: analysis {run['analysis']} has no such {run['level']}"
            + (f" (the {kind}s of {parent}: {', '.join(found[:20])})" if found else ""))


def same_query_runs(runs, uid: str) -> list[dict]:
    """The other runs of the log whose query signature is the one of run ``uid`` (docs/model.md,
    "Signature"), each with its ``app_key``: by analysis in the log's order, then by application and
    query as people read numbers (sql-9 before sql-10); [] when ``uid`` is not in the log. The same
    run loaded in another analysis (its application loaded alone and with others) is not another run."""
    mine = runs[runs["uid"] == uid]
    if mine.empty:
        return []
    same = runs[(runs["signature"] == mine["signature"].iloc[0]) & (runs["run"] != mine["run"].iloc[0])]
    order = {a: i for i, a in enumerate(dict.fromkeys(runs["analysis"]))}
    rows = [dict(r, app_key=VICTIM_QUERY.about(r["uid"]).rsplit("/", 1)[0]) for r in same.to_dict("records")]
    return sorted(rows, key=lambda r: (order[r["analysis"]], natural_key(r["uid"])))


def pxql(result: dict) -> str:
    """The explained question as PXQL text, with the two runs named by analysis and uid."""
    clause = lambda ps: " AND ".join(f"{p['feature']} {p['op']} {p['value']}" for p in ps)  # noqa: E731
    first, second = (f"'{r['analysis']}:{r['id']}'" for r in result["runs"])
    given = result["asked_despite"]
    return (f"FOR {first}, {second}" + (f" DESPITE {clause(given)}" if given else "")
            + f" OBSERVED {clause(result['observed'])} EXPECTED {clause(result['expected'])}")


def explanation_uid(result: dict) -> str:
    """The uid of a saved explanation: the first run's analysis, then a hash of the question (runs,
    clauses, method) and of the answer's clauses, so saving the same explanation twice finds it."""
    key = json.dumps([[r["id"] for r in result["runs"]], result["observed"], result["expected"], result["method"],
                      result["despite"], result["because"]], sort_keys=True, default=str)
    return uid(result["runs"][0]["analysis"], f"why/{hashlib.sha1(key.encode()).hexdigest()[:16]}")


def save(store, result: dict) -> dict:
    """Write an explanation of ``ask`` in the graph (``cypher/write_perfxplain_explanation.cypher``):
    ``{"uid", "created"}`` (created False: it was saved before). One statement: all or nothing."""
    if any(r.get("level") != "query" for r in result["runs"]):
        raise ValueError("explanations of stage and task runs are not saved: the graph links an explanation to two "
                         "query runs")
    why = explanation_uid(result)

    def predicates(clause: str) -> list[dict]:
        rows = []
        for position, p in enumerate(result[clause]):
            name = next((f for f in result["features"] if p["feature"] in (f, f"{f}_isSame", f"{f}_compare", f"{f}_diff")),
                        p["feature"])
            first, second = result["features"].get(name, [None, None])
            rows.append({k: v for k, v in {"uid": uid(why, name), "name": name, "first": first, "second": second,
                                           "feature": p["feature"], "op": p["op"], "value": p["value"],
                                           "position": position}.items() if v is not None})
        return rows

    props = {"sentence": result["sentence"], "method": result["method"], "pxql": pxql(result),
             "width": result["width"], "examples": result["examples"],
             "despite": " AND ".join(f"{p['feature']} {p['op']} {p['value']}" for p in result["despite"]),
             "because": " AND ".join(f"{p['feature']} {p['op']} {p['value']}" for p in result["because"]),
             **{m: result[m] for m in ("relevance", "precision", "generality") if result[m] is not None}}
    rows = store.run("write_perfxplain_explanation", {
        "uid": why, "first": result["runs"][0]["id"], "second": result["runs"][1]["id"], "props": props,
        "because": predicates("because"), "despite": predicates("despite"), "saved": time.time()}, write=True)
    if not rows:
        raise NotFound("the explanation was not saved: one of its runs' analyses is no longer loaded")
    return {"uid": why, "created": bool(rows[0]["created"])}


def saved(db, result: dict) -> dict | None:
    """The stored explanation row of ``result`` (``cypher/perfxplain_explanations.cypher``), or None."""
    why = explanation_uid(result)
    rows = db.run("perfxplain_explanations", {"analysis": result["runs"][0]["analysis"], "k": 100_000})
    return next((r for r in rows if r["uid"] == why), None)

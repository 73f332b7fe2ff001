"""The compare page (PerfXplain, paper 004): from a victim, pick another run of the same query (same
signature, in any loaded analysis) and read why they differ, with both runs' features side by side.

The explanation is ``protoxplore.service.compare.ask``, as ``why-slower``/``why-same`` print it. The log
of past runs and each explanation are computed in the background once (``webapp.computations.Computations``):
until they are done the page says so and refreshes itself. GET only reads; the Save button POSTs
(from this page only: ``security``) and writes the explanation into the graph with
``compare.save``, then redirects back (at once, to the page, if it was still computing).
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for

from protoxplore import show
from protoxplore.errors import NotFound
from protoxplore.service import catalog, compare
from protoxplore.service.compare import METHODS, NOMINAL, NUMERIC
from protoxplore.webapp.computations import WORKER_STORE
from protoxplore.webapp.db import all_analyses, computed, get_store
from protoxplore.webapp.views import analysis_or_404, int_arg, linked, still_computing, victim_or_404

bp = Blueprint("perfxplain", __name__)

def _log_key() -> tuple:
    """What the log of past runs is made of: every published full analysis (a load or delete changes it)."""
    return tuple((a["id"], a["created"]) for a in catalog.full_analyses(all_analyses()))


def _log(a: dict):
    """The log of past runs (None while computing)."""
    settings = current_app.config["SETTINGS"]
    return computed(a, ("perfxplain-log", _log_key()), compare.log_runs, WORKER_STORE, settings)


def _other_run(a: dict, uid: str, other_uid: str) -> tuple[dict, dict] | None:
    """This victim's row and the chosen other run's row of the log (404 when not a run of the same
    query; None while the log is computing)."""
    runs = _log(a)
    if runs is None:
        return None
    mine = runs[runs["uid"] == uid].to_dict("records")
    # The rows of other_uid alone, not every run of the query as dicts (pandas took 20 ms a request for 124 runs)
    other = [r for r in runs[runs["uid"] == other_uid].to_dict("records")
             if mine and r["signature"] == mine[0]["signature"] and r["run"] != mine[0]["run"]]  # nor its copy
    if not mine or not other:
        abort(404, f"parameter with: {other_uid[:120]!r} is not another run of this query in the log of past runs")
    return mine[0], other[0]


def _question_args(source) -> tuple[str | None, str, int]:
    question = source.get("question") or None
    if question is not None and question not in compare.SHORTCUTS:
        abort(400, f"parameter question must be one of {', '.join(compare.SHORTCUTS)}, not {question[:40]!r}")
    method = source.get("method") or "perfxplain"
    if method not in METHODS:
        abort(400, f"parameter method must be one of {', '.join(METHODS)}, not {method[:40]!r}")
    return question, method, int_arg("width", 3, 1, 6, source)


def _explanation(a: dict, mine: dict, other: dict, question: str | None, method: str, width: int) -> dict | None:
    """``compare.ask`` for the two runs (None while computing): ``question`` or the natural one,
    slower run first. ValueError when the pair does not fit the question (why-same of runs that differ)."""
    settings = current_app.config["SETTINGS"]
    if question is None:
        question, first, second = compare.natural_shortcut(mine, other, settings.perfxplain_similarity)
    else:
        first, second = mine, other
    q, verb = compare.shortcut(question, f"{first['analysis']}:{first['uid']}",
                                  f"{second['analysis']}:{second['uid']}")
    # A question the pair does not fit raises ValueError (in the computation, seen here).
    result = computed(a, ("perfxplain", first["uid"], second["uid"], question, method, width, _log_key()),
                      compare.ask, WORKER_STORE, settings, q, method, width, verb)
    return None if result is None else dict(result, question=question)


def feature_rows(result: dict) -> list[dict]:
    """Every raw feature with the two runs' values as texts: those the because clause names first
    (in its order), then those of the despite clause, then the others."""
    raw = {f"{f}{kind}": f for f in NUMERIC + NOMINAL for kind in ("", "_isSame", "_compare", "_diff")}
    named = list(dict.fromkeys(raw[p["feature"]] for p in result["because"] + result["despite"]))
    return [dict(zip(("first", "second"), show.side_by_side(*result["features"][f])), name=f, named=f in named)
            for f in named + [f for f in NUMERIC + NOMINAL if f not in named]]


@bp.get("/analysis/<aid>/victim/<path:uid>/compare", endpoint="compare")
def compare_page(aid: str, uid: str):
    """Without ``with``: the other runs of this query to pick from. With it: why the two differ."""
    a = analysis_or_404(aid)
    v = victim_or_404(aid, uid)
    try:
        catalog.whole_run_only(a, "comparing runs")
    except NotFound as exc:
        abort(400, str(exc))
    other_uid = request.args.get("with")
    question, method, width = _question_args(request.args)
    waiting = still_computing(render_template("compare.html", a=a, v=v, result=None, computing=True), True, status=200)
    if not other_uid:
        runs = _log(a)
        if runs is None:
            return waiting
        # the columns the list shows: pandas makes a dict of every column of 124 runs in 10 ms
        shown = runs[["uid", "run", "signature", "name", "analysis", "description", "duration_s"]]
        others = linked(compare.same_query_runs(shown, uid), url_for(".compare", aid=a["id"], uid=v["uid"]), "with", "uid")
        # Reruns of one application give their queries one name (this run's too): then each row shows its application.
        named = [(r["analysis"], r["name"]) for r in others] + [(a["id"], v["name"])]
        show_app = show.names_repeat([{"name": n} for n in named])
        return render_template("compare.html", a=a, v=v, others=others, show_app=show_app, result=None, computing=False)
    pair = _other_run(a, uid, other_uid)
    form = dict(a=a, v=v, other=None if pair is None else pair[1], method=method, width=width,
                question=request.args.get("question") or "", methods=METHODS, questions=list(compare.SHORTCUTS))
    try:
        result = None if pair is None else _explanation(a, *pair, question, method, width)
    except ValueError as exc:  # the form stays, to ask the other question or turn the runs round
        return render_template("compare.html", result=None, refused=str(exc), computing=False, **form), 400
    if result is None:
        return waiting
    stored = compare.saved(get_store(), result)  # not cached: a POST changes it
    return render_template("compare.html", result=result, rows=feature_rows(result), computing=False, saved=stored, **form)


@bp.post("/analysis/<aid>/victim/<path:uid>/compare")
def save(aid: str, uid: str):
    """Store the explanation shown on the page in the graph (writes), then show it again (redirect-after-POST)."""
    a = analysis_or_404(aid)
    victim_or_404(aid, uid)
    other_uid = request.form.get("with") or abort(400, "parameter with is required: the uid of the other run")
    question, method, width = _question_args(request.form)
    pair = _other_run(a, uid, other_uid)
    try:
        result = None if pair is None else _explanation(a, *pair, question, method, width)
    except ValueError as exc:
        abort(400, str(exc))
    if result is not None:
        try:
            compare.save(get_store(), result)
        except NotFound as exc:
            abort(409, str(exc))
    return redirect(url_for(".compare", aid=aid, uid=uid, question=question or None, method=method, width=width,
                            **{"with": other_uid}), 303)

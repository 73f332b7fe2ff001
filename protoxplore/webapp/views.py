"""The pages: workload overview, victim walk (L0 to L6), culprit, methods, time windows."""
from __future__ import annotations

import math
from pathlib import Path
from urllib.parse import quote_plus

from flask import Blueprint, abort, current_app, jsonify, redirect, render_template, request, send_file, url_for

from protoxplore import show
from protoxplore.errors import NotFound
from protoxplore.service import catalog, report, windows
from protoxplore.service.compare import value_text
from protoxplore.service.report import CULPRIT_QUERY, LEVELS, RANKERS, SCORES, VICTIM_QUERY
from protoxplore.webapp import charts
from protoxplore.webapp.computations import WORKER_STORE
from protoxplore.webapp.db import READER, all_analyses, cached, computed, get_store, run

bp = Blueprint("views", __name__)

LOAD_HINT = "protoxplore load PATH... (Spark event logs) or protoxplore demo"
SUMMED_DOR, SUMMED_IMPACT = show.COLUMN_NOTES["dor"], show.COLUMN_NOTES["impact"]
TIMELINE_QUERIES = 500  # the most blocked queries drawn on the overview's timeline


# ---------------------------------------------------------------- helpers

def int_arg(name: str, default: int | None, low: int, high: int, source=None) -> int:
    """An integer parameter of the query string (or of ``source``, e.g. a posted form), checked."""
    raw = (request.args if source is None else source).get(name)
    if raw is None or raw == "":
        if default is None:
            abort(400, f"parameter {name} is required: an integer from {low} to {high}")
        return default
    try:
        value = int(raw)
    except ValueError:
        abort(400, f"parameter {name} must be an integer from {low} to {high}, not {raw[:40]!r}")
    if not low <= value <= high:
        abort(400, f"parameter {name} must be an integer from {low} to {high}, not {value}")
    return value


def k_arg(default: int | None = None) -> int:
    return int_arg("k", default or current_app.config["DEFAULT_K"], 1, current_app.config["MAX_K"])


def analysis_or_404(aid: str) -> dict:
    """The published analysis ``aid``; for a live generation not listed, a redirect to the same page
    of the one that stands for it (``catalog.live_successor``: a live page reloads onto the
    newest)."""
    try:
        return catalog.pick_analysis(all_analyses(), aid)
    except NotFound:
        newer = catalog.live_successor(all_analyses(), aid)
        if newer is not None:
            abort(redirect(request.full_path.rstrip("?").replace(aid, newer["id"])))
        if catalog.analysis_row(all_analyses(), aid + "w"):  # a live analysis's first total, still written
            abort(503, f"the live analysis {aid[:80]} is being written: its last minutes are published as "
                       f"{aid[:80]}w, and the whole workload follows within seconds")
        abort(404, f"no analysis {aid[:80]!r} is loaded. Loaded analyses are listed on the overview page; "
                   f"load one with: {LOAD_HINT}")


def victim_or_404(aid: str, uid: str) -> dict:
    """The victim query ``uid`` of ``aid``; for one that left a live analysis, a redirect to the same
    page where it went (``catalog.victim_elsewhere``)."""
    try:
        return catalog.victim_by_uid(READER, aid, uid)
    except NotFound as exc:
        found = catalog.victim_elsewhere(READER, all_analyses(), aid, uid)
        if found is not None:
            other = found["uid"].split("|", 1)[0]
            abort(redirect(request.full_path.rstrip("?").replace(aid, other)))
        abort(404, str(exc))


def register_filters(app) -> None:
    app.add_template_filter(show.number, "num")
    app.add_template_filter(value_text, "clause_value")  # a clause's value as its sentence says it
    app.add_template_filter(show.mib, "mib")
    app.add_template_filter(refresh_seconds, "refresh")
    app.add_template_filter(charts.tojson, "tojson")

    @app.template_filter("pct")
    def pct(value):
        return show.percent(value)

    app.add_template_filter(show.ago, "ago")
    app.add_template_filter(show.short, "short")
    app.add_template_filter(show.window_text, "window")
    app.add_template_filter(show.when, "when")
    app.add_template_filter(lambda a: catalog.live_window(all_analyses(), a), "live_window")
    app.add_template_filter(lambda a: catalog.live_version(all_analyses(), a["id"]), "live_version")

    @app.context_processor
    def globals_():
        # figs and lazy_charts: pages without charts leave them out (a view's own values win)
        return {"LEVELS": LEVELS, "LOAD_HINT": LOAD_HINT, "SUMMED_DOR": SUMMED_DOR, "SUMMED_IMPACT": SUMMED_IMPACT,
                "figs": {}, "lazy_charts": False}


#: The characters Werkzeug's url_for leaves unquoted in a query string (werkzeug.urls._urlencode).
QUERY_SAFE = "!$'()*,/:;?@"


def linked(rows: list[dict], page: str, param: str, field: str) -> list[dict]:
    """``rows``, each with a ``url``: ``page`` with ``param`` set to the row's ``field`` in its query
    string, as url_for encodes it. One url_for a table instead of one a row: on the paper-scale
    workload a url_for per row took a third of the compare page (124 runs) and of the stragglers
    page (250 stages)."""
    start = f"{page}{'&' if '?' in page else '?'}{quote_plus(param)}="
    # quote_plus of str(value) is what urlencode does to each value, without its checks per call
    return [dict(r, url=start + quote_plus(str(r[field]), safe=QUERY_SAFE)) for r in rows]


def refresh_seconds(a: dict) -> int:
    """How often a live analysis's pages reload where scripts do not run (``<noscript>``): as often
    as its watch passes, at most every 2 s. With scripts they reload only on a new generation."""
    return max(2, math.ceil(a.get("every") or 2))


# ---------------------------------------------------------------- static plotly.js (from the plotly package)

@bp.get("/vendor/plotly.min.js")
def plotly_js():
    import plotly
    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    return send_file(path, mimetype="text/javascript", max_age=86400)


# ---------------------------------------------------------------- overview

@bp.get("/")
def index():
    rows = all_analyses()
    if not rows:
        return render_template("empty.html")
    return overview_page(catalog.default_analysis(rows), rows)


@bp.get("/analysis/<aid>")
def analysis(aid: str):
    return overview_page(analysis_or_404(aid), all_analyses())


@bp.get("/analysis/<aid>/live.json")
def live_check(aid: str):
    """What a live page polls (``catalog.live_version``): it reloads once ``version`` changes, and
    shows ``updated`` (how old its generation is) meanwhile."""
    rows = all_analyses()
    row = catalog.analysis_row(rows, aid)
    if not (row or {}).get("live") and catalog.live_successor(rows, aid) is None:
        abort(404, f"no live analysis {aid[:80]!r}")
    return jsonify(version=catalog.live_version(rows, aid), updated=show.ago(row.get("loaded")) if row else None)


def overview_page(a: dict, rows: list[dict]):
    aid = a["id"]
    k = k_arg()
    # one read for the most blocked victims and the timeline (its first TIMELINE_QUERIES)
    everyone = run("victims", analysis=aid, order="blocked", k=max(k + 1, TIMELINE_QUERIES))
    blocked = everyone[:k]
    # A list cut without a word reads as all there is: say so, with a link to more.
    more_k = min(current_app.config["MAX_K"], max(100, 10 * k)) if len(everyone) > k else None
    slowdown = run("victims", analysis=aid, order="slowdown", k=k)
    resources = run("hot_resources", analysis=aid, k=k)
    hosts = run("slow_nodes", analysis=aid, k=k)
    culprits = run("aggressive_culprits", analysis=aid, k=k)
    timed = [r for r in everyone[:TIMELINE_QUERIES] if r.get("start_time") is not None and r.get("end_time") is not None]
    origin = a.get("trace_start") or min([r["start_time"] for r in timed] or [0.0])
    figs = {
        "blocked": charts.bar(blocked, "name", "by_others_s", "Most blocked victims", "seconds blocked by others",
                              hover=["description", "app_key", "own_s"]),
        "slowdown": charts.bar(slowdown, "name", "slowdown", "Largest slowdown", "slowdown (paper 001 Eq. 4)",
                               hover=["description", "app_key"]),
        "resources": charts.bar(resources, "resource", "blame_s", "Hot resources", "blocked seconds",
                                hover=["impact", "dor", "victims"]),
        "hosts": charts.bar(hosts, "host", "blame_s", "Slow nodes", "blocked seconds",
                            hover=["impact", "dor", "victims"]),
        "culprits": charts.bar(culprits, "name", "dor", "Aggressive culprits", "DOR toward other queries, summed",
                               hover=["description", "victims"]),
    }
    if timed:
        figs["timeline"] = charts.timeline(timed, origin)
        figs["concurrency"] = charts.concurrency(timed, origin)
    return render_template("overview.html", a=a, analyses=rows, blocked=blocked, slowdown=slowdown,
                           resources=resources, hosts=hosts, culprits=culprits, figs=figs, k=k, more_k=more_k,
                           show_app=show.names_repeat(list({r["uid"]: r for r in blocked + slowdown}.values())))


# ---------------------------------------------------------------- victim walk

def victim_url(aid: str, uid: str, trail: list[str], **extra) -> str:
    return url_for("views.victim", aid=aid, uid=uid, at=trail or None, **extra)


@bp.get("/analysis/<aid>/victim/<path:uid>")
def victim(aid: str, uid: str):
    a = analysis_or_404(aid)
    v = victim_or_404(aid, uid)
    k = k_arg(25)
    trail_uids = request.args.getlist("at")
    if len(trail_uids) > CULPRIT_QUERY.number:
        abort(400, f"parameter at: a walk has at most {CULPRIT_QUERY.number} steps (Levels 1 to {CULPRIT_QUERY.number})")
    # Each step must be one of the nodes that explain the step before it on this victim's walk.
    trail: list[dict] = []
    current = {"uid": uid, "name": v["name"], "level": VICTIM_QUERY.number}
    for step in trail_uids:
        found = [r for r in walk_step(aid, uid, current["uid"]) if r["uid"] == step]
        if not found:
            abort(404, f"parameter at: {step[:120]!r} does not explain {str(current['name'])[:120]!r} "
                       f"on the walk of this victim")
        current = found[0]
        trail.append(current)
    # new rows: the cached ones are shared by every request
    toward_culprit = [dict(row, url=victim_url(aid, uid, trail_uids + [row["uid"]]), culprit_url=culprit_page(aid, row))
                      for row in ([] if current["level"] >= CULPRIT_QUERY.number else walk_step(aid, uid, current["uid"], k))]
    crumbs = [{"name": v["name"], "level": VICTIM_QUERY.number, "url": victim_url(aid, uid, [])}]
    for i, node in enumerate(trail):
        crumbs.append({"name": node["name"], "level": node["level"], "url": victim_url(aid, uid, trail_uids[:i + 1])})
    explanation = cached_explain(a, v)
    paths, hosts = explanation["paths"], explanation["host_resources"]
    figs = {"walk": charts.dor_blame(toward_culprit, LEVELS[current["level"] + 1].heading + " explaining " +
                                     str(current["name"])) if toward_culprit else None,
            "sankey": charts.sankey(paths) if paths else None,
            "heatmap": charts.heatmap(hosts) if hosts else None}
    figs = {key: fig for key, fig in figs.items() if fig}
    culprit_url = culprit_page(aid, current)
    return render_template("victim.html", a=a, v=v, trail=trail, current=current, toward_culprit=toward_culprit,
                           crumbs=crumbs, next_level=current["level"] + 1, explanation=explanation, paths=paths, hosts=hosts,
                           figs=figs, k=k, culprit_url=culprit_url)


def walk_step(aid: str, victim_uid: str, node_uid: str, k: int = 1000) -> list[dict]:
    """The nodes one level toward the culprits that explain ``node_uid`` on the walk of ``victim_uid``
    (``cypher/toward_culprits.cypher``: IN(v) of paper 000 Eq. 3)."""
    return run("toward_culprits", analysis=aid, victim=victim_uid, node=node_uid, k=k)


def cached_explain(a: dict, v: dict) -> dict:
    """``protoxplore.service.report.explain`` with the top 10 paths, remembered like query results."""
    return cached(a, ("explain", v["uid"]), lambda: report.explain(get_store(), a, v, top=10))


# ---------------------------------------------------------------- culprit (top-down)

def culprit_page(aid: str, node: dict) -> str | None:
    """The culprit page of a Level-6 node on a walk, None when it slowed no other query (a walk can
    end on the victim's own query: its tasks competing with each other), whose page is a 404."""
    if node["level"] != CULPRIT_QUERY.number or not run("culprit_victims", analysis=aid, culprit=node["uid"], k=1):
        return None
    return url_for("views.culprit", aid=aid, uid=node["uid"])


@bp.get("/analysis/<aid>/culprit/<path:uid>")
def culprit(aid: str, uid: str):
    a = analysis_or_404(aid)
    k = k_arg(25)
    rows = [dict(r, url=url_for("views.victim", aid=aid, uid=r["victim_uid"]))  # new rows: the cached ones are shared
            for r in run("culprit_victims", analysis=aid, culprit=uid, k=k)]
    if not rows:
        abort(404, f"no culprit query {uid[:120]!r} that slowed another query in analysis {aid!r}")
    node = {"uid": uid, "name": rows[0]["culprit"], "description": rows[0]["culprit_description"],
            "synthetic": rows[0]["synthetic"], "dor": rows[0]["culprit_dor"], "level": CULPRIT_QUERY.number,
            "running": rows[0]["culprit_running"]}
    # Whole DOR and seconds per victim from the database (RESPONSIBLE_FOR), not summed from the rows
    # above: those are cut at k (resource x host rows), so a victim's sum from them could be partial.
    ranked = [dict(r, name=r["victim"]) for r in run("culprit_victim_totals", analysis=aid, culprit=uid, k=k)]
    figs = {"victims": charts.dor_blame(ranked, "Victims of " + str(node["name"]))} if ranked else {}
    return render_template("culprit.html", a=a, c=node, rows=rows, figs=figs, k=k)


# ---------------------------------------------------------------- methods side by side

METHOD_TITLES = {method: title for method, (_, title) in SCORES.items()}


@bp.get("/analysis/<aid>/victim/<path:uid>/methods")
def methods(aid: str, uid: str):
    """The ProtoGraph's ranking at once, each other method's as a column of its own: the page holds
    placeholders that load ``?column=METHOD`` (a fragment) after it is shown, because those methods
    compute from the saved trace (seconds each, a minute for the counterfactual at paper scale)
    while the ProtoGraph's is one read. A column still computing answers 202 "computing" at once,
    and the page asks again. ``?column=all`` renders every column in the page (without JavaScript:
    the page refreshes itself while a column is computing)."""
    a = analysis_or_404(aid)
    v = victim_or_404(aid, uid)
    k = k_arg()
    column = request.args.get("column")
    if column and column != "all":
        if column not in RANKERS:
            abort(400, f"parameter column must be one of {', '.join(RANKERS)} or all, not {column[:40]!r}")
        col = method_column(a, v, column, k)
        return still_computing(render_template("method_column.html", col=col, figs=column_figs([col])),
                               col["computing"])
    proto = [r for r in run("victim_culprit_queries", analysis=aid, victim=uid, k=k + 1) if not r["self"]][:k]
    columns = [_column("protograph", "ProtoGraph (DOR)", rows=[
        {"name": r["name"], "score": r["dor"], "description": r["description"]} for r in proto])]
    for method in RANKERS:
        columns.append(method_column(a, v, method, k) if column == "all" else _column(
            method, METHOD_TITLES[method], src=url_for("views.methods", aid=aid, uid=uid, column=method, k=k)))
    page = render_template("methods.html", a=a, v=v, columns=columns, figs=column_figs(columns), k=k,
                           lazy_charts=column != "all")
    return still_computing(page, any(col["computing"] for col in columns), status=200)


def still_computing(body: str, computing: bool, status: int = 202):
    """A page or fragment; while part of it is computing in the background, with ``status`` (202
    for a fragment) and a ``Refresh`` (and ``Retry-After``) of a second, so that it is asked again."""
    if not computing:
        return body
    return body, status, {"Retry-After": "1", "Refresh": "1", "Cache-Control": "no-store"}


def method_column(a: dict, v: dict, method: str, k: int) -> dict:
    """One column of the methods page: the culprit queries ranked by ``method``, computed in the
    background once (``computing`` until it is done)."""
    column = _column(method, METHOD_TITLES[method])
    home = current_app.config["SETTINGS"].home
    try:
        if method == "counterfactual":
            catalog.whole_run_only(a, "the counterfactual replay")
        ranking = computed(a, ("baseline", v["uid"], method, k), report.explain_baseline, WORKER_STORE, a, v,
                           method, home, top=k)
    except NotFound as exc:  # a window, or loaded on another machine: no saved trace here
        return dict(column, note=f"Not available: {exc}")
    if ranking is None:
        return dict(column, computing=True)
    return dict(column, rows=[{"name": c["name"], "score": c["blame_s"], "description": c["description"]}
                              for c in ranking["culprit_queries"]])


def _column(name: str, title: str, **fields) -> dict:
    """A column of the methods page, with every key its template reads: ``rows`` (ranked culprits),
    ``note`` (why there are none), ``computing``, ``src`` (the fragment that fills a placeholder)."""
    return {"name": name, "title": title, "rows": [], "note": None, "computing": False, "src": None, **fields}


def column_figs(columns: list[dict]) -> dict:
    return {f"m-{col['name']}": charts.bar(col["rows"], "name", "score", col["title"], "score")
            for col in columns if col.get("rows")}


# ---------------------------------------------------------------- what if

@bp.get("/analysis/<aid>/victim/<path:uid>/whatif")
def whatif(aid: str, uid: str):
    """Predictions by counterfactual replay: without each top culprit, and the best remedies.
    ``fragment=1`` renders only the body, which the victim page loads after it is shown. The replays
    run in the background (seconds): until they are done, the answer is "computing" (202 for the
    fragment, which the page asks again for; the page refreshes itself)."""
    a = analysis_or_404(aid)
    v = victim_or_404(aid, uid)
    result, note, computing = None, None, False
    if v.get("running"):
        note = report.STILL_RUNNING.format(name=v["name"])
    else:
        home = current_app.config["SETTINGS"].home
        try:
            catalog.whole_run_only(a, "a what-if")
            result = computed(a, ("whatif", uid), whatif_predictions, WORKER_STORE, a, v, home)
        except NotFound as exc:  # a time window, or loaded on another machine: no saved trace here
            note = f"What-if not available: {exc}"
        else:
            computing = result is None
    fragment = request.args.get("fragment") == "1"
    page = render_template("whatif_body.html" if fragment else "whatif.html", a=a, v=v, result=result, note=note,
                           computing=computing)
    return still_computing(page, computing, status=202 if fragment else 200)


def whatif_predictions(store, a: dict, v: dict, home) -> dict:
    """The what-if of the victim page (computed in the background): the replay's prediction and
    remedies, and a sentence per top-3 culprit query ("without X, V would have finished N s sooner")."""
    culprits = report.explain(store, a, v, top=10)["culprit_queries"][:3]
    return dict(report.whatif(a, v, home, hints=True), sentences=report.without_top_culprits(a, v, culprits, home))


# ---------------------------------------------------------------- time windows

def window_bounds(a: dict, n: int) -> list[tuple[float, float]]:
    """``windows.bounds``, or 400 saying why the analysis cannot be split."""
    try:
        return windows.bounds(a, n)
    except NotFound as exc:
        abort(400, str(exc))


@bp.post("/analysis/<aid>/victim/<path:uid>/windows")
def derive_windows(aid: str, uid: str):
    """Derive the windowed analyses the victim ran in (writes), then show them (redirect-after-POST)."""
    a = analysis_or_404(aid)
    v = victim_or_404(aid, uid)
    n = int_arg("windows", None, 1, current_app.config["MAX_WINDOWS"], request.form)
    k = int_arg("k", 5, 1, 20, request.form)
    window_bounds(a, n)  # 400 before anything is derived
    holder = current_app.extensions["protoxplore"]
    with holder.window_lock:
        try:
            windows.derive_for_victim(get_store(), a, v, n, holder.settings.home)
        except (FileNotFoundError, NotFound) as exc:  # its trace gone, or a live generation replaced
            abort(404, str(exc))
    return redirect(url_for("views.windows", aid=aid, uid=uid, windows=n, k=k), 303)


@bp.get("/analysis/<aid>/victim/<path:uid>/windows", endpoint="windows")
def windows_page(aid: str, uid: str):
    """The victim's culprits per time window, read from the derived analyses (GET never writes)."""
    a = analysis_or_404(aid)
    v = victim_or_404(aid, uid)
    if not request.args.get("windows"):
        return render_template("windows.html", a=a, v=v, windows=None, figs={}, n=None, k=5, top=[], missing=0)
    n = int_arg("windows", None, 1, current_app.config["MAX_WINDOWS"])
    k = int_arg("k", 5, 1, 20)
    results = []
    totals: dict[str, float] = {}
    for t0, t1 in window_bounds(a, n):
        # only the windows the victim ran in are derived: on a workload of several years most
        # windows are empty, and an empty window has nothing to explain
        ran = catalog.ran_in(v, a["trace_start"], (t0, t1))
        w = windows.derived(all_analyses(), a, (t0, t1)) if ran else None
        try:
            wv = catalog.victim_in_window(READER, w, v) if w else None
        except NotFound:
            wv = None
        dor: dict[str, float] = {}
        if wv:
            for c in run("victim_culprit_queries", analysis=w["id"], victim=wv["uid"], k=k):
                name = show.culprit_name(c)
                dor[name] = dor.get(name, 0.0) + charts.num(c["dor"])
                totals[name] = totals.get(name, 0.0) + charts.num(c["dor"])
        results.append({"label": show.window_text((t0, t1), a.get("trace_start")),
                        "axis": show.window_text((t0, t1)), "id": w["id"] if w else None, "victim": wv, "dor": dor,
                         "state": "derived" if w else ("missing" if ran else "idle"),
                         "url": url_for("views.victim", aid=w["id"], uid=wv["uid"]) if wv else None,
                         "overview": url_for("views.analysis", aid=w["id"]) if w else None})
    top = [name for name, _ in sorted(totals.items(), key=lambda x: -x[1])[:k]]
    figs = {"windows": charts.stacked_windows(results, top)} if top else {}
    missing = sum(r["state"] == "missing" for r in results)
    return render_template("windows.html", a=a, v=v, windows=results, top=top, figs=figs, n=n, k=k, missing=missing)

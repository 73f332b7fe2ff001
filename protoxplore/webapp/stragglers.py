"""The stragglers page (Hound, paper 002): the workload's ensemble topics with their words, each
stage's causes, topic mix and expert verdict, and for one stage a box plot per cause metric of its
stragglers against its normal tasks (the paper's Fig. 7). The causes stored in the graph at load,
read by the service function ``protoxplore stragglers`` uses; the box plots read the chosen stage's
tasks from the saved trace. Both run in the background (learning the topics takes a minute at
paper scale): until they are done the page says so and refreshes itself."""
from __future__ import annotations

import math

import numpy as np
from flask import Blueprint, abort, current_app, render_template, request, url_for

from protoxplore import show
from protoxplore.service import stragglers
from protoxplore.show import number
from protoxplore.webapp import charts
from protoxplore.webapp.computations import WORKER_STORE
from protoxplore.webapp.db import READER, computed
from protoxplore.webapp.views import analysis_or_404, linked, still_computing

bp = Blueprint("stragglers", __name__)

#: Cause metrics drawn for the chosen stage, strongest first.
BOXES = 4
#: Stages in the mix chart (the slowest first): a bar each.
MIX_STAGES = 40
#: The highest straggler threshold a page accepts (x the stage median): past it no task straggles.
MAX_THRESHOLD = 1000.0


def threshold_arg() -> float | None:
    """``?threshold=``, as ``protoxplore stragglers --threshold``: a task straggles above this x its
    stage's median (None: the settings' threshold)."""
    raw = request.args.get("threshold") or ""
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 1 < value <= MAX_THRESHOLD:
        abort(400, f"parameter threshold must be a number above 1 and at most {MAX_THRESHOLD} "
                   f"(x the stage median), not {raw[:40]!r}")
    return value


def _analysed(a: dict, threshold: float | None) -> dict | None:
    """``stragglers.of_analysis`` of the analysis at ``threshold`` or the settings' (None while computing)."""
    settings = current_app.config["SETTINGS"]
    threshold = settings.straggler_threshold if threshold is None else threshold
    return computed(a, ("stragglers", threshold), stragglers.of_analysis, WORKER_STORE, a, settings.home, threshold)


def box_figure(metric: str, slow: np.ndarray, normal: np.ndarray) -> dict:
    """Stragglers (S, red) against normal tasks (N, blue) for one metric, as quartiles computed here
    (the page stays small however many tasks the stage has)."""
    def box(name: str, values: np.ndarray, color: str) -> dict:
        q1, median, q3 = (float(q) for q in np.percentile(values, [25, 50, 75])) if len(values) else (0.0, 0.0, 0.0)
        return {"type": "box", "name": name, "x": [name], "q1": [q1], "median": [median], "q3": [q3],
                "lowerfence": [float(values.min()) if len(values) else 0.0],
                "upperfence": [float(values.max()) if len(values) else 0.0],
                "marker": {"color": color}, "hoverinfo": "y"}
    return {"data": [box("S", slow, "#d62728"), box("N", normal, "#1f77b4")],
            "layout": {"title": {"text": charts.esc(metric), "font": {"size": 13}}, "height": 260, "width": 260,
                       "showlegend": False, "margin": {"l": 50, "r": 10, "t": 36, "b": 30}, "template": None}}


def mix_figure(stages: list[dict], n_topics: int) -> dict:
    """Each stage's mix of ensemble topics, one stacked bar per stage."""
    labels = [charts.esc(s["stage"], 40) for s in stages][::-1]
    mixes = [{t["topic"]: t["weight"] for t in s["topics"]} for s in stages][::-1]
    data = [{"type": "bar", "orientation": "h", "name": f"topic {topic}", "y": labels,
             "x": [mix.get(topic, 0.0) for mix in mixes], "marker": {"color": charts.PALETTE[topic % len(charts.PALETTE)]},
             "hovertemplate": f"%{{y}}<br>topic {topic}: %{{x:.2f}}<extra></extra>"}
            for topic in range(n_topics) if any(topic in mix for mix in mixes)]
    return {"data": data, "layout": {
        "title": {"text": "Topic mix per stage", "font": {"size": 14}}, "barmode": "stack", "template": None,
        "height": max(240, 60 + 22 * len(stages)), "margin": {"l": 60, "r": 20, "t": 40, "b": 40},
        "xaxis": {"title": {"text": "weight"}, "range": [0, 1]}, "yaxis": {"automargin": True}}}


def _listed(parts: list[str]) -> str:
    return ", ".join(parts) if parts else show.MISSING  # a stage too small to learn has no topics


def stage_rows(stages: list[dict], page: str) -> list[dict]:
    """The stages table's cells as text, joined here: the same table rendered with a Jinja loop per
    cell list took 16 ms of thread CPU a request for 250 stages (two thirds of it attribute lookups
    and loop contexts), and 10 clients on one server make latency about ten times that."""
    rows = []
    for s in linked(stages, page, "stage", "stage"):
        rows.append({"url": s["url"], "stage": s["stage"], "name": s["name"],
                     "stragglers": f"{s['stragglers']} of {s['tasks']}", "later": number(s["slowdown_s"], 2),
                     "causes": stragglers.straggler_causes(s, 3),
                     "topics": _listed([f"{t['topic']} {number(t['weight'], 2)}" for t in s["topics"]]),
                     "expert": stragglers.expert_verdict(s["expert"], shares=False)})
    return rows


@bp.get("/analysis/<aid>/stragglers")
def page(aid: str):
    a = analysis_or_404(aid)
    threshold = threshold_arg()
    result = _analysed(a, threshold)
    query = request.args.get("query") or None
    if result is None:
        return still_computing(render_template("stragglers.html", a=a, result=None, query=query, threshold=threshold),
                               True, status=200)
    stages = [s for s in result["stages"] if query is None or s["query"] == query]
    victims = READER.run("find_victim", {"analysis": aid, "text": query}) if query is not None and not stages else []
    if query is not None and not stages and not any(v["exact"] for v in victims):
        abort(404, f"no query {query[:120]!r} in analysis {aid!r}")
    chosen = request.args.get("stage") or None
    stage = next((s for s in result["stages"] if s["stage"] == chosen), None)
    if chosen is not None and stage is None:
        abort(404, f"no stage with stragglers {chosen[:120]!r} in analysis {aid!r}")
    figs = {}
    slowest = sorted((s for s in stages if s["topics"]), key=lambda s: -s["slowdown_s"])[:MIX_STAGES]
    if slowest and result["topics"]:
        figs["mix"] = mix_figure(slowest, len(result["topics"]))
    boxes, tasks = [], None
    if stage is not None and stage["causes"]:
        home, threshold = current_app.config["SETTINGS"].home, result["threshold"]
        tasks = computed(a, ("straggler-stage", chosen, threshold), stragglers.stage_tasks, a, chosen, threshold, home)
    if tasks is not None:
        slow = tasks["straggler"].to_numpy()
        for cause in stage["causes"][:BOXES]:
            metric = cause["metric"]
            # An amount of data is drawn with its records beside it (shown, not learned: stragglers.records_beside).
            for column, title in ((metric, stragglers.cause_text(cause)),
                                  (stragglers.records_beside(metric), stragglers.records_beside(metric))):
                if column is not None:
                    values, name = tasks[column].to_numpy(dtype=float), f"box-{len(boxes)}"
                    figs[name] = box_figure(title, values[slow], values[~slow])
                    boxes.append(name)
    computing = stage is not None and bool(stage["causes"]) and tasks is None
    rows = stage_rows(stages, url_for(".page", aid=aid, query=query, threshold=threshold))
    page = render_template("stragglers.html", a=a, result=result, rows=rows,
                           stage=stage, query=query, threshold=threshold, figs=figs, boxes=boxes, computing=computing,
                           expert=stragglers.expert_verdict(stage["expert"]) if stage else None)
    return still_computing(page, computing, status=200)

"""The stragglers page (Hound, paper 002): the workload's ensemble topics with their words, each
stage's causes, topic mix and expert verdict, and for one stage a box plot per cause metric of its
stragglers against its normal tasks (the paper's Fig. 7). The causes stored in the graph at load,
read by the service function ``protoxplore stragglers`` uses, and cached with the analysis; the box
plots read the chosen stage's tasks from the saved trace."""
from __future__ import annotations

import numpy as np
from flask import Blueprint, abort, current_app, render_template, request

from .. import service
from . import charts
from .db import READER
from .views import analysis_or_404, cached

bp = Blueprint("stragglers", __name__)

#: Cause metrics drawn for the chosen stage, strongest first.
BOXES = 4
#: Stages in the mix chart (the slowest first): a bar each.
MIX_STAGES = 40


def _analysed(a: dict) -> dict:
    """``service.stragglers`` of the analysis at the threshold of the settings."""
    settings = current_app.config["SETTINGS"]
    return cached(a, ("stragglers",), lambda: service.stragglers(READER, a, settings.home, settings.straggler_threshold))


def _stage_tasks(a: dict, stage_key: str, threshold: float):
    """The chosen stage's successful tasks with their features and straggler flag (the features of
    the whole trace: concurrency on a host counts every application's tasks)."""
    from ..loader import hound
    trace, _ = service.saved_trace(a, current_app.config["SETTINGS"].home)
    features = hound.task_features(trace)
    return hound.stragglers(features[features["stage_key"] == stage_key], threshold)


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


@bp.get("/analysis/<aid>/stragglers")
def page(aid: str):
    a = analysis_or_404(aid)
    result = _analysed(a)
    query = request.args.get("query") or None
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
    boxes = []
    if stage is not None and stage["causes"]:
        tasks = cached(a, ("straggler-stage", chosen), lambda: _stage_tasks(a, chosen, result["threshold"]))
        for cause in stage["causes"][:BOXES]:
            metric = cause["metric"]
            name = f"box-{len(boxes)}"
            values = tasks[metric].to_numpy(dtype=float)
            figs[name] = box_figure(f"{metric}({cause['sign']}) {cause['weight']:.2f}",
                                    values[tasks["straggler"].to_numpy()], values[~tasks["straggler"].to_numpy()])
            boxes.append(name)
    return render_template("stragglers.html", a=a, result=result, stages=stages, stage=stage, query=query,
                           figs=figs, boxes=boxes)

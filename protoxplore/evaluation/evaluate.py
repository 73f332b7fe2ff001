"""How right is the blame? Each method's culprit ranking against measured ground truth.

Ground truth (paper 000 Sec. 5.1.1): the victim's speedup when one other query is eliminated
from the schedule. A scenario directory holds the event log(s) of the full schedule and a
``truth.json``; ``evaluate_dir`` scores every method on every scenario, ``simulated_sweep`` does
the same on random workloads of ``synth``'s simulator (by default its rich generator: pipelined
phases, skew, locality waits and FAIR weights; not the replay's model), whose counterfactuals are
re-simulated.

Per scenario and method: top-1 (only where the true leader leads the second by at least 5% of the
victim's runtime; closer leads are reported as ties, not scored), Spearman over the candidates,
and for the method that predicts seconds (counterfactual) the error of its predicted speedup for
the true top culprit, relative to the measured one. Speedups are compared as fractions of the
victim's runtime: the logged run and the elimination runs need not be equally warm.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from protoxplore.evaluation import synth
from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs import trace as trace_mod
from protoxplore.loader.model import baselines, protograph


def spearman(scores: dict[str, float], truth: dict[str, float]) -> float:
    """Rank correlation between a method's culprit scores and the measured speedups (NaN if undefined)."""
    keys = sorted(truth)
    if len(keys) < 2:
        return float("nan")
    a = pd.Series([scores.get(k, 0.0) for k in keys]).rank()
    b = pd.Series([truth[k] for k in keys]).rank()
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


#: Methods whose scores are predicted speedups in seconds (scored for their error too).
PREDICTS_SECONDS = ("counterfactual",)
#: The true leader must lead the second by this share of the victim's runtime for a top-1 to count.
CLEAR_LEAD = 0.05


def method_scores(trace: trace_mod.Trace, graph, victim_query: str, options: protograph.Options) -> dict[str, pd.Series]:
    """Culprit-query scores (seconds) of every method for one victim, keyed by query key."""
    out = {"protograph": baselines.protograph_scores(graph, victim_query),
           "protograph-offered-slots": baselines.offered_slots(trace, victim_query, options)}
    for name, method in baselines.RANKERS.items():
        out[name] = method(trace, victim_query, options)
    return out


def score_scenario(trace, graph, truth: dict, options: protograph.Options) -> list[dict]:
    """One row per method: top-1 hit (None for a near tie), Spearman and, for methods that
    predict seconds, the relative error of the predicted speedup of the true top culprit.

    ``truth``: ``victim.description``, ``speedups_s`` (measured, by culprit description),
    ``true_top_culprit`` and ``runtime_s`` (the victim's measured runtime, the base of the tie
    rule and of speedup fractions; else ``speedups_pct_of_base`` gives the fractions).
    """
    described = dict(zip(trace.queries["query_key"], trace.queries["description"]))
    victim = [k for k, d in described.items() if d == truth["victim"]["description"]]
    if len(victim) != 1:
        raise ValueError(f"scenario {truth.get('scenario')}: victim {truth['victim']['description']!r} "
                         f"matches {len(victim)} queries in the logs")
    speedups = {d: float(s) for d, s in truth["speedups_s"].items()}
    runtime = float(truth["runtime_s"])
    leads = sorted(speedups.values(), reverse=True) + [0.0, 0.0]
    # A victim with no candidate (it ran alone) has no top-1 to score.
    clear = bool(speedups) and leads[0] - leads[1] >= CLEAR_LEAD * runtime
    top_true = truth["true_top_culprit"]
    measured_fraction = (0.0 if top_true is None else truth["speedups_pct_of_base"][top_true] / 100
                         if "speedups_pct_of_base" in truth else speedups[top_true] / runtime)
    q = trace.queries.set_index("query_key").loc[victim[0]]
    logged_runtime = float(q["end"] - q["start"]) if q["end"] == q["end"] and q["start"] == q["start"] else runtime
    rows = []
    for method, scores in method_scores(trace, graph, victim[0], options).items():
        by_description = {described.get(k, k): float(v) for k, v in scores.items() if described.get(k, k) in speedups}
        top = max(by_description, key=by_description.get) if by_description and max(by_description.values()) > 0 else None
        error = float("nan")
        if method in PREDICTS_SECONDS and measured_fraction > 0:
            error = abs(by_description.get(top_true, 0.0) / logged_runtime - measured_fraction) / measured_fraction
        rows.append({"scenario": truth.get("scenario", "?"), "method": method, "top_culprit": top,
                     "true_top_culprit": top_true, "top1": (top == top_true) if clear else None,
                     "spearman": spearman(by_description, speedups), "speedup_error": error})
    return rows


def evaluate_dir(directory: Path, options: protograph.Options = protograph.Options(), say=print) -> pd.DataFrame:
    """Score every scenario under ``directory`` (each a folder with logs and truth.json)."""
    scenarios = sorted(p.parent for p in Path(directory).glob("*/truth.json"))
    if not scenarios:
        raise FileNotFoundError(f"no scenario (a folder with truth.json) under {directory}")
    rows = []
    for folder in scenarios:
        truth = json.loads((folder / "truth.json").read_text())
        truth.setdefault("scenario", folder.name)
        truth.setdefault("runtime_s", truth["runtimes_s"]["BASE"])
        logs = [p for p in sorted(folder.iterdir()) if p.name != "truth.json" and not p.name.endswith(".md")]
        trace = trace_mod.read_trace(eventlog.discover(logs), warn=lambda m: None)
        graph = protograph.build(trace, options)
        rows += score_scenario(trace, graph, truth, options)
        say(f"scored {folder.name}")
    return pd.DataFrame(rows)


GENERATORS = {"rich": synth.rich_workload, "fluid": synth.random_workload}


def simulated_sweep(n: int, seed: int = 0, say=print, generator: str = "rich") -> pd.DataFrame:
    """``n`` random workloads: victim = the query slowed most by the others; truth by re-simulation.

    ``generator``: ``rich`` (default: pipelined phases, skew, locality waits, and FAIR weights that
    the logs do not record (the replay can only estimate them from the schedule): none of it the
    replay's model, so that it cannot grade itself) or ``fluid`` (the plain model).
    """
    rng = np.random.default_rng(seed)
    make = GENERATORS[generator]
    rows = []
    with tempfile.TemporaryDirectory(prefix="pxsweep") as tmp:
        for i in range(n):
            queries, cluster = make(rng, int(rng.integers(3, 7)), span_s=10.0)
            policy = "FIFO" if rng.random() < 0.3 else "FAIR"
            base = synth.simulate(queries, cluster, policy)
            alone = [synth.simulate([q], cluster, policy).query_runtime(0) for q in queries]
            victim = int(np.argmax([base.query_runtime(q) / alone[q] for q in range(len(queries))]))
            speedups = {}
            for j, q in enumerate(queries):
                if j == victim:
                    continue
                rest = synth.without(queries, j)
                runtime = synth.simulate(rest, cluster, policy).query_runtime(rest.index(queries[victim]))
                speedups[q.description] = base.query_runtime(victim) - runtime
            truth = {"scenario": f"sim-{i}", "victim": {"description": queries[victim].description},
                     "speedups_s": speedups, "true_top_culprit": max(speedups, key=speedups.get),
                     "runtime_s": base.query_runtime(victim)}
            path = synth.write_event_log(base, cluster, Path(tmp) / f"sim-{i}",
                                         spark_properties={"spark.scheduler.mode": policy})
            trace = trace_mod.read_trace(eventlog.discover([path]), warn=lambda m: None)
            options = protograph.Options()
            rows += score_scenario(trace, protograph.build(trace, options), truth, options)
            if (i + 1) % 25 == 0:
                say(f"simulated {i + 1}/{n} scenarios")
    return pd.DataFrame(rows)


def _count(results: pd.DataFrame, rows: pd.Series) -> pd.Series:
    """Per method, how many of ``results`` the mask ``rows`` selects (0 where none)."""
    return results[rows].groupby("method").size().reindex(results["method"].unique(), fill_value=0)


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per method: scenarios, clear-lead scenarios, top-1 hits and rate over those, ties and
    scenarios without a candidate (not scored), mean Spearman, and the median relative error of
    predicted speedups."""
    grouped = results.groupby("method")
    scored = results[results["top1"].notna()].groupby("method")["top1"]
    table = pd.DataFrame({"scenarios": grouped.size(), "clear_lead": scored.size(),
                          "top1_hits": scored.sum().astype(int), "top1_rate": scored.mean().astype(float),
                          "ties": _count(results, results["top1"].isna() & results["true_top_culprit"].notna()),
                          "no_candidate": _count(results, results["true_top_culprit"].isna()),
                          "mean_spearman": grouped["spearman"].mean(),
                          "median_speedup_error": grouped["speedup_error"].median()})
    order = [m for m in (*baselines.METHODS[:2], "protograph-offered-slots", *baselines.METHODS[2:]) if m in table.index]
    return table.loc[order]

"""Hound's answers (paper 002) for an analysis: stragglers per stage, their causes and the expert
baseline's verdict, read from what the load stored when it can be, and in words."""
from __future__ import annotations

import math

from protoxplore.loader.stragglers.expert import CLEAR_SHARE
from protoxplore.service import catalog
from protoxplore.service.catalog import analyses, analysis_row, is_window
from protoxplore.show import number


def of_analysis(db, analysis: dict, home, threshold: float, stage_key: str | None = None) -> dict:
    """Hound's stragglers, causes, expert verdicts and topics (the shape of ``hound.analyse``) of an
    analysis, a task straggling above ``threshold`` x its stage median; only ``stage_key`` if given.

    What the load stored in the graph when it was at that threshold (a time window: its parent's),
    with the topics learned from the stored profiles; else (another threshold, an analysis loaded
    before the graph held them, or stored with other features) Hound again on the saved trace."""
    from protoxplore.loader.stragglers import hound  # scikit-learn: imported when Hound is asked, not by every command

    owner = analysis
    if is_window(analysis):
        owner = analysis_row(analyses(db), analysis["parent"]) or analysis
    stored = owner.get("straggler_threshold")
    if stored is not None and math.isclose(stored, threshold):
        rows = db.run("straggler_stages", {"analysis": owner["id"]})
        # Each learned stage stored with this version's features (an older load stored none, or others).
        current = all(tuple(r["features"]) == hound.FEATURES if r["features"] else not any(r["causes"]) for r in rows)
        known = stage_key is None or any(r["stage"] == stage_key for r in rows)
        if current and known:
            return hound.workload([_stored_stage(row) for row in rows], stored, stage_key=stage_key)
    trace, _ = catalog.saved_trace(analysis, home)
    return hound.analyse(trace, threshold=threshold, stage_key=stage_key)


def _stored_stage(row: dict) -> dict:
    """One stage of ``hound.analyse``'s result from its row of ``straggler_stages``."""
    from protoxplore.loader.stragglers import hound  # (see of_analysis)

    order = {feature: i for i, feature in enumerate(hound.FEATURES)}  # ties as hound.analyse lists them
    causes = sorted((c for c in row["causes"] if c), key=lambda c: (-c["weight"], order.get(c["metric"], len(order))))
    features = row["features"] or []
    expert = {"causes": [{"metric": m, "share": v} for m, v in zip(row["expert_metrics"] or [], row["expert_shares"] or [])],
              "cause": row["expert_cause"], "agrees": hound.agrees(causes, row["expert_cause"])}
    return {"stage": row["stage"], "name": row["name"], "query": row["query"] or "", "tasks": row["tasks"],
            "stragglers": row["stragglers"], "median_s": row["median_s"], "slowdown_s": row["slowdown_s"],
            "straggler_hosts": dict(sorted((h["host"], h["stragglers"]) for h in row["hosts"] if h)),
            "causes": causes,
            "profiles": {learner: dict(zip(features, row[learner])) for learner in hound.LEARNERS if row[learner]},
            "topics": [], "expert": expert}


def cause_text(cause: dict) -> str:
    """One of Hound's causes of a stage's stragglers: "metric(sign) weight"."""
    return f"{cause['metric']}({cause['sign']}) {number(cause['weight'], 2)}"


def straggler_causes(stage: dict, top: int) -> str:
    """Hound's ``top`` strongest causes of a stage's stragglers (with "..." when it has more), or why
    none: too few tasks to learn from, or no cause two learners agree on."""
    causes, profiles = stage["causes"], stage["profiles"]
    if not causes:
        if not profiles:
            return "none learned (too few tasks)"
        found = any(v for profile in profiles.values() for v in profile.values())
        return "none two learners agree on" if found else "none found by any learner"
    return ", ".join(cause_text(c) for c in causes[:top]) + (", ..." if len(causes) > top else "")


def expert_verdict(expert: dict, shares: bool = True) -> str:
    """The expert baseline's verdict on one stage (paper 002's what-if rules): its clear cause, whether
    Hound's strongest cause agrees, and with ``shares`` the share of stragglers its best what-ifs make
    normal."""
    if not expert["causes"]:
        return "not clear (no what-if makes a straggler normal)" if shares else "not clear"

    best = ", ".join(f"{c['metric']} {c['share']:.0%}" for c in expert["causes"][:2])
    # Not clear: the best what-if makes under half of the stragglers normal, or two kinds tie.
    why = "" if expert["cause"] else "a tie: " if expert["causes"][0]["share"] >= CLEAR_SHARE else "under half: "
    best = f" ({why}{best} of stragglers made normal)"
    agrees = {True: " (agrees)", False: " (differs)"}.get(expert.get("agrees"), "") if expert["cause"] else ""
    return (expert["cause"] or "not clear") + agrees + (best if shares else "")


def stage_tasks(a: dict, stage_key: str, threshold: float, home):
    """The chosen stage's successful tasks with their features and straggler flag (the features of
    the whole trace: concurrency on a host counts every application's tasks)."""
    from protoxplore.loader.stragglers import hound  # (see of_analysis)

    trace, _ = catalog.saved_trace(a, home)
    features = hound.task_features(trace)
    return hound.stragglers(features[features["stage_key"] == stage_key], threshold)


def records_beside(metric: str) -> str | None:
    """The task column counting the records of an amount of data Hound learns from (``hound.RECORDS``:
    drawn beside it on the stragglers page, not learned), or None."""
    from protoxplore.loader.stragglers import hound  # (see of_analysis)

    return hound.RECORDS.get(metric)

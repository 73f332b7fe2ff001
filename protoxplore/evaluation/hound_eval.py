"""Hound on real Spark runs with stragglers of known cause: is each induced stage's dominant cause
of the kind that was induced? (paper 002 Sec. 6 compares Hound with expert diagnosis the same way.)

``truth.json`` (``workloads/stragglers.py``) names every induced stage by key with its kind of cause
(one of ``hound_expert.CAUSE``'s kinds), chosen when the workload was made. The dominant cause of a
stage, per method (from ``protoxplore stragglers --json``):

* ``hound``: the stage's strongest cause, the mean of the three learners' profiles (``causes[0]``);
* ``topics``: the strongest word of the stage's heaviest ensemble topic (Sec. 3.3);
* ``predictive``, ``dependence``, ``causal``: each learner's profile alone, its strongest entry;
* ``expert``: the expert baseline's clear cause (Ousterhout et al.'s what-if; none when not clear).

A dominant cause is right when it is of the induced kind with a ``+`` sign (the stragglers have
more of it); a stage where no straggler was found, or where the method names nothing, counts as
wrong. Usage (loads the logs into a fresh home, through the CLI):

    python -m protoxplore.evaluation.hound_eval tests/data/stragglers [tests/data/stragglers_heldout ...]

With several runs, each is scored as above, then all their induced stages together (pooled).
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pandas as pd

from protoxplore.loader.stragglers.expert import signed_kind
from protoxplore.loader.stragglers.hound import LEARNERS
from protoxplore.service import pipeline, stragglers
from protoxplore.settings import Settings
from protoxplore.storage.embedded import EmbeddedEngine
from protoxplore.storage.store import open_store

METHODS = ("hound", "topics", *LEARNERS, "expert")


def _strongest(profile: dict[str, float]) -> tuple[str, str] | None:
    """(kind, sign) of a profile's entry of largest magnitude; None when all are 0."""
    metric = max(profile, key=lambda m: abs(profile[m]), default=None)
    if metric is None or profile[metric] == 0:
        return None
    return signed_kind(metric, "+" if profile[metric] > 0 else "-")


def dominant_causes(stage: dict, topics: list[dict]) -> dict[str, tuple[str, str] | None]:
    """Method -> (kind, sign) of the dominant cause it names for one stage of ``stragglers --json``."""
    named: dict[str, tuple[str, str] | None] = {}
    top = stage["causes"][0] if stage["causes"] else None
    named["hound"] = signed_kind(top["metric"], top["sign"]) if top else None
    word = topics[stage["topics"][0]["topic"]]["words"][0]["word"] if stage["topics"] else None
    named["topics"] = signed_kind(word[:-3], word[-2]) if word else None  # "gc_s(+)" -> gc, +
    for learner in LEARNERS:
        named[learner] = _strongest(stage["profiles"].get(learner, {}))
    named["expert"] = (stage["expert"]["cause"], "+") if stage["expert"]["cause"] else None
    return named


def evaluate(result: dict, truth: dict) -> pd.DataFrame:
    """One row per (induced stage, method): the induced kind, what the method named, whether it is right,
    and the expert's clear kind (for agreement)."""
    found = {s["stage"]: s for s in result["stages"]}
    rows = []
    for induced in truth["stages"]:
        stage = found.get(induced["stage"])
        named = dominant_causes(stage, result["topics"]) if stage else dict.fromkeys(METHODS)
        for method in METHODS:
            rows.append({"stage": induced["stage"], "induced": induced["induced"], "cause": induced["cause"],
                         "method": method, "named": "".join(named[method]) if named[method] else None,
                         "right": named[method] == (induced["cause"], "+"),
                         "stragglers": stage["stragglers"] if stage else 0,
                         "expert_clear": stage["expert"]["cause"] if stage else None})
    return pd.DataFrame(rows)


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per method: induced stages, dominant cause right, and their share."""
    table = rows.groupby("method", sort=False)["right"].agg(stages="size", right="sum")
    table["share"] = (table["right"] / table["stages"]).round(2)
    return table


def agreement(rows: pd.DataFrame, method: str = "hound") -> dict:
    """On the induced stages where the expert is clear: how many ``method`` names a cause of its kind."""
    clear = rows[(rows["method"] == method) & rows["expert_clear"].notna()]
    agreeing = int((clear["named"].str[:-1] == clear["expert_clear"]).sum())
    return {"clear_stages": len(clear), "agreeing": agreeing, "share": round(agreeing / len(clear), 2) if len(clear) else None}


def score(folder: Path) -> pd.DataFrame:
    """Load one run's log into a fresh home through the CLI, print its scores, return its rows."""
    truth = json.loads((folder / "truth.json").read_text())
    home = Path(tempfile.mkdtemp(prefix="hound-eval-"))
    try:
        settings = Settings.from_env(home=home)
        settings.make_home()
        row, _ = pipeline.load(settings, pipeline.LoadRequest.of([folder / truth["log"]], settings))
        with open_store(settings) as store:
            result = stragglers.of_analysis(store, row, home, settings.straggler_threshold)
    finally:
        EmbeddedEngine(home).stop()
    rows = evaluate(result, truth)
    print(f"{folder}: {len(truth['stages'])} induced stages, {len(result['stages'])} stages with stragglers in all, "
          f"threshold {result['threshold']}")
    print(summary(rows).to_string())
    print("dominant cause right, per induced cause:")
    print(rows.pivot_table(index="induced", columns="method", values="right", aggfunc="sum", sort=False)[
        list(METHODS)].to_string())
    print(f"Hound agrees with the expert where it is clear (induced stages): {agreement(rows)}")
    print(f"  (all stages with stragglers: {result['agreement']})")
    print("what each method named:")
    print(rows.pivot(index=["induced", "stage"], columns="method", values="named")[list(METHODS)].to_string())
    return rows


def main(folders: list[Path]) -> None:
    rows = [score(folder) for folder in folders]
    if len(rows) > 1:
        pooled = pd.concat(rows)
        print(f"pooled: {len(folders)} runs, {pooled['stage'].nunique()} induced stages")
        print(summary(pooled).to_string())
        print(f"Hound agrees with the expert where it is clear (induced stages): {agreement(pooled)}")


if __name__ == "__main__":
    main([Path(a) for a in sys.argv[1:]])

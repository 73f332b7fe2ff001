"""Hound on real Spark runs with stragglers of known cause (``workloads/stragglers.py``): each
committed log loaded and explained through the CLI (``stragglers --json``), scored against its
``truth.json`` as docs/evaluation.md reports it ("Stragglers"). The runs were made on a quiet
machine. The first three runs have been looked at: the last changes (near-constant amounts not learned,
GC and deserialization at the processor's rate: docs/model.md) were decided on them, so they are
development data; the fourth and fifth runs, made after, are held out (docs/evaluation.md "Stragglers")."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from protoxplore.evaluation import hound_eval
from protoxplore.settings import Settings
from protoxplore.storage.store import open_store

from commands import printed

DATA = Path(__file__).parent / "data"
#: Every committed run: each folder tests/data/stragglers* with a truth.json (a new run is picked up
#: once committed; its figures are then pinned by adding its line to MEASURED and SLOW_EXECUTOR_NAMED).
RUNS = sorted(p.parent.name for p in DATA.glob("stragglers*/truth.json"))
#: Per run: induced stages (of 20) whose dominant cause each method gets right, and on the induced
#: stages where the expert baseline is clear, how often Hound's strongest cause is of its kind
#: (docs/evaluation.md). A change in a learner, the features or the topics moves these.
MEASURED = {
    "stragglers": ({"hound": 20, "topics": 14, "predictive": 18, "dependence": 9, "causal": 17, "expert": 16},
                   {"clear_stages": 16, "agreeing": 16, "share": 1.0}),
    "stragglers_heldout": ({"hound": 20, "topics": 12, "predictive": 16, "dependence": 10, "causal": 16, "expert": 14},
                           {"clear_stages": 14, "agreeing": 14, "share": 1.0}),
    "stragglers_heldout2": ({"hound": 20, "topics": 16, "predictive": 16, "dependence": 10, "causal": 18, "expert": 13},
                            {"clear_stages": 13, "agreeing": 13, "share": 1.0}),
    "stragglers_heldout3": ({"hound": 18, "topics": 7, "predictive": 17, "dependence": 10, "causal": 18, "expert": 14},
                            {"clear_stages": 14, "agreeing": 13, "share": 0.93}),
    "stragglers_heldout4": ({"hound": 20, "topics": 15, "predictive": 17, "dependence": 9, "causal": 18, "expert": 13},
                            {"clear_stages": 13, "agreeing": 13, "share": 1.0}),
}
#: Per run: the throttled executor's induced stages (of 4) whose strongest cause is cpu_rate(-).
SLOW_EXECUTOR_NAMED = {"stragglers": 4, "stragglers_heldout": 4, "stragglers_heldout2": 4, "stragglers_heldout3": 3,
                       "stragglers_heldout4": 4}
#: Runs where Hound misses TARGET (docs/evaluation.md "Stragglers"): none since the near-constant
#: amounts and the processor rate (docs/model.md); the second run did with the features of issue 11 point 2.
MISSES_TARGET: set[str] = set()
#: Runs where a learner alone names the induced cause as often as the ensemble: the fourth run, made
#: after the method was last changed and scored once, where the causal learner ties Hound (18 of 20).
LEARNER_TIES = {"stragglers_heldout3"}
#: The runs made after the method was last changed, each scored once as it came (docs/evaluation.md).
HELD_OUT = ("stragglers_heldout3", "stragglers_heldout4")
#: Issue 11's target: the dominant cause right for at least this share of the induced stages.
TARGET = 0.9

pytestmark = pytest.mark.slow  # the learners and topics on real runs


def _score(run: str, home) -> tuple:
    """Load one committed run through the CLI and score ``stragglers --json`` against its truth (and
    that output)."""
    folder = DATA / run
    truth = json.loads((folder / "truth.json").read_text())
    analysis = json.loads(printed("load", folder / truth["log"], "--json", "--home", home))["id"]
    result = json.loads(printed("stragglers", "--analysis", analysis, "--json", "--home", home))
    # Stages are listed by application, then stage number (stage-2 before stage-11), then attempt.
    listed = [re.fullmatch(r"(.+)/stage-(\d+)\.(\d+)", s["stage"]).groups() for s in result["stages"]]
    assert listed == sorted(listed, key=lambda k: (k[0], int(k[1]), int(k[2]))), [s["stage"] for s in result["stages"]]
    return run, hound_eval.evaluate(result, truth), analysis, home, result


@pytest.fixture(scope="module", params=RUNS)
def scored(request, home):
    return _score(request.param, home)


def test_each_learner_alone_is_below_the_ensemble_on_the_held_out_runs(home):
    """Issue 11 on the held-out runs together: each learner alone names the induced cause less often
    than their ensemble (40 stages; the causal learner ties Hound on the fourth run alone)."""
    right = sum(hound_eval.summary(_score(run, home)[1])["right"] for run in HELD_OUT)
    assert all(right[learner] < right["hound"] for learner in ("predictive", "dependence", "causal")), right.to_dict()
    assert right["hound"] >= TARGET * 20 * len(HELD_OUT), right.to_dict()


def test_measured_figures(scored):
    run, rows, _, _, _ = scored
    if run not in MEASURED:
        pytest.skip(f"{run}: no figures pinned yet (python -m protoxplore.evaluation.hound_eval tests/data/{run})")
    right, agreement = MEASURED[run]
    summary = hound_eval.summary(rows)
    assert summary["stages"].eq(20).all()
    assert summary["right"].to_dict() == right, summary
    assert hound_eval.agreement(rows) == agreement


def test_each_learner_alone_is_below_the_ensemble(scored, request):
    """Issue 11: each learner alone names the induced cause less often than their ensemble."""
    run, rows, _, _, _ = scored
    request.applymarker(pytest.mark.xfail(run in LEARNER_TIES, strict=True, reason="a learner ties: docs/evaluation.md"))
    right = hound_eval.summary(rows)["right"]
    assert all(right[learner] < right["hound"] for learner in ("predictive", "dependence", "causal")), right.to_dict()


def test_a_cause_is_one_two_learners_find(scored):
    """The ensemble's majority rule (paper 002 Sec. 2): a stage's causes are those at least two of the
    three learners find in one direction. The mean of the profiles listed write_s(+) 0.01 where the
    learners said -0.12, +0.155 and 0 (an audit of the first run's stage 18)."""
    *_, result = scored
    listed = [(s["stage"], c["metric"], c["sign"], sorted(p[c["metric"]] for p in s["profiles"].values()))
              for s in result["stages"] for c in s["causes"]]
    assert listed and all(sum((v > 0) if sign == "+" else (v < 0) for v in values) >= 2
                          for _, _, sign, values in listed), [x for x in listed if sum(
                              (v > 0) if x[2] == "+" else (v < 0) for v in x[3]) < 2][:5]


def test_dominant_cause_target(scored, request):
    run, rows, _, _, _ = scored
    request.applymarker(pytest.mark.xfail(run in MISSES_TARGET, strict=True, reason="below the target: docs/evaluation.md"))
    assert hound_eval.summary(rows).at["hound", "share"] >= TARGET


def test_a_limited_processor_is_contention_in_the_graph(scored):
    """The throttled executor's stages name cpu_rate(-): canned Cypher finds them as contention (+)."""
    run, rows, analysis, home, _ = scored
    slow = rows[(rows["method"] == "hound") & (rows["induced"] == "slow_executor")]
    named = int(slow["right"].sum())
    with open_store(Settings.from_env(home=Path(home))) as store:
        hosts = store.run("stragglers_hosts_by_cause", {"analysis": analysis, "cause": "contention", "min_weight": 0.0})
        limited = store.run_text("MATCH (c:StragglerCause {analysis: $analysis, name: 'cpu_rate(-)'})-[:EXPLAINS]->(s) "
                                 "RETURN c.cause AS cause, c.direction AS direction, count(s) AS stages", {"analysis": analysis})
    assert named == SLOW_EXECUTOR_NAMED.get(run, named) and hosts and sum(h["stages"] for h in hosts) >= named, (run, hosts)
    assert limited and (limited[0]["cause"], limited[0]["direction"]) == ("contention", "+") and limited[0]["stages"] >= named


def test_skewed_keys_are_skew_in_the_graph(scored):
    """Canned Cypher "which stages suffer from skew" finds the skewed-keys stages by their whole shuffle
    read (all 4 of each run; with the remote bytes alone, not all of the first run's: checked)."""
    run, rows, analysis, home, _ = scored
    skewed = set(rows.loc[(rows["method"] == "hound") & (rows["induced"] == "skewed_keys"), "stage"])
    with open_store(Settings.from_env(home=Path(home))) as store:
        found = {r["stage"]: r["metrics"] for r in store.run("stragglers_skewed_stages", {"analysis": analysis, "k": 50})}
    assert {s for s in skewed if "shuffle_read_bytes" in found.get(s, ())} == skewed, (run, found)

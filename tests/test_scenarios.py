"""Blame against measured ground truth on real Spark runs (tests/data/scenarios, workloads/generate.py).

Each scenario folder holds the zstd event log(s) of one real PySpark schedule with induced
contention and ``truth.json``: the victim's measured speedup when each other query is eliminated.
"""
from __future__ import annotations

import json

import pytest

from protoxplore.evaluation import evaluate
from protoxplore.loader.logs import eventlog
from protoxplore.loader.logs import trace as trace_mod
from protoxplore.loader.model import baselines, protograph, slots

from logs import FOLDERS, SCENARIOS

pytestmark = pytest.mark.slow  # real PySpark scenarios through every method


@pytest.fixture(scope="module")
def results():
    return evaluate.evaluate_dir(SCENARIOS, say=lambda m: None)


def test_the_induced_scenarios_are_all_there():
    names = {f.name for f in FOLDERS}
    assert names == {"cpu_culprit", "io_culprit", "slot_hog_fifo", "decoy", "cross_app", "finished_before",
                     "fair_resharing", "chain", "skew", "near_tie", "two_apps", "mixed_kinds", "alone"}
    candidates = {}
    for folder in FOLDERS:
        truth = json.loads((folder / "truth.json").read_text())
        assert truth["checks"]["all_descriptions_in_logs"], folder.name
        candidates[folder.name] = len(truth["speedups_s"])
    # Issue 9 point 7: at least six scenarios with three or more candidate culprits, and one alone.
    assert sum(n >= 3 for n in candidates.values()) >= 6, candidates
    assert candidates["alone"] == 0


def _row(results, folder, method):
    return results[(results.scenario == folder.name) & (results.method == method)].iloc[0]


#: Clear-lead scenarios where a method's top culprit is not the measured one (docs/evaluation.md):
#: near_tie, two identical culprits whose re-measure gave one a lead of 0.27 s (noise 0.74 s): the
#: counterfactual names the other. Strict: a fix shows up.
KNOWN_MISSES = {("near_tie", "counterfactual")}


@pytest.mark.parametrize("method", ["protograph", "counterfactual"])
@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_picks_the_true_top_culprit(results, folder, method, request):
    if (folder.name, method) in KNOWN_MISSES:
        request.applymarker(pytest.mark.xfail(strict=True, reason="known miss, see docs/evaluation.md"))
    row = _row(results, folder, method)
    if row.top1 is None:
        pytest.skip("no clear leader to pick: a near tie or no candidate (scored apart by evaluate)")
    assert row.top_culprit == row.true_top_culprit


def test_a_query_that_ran_alone_is_blamed_on_no_other_query():
    folder = SCENARIOS / "alone"
    truth = json.loads((folder / "truth.json").read_text())
    trace = trace_mod.read_trace(eventlog.discover(sorted(folder.glob("app-*"))), warn=lambda m: None)
    victim = trace.queries[trace.queries.description == truth["victim"]["description"]].query_key.iloc[0]
    assert len(trace.queries) > 1  # warm-up queries ran before it: candidates the methods must clear
    scores = baselines.protograph_scores(protograph.build(trace), victim)
    assert scores[scores.index.isin(trace.queries.query_key)].sum() == 0  # Unknown and GC are no query
    predicted = baselines.counterfactual(trace, victim, protograph.Options())
    assert (predicted.abs() < 0.05 * truth["runtimes_s"]["BASE"]).all(), predicted


def test_issue_targets_rank_and_predicted_seconds(results):
    # Issue 9's targets on real scenarios: the default ProtoGraph ranking right in every clear lead,
    # mean Spearman >= 0.8 (it and the counterfactual), and the counterfactual's predicted speedup of
    # the true culprit within 25% of the measured one (median over scenarios).
    table = evaluate.summary(results)
    assert table.loc["protograph", "top1_hits"] == table.loc["protograph", "clear_lead"] == 10, table
    assert table.loc["protograph", "mean_spearman"] >= 0.8, table
    assert table.loc["counterfactual", "mean_spearman"] >= 0.8, table
    assert table.loc["counterfactual", "median_speedup_error"] <= 0.25, table


def test_model_based_methods_beat_the_baselines(results):
    # By top-1 the default ProtoGraph leads every baseline; the counterfactual ties Blocked-Time
    # (9 of 10 each since the re-measures of 2026-11-26, docs/evaluation.md), so it is held to
    # Spearman, where both lead.
    table = evaluate.summary(results)
    for baseline in ("naive-overlap", "deep-overlap", "blocked-time"):
        assert table.loc["protograph", "top1_hits"] > table.loc[baseline, "top1_hits"], table
        assert table.loc["counterfactual", "top1_hits"] >= table.loc[baseline, "top1_hits"], table
        assert table.loc["counterfactual", "mean_spearman"] > table.loc[baseline, "mean_spearman"], table
        assert table.loc["protograph", "mean_spearman"] > table.loc[baseline, "mean_spearman"], table


def test_cross_application_culprit_is_named_with_its_application():
    folder = SCENARIOS / "cross_app"
    truth = json.loads((folder / "truth.json").read_text())
    trace = trace_mod.read_trace(eventlog.discover(sorted(folder.glob("app-*"))), warn=lambda m: None)
    assert len(trace.apps) == 2
    culprit = trace.queries[trace.queries.description == truth["true_top_culprit"]].iloc[0]
    victim = trace.queries[trace.queries.description == truth["victim"]["description"]].iloc[0]
    assert culprit.app_key != victim.app_key
    assert culprit["name"].startswith("protoxplore-cross_app-other:")


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_queries_that_finished_before_the_victim_get_no_blame(folder):
    truth = json.loads((folder / "truth.json").read_text())
    trace = trace_mod.read_trace(eventlog.discover(sorted(folder.glob("app-*"))), warn=lambda m: None)
    graph = protograph.build(trace)
    victim = trace.queries[trace.queries.description == truth["victim"]["description"]].query_key.iloc[0]
    scores = baselines.protograph_scores(graph, victim)
    described = dict(zip(trace.queries.query_key, trace.queries.description))
    before = {q["description"] for q in truth["queries"] if q["role"] == "finished_before"}
    assert before, "every scenario has warm-up queries that ran before the schedule"
    blamed = {described[k]: s for k, s in scores.items() if described.get(k) in before}
    assert all(s == 0 for s in blamed.values()), blamed


def test_stage_executor_metrics_give_memory_peaks():
    """The generator turns on spark.eventLog.logStageExecutorMetrics: per-stage peaks per executor."""
    trace = trace_mod.read_trace(eventlog.discover(sorted((SCENARIOS / "cpu_culprit").glob("app-*"))))
    staged = trace.memory[trace.memory["source"] == "stage executor metrics"]
    assert staged["stage_key"].notna().all() and set(staged["stage_key"]) <= set(trace.stages["stage_key"])
    # Stages shorter than the heartbeat report zeros: not sampled, kept as NaN, never as a 0-byte heap.
    assert staged["heap_bytes"].notna().any() and not (staged["heap_bytes"] == 0).any()
    hosts = protograph.build(trace).hosts
    assert len(hosts) == 1  # local-cluster: every executor on one host
    executors = trace.memory[trace.memory["executor"] != "driver"]  # the driver runs no task here
    assert hosts["peak_heap_bytes"].iloc[0] == executors["heap_bytes"].max()


def test_another_application_never_holds_the_victims_slots(monkeypatch):
    """Executors belong to one application: another application's queries slow the victim through
    CPU, IO and network, and take part in its slot waits only as CPU users or by slowing a holder
    (docs/model.md, SLOTS), never as holders."""
    folder = SCENARIOS / "cross_app"
    trace = trace_mod.read_trace(eventlog.discover(sorted(folder.glob("app-*"))), warn=lambda m: None)
    app_of = dict(zip(trace.queries.query_key, trace.queries.app_key))

    def across(graph):
        blame = graph.blame[~graph.blame["is_synthetic"]]
        return blame[blame["victim_query"].map(app_of) != blame["culprit_query"].map(app_of)]

    assert across(protograph.build(trace))["blame_s"].sum() > 0  # the other application does slow it
    # With the CPU share and the slowed holders' share taken out, only holders are left.
    monkeypatch.setattr(slots, "_full_and_busy", lambda *args: ({}, {}))
    monkeypatch.setattr(slots, "_pass_on", lambda blame, slowed, held, spans: blame)
    holders_only = across(protograph.build(trace))
    assert holders_only["blame_s"].sum() > 0
    assert set(holders_only["request"]) <= {"cpu", "io_read", "io_write", "network_read"}

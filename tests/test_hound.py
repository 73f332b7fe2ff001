"""Hound (paper 002) through the product: hand-made logs with stragglers of known cause, and the real logs."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from protoxplore.cli import main
from protoxplore.loader import hound

from handmade import make_log

REAL = sorted(Path(__file__).parent.joinpath("data", "eventlogs", "real").iterdir())
#: Ten tasks per stage: eight normal ones (median 10 s) and two stragglers of 30 s and 32 s.
DURATIONS = [9.0, 9.5, 10.0, 10.0, 10.0, 10.0, 10.5, 11.0, 30.0, 32.0]
#: Per-task jitter in what is not the cause, so that no feature is constant by construction.
JITTER = [0.3, 0.1, 0.5, 0.2, 0.4, 0.0, 0.35, 0.15, 0.25, 0.05]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _stage(query: str, host: str, start: float, cause: str) -> list[dict]:
    tasks = []
    for i, (duration, jitter) in enumerate(zip(DURATIONS, JITTER)):
        slow = duration > 20
        other = JITTER[(i + 3) % len(JITTER)]  # a second, independent jitter
        task = {"query": query, "host": host, "launch": start, "finish": start + duration, "cpu_s": 5.0 + jitter,
                "gc_s": 0.5 + other / 10, "read_bytes": 1e8 * (1 + other), "scan_s": 2.0 + other,
                "write_bytes": 1e7 * (1 + JITTER[(i + 6) % len(JITTER)])}
        if cause == "gc" and slow:
            task["gc_s"] *= 40  # the extra 20 s are garbage collection
        if cause == "skew" and slow:
            task["read_bytes"] *= 10  # ten times the input: data skew
            task["scan_s"] *= 10
        tasks.append(task)
    return tasks


def _analysis(capsys, home, *paths) -> str:
    code, out, err = run(capsys, "load", *paths, "--json", "--home", home)
    assert code == 0, err
    return json.loads(out)["id"]


@pytest.mark.slow  # the learners on induced stragglers
def test_induced_stragglers_name_their_cause(home, tmp_path, capsys):
    # Three stages of each cause, so that the causes recur across stages as topics.
    path = make_log(tmp_path / "stragglers.json",
                    [t for i in range(3) for t in _stage(f"gc-heavy-{i}", "h1", 100.0 * i, "gc")
                     + _stage(f"skewed-{i}", "h2", 100.0 * i, "skew")], hosts=("h1", "h2"), slots=10)
    analysis = _analysis(capsys, home, path)
    code, out, err = run(capsys, "stragglers", "--analysis", analysis, "--json", "--home", home)
    assert code == 0, err
    result = json.loads(out)
    stages = {s["name"]: s for s in result["stages"]}
    assert len(stages) == 6
    for name, stage in stages.items():
        causes = {"gc_s"} if "gc-heavy" in name else {"read_bytes", "scan_s"}
        assert (stage["tasks"], stage["stragglers"], stage["median_s"]) == (10, 2, 10.0)
        # Had the 32 s straggler run at the 10 s median, the last task would be the 11 s one.
        assert stage["slowdown_s"] == pytest.approx(21.0)
        top = stage["causes"][0]
        assert top["metric"] in causes and top["sign"] == "+", stage["causes"]
        weights = [c["weight"] for c in stage["causes"]]
        assert weights == sorted(weights, reverse=True) and sum(weights) <= 1 + 1e-9
        for learner, profile in stage["profiles"].items():
            assert sum(abs(w) for w in profile.values()) == pytest.approx(1.0), learner
            strongest = max(profile, key=lambda m: abs(profile[m]))
            assert strongest in causes and profile[strongest] > 0, (name, learner, profile)
        # The stage's dominant ensemble topic (paper 002 Sec. 3.3) is led by the induced cause.
        topic = result["topics"][stage["topics"][0]["topic"]]
        assert topic["words"][0]["word"] in {f"{c}(+)" for c in causes}, (name, result["topics"])
    assert sorted(t["dominant_coverage"] for t in result["topics"]) == [0.5, 0.5]
    code, out, _ = run(capsys, "stragglers", "--analysis", analysis, "--home", home)
    assert code == 0 and "gc_s(+)" in out and "2 of 10 tasks straggle" in out and "dominant in 50%" in out

    only = stages["stage of skewed-0"]["stage"]
    code, out, _ = run(capsys, "stragglers", "--analysis", analysis, "--stage", only, "--json", "--home", home)
    assert code == 0 and [s["stage"] for s in json.loads(out)["stages"]] == [only]
    # A threshold of 3.5 x the median (35 s) leaves no straggler.
    code, out, _ = run(capsys, "stragglers", "--analysis", analysis, "--threshold", "3.5", "--home", home)
    assert code == 0 and out.strip() == "no stragglers"


def test_bad_stage_and_threshold_are_one_line_errors(home, tmp_path, capsys):
    analysis = _analysis(capsys, home, make_log(tmp_path / "s.json", _stage("q", "h1", 0.0, "gc")))
    code, _, err = run(capsys, "stragglers", "--analysis", analysis, "--stage", "nope", "--home", home)
    assert code == 1 and "no stage 'nope'" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "stragglers", "--analysis", analysis, "--threshold", "0.9", "--home", home)
    assert code == 1 and "threshold must be above 1" in err and "0.9" in err


@pytest.mark.slow  # the learners on every real log
@pytest.mark.parametrize("log", REAL, ids=[p.name for p in REAL])
def test_real_logs_run(home, log, capsys):
    analysis = _analysis(capsys, home, log)
    code, out, err = run(capsys, "stragglers", "--analysis", analysis, "--json", "--home", home)
    assert code == 0, err
    for stage in json.loads(out)["stages"]:
        assert 0 < stage["stragglers"] < stage["tasks"] and stage["slowdown_s"] >= 0
        assert all(c["weight"] > 0 and c["metric"] in hound.FEATURES for c in stage["causes"])


def test_signed_schweizer_wolff_sign_and_scale():
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    assert hound.signed_schweizer_wolff(x, 2 * x + 1) == pytest.approx(1.0, abs=0.02)
    assert hound.signed_schweizer_wolff(x, np.exp(-x)) == pytest.approx(-1.0, abs=0.02)  # monotone, decreasing
    assert abs(hound.signed_schweizer_wolff(x, rng.normal(size=300))) < 0.2
    assert hound.signed_schweizer_wolff(np.zeros(300), x) == 0.0  # a constant says nothing


def test_large_stages_are_learned_on_a_sample_that_keeps_the_stragglers():
    rng = np.random.default_rng(1)
    stage = hound.stragglers(pd.DataFrame({
        "stage_key": "a/stage-0.0", "failed": False, "duration_s": np.r_[rng.uniform(9, 11, 4995), [40.0] * 5],
        "launch": 0.0}))
    sample = hound.learning_sample(stage, seed=7)
    assert len(sample) == hound.SAMPLE and sample["straggler"].sum() == 5 and sample.index.is_unique
    assert sample.index.equals(hound.learning_sample(stage, seed=7).index)  # repeatable


def test_signed_schweizer_wolff_matches_the_paper_formula_with_ties():
    rng = np.random.default_rng(2)
    x, y = rng.integers(0, 5, 40).astype(float), rng.integers(0, 7, 40).astype(float)
    y += x  # dependent, with many ties
    n = len(x)
    u = np.array([(x <= xi).mean() for xi in x])
    v = np.array([(y <= yj).mean() for yj in y])
    c = np.array([[((x <= xi) & (y <= yj)).mean() for yj in y] for xi in x])
    swd = 12 / (n * n - 1) * np.abs(c - np.outer(u, v)).sum()
    l1 = (np.minimum.outer(u, v) - c).mean()
    l2 = (c - np.maximum(np.add.outer(u, v) - 1, 0)).mean()
    assert l2 - l1 > 1e-3  # positive dependence
    assert hound.signed_schweizer_wolff(x, y) == pytest.approx(swd)


def test_concurrent_tasks_on_the_host_at_launch():
    tasks = pd.DataFrame({"host": ["h1", "h1", "h1", "h2", "h1"], "launch": [0.0, 5.0, 10.0, 6.0, 12.0],
                          "finish": [10.0, 15.0, 20.0, 30.0, 13.0]})
    # At 5 the first runs; at 10 the first has just finished and the second runs; at 12 two run; h2 is apart.
    assert hound.concurrent_on_host(tasks).tolist() == [0, 1, 1, 0, 2]

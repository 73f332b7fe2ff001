"""The blame sweep against hand calculations and an independent brute-force integration.

The papers' worked examples are tested through the product (event log -> load -> explain) in
``test_paper_examples.py``; here the sweep's algebra is checked on its own inputs.
"""
import numpy as np
import pandas as pd
import pytest

from protoxplore.loader.model.blame import capacity, contention_on_tasks, ratp, sweep_blame


def test_ratp_of_nothing_acquired_is_infinite():
    assert ratp(5.0, 0.0) == np.inf
    assert ratp(6.0, 3.0) == pytest.approx(2.0)


def _frames(consumers, victims):
    """Consumers (unit, start, end, stage, rate) and victims (unit, start, end, stage, blocked_rate,
    task): a victim with a task index consumes as consumers[task] over its span."""
    c = pd.DataFrame(consumers, columns=["unit", "start", "end", "stage", "rate"])
    v = pd.DataFrame(victims, columns=["unit", "start", "end", "stage", "blocked_rate", "task"])
    v["task"] = v["task"].fillna(-1).astype(int)
    v["own_rate"] = [c["rate"].iloc[t] if t >= 0 else 0.0 for t in v["task"]]
    return c, v


def test_sweep_by_hand():
    # Victim task (stage 0) on h over [0, 10), blocked 5 s (0.5 per second), reading 10 units/s itself.
    # Culprit stage 1 reads 40/s over [0, 10); culprit stage 2 reads 10/s over [0, 5).
    # [0, 5): 2.5 s blocked, others 40 + 10 = 50 -> stage1 2.5*40/50, stage2 2.5*10/50, none to itself
    # [5,10): 2.5 s blocked, others 40             -> stage1 2.5
    consumers, victims = _frames(
        [("h", 0, 10, 0, 10.0), ("h", 0, 10, 1, 40.0), ("h", 0, 5, 2, 10.0)],
        [("h", 0, 10, 0, 0.5, 0)])
    blame, unknown = sweep_blame(consumers, victims)
    got = {(r.victim_stage, r.culprit_stage): r.blame_s for r in blame.itertuples()}
    assert got == pytest.approx({(0, 1): 2.5 * 40 / 50 + 2.5, (0, 2): 2.5 * 10 / 50})
    assert unknown.empty


def test_sibling_tasks_share_the_blame_but_not_the_task_itself():
    # Two tasks of stage 0 read 10/s each over [0, 4), each blocked 2 s; stage 1 reads 20/s.
    # Task A's 2 s: others are B (10) and stage 1 (20) -> 2/3 s to stage 0 (its sibling), 4/3 s to stage 1.
    consumers, victims = _frames(
        [("h", 0, 4, 0, 10.0), ("h", 0, 4, 0, 10.0), ("h", 0, 4, 1, 20.0)],
        [("h", 0, 4, 0, 0.5, 0), ("h", 0, 4, 0, 0.5, 1)])
    blame, _ = sweep_blame(consumers, victims)
    got = {(r.victim_stage, r.culprit_stage): r.blame_s for r in blame.itertuples()}
    assert got == pytest.approx({(0, 0): 2 * 2 / 3, (0, 1): 2 * 4 / 3})


def test_a_task_alone_blames_no_one():
    consumers, victims = _frames([("h", 0, 4, 0, 10.0)], [("h", 0, 4, 0, 0.5, 0)])
    blame, unknown = sweep_blame(consumers, victims)
    assert blame.empty
    assert unknown["blame_s"].sum() == pytest.approx(2.0)
    blame, unknown = sweep_blame(consumers, victims, alone="service")
    assert blame.empty and unknown.empty


def test_sweep_unexplained_time_goes_to_unknown_and_hosts_stay_apart():
    # Blocked over [0, 4) but the only consumer runs on another host: nothing here explains it.
    consumers, victims = _frames([("other", 0, 4, 1, 5.0)], [("h", 0, 4, 0, 1.0, None)])
    blame, unknown = sweep_blame(consumers, victims)
    assert blame.empty
    assert unknown["blame_s"].sum() == pytest.approx(4.0)


def test_capacity_is_the_largest_aggregate_rate():
    consumers = pd.DataFrame({"unit": ["h", "h", "h", "g"], "start": [0, 0, 1, 0], "end": [1, 1, 2, 5],
                              "rate": [30.0, 60.0, 120.0, 7.0]})
    # 30 + 60 over [0, 1), 120 over [1, 2): touching at 1 s, never summed.
    assert capacity(consumers).to_dict() == pytest.approx({"h": 120.0, "g": 7.0})


def brute_force(consumers, victims, step=0.01):
    """Independent check: integrate the blame on a time grid, pair by pair (exact: all boundaries
    lie on the 0.01 s grid and rates are constant between them). The victim task is no culprit."""
    out, lost = {}, {}
    for v in victims.itertuples():
        for t in v.start + (np.arange(round((v.end - v.start) / step)) + 0.5) * step:
            active = consumers[(consumers.unit == v.unit) & (consumers.start <= t) & (consumers.end > t)]
            others = active.drop(index=v.task, errors="ignore")
            total = others.rate.sum()
            if total <= 1e-9:
                lost[v.stage] = lost.get(v.stage, 0.0) + v.blocked_rate * step
            for c in others.itertuples():
                key = (v.stage, c.stage)
                out[key] = out.get(key, 0.0) + v.blocked_rate * step * c.rate / total
    return out, lost


@pytest.mark.slow  # a brute-force reference
@pytest.mark.parametrize("seed", range(5))
def test_sweep_matches_brute_force_on_random_workloads(seed):
    rng = np.random.default_rng(seed)
    n = 12
    starts = rng.uniform(0, 5, n).round(2)
    ends = (starts + rng.uniform(0.5, 3, n)).round(2)
    units = rng.choice(["a", "b"], n)
    stages = rng.integers(0, 4, n)
    consumers, victims = _frames(
        list(zip(units, starts, ends, stages, rng.uniform(1, 10, n))),
        # Half the victims are the consumer tasks themselves (blocked while running), half wait apart.
        [(u, s, e, st, b, i if i % 2 else None) for i, (u, s, e, st, b) in
         enumerate(zip(units, starts, ends, stages, rng.uniform(0, 1, n)))])
    blame, unknown = sweep_blame(consumers, victims, chunk=7)  # small chunks exercise the chunk seams
    got = blame.groupby(["victim_stage", "culprit_stage"])["blame_s"].sum().to_dict()
    expected, lost = brute_force(consumers, victims)
    assert set(got) == {k for k, v in expected.items() if v > 1e-9}
    for key, value in expected.items():
        assert got.get(key, 0.0) == pytest.approx(value, rel=1e-6, abs=1e-9)
    assert unknown.groupby("victim_stage")["blame_s"].sum().to_dict() == pytest.approx(
        {k: v for k, v in lost.items() if v > 1e-9})


@pytest.mark.parametrize("seed", range(3))
def test_replay_contention_agrees_with_the_sweep(seed):
    # contention_on_tasks (the what-if's inputs): a task's blocked seconds with others present are
    # what the sweep splits among those others (summed per victim stage, the sweep's blame), and its
    # load is the others' rate over the unit's capacity integrated over its span (brute force).
    rng = np.random.default_rng(seed)
    n = 14
    starts = rng.uniform(0, 5, n).round(2)
    consumers, _ = _frames(
        list(zip(rng.choice(["a", "b"], n), starts, (starts + rng.uniform(0.5, 3, n)).round(2), rng.integers(0, 4, n),
                 rng.uniform(1, 10, n))), [])
    victims = pd.DataFrame({"unit": consumers["unit"], "start": consumers["start"], "end": consumers["end"],
                            "stage": consumers["stage"], "blocked_rate": rng.uniform(0, 1, n), "own_rate": consumers["rate"]})
    caps = capacity(consumers)
    blocked, load = contention_on_tasks(consumers, victims, caps)
    blame, _ = sweep_blame(consumers, victims)
    by_stage = pd.Series(blocked, index=victims["stage"].to_numpy()).groupby(level=0).sum()
    assert by_stage[by_stage > 1e-12].to_dict() == pytest.approx(blame.groupby("victim_stage")["blame_s"].sum().to_dict())
    for i, v in victims.iterrows():
        grid = np.linspace(v["start"], v["end"], 20001)
        mid = (grid[:-1] + grid[1:]) / 2
        same = consumers[(consumers["unit"] == v["unit"]) & (consumers.index != i)]
        others = sum(r["rate"] * ((mid >= r["start"]) & (mid < r["end"])) for _, r in same.iterrows())
        assert load[i] == pytest.approx(float(np.sum(others * np.diff(grid))) / caps[v["unit"]], rel=2e-3, abs=1e-3)

"""The papers' formulas against their own worked examples (hand calculations)."""
import numpy as np
import pandas as pd
import pytest

from protoxplore.loader.blame import blame_ratio, distribute, ratp, slowdown, sweep_blame


def test_example_3_3_slowdown_is_6():
    # Paper 001 Example 3.3: Task1 reads 30 bytes in 1 s on a 210 bytes/s disk.
    assert slowdown(ratp(1.0, 30), capacity=210) == pytest.approx(6.0)


def test_example_3_4_blames_2_and_4():
    # Paper 001 Example 3.4: full overlap (FC = 1); Task2 read 60 and Task3 120 bytes in the second.
    victim = ratp(1.0, 30)
    assert blame_ratio(1.0, victim, ratp(1.0, 60)) == pytest.approx(2.0)
    assert blame_ratio(1.0, victim, ratp(1.0, 120)) == pytest.approx(4.0)
    # Eq. 5: with the disk saturated the blames add up to the slowdown.
    assert 2.0 + 4.0 == pytest.approx(slowdown(victim, 210))


def test_figure_6_500_seconds_split_4_to_1():
    # Paper 001 Fig. 6 / Eq. 10: BC_l3 = 500 s, blames of C1:C2 = 4:1.
    assert list(distribute(500.0, [4.0, 1.0])) == pytest.approx([400.0, 100.0])
    assert list(distribute(500.0, [0.0, 0.0])) == [0.0, 0.0]


def test_ratp_of_nothing_acquired_is_infinite():
    assert ratp(5.0, 0.0) == np.inf
    assert ratp(6.0, 3.0) == pytest.approx(2.0)


def _frames(consumers, victims):
    return (pd.DataFrame(consumers, columns=["unit", "start", "end", "stage", "rate"]),
            pd.DataFrame(victims, columns=["unit", "start", "end", "stage", "blocked_rate"]))


def test_sweep_by_hand():
    # Victim stage 0: one task on h over [0, 10) blocked 5 s (0.5 per second), reading 10 units/s.
    # Culprit stage 1 reads 40/s over [0, 10); culprit stage 2 reads 10/s over [0, 5).
    # [0, 5): 2.5 s blocked, rates 10 + 40 + 10 = 60 -> stage1 2.5*40/60, stage2 2.5*10/60, own 2.5*10/60
    # [5,10): 2.5 s blocked, rates 10 + 40 = 50      -> stage1 2.5*40/50, own 2.5*10/50
    consumers, victims = _frames(
        [("h", 0, 10, 0, 10.0), ("h", 0, 10, 1, 40.0), ("h", 0, 5, 2, 10.0)],
        [("h", 0, 10, 0, 0.5)])
    blame, unknown = sweep_blame(consumers, victims)
    got = {(r.victim_stage, r.culprit_stage): r.blame_s for r in blame.itertuples()}
    assert got[(0, 1)] == pytest.approx(2.5 * 40 / 60 + 2.5 * 40 / 50)
    assert got[(0, 2)] == pytest.approx(2.5 * 10 / 60)
    assert got[(0, 0)] == pytest.approx(2.5 * 10 / 60 + 2.5 * 10 / 50)
    assert sum(got.values()) == pytest.approx(5.0)
    assert unknown.empty


def test_sweep_unexplained_time_goes_to_unknown_and_hosts_stay_apart():
    # Blocked over [0, 4) but the only consumer runs on another host: nothing here explains it.
    consumers, victims = _frames([("other", 0, 4, 1, 5.0)], [("h", 0, 4, 0, 1.0)])
    blame, unknown = sweep_blame(consumers, victims)
    assert blame.empty
    assert unknown["blame_s"].sum() == pytest.approx(4.0)


def brute_force(consumers, victims, step=0.01):
    """Independent check: integrate the blame on a time grid, pair by pair (exact: all boundaries
    lie on the 0.01 s grid and rates are constant between them)."""
    out = {}
    for v in victims.itertuples():
        for t in v.start + (np.arange(round((v.end - v.start) / step)) + 0.5) * step:
            active = consumers[(consumers.unit == v.unit) & (consumers.start <= t) & (consumers.end > t)]
            total = active.rate.sum()
            for c in active.itertuples():
                key = (v.stage, c.stage)
                out[key] = out.get(key, 0.0) + v.blocked_rate * step * c.rate / total
    return out


def test_sweep_matches_brute_force_on_random_workloads():
    rng = np.random.default_rng(7)
    for _ in range(5):
        n = 12
        starts = rng.uniform(0, 5, n).round(2)
        ends = (starts + rng.uniform(0.5, 3, n)).round(2)
        units = rng.choice(["a", "b"], n)
        stages = rng.integers(0, 4, n)
        rates = rng.uniform(1, 10, n)
        consumers, victims = _frames(
            list(zip(units, starts, ends, stages, rates)),
            [(u, s, e, st, b) for u, s, e, st, b in zip(units, starts, ends, stages, rng.uniform(0, 1, n))])
        blame, _ = sweep_blame(consumers, victims, chunk=7)  # small chunks exercise the chunk seams
        got = blame.groupby(["victim_stage", "culprit_stage"])["blame_s"].sum().to_dict()
        expected = brute_force(consumers, victims)
        assert set(got) == {k for k, v in expected.items() if v > 1e-9}
        for key, value in expected.items():
            assert got.get(key, 0.0) == pytest.approx(value, rel=1e-6, abs=1e-9)
